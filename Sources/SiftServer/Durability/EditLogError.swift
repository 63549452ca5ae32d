/// Errors thrown by ``EditLog``. Each one says in a line what went wrong and where.
package enum EditLogError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system call failed: the file or folder, the operation (`open`, `write`, `fdatasync`, …)
    /// and `strerror`'s text for `errno`.
    case io(path: String, operation: String, message: String)
    /// The log on disk is damaged in a way that is not a torn last write: a bad entry followed by
    /// good data, sequences out of order, a gap between segment files. The file, the byte offset
    /// of the damage in it, and what was found. The log refuses to open rather than guess.
    case corrupted(path: String, offset: Int, reason: String)
    /// Another ``EditLog`` (in this process or another) has the folder open.
    case locked(path: String)
    /// A payload larger than the log's limit; nothing was written.
    case payloadTooLarge(size: Int, maximum: Int)
    /// `compact(through:)` was given a sequence past the last durable one.
    case sequenceNotWritten(UInt64, last: UInt64)
    /// `entries(after:)` was asked for entries that compaction has dropped: the log now starts at
    /// sequence `oldest`, so a snapshot that covers `after` misses the edits in between.
    case compactedAway(after: UInt64, oldest: UInt64)
    /// The log was closed; nothing more can be appended or read through it.
    case closed
    /// An earlier `fdatasync` (or a write that could not be undone) failed, so what the file holds
    /// is unknown: the log takes no more appends. The message names the first failure. Reopening
    /// the folder recovers what was made durable.
    case failed(String)

    /// One line saying what went wrong, e.g.
    /// `…/edits-00000000000000000001.log at byte 4096: the edit log is corrupted: an entry whose
    /// checksum does not match, followed by a good entry (sequence 12) at byte 4200`.
    ///
    /// - Complexity: O(*n*) in the length of the message.
    package var description: String {
        switch self {
        case .io(let path, let operation, let message): return "\(path): \(operation) failed: \(message)"
        case .corrupted(let path, let offset, let reason):
            return "\(path) at byte \(offset): the edit log is corrupted: \(reason)"
        case .locked(let path): return "\(path): the edit log is already open in another server"
        case .payloadTooLarge(let size, let maximum):
            return "an edit of \(size) bytes is larger than the edit log's limit of \(maximum) bytes"
        case .sequenceNotWritten(let sequence, let last):
            return "cannot compact through sequence \(sequence): the log ends at \(last)"
        case .compactedAway(let after, let oldest):
            return "the edit log no longer holds the edits after \(after): it starts at sequence \(oldest)"
        case .closed: return "the edit log is closed"
        case .failed(let message): return "the edit log stopped taking edits after a failed write: \(message)"
        }
    }
}
