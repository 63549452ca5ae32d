/// What a ``ServerRecordStore`` answers for an edit it made durable: the server's answer to
/// `POST`, `PUT` or `DELETE /records` (`{"sequence": 14, "upserted": 2, "visible": true}`).
public struct ServerEditReceipt: Sendable, Equatable {
    /// The edit's place in the store's order of changes (for PostgreSQL, the change log's
    /// sequence of its last change): the shared index shows the edit once it has applied this
    /// sequence.
    public var sequence: UInt64
    /// How many records the edit inserted, replaced or deleted.
    public var count: Int
    /// Whether the shared index showed the edit when the store answered; false when the store's
    /// bounded wait for it ended first (the edit is durable all the same, and shows later).
    public var visible: Bool

    /// A receipt.
    public init(sequence: UInt64, count: Int, visible: Bool) {
        self.sequence = sequence
        self.count = count
        self.visible = visible
    }
}
