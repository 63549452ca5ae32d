internal import Dispatch
internal import Foundation
import SiftStorage
internal import Synchronization

/// An append-only log of edits on disk: an edit is acknowledged only once it is written and
/// `fdatasync`ed, and concurrent appends share one write and one `fdatasync` (group commit).
///
/// The log stores opaque payloads numbered by a sequence (1, 2, 3, …). The server appends each
/// batch of edits here and acknowledges it once ``append(_:)`` returns, saves a snapshot of the
/// index now and then, and calls ``compact(through:)`` once the snapshot is durable; on start it
/// loads the snapshot and replays ``entries(after:)``.
///
/// `fdatasync` rather than `fsync`: it flushes the data and the file's size, what reading the
/// entries back needs, and skips the timestamps.
///
/// The log is a folder: a `lock` file (locked with `fcntl`, keeping a second log out) and segment
/// files `edits-<first sequence>.log`. Every entry carries its sequence, its length and a CRC-32C;
/// opening the log checks all of them (see ``init(directory:maximumPayloadBytes:)``).
///
/// The files are written by a thread of the log's own, so that no Swift concurrency thread waits
/// for a disk: `append` suspends until its entry is durable.
///
/// ```swift
/// let log = try EditLog(directory: dataDirectory + "/log")
/// if let note = log.recovery { print(note) }
/// for entry in try await log.entries(after: snapshotSequence) { try apply(entry.payload) }
/// let sequence = try await log.append(encodedBatch)  // durable now
/// ```
package final class EditLog: Sendable {
    /// One entry of the log.
    package struct Entry: Sendable, Hashable {
        /// The entry's number: 1 for the first entry ever appended, then consecutive.
        package var sequence: UInt64
        /// What was appended.
        package var payload: [UInt8]

        /// An entry with this sequence and payload.
        ///
        /// - Complexity: O(1).
        package init(sequence: UInt64, payload: [UInt8]) {
            self.sequence = sequence
            self.payload = payload
        }
    }

    /// What opening the log cut off: a torn last write, left by a crash during a write that was
    /// never acknowledged. The server logs it and carries on.
    package struct RecoveryNote: Sendable, Hashable, CustomStringConvertible {
        /// The segment file that was truncated.
        package var path: String
        /// Where in the file the damage is (the file was cut at the start of the torn write, at or
        /// before this offset).
        package var offset: Int
        /// How many bytes were cut off the end of the file.
        package var droppedBytes: Int
        /// Whole entries of the torn write that came before the damage and were dropped with it
        /// (0 when the write held one entry).
        package var droppedEntries: Int
        /// What was found at `offset`, e.g. `a partial entry (20 of 96 bytes)`.
        package var reason: String

        /// One line for the server's log.
        ///
        /// - Complexity: O(*n*) in the length of the path and the reason.
        package var description: String {
            let entries = droppedEntries == 0 ? "" : " (with \(droppedEntries) whole entries of the same write)"
            return "\(path): dropped a torn last write of \(droppedBytes) bytes\(entries): \(reason) "
                + "at byte \(offset); it was never acknowledged"
        }
    }

    /// Counts of the log's writes since it was opened.
    package struct Statistics: Sendable, Hashable {
        /// Writes, each one `write` and one `fdatasync`.
        package var writes = 0
        /// Entries written (more than `writes` when appends shared writes).
        package var entries = 0
        /// The most entries one write held.
        package var largestWrite = 0
        /// Seconds spent writing: encoding, `write` and `fdatasync`.
        package var syncSeconds = 0.0
        /// The longest of those writes, in seconds.
        package var slowestSyncSeconds = 0.0
    }

    /// The payload limit when none is given: 64 MiB.
    package static let defaultMaximumPayloadBytes = 64 << 20

    /// The folder the log lives in.
    package let directory: String
    /// The largest payload ``append(_:)`` takes.
    package let maximumPayloadBytes: Int
    /// What opening the log cut off, if anything (see ``RecoveryNote``).
    package let recovery: RecoveryNote?

    private let core: Core

    /// Opens the log in `directory`, creating the folder if it is missing, and recovers it.
    ///
    /// Opening reads every entry and checks its checksum and sequence. A torn last write (the
    /// newest segment ends in a partial entry, a bad checksum or a write with entries missing, and
    /// nothing good follows but entries of that same write) was never acknowledged: the file is
    /// truncated to the last whole write and ``recovery`` says what was dropped. Any other damage
    /// (a bad entry followed by good data, sequences out of order, a missing segment) throws
    /// ``EditLogError/corrupted(path:offset:reason:)`` naming the file and byte offset.
    ///
    /// It blocks while it reads the log: call it while the server starts, before it serves.
    ///
    /// - Parameters:
    ///   - directory: The log's folder, used by no one else.
    ///   - maximumPayloadBytes: The largest payload ``append(_:)`` takes, kept within 0...1 GiB.
    /// - Throws: `locked` when another log (in this process or another) has the folder open;
    ///   `corrupted`; `io`.
    /// - Complexity: O(*n*) in the size of the log on disk.
    package init(directory: String, maximumPayloadBytes: Int = defaultMaximumPayloadBytes) throws(EditLogError) {
        let store = try EditLogStore(directory: directory)
        self.directory = directory
        self.maximumPayloadBytes = min(max(0, maximumPayloadBytes), EditLogFormat.maximumPayloadBytes)
        recovery = store.recovery
        core = Core(lastSequence: store.nextSequence - 1, byteCount: store.byteCount)
        let thread = Thread { [core] in core.run(store) }
        thread.name = "EditLog writer"
        thread.start()
    }

    /// Closes the log if ``close()`` was not called, waiting for its thread to close the files.
    deinit {
        // Every pending request holds the log, so the writer thread is idle or finishing its last
        // bookkeeping: the wait is short. The thread holds `core`, never the log, so this never
        // runs on it.
        if core.enqueue(.close(nil)) { core.finished.wait() }
    }

    /// The sequence of the last durable entry (0 when the log has never held one).
    ///
    /// - Complexity: O(1).
    package var lastSequence: UInt64 { core.state.withSanitizerVisibleLock { $0.lastSequence } }

    /// Bytes of log on disk, all segments together.
    ///
    /// - Complexity: O(1).
    package var byteCount: Int { core.state.withSanitizerVisibleLock { $0.byteCount } }

    /// Counts of the writes since the log was opened.
    ///
    /// - Complexity: O(1).
    package var statistics: Statistics { core.state.withSanitizerVisibleLock { $0.statistics } }

    /// Appends a payload and returns its sequence once it is written and `fdatasync`ed.
    ///
    /// Sequences are given in call order, continuing after the last one on disk, and entries are
    /// written in sequence order. Appends that arrive while a write is under way go out together
    /// in the next write and `fdatasync`. Cancelling the calling task does not withdraw an append.
    ///
    /// - Throws: ``EditLogError``: `payloadTooLarge` (nothing written); `io` when the write fails
    ///   (the log stays usable); `failed` once an `fdatasync` has failed (the log takes no more
    ///   appends; reopen it); `closed`.
    /// - Complexity: O(*n*) in the payload's size, plus a share of a write and an `fdatasync`.
    package func append(_ payload: [UInt8]) async throws -> UInt64 {
        guard payload.count <= maximumPayloadBytes else {
            throw EditLogError.payloadTooLarge(size: payload.count, maximum: maximumPayloadBytes)
        }
        return try await withCheckedThrowingContinuation { continuation in
            if !core.enqueue(.append(payload, continuation)) { continuation.resume(throwing: core.refusal()) }
        }
    }

    /// The entries after `sequence`, in order: what to replay after loading a snapshot that covers
    /// everything through `sequence`. Empty when `sequence` is ``lastSequence`` or later. It reads
    /// on the log's thread, between writes: appends wait while it reads.
    ///
    /// - Throws: ``EditLogError``: `compactedAway` when compaction dropped entries after
    ///   `sequence`; `corrupted` when a file was damaged since the log was opened; `io`; `closed`.
    /// - Complexity: O(*n*) in the size of the segments that hold entries after `sequence`.
    package func entries(after sequence: UInt64) async throws -> [Entry] {
        try await withCheckedThrowingContinuation { continuation in
            if !core.enqueue(.entries(sequence, continuation)) { continuation.resume(throwing: core.refusal()) }
        }
    }

    /// Drops what a durably saved snapshot covers, everything through `sequence`: starts a new
    /// segment if the newest one holds entries through `sequence`, then deletes every segment that
    /// holds only such entries. Entries after `sequence` stay; entries before it may stay too,
    /// when they share a segment with later ones.
    ///
    /// - Throws: ``EditLogError``: `sequenceNotWritten` when `sequence` is past ``lastSequence``;
    ///   `io`; `closed`.
    /// - Complexity: O(*s*) in the number of segments, plus a folder `fsync` per file created or
    ///   deleted.
    package func compact(through sequence: UInt64) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            if !core.enqueue(.compact(sequence, continuation)) { continuation.resume(throwing: core.refusal()) }
        }
    }

    /// Finishes the appends already made, closes the files and releases the folder, so that it
    /// can be opened again. Later calls throw ``EditLogError/closed``; closing twice is harmless.
    ///
    /// - Complexity: O(1), after the pending appends.
    package func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !core.enqueue(.close(continuation)) { continuation.resume() }
        }
    }
}

/// The state that callers and the writer thread share, and the writer thread's loop.
private final class Core: Sendable {
    enum Request {
        case append([UInt8], CheckedContinuation<UInt64, any Error>)
        case entries(UInt64, CheckedContinuation<[EditLog.Entry], any Error>)
        case compact(UInt64, CheckedContinuation<Void, any Error>)
        case close(CheckedContinuation<Void, Never>?)
    }

    struct State {
        /// Requests the writer thread has not taken yet, in call order.
        var pending: [Request] = []
        /// The writer thread found nothing to do and waits for `wake`.
        var writerIdle = false
        /// `close()` was called: only `close` requests are taken.
        var closing = false
        /// The writer thread has ended.
        var finished = false
        /// Why appends are refused (a failed `fdatasync`), if they are.
        var failure: EditLogError?
        var lastSequence: UInt64
        var byteCount: Int
        var statistics = EditLog.Statistics()
    }

    /// The most bytes one write gathers (a single larger payload still goes out alone).
    static let writeLimit = 16 << 20

    let state: Mutex<State>
    /// Signalled once for each time the writer thread went idle and new requests came.
    let wake = DispatchSemaphore(value: 0)
    /// Signalled when the writer thread ends.
    let finished = DispatchSemaphore(value: 0)

    init(lastSequence: UInt64, byteCount: Int) {
        state = Mutex(State(lastSequence: lastSequence, byteCount: byteCount))
    }

    /// Queues a request for the writer thread; `false` when it is refused (see ``refusal()``).
    /// A `close` is refused only when the thread has already ended.
    func enqueue(_ request: Request) -> Bool {
        let (accepted, wakeWriter) = state.withSanitizerVisibleLock { state -> (Bool, Bool) in
            if case .close = request {
                guard !state.finished else { return (false, false) }
                state.closing = true
            } else if state.closing || state.failure != nil {
                return (false, false)
            }
            state.pending.append(request)
            let wakeWriter = state.writerIdle
            state.writerIdle = false
            return (true, wakeWriter)
        }
        if wakeWriter { wake.signal() }
        return accepted
    }

    /// Why a request was refused.
    func refusal() -> EditLogError {
        state.withSanitizerVisibleLock { $0.failure ?? .closed }
    }

    /// The writer thread: takes the requests in order, gathers consecutive appends into one write,
    /// and ends after a `close`.
    func run(_ store: EditLogStore) {
        var appends: [(payload: [UInt8], continuation: CheckedContinuation<UInt64, any Error>)] = []
        var closers: [CheckedContinuation<Void, Never>] = []
        var running = true
        while running {
            let requests = state.withSanitizerVisibleLock { state -> [Request] in
                if state.pending.isEmpty { state.writerIdle = true }
                defer { state.pending = [] }
                return state.pending
            }
            if requests.isEmpty {
                wake.wait()
                continue
            }
            var bytes = 0
            for request in requests {
                switch request {
                case .append(let payload, let continuation):
                    if !appends.isEmpty && bytes + payload.count > Self.writeLimit { write(&appends, store) }
                    if appends.isEmpty { bytes = 0 }
                    appends.append((payload, continuation))
                    bytes += EditLogFormat.headerSize + payload.count
                case .entries(let sequence, let continuation):
                    write(&appends, store)
                    continuation.resume(with: Result { () throws(EditLogError) in try store.entries(after: sequence) })
                case .compact(let sequence, let continuation):
                    write(&appends, store)
                    let result = Result { () throws(EditLogError) in try store.compact(through: sequence) }
                    let byteCount = store.byteCount
                    state.withSanitizerVisibleLock { $0.byteCount = byteCount }
                    continuation.resume(with: result)
                case .close(let continuation):
                    write(&appends, store)
                    running = false
                    if let continuation { closers.append(continuation) }
                }
            }
            write(&appends, store)
        }
        store.shutDown()
        // Requests that came after the first `close` can only be more `close`s.
        let late = state.withSanitizerVisibleLock { state -> [Request] in
            state.finished = true
            defer { state.pending = [] }
            return state.pending
        }
        for case .close(let continuation?) in late { closers.append(continuation) }
        for closer in closers { closer.resume() }
        finished.signal()
    }

    /// Writes the gathered appends as one write and resumes their callers.
    private func write(
        _ appends: inout [(payload: [UInt8], continuation: CheckedContinuation<UInt64, any Error>)],
        _ store: EditLogStore
    ) {
        guard !appends.isEmpty else { return }
        defer { appends.removeAll(keepingCapacity: true) }
        let start = ContinuousClock.now
        let result = Result { () throws(EditLogError) in try store.append(appends.map(\.payload)) }
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let count = appends.count
        let (lastSequence, byteCount) = (store.nextSequence - 1, store.byteCount)
        state.withSanitizerVisibleLock { state in
            state.lastSequence = lastSequence
            state.byteCount = byteCount
            if state.failure == nil, let failure = store.failure { state.failure = failure }
            guard case .success = result else { return }
            state.statistics.writes += 1
            state.statistics.entries += count
            state.statistics.largestWrite = max(state.statistics.largestWrite, count)
            state.statistics.syncSeconds += seconds
            state.statistics.slowestSyncSeconds = max(state.statistics.slowestSyncSeconds, seconds)
        }
        switch result {
        case .success(let first):
            for (index, append) in appends.enumerated() { append.continuation.resume(returning: first + UInt64(index)) }
        case .failure(let error):
            for append in appends { append.continuation.resume(throwing: error) }
        }
    }
}
