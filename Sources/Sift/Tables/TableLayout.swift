/// How a table orders its rows and whether it groups them into alphabetic sections.
///
/// A sectioned table groups its rows by the ICU AlphabeticIndex bucket of their sort field (see
/// `SearchIndex.sectionTitles`), shows only non-empty sections, in bucket order, and keeps the
/// table's order within each section. An unsectioned table has exactly one section, without a
/// title, even when it has no rows.
public struct TableLayout: Hashable, Sendable {
    /// The order of the rows (within each section when sectioned). For the original table,
    /// `.original` or `.sorted`; for the results table, the queries' order.
    public var order: ResultOrder
    /// Whether rows are grouped into sections titled by the AlphabeticIndex labels.
    public var isSectioned: Bool

    /// A layout; the default is one section in original order.
    public init(order: ResultOrder = .original, isSectioned: Bool = false) {
        self.order = order
        self.isSectioned = isSectioned
    }
}
