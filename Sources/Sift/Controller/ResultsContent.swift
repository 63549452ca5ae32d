/// What the results table holds, which decides how an edited record is re-evaluated for it.
package enum ResultsContent: Hashable, Sendable {
    /// Nothing (inactive, or below the threshold with the `.empty` policy).
    case empty
    /// Every record (below the threshold with the `.originalList` policy).
    case allRecords
    /// The matches of a query, in its order.
    case matches(Query)

    /// The query whose matches are shown, if any.
    package var query: Query? {
        if case .matches(let query) = self { return query }
        return nil
    }
}
