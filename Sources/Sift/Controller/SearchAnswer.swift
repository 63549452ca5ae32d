/// A source's answer to a query: the matching records in result order, and badge counts.
public struct SearchAnswer: Sendable {
    /// The matching records, in result order, as handles of the controller's index. Handles the
    /// index no longer has (records deleted meanwhile) and repeated handles are left out.
    ///
    /// - Complexity: O(1), or O(*m*) the first time for the rows of a local search that keeps
    ///   them as bitsets (see `SearchResult.rows`).
    public var rows: [RecordHandle] {
        get { resultRows.handles }
        set { resultRows = ResultRows(newValue) }
    }
    /// The rows, maybe not made yet.
    var resultRows: ResultRows
    /// Match counts by scope name, for the scope buttons' badges; a scope without a count shows
    /// no badge.
    public var scopeCounts: [String: Int]
    /// The index revision the answer was computed at, when it comes from the controller's own
    /// index: if the index changed while the answer was on its way, the controller asks again.
    /// nil for answers that come from elsewhere.
    public var revision: UInt64?

    /// An answer from its parts.
    public init(rows: [RecordHandle], scopeCounts: [String: Int] = [:], revision: UInt64? = nil) {
        self.init(resultRows: ResultRows(rows), scopeCounts: scopeCounts, revision: revision)
    }

    /// An answer whose rows may not be made yet.
    init(resultRows: ResultRows, scopeCounts: [String: Int], revision: UInt64?) {
        self.resultRows = resultRows
        self.scopeCounts = scopeCounts
        self.revision = revision
    }

    /// The answer of a local search.
    public init(_ result: SearchResult) {
        var counts: [String: Int] = [:]
        for scope in result.scopeCounts { counts[scope.scope] = scope.count }
        self.init(resultRows: result.resultRows, scopeCounts: counts, revision: result.revision)
    }

    /// An answer given as record ids, as a remote service returns them; ids the index does not
    /// have are left out.
    ///
    /// - Complexity: O(*m*) for *m* ids.
    public init(ids: [String], in index: SearchIndex, scopeCounts: [String: Int] = [:]) {
        self.init(rows: ids.compactMap { index.handle(forID: $0) }, scopeCounts: scopeCounts)
    }
}
