public import Sift

/// One request's edits to the records (`POST`, `PUT` or `DELETE /records`), applied all or
/// nothing: written to the edit log as one entry, or handed to a ``ServerRecordStore`` as one
/// transaction.
public enum ServerEdit: Hashable, Sendable {
    /// New records; none of their ids may exist.
    case insert([Record])
    /// Records that replace those with their ids, or are added.
    case upsert([Record])
    /// The ids of records to delete; each must exist.
    case delete([String])

    /// How many records the edit names.
    ///
    /// - Complexity: O(1).
    public var count: Int {
        switch self {
        case .insert(let records), .upsert(let records): return records.count
        case .delete(let ids): return ids.count
        }
    }

    /// The ids the edit names, in its order.
    ///
    /// - Complexity: O(*k*) for *k* records.
    public var ids: [String] {
        switch self {
        case .insert(let records), .upsert(let records): return records.map(\.id)
        case .delete(let ids): return ids
        }
    }

    /// Refuses an edit that names one id twice, naming the second place (`[3].id` for a
    /// record, `[3]` for an id to delete): what can be checked without the records.
    ///
    /// - Complexity: O(*k*) set insertions for *k* records.
    func checkDistinctIDs() throws(ProtocolError) {
        var seen = Set<String>()
        let isDelete = if case .delete = self { true } else { false }
        for (i, id) in ids.enumerated() where !seen.insert(id).inserted {
            throw .badRequest("id '\(id)' appears twice in the batch", field: isDelete ? "[\(i)]" : "[\(i)].id")
        }
    }
}
