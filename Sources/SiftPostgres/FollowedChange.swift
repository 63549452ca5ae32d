public import Sift

/// One change a follower applies to its index: a row as it is now, a row gone, or the table
/// emptied.
public enum FollowedChange: Sendable, Equatable {
    /// The row with this record's id exists now with these values: insert or replace it.
    case upsert(Record)
    /// No row has this id any more.
    case delete(id: String)
    /// The table was truncated.
    case removeAll
}
