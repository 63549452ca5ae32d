import Sift

extension SearchService {
    /// Makes an edit durable where edits go: the record store, or the edit journal (checked
    /// against the index first, then applied in the log's order).
    ///
    /// - Returns: what the answer says: the sequence, the count and whether the index shows it.
    /// - Throws: `ProtocolError` when the edit is refused, or `unavailable` when nothing takes
    ///   edits (no data directory and no store) or the store or log cannot now.
    func submit(_ edit: ServerEdit) async throws(ProtocolError) -> ServerEditReceipt {
        if let store {
            // The store is the source of truth: only what needs no records is checked here.
            try edit.checkDistinctIDs()
            do {
                return try await store.submit(edit)
            } catch {
                throw error.protocolError
            }
        }
        guard let journal else {
            throw .unavailable("edits need a data directory (--data-dir) so that they are durable; none was given")
        }
        // Refused at once when it cannot apply now; checked again, in log order, once durable.
        try await shared.checkBatch(edit)
        let (sequence, count) = try await journal.submit(edit)
        return ServerEditReceipt(sequence: sequence, count: count, visible: true)
    }

    /// The records the index holds now. With a record store its follower edits the index
    /// without the server's knowing, so the count is read again from the index first.
    func currentRecordCount() async -> Int {
        if store != nil { await recountRecords() }
        return recordCount
    }

    /// The sequence of the last edit the index shows: the store's applied sequence, or the one
    /// the index's metadata records.
    func appliedSequence() async -> UInt64 {
        if let store { return await store.statistics().appliedSequence }
        return await shared.appliedSequence
    }
}
