import Sift

extension SharedSearchIndex {
    /// The key of the index's metadata that holds the sequence of the last edit applied.
    static let sequenceKey = "sift.serve.sequence"

    /// Whether the batch can be applied to the index as it is now: ids unique in the batch, new
    /// ones absent, deleted ones present.
    ///
    /// - Complexity: O(*k*) id lookups for *k* records.
    func check(_ batch: ServerEdit) throws(ProtocolError) {
        var seen = Set<String>()
        switch batch {
        case .insert(let records), .upsert(let records):
            for (i, record) in records.enumerated() {
                guard seen.insert(record.id).inserted else {
                    throw .badRequest("id '\(record.id)' appears twice in the batch", field: "[\(i)].id")
                }
                if case .insert = batch, read({ $0.handle(forID: record.id) }) != nil {
                    throw .conflict("a record with id '\(record.id)' exists (PUT replaces it)", field: "[\(i)].id")
                }
            }
        case .delete(let ids):
            for (i, id) in ids.enumerated() {
                guard seen.insert(id).inserted else {
                    throw .badRequest("id '\(id)' appears twice in the batch", field: "[\(i)]")
                }
                guard read({ $0.handle(forID: id) }) != nil else {
                    throw .notFound("no record has id '\(id)'", field: "[\(i)]")
                }
            }
        }
    }

    /// Applies a batch that the edit log holds as entry `sequence`: all of it, or none of it when
    /// `check(_:)` refuses it (the same answer on every replay, since batches are applied in
    /// sequence order).
    ///
    /// - Complexity: per record, that of an edit of the shared index (`insert(_:at:)`).
    func apply(_ batch: ServerEdit, sequence: UInt64) -> Result<Int, ProtocolError> {
        read { $0.metadata[Self.sequenceKey] = String(sequence) }
        do {
            try check(batch)
        } catch {
            return .failure(error)
        }
        do {
            switch batch {
            case .insert(let records):
                for record in records { try insert(record) }
            case .upsert(let records):
                for record in records {
                    if read({ $0.handle(forID: record.id) }) != nil { try update(record) } else { try insert(record) }
                }
            case .delete(let ids):
                for id in ids { try remove(id: id) }
            }
        } catch {
            return .failure(.badRequest("the index refused an edit: \(error)"))
        }
        return .success(batch.count)
    }

    /// The sequence of the last edit the index holds (0: none).
    var appliedSequence: UInt64 { read { $0.metadata[Self.sequenceKey].flatMap(UInt64.init) ?? 0 } }
}
