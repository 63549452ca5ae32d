/// One section of a table: its title and its rows.
public struct TableSection: Hashable, Sendable {
    /// The ICU AlphabeticIndex label of the section (`"A"`, `"Ñ"`, `"…"`), or nil in an
    /// unsectioned table.
    public let title: String?
    /// The position of `title` in the table's `sectionIndexTitles`, or nil in an unsectioned table.
    public var sectionIndexTitlePosition: Int? { title == nil ? nil : Int(key) }
    /// The section's rows, in the table's order.
    public internal(set) var rows: [TableRow]
    /// The bucket of the section's rows, or 0 in an unsectioned table.
    let key: Int32

    init(key: Int32, title: String?, rows: [TableRow]) {
        self.key = key
        self.title = title
        self.rows = rows
    }
}
