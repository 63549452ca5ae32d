/// A row's place in a table: its section and its row within the section, as UIKit's `IndexPath`
/// addresses a table view cell.
public struct TableIndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The section, from 0.
    public var section: Int
    /// The row within the section, from 0.
    public var row: Int

    /// The path of `row` in `section`.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// Section first, then row: the order rows appear in a table.
    public static func < (a: TableIndexPath, b: TableIndexPath) -> Bool {
        (a.section, a.row) < (b.section, b.row)
    }

    /// `[section, row]`, as `IndexPath` prints.
    public var description: String { "[\(section), \(row)]" }
}
