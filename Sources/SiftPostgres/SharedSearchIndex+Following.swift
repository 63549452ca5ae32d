public import Sift

extension SharedSearchIndex {
    /// The key of the index's metadata that holds the last change log sequence applied (saved in
    /// snapshots, so that a restarted follower catches up from there).
    public static let postgresSequenceKey = "sift.postgres.sequence"

    /// The last change log sequence the index holds (0: none).
    public var followedSequence: UInt64 {
        read { $0.metadata[Self.postgresSequenceKey].flatMap(UInt64.init) ?? 0 }
    }

    /// Applies changes read from PostgreSQL, as ordinary edits (every controller gets change
    /// sets), then records `sequence` as applied. A new id is inserted where its id falls in the
    /// index's order (records are kept in id order, as a fresh load reads them); an upsert that
    /// changes nothing is skipped; a delete of an id the index lacks is nothing to do.
    ///
    /// - Returns: how many records were inserted, updated and deleted.
    /// - Complexity: per change, that of one edit plus O(log *n*) id reads to place an insert.
    @discardableResult
    public func applyFollowed(
        _ changes: [FollowedChange],
        through sequence: UInt64,
        precedes: (String, String) -> Bool
    ) throws -> (inserted: Int, updated: Int, deleted: Int) {
        var counts = (inserted: 0, updated: 0, deleted: 0)
        for change in changes {
            switch change {
            case .upsert(let record):
                let existing: Record? = read { index in
                    index.handle(forID: record.id).flatMap { try? index.record($0) }
                }
                if let existing {
                    guard existing != record else { continue }
                    try update(record)
                    counts.updated += 1
                } else {
                    let position = read { index in Self.insertionPosition(of: record.id, in: index, precedes: precedes)
                    }
                    try insert(record, at: position)
                    counts.inserted += 1
                }
            case .delete(let id):
                guard read({ $0.handle(forID: id) }) != nil else { continue }
                try remove(id: id)
                counts.deleted += 1
            case .removeAll:
                let ids: [String] = read { index in index.handles().compactMap { try? index.id(of: $0) } }
                for id in ids { try remove(id: id) }
                counts.deleted += ids.count
            }
        }
        read { $0.metadata[Self.postgresSequenceKey] = String(sequence) }
        return counts
    }

    /// Makes the index hold exactly `records` (in id order), by edits: what differs is updated,
    /// what is missing inserted, what is gone deleted. For a follower that must reload.
    ///
    /// - Complexity: O(*n* + *m*) record reads and comparisons, plus one edit per difference.
    @discardableResult
    public func replaceFollowed(
        with records: [Record],
        through sequence: UInt64,
        precedes: (String, String) -> Bool
    ) throws -> (inserted: Int, updated: Int, deleted: Int) {
        var wanted = Set<String>()
        wanted.reserveCapacity(records.count)
        for record in records { wanted.insert(record.id) }
        let stale: [String] = read { index in
            index.handles().compactMap { handle in
                guard let id = try? index.id(of: handle), !wanted.contains(id) else { return nil }
                return id
            }
        }
        var changes = stale.map { FollowedChange.delete(id: $0) }
        changes.reserveCapacity(changes.count + records.count)
        for record in records { changes.append(.upsert(record)) }
        return try applyFollowed(changes, through: sequence, precedes: precedes)
    }

    /// Where a record with `id` goes so that the original order stays in id order: the first
    /// position whose id does not precede it (binary search; assumes the order holds).
    static func insertionPosition(of id: String, in index: SearchIndex, precedes: (String, String) -> Bool) -> Int {
        var low = 0
        var high = index.count
        while low < high {
            let middle = (low + high) / 2
            guard let handle = try? index.handle(at: middle), let other = try? index.id(of: handle) else {
                return index.count
            }
            if precedes(other, id) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
