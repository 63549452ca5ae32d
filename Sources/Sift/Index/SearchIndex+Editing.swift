extension SearchIndex {
    /// Inserts a record at a position of the original list (at the end when `position` is nil).
    ///
    /// - Returns: The new record's handle.
    /// - Throws: `SiftError.duplicateID`, `.positionOutOfRange`, or an ICU failure; the index is
    ///   unchanged when it throws.
    /// - Complexity: O(*s*) in the size of the record's search fields, plus O(*n*) array moves
    ///   for a position before the end.
    @discardableResult
    public func insert(_ record: Record, at position: Int? = nil) throws(SiftError) -> RecordHandle {
        let position = position ?? count
        guard position >= 0, position <= count else { throw .positionOutOfRange(position, count: count) }
        let slot = try store(record)
        insertIntoOrder(slot, at: position)
        return handle(ofSlot: slot)
    }

    /// Appends records in order.
    ///
    /// - Throws: on the first record that cannot be inserted; the records before it stay inserted.
    /// - Complexity: O(*s*) in the total size of the records' search fields.
    public func insert(contentsOf records: [Record]) throws(SiftError) {
        for record in records { try insert(record) }
    }

    /// Deletes a record.
    ///
    /// - Throws: `SiftError.staleHandle` when it was already deleted.
    /// - Complexity: O(*s*) in the record's size, plus O(*n*) array moves.
    public func remove(_ handle: RecordHandle) throws(SiftError) {
        let slot = try resolve(handle)
        let position = try self.position(of: handle)
        _ = removeFromOrder(at: position)
        discard(slot)
    }

    /// Deletes the record with this id.
    ///
    /// - Throws: `SiftError.unknownRecord` when there is none.
    public func remove(id: String) throws(SiftError) {
        guard let handle = handle(forID: id) else { throw .unknownRecord(id: id) }
        try remove(handle)
    }

    /// Replaces the record that has `record.id`, keeping its position. Old handles to it become stale.
    ///
    /// - Returns: The updated record's new handle.
    /// - Throws: `SiftError.unknownRecord` when no record has that id.
    /// - Complexity: O(*s*) in the size of the old and new record.
    @discardableResult
    public func update(_ record: Record) throws(SiftError) -> RecordHandle {
        guard let old = handle(forID: record.id) else { throw .unknownRecord(id: record.id) }
        let position = try self.position(of: old)
        let oldRecord = try self.record(old)
        try remove(old)
        do {
            return try insert(record, at: position)
        } catch {
            try insert(oldRecord, at: position)  // folding the old record again cannot fail differently
            throw error
        }
    }

    /// Moves the record at `source` so that it ends up at `destination` in the original list.
    ///
    /// - Throws: `SiftError.positionOutOfRange`.
    /// - Complexity: O(*n*) array moves.
    public func move(from source: Int, to destination: Int) throws(SiftError) {
        guard source >= 0, source < count else { throw .positionOutOfRange(source, count: count) }
        guard destination >= 0, destination < count else { throw .positionOutOfRange(destination, count: count) }
        guard source != destination else { return }
        let slot = removeFromOrder(at: source)
        insertIntoOrder(slot, at: destination)
        bumpRevision()
    }
}
