/// What an index searches and how: fields, collation, scopes and sorting.
public struct IndexConfiguration: Hashable, Sendable {
    /// The fields folded for searching, in display order.
    public var searchFields: [String]
    /// The index's collation (scopes may override it).
    public var collation: Collation
    /// Scope buttons, in order. Defaults to a single scope "All" over every search field.
    public var scopes: [Scope]
    /// Field whose collation order `ResultOrder.sorted` and the sections use; nil means the first
    /// search field.
    public var sortField: String?
    /// Number of (field, pattern) results kept for narrowing and instant backspace.
    public var cacheCapacity: Int

    public init(
        searchFields: [String], collation: Collation = Collation(), scopes: [Scope] = [Scope(name: "All")],
        sortField: String? = nil, cacheCapacity: Int = 64
    ) {
        self.searchFields = searchFields
        self.collation = collation
        self.scopes = scopes
        self.sortField = sortField
        self.cacheCapacity = cacheCapacity
    }
}
