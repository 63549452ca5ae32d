/// A scope button of the search bar: its name, its threshold and its badge.
public struct ScopeButton: Hashable, Sendable {
    /// The scope's name (see `Scope.name`).
    public var name: String
    /// The scope's minimum query length.
    public var minimumLength: Int
    /// How many records the scope matches for the query the results table shows; nil when no
    /// answered query is shown or the source did not count this scope (for instance when the
    /// text is too short for it).
    public var count: Int?

    /// A button from its parts.
    public init(name: String, minimumLength: Int, count: Int?) {
        self.name = name
        self.minimumLength = minimumLength
        self.count = count
    }
}
