import Foundation
import Sift

/// Makes edits durable before they are acknowledged: each batch is appended to the edit log
/// (fsynced, with group commit), then applied to the shared index in the log's order, and the log
/// is compacted into a new snapshot in the background once it grows past a size.
///
/// On start, `open(directory:shared:)` replays the entries after the snapshot's sequence.
actor EditJournal {
    /// The snapshot file inside the data directory.
    static let snapshotName = "index.sift"

    let log: EditLog
    let directory: String
    private let shared: SharedSearchIndex
    private let compactionBytes: Int
    /// The last sequence applied to the index.
    private(set) var applied: UInt64
    /// Appends waiting for their turn to be applied, by sequence.
    private var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
    /// Set when the log failed: later edits are refused.
    private var failure: String?
    private var compacting = false
    /// The log's size when the latest snapshot was taken: compaction starts again once the log
    /// has grown by the threshold since (what a snapshot covers may stay in a segment that also
    /// holds later entries).
    private var bytesAtSnapshot = 0

    /// Opens the log in `directory` and replays what the shared index (loaded from the snapshot,
    /// or built from the data file) does not hold yet.
    ///
    /// - Returns: the journal, and how many entries were replayed.
    static func open(
        directory: String,
        shared: SharedSearchIndex,
        compactionBytes: Int
    ) async throws -> (journal: EditJournal, replayed: Int) {
        let log = try EditLog(directory: directory)
        let start = await shared.appliedSequence
        var replayed = 0
        for entry in try await log.entries(after: start) {
            let batch = try ServerEdit(payload: entry.payload)
            // A batch refused when it was live is refused again the same way: nothing to do.
            _ = await shared.apply(batch, sequence: entry.sequence)
            replayed += 1
        }
        let applied = await shared.appliedSequence
        let journal = EditJournal(
            log: log,
            directory: directory,
            shared: shared,
            compactionBytes: compactionBytes,
            applied: max(applied, start)
        )
        return (journal, replayed)
    }

    private init(log: EditLog, directory: String, shared: SharedSearchIndex, compactionBytes: Int, applied: UInt64) {
        self.log = log
        self.directory = directory
        self.shared = shared
        self.compactionBytes = compactionBytes
        self.applied = applied
    }

    /// Makes a batch durable, then applies it.
    ///
    /// - Returns: the batch's sequence and how many records it changed.
    /// - Throws: `ProtocolError` when the index refuses the batch (it stays in the log, refused
    ///   again on replay), or `unavailable` when the log cannot be written.
    func submit(_ batch: ServerEdit) async throws(ProtocolError) -> (sequence: UInt64, count: Int) {
        if let failure { throw .unavailable("edits are refused since the edit log failed: \(failure)") }
        let sequence: UInt64
        do {
            sequence = try await log.append(batch.payload)
        } catch {
            failure = String(describing: error)
            for continuation in waiting.values { continuation.resume() }
            waiting = [:]
            throw .unavailable("the edit log could not be written: \(error)")
        }
        // Apply in the log's order: wait for the batch before this one.
        if sequence > applied + 1 {
            await withCheckedContinuation { waiting[sequence] = $0 }
        }
        let outcome = await shared.apply(batch, sequence: sequence)
        applied = max(applied, sequence)
        waiting.removeValue(forKey: sequence + 1)?.resume()
        compactIfWorthwhile()
        switch outcome {
        case .success(let count): return (sequence, count)
        case .failure(let error): throw error
        }
    }

    /// Waits for the writes in flight and closes the log (edits after this are refused).
    func close() async {
        failure = failure ?? "the server is stopping"
        await log.close()
    }

    /// A line on standard error, the server's log.
    private static func warn(_ message: String) {
        FileHandle.standardError.write(Data("sift serve: warning: \(message)\n".utf8))
    }

    /// Bytes of log on disk.
    var logBytes: Int { log.byteCount }

    /// Saves a snapshot of the index (with the sequence it holds) and drops the log entries it
    /// covers, in the background, once the log is larger than the threshold.
    private func compactIfWorthwhile() {
        guard !compacting, log.byteCount - bytesAtSnapshot >= compactionBytes else { return }
        compacting = true
        Task { await self.compact() }
    }

    /// Writes a new snapshot and drops the log it covers.
    ///
    /// The snapshot is written while the index holds still (on its executor), to a temporary
    /// file renamed over the old one; the log is compacted only after that.
    func compact() async {
        let path = directory + "/" + Self.snapshotName
        let saved: Result<UInt64, any Error> = await shared.read { index in
            do {
                try index.save(to: path)
                return .success(index.metadata[SharedSearchIndex.sequenceKey].flatMap(UInt64.init) ?? 0)
            } catch {
                return .failure(error)
            }
        }
        switch saved {
        case .success(let sequence):
            do {
                try await log.compact(through: sequence)
                bytesAtSnapshot = log.byteCount
            } catch {
                Self.warn("the edit log could not be compacted (the next edits try again): \(error)")
            }
        case .failure(let error):
            Self.warn("the snapshot \(path) could not be saved (the next edits try again): \(error)")
        }
        compacting = false
    }
}
