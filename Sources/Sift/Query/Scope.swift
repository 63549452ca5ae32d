/// A named restriction of what a query searches: a scope button in a search bar.
///
/// ```swift
/// let scopes = [
///     Scope(name: "All"),                                     // every search field
///     Scope(name: "Name", fields: ["name", "ascii_name"]),
///     Scope(name: "Europe", filter: .init(field: "continent_code", values: ["EU"])),
///     Scope(name: "Code", fields: ["country_code"], minimumLength: 2),
/// ]
/// ```
public struct Scope: Hashable, Sendable {
    /// A category restriction: the record's value of `field` must be one of `values` (exact,
    /// case-sensitive string equality, as categories are codes rather than text).
    public struct Filter: Hashable, Sendable {
        /// The field holding the category (searched or not).
        public var field: String
        /// The values a record's `field` may have to be in the scope.
        public var values: Set<String>

        /// A filter that keeps the records whose `field` is one of `values`.
        public init(field: String, values: Set<String>) {
            self.field = field
            self.values = values
        }
    }

    /// The name shown on the scope button; unique within an index.
    public var name: String
    /// Fields searched; nil means all of the index's search fields.
    public var fields: [String]?
    /// Optional category restriction.
    public var filter: Filter?
    /// Collation for this scope; nil means the index's collation.
    public var collation: Collation?
    /// Minimum query length, in user-perceived characters (grapheme clusters). A shorter,
    /// non-empty query answers `.tooShort(needed:)` instead of searching.
    public var minimumLength: Int

    /// A scope; by default it searches every search field of the index, with the index's
    /// collation, from the first character typed.
    public init(
        name: String,
        fields: [String]? = nil,
        filter: Filter? = nil,
        collation: Collation? = nil,
        minimumLength: Int = 1
    ) {
        self.name = name
        self.fields = fields
        self.filter = filter
        self.collation = collation
        self.minimumLength = minimumLength
    }
}
