import Foundation
import PostgresNIO
public import Sift
import SiftStorage
import Synchronization

/// Follows a table: applies every change committed to it, in commit order, to a shared index,
/// as ordinary edits (so every open session receives change sets).
///
/// It listens for `NOTIFY sift_changes` and catches up at once; it also polls, so a lost
/// notification delays a change but never drops it. Each catch-up reads, in one `REPEATABLE
/// READ` transaction, the change log after the last applied sequence and the current rows of the
/// ids it names (a row no longer there is a delete), applies them, and records the new position
/// in the index's metadata (and so in its snapshots) and in `sift.followers` (so that pruning
/// keeps what this follower still needs). Applying a row's current values is idempotent: a
/// change applied twice, after a crash between applying and recording, changes nothing.
///
/// A lost connection or a restarted server: it reconnects with backoff (0.1 s doubling to 5 s),
/// catches up, and says so in ``status`` and its log. A change log pruned past its position: a
/// full reload, announced in the log, never a silent gap. A dropped table or a refused query:
/// the error is logged and retried; the index keeps serving what it has.
public actor PostgresFollower {
    /// What the follower is doing and has done, for `/stats` and logs.
    public struct Status: Sendable, Equatable {
        /// `starting`, `following`, `catching up`, `reloading`, `reconnecting` or `stopped`.
        public var state = "starting"
        /// The last sequence applied to the index.
        public var applied: UInt64 = 0
        /// The highest sequence seen in the change log.
        public var latest: UInt64 = 0
        /// Connections lost (and reconnected).
        public var reconnects = 0
        /// Full reloads after the change log was pruned past this follower.
        public var reloads = 0
        /// Changes (log entries) applied since start.
        public var changesApplied = 0
        /// The last error, as a line; nil once caught up again.
        public var lastError: String?
    }

    public let table: PostgresTable
    /// The follower's name in `sift.followers`.
    public let name: String
    private let location: PostgresLocation
    private let shared: SharedSearchIndex
    private let pollInterval: Duration
    private let gatherInterval: Duration
    private let stallTimeout: Duration
    /// When the follower last finished a step (a catch-up, a wait): what the watchdog checks.
    private var lastProgress = ContinuousClock.now
    /// Which connection the follower uses now (see ``follow(on:)``).
    private var epoch = 0
    private let batchSize: Int
    private let log: @Sendable (String) -> Void
    public private(set) var status = Status()
    private let wakeup = Wakeup()
    /// Callers of ``waitUntilApplied(_:timeout:)``, by the sequence they wait for.
    private var waiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    private var lastRecorded: ContinuousClock.Instant?
    /// Called after each applied batch (snapshots).
    private var onApplied: (@Sendable (UInt64) async -> Void)?

    /// A follower of `table` for `shared`, which holds the table's rows up to the sequence in its
    /// metadata (``SharedSearchIndex/followedSequence``).
    ///
    /// - Parameters:
    ///   - name: this follower's name in `sift.followers` (unique per process that follows the table).
    ///   - pollInterval: how often the log is read without a notification.
    ///   - gatherInterval: how long a woken follower lets further changes arrive before it reads
    ///     the log, so that a burst of small transactions is read and applied as one batch
    ///     rather than one round of queries each (less work for PostgreSQL and for the index's
    ///     executor, which searches wait on; the cost is that much added latency).
    ///   - stallTimeout: how long a query may go unanswered before the connection is given up
    ///     and a new one made (a connection the server dropped can otherwise wait for ever).
    ///   - batchSize: the most log entries one transaction reads.
    ///   - log: receives one line per event worth telling (reconnects, reloads, errors).
    public init(
        location: PostgresLocation,
        table: PostgresTable,
        name: String,
        shared: SharedSearchIndex,
        pollInterval: Duration = .seconds(1),
        gatherInterval: Duration = .zero,
        stallTimeout: Duration = .seconds(30),
        batchSize: Int = 10_000,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.location = location
        self.table = table
        self.name = name
        self.shared = shared
        self.pollInterval = pollInterval
        self.gatherInterval = gatherInterval
        self.stallTimeout = stallTimeout
        self.batchSize = max(1, batchSize)
        self.log = log
    }

    /// Sets what runs after each applied batch, with the applied sequence (e.g. a snapshot).
    public func setOnApplied(_ body: @escaping @Sendable (UInt64) async -> Void) { onApplied = body }

    /// Follows until the task is cancelled.
    public func run() async {
        status.applied = await shared.followedSequence
        var backoff: Duration = .milliseconds(100)
        while !Task.isCancelled {
            do {
                let connection = try await location.connect()
                defer { Task { try? await connection.close() } }
                if status.state == "reconnecting" { log("reconnected to \(location); catching up") }
                backoff = .milliseconds(100)
                try await follow(on: connection)
            } catch is CancellationError {
                break
            } catch {
                if Task.isCancelled { break }
                let line = PostgresSourceError.describe(error)
                if status.state != "reconnecting" || status.lastError != line {
                    log("\(table.qualifiedName): \(line); retrying in \(backoff)")
                }
                if status.state != "reconnecting" { status.reconnects += 1 }
                status.state = "reconnecting"
                status.lastError = line
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        status.state = "stopped"
        for waiter in waiters { waiter.continuation.resume() }
        waiters = []
    }

    /// Listens and catches up on one connection until it fails.
    ///
    /// The listener and the catch-up loop run in tasks of their own, watched from here: on a
    /// connection the server dropped, a postgres-nio query or notification sequence may never
    /// end, even once the connection is closed, and a task group would wait for it for ever. A
    /// step that stalls, a listener that stops or a failed catch-up gives up the connection; a
    /// task still waiting on it is abandoned, and its connection's epoch keeps it from applying
    /// anything should it ever resume.
    private func follow(on connection: PostgresConnection) async throws {
        epoch += 1
        let epoch = self.epoch
        let wakeup = self.wakeup
        let listenerStopped = Flag()
        let failure = ErrorBox()
        markProgress()
        let listener = Task {
            defer {
                listenerStopped.set()
                wakeup.signal()
            }
            try await connection.listen(on: ChangeLog.channel) { notifications in
                for try await _ in notifications { wakeup.signal() }
            }
        }
        let catchingUp = Task {
            do {
                while !Task.isCancelled {
                    self.markProgress()
                    try await self.catchUp(on: connection, epoch: epoch)
                    self.markProgress()
                    await wakeup.wait(upTo: self.pollInterval)
                    if self.gatherInterval > .zero { try await Task.sleep(for: self.gatherInterval) }
                }
            } catch {
                failure.set(error)
            }
        }
        defer {
            listener.cancel()
            catchingUp.cancel()
        }
        while true {
            try await Task.sleep(for: .milliseconds(100))
            if let error = failure.error { throw error }
            if listenerStopped.isSet { throw PostgresSourceError("the connection stopped delivering notifications") }
            if isStalled() {
                Task { try? await connection.close() }
                throw PostgresSourceError("PostgreSQL did not answer for \(stallTimeout)")
            }
        }
    }

    private func markProgress() { lastProgress = .now }

    /// Refuses to go on for a connection given up (see ``follow(on:)``).
    private func checkEpoch(_ epoch: Int) throws {
        guard epoch == self.epoch else { throw CancellationError() }
    }

    private func isStalled() -> Bool { ContinuousClock.now - lastProgress > stallTimeout + pollInterval }

    /// Applies every change after the applied position, a batch at a time.
    func catchUp(on connection: PostgresConnection, epoch: Int) async throws {
        while true {
            try Task.checkCancellation()
            markProgress()
            let position = status.applied
            _ = try await connection.query(
                "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                logger: PostgresSQL.logger
            )
            do {
                let (prunedThrough, latest, installed) = try await logState(on: connection)
                guard installed else {
                    throw PostgresSourceError(
                        "table \(table.qualifiedName) is not followed: run 'sift postgres install --table \(table.givenName)' first"
                    )
                }
                status.latest = max(status.latest, latest)
                if position < prunedThrough {
                    try await reload(on: connection, prunedThrough: prunedThrough, from: position, epoch: epoch)
                    continue
                }
                let entries = try await changes(after: position, on: connection)
                guard let last = entries.last?.sequence else {
                    _ = try await connection.query("COMMIT", logger: PostgresSQL.logger)
                    if status.state != "following" {
                        status.state = "following"
                        status.lastError = nil
                    }
                    try await recordPosition(on: connection)
                    return
                }
                status.state = "catching up"
                let rows = try await currentRows(of: entries, on: connection)
                _ = try await connection.query("COMMIT", logger: PostgresSQL.logger)
                var changes: [FollowedChange] = []
                for entry in entries {
                    switch entry.operation {
                    case "T": changes.append(.removeAll)
                    default:
                        guard let id = entry.id else {
                            log(
                                "\(table.qualifiedName): change \(entry.sequence) is a row without an id (NULL \(table.idColumn)); it is not searchable"
                            )
                            continue
                        }
                        if let record = rows[id] {
                            changes.append(.upsert(record))
                        } else {
                            changes.append(.delete(id: id))
                        }
                    }
                }
                let table = self.table
                try checkEpoch(epoch)
                try await shared.applyFollowed(changes, through: last) { table.idPrecedes($0, $1) }
                status.applied = last
                status.changesApplied += entries.count
                status.latest = max(status.latest, last)
                resumeWaiters()
                await onApplied?(last)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: PostgresSQL.logger)
                throw error
            }
        }
    }

    /// The log's pruned position and latest sequence for this table, and whether it is installed.
    private func logState(on connection: PostgresConnection) async throws -> (UInt64, UInt64, Bool) {
        var result: (Int64, Int64, Bool) = (0, 0, false)
        for try await row in try await connection.query(
            """
            SELECT coalesce(t.pruned_through, 0),
                   coalesce((SELECT max(sequence) FROM sift.changes WHERE table_name = \(table.qualifiedName)), 0),
                   t.table_name IS NOT NULL
            FROM (SELECT 1) one LEFT JOIN sift.tables t ON t.table_name = \(table.qualifiedName)
            """,
            logger: PostgresSQL.logger
        ) { result = try row.decode((Int64, Int64, Bool).self) }
        return (UInt64(max(0, result.0)), UInt64(max(0, result.1)), result.2)
    }

    private struct Entry {
        var sequence: UInt64
        var operation: String
        var id: String?
    }

    private func changes(after position: UInt64, on connection: PostgresConnection) async throws -> [Entry] {
        var entries: [Entry] = []
        for try await row in try await connection.query(
            """
            SELECT sequence, operation::text, row_id FROM sift.changes
            WHERE table_name = \(table.qualifiedName) AND sequence > \(Int64(position))
            ORDER BY sequence LIMIT \(batchSize)
            """,
            logger: PostgresSQL.logger
        ) {
            let (sequence, operation, id) = try row.decode((Int64, String, String?).self)
            entries.append(Entry(sequence: UInt64(sequence), operation: operation, id: id))
        }
        return entries
    }

    /// The current rows of the ids the entries name, as records.
    private func currentRows(of entries: [Entry], on connection: PostgresConnection) async throws -> [String: Record] {
        var ids = Set<String>()
        for entry in entries { if let id = entry.id { ids.insert(id) } }
        guard !ids.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(Array(ids))
        let sql = """
            SELECT \(table.textColumnsSQL) FROM \(table.qualifiedName)
            WHERE \(table.idIsAnyOfFirstParameterSQL)
            """
        var records: [String: Record] = [:]
        for try await row in try await connection.query(
            PostgresQuery(unsafeSQL: sql, binds: binds),
            logger: PostgresSQL.logger
        ) {
            if let record = table.record(from: row) { records[record.id] = record }
        }
        return records
    }

    /// Reads the whole table again and makes the index hold exactly its rows.
    private func reload(
        on connection: PostgresConnection,
        prunedThrough: UInt64,
        from position: UInt64,
        epoch: Int
    ) async throws {
        status.state = "reloading"
        status.reloads += 1
        log(
            "\(table.qualifiedName): the change log was pruned through \(prunedThrough), past this follower's position \(position): reloading the whole table"
        )
        // Inside the caller's REPEATABLE READ transaction: the rows and the position agree.
        let (latest, _) = try await table.changeLogPosition(on: connection)
        var records: [Record] = []
        for try await row in try await connection.query(
            PostgresQuery(
                unsafeSQL:
                    "SELECT \(table.textColumnsSQL) FROM \(table.qualifiedName) AS sift_row ORDER BY \(table.idOrderSQL)"
            ),
            logger: PostgresSQL.logger
        ) {
            if let record = table.record(from: row) { records.append(record) }
        }
        _ = try await connection.query("COMMIT", logger: PostgresSQL.logger)
        let table = self.table
        try checkEpoch(epoch)
        let counts = try await shared.replaceFollowed(with: records, through: latest) { table.idPrecedes($0, $1) }
        log(
            "\(table.qualifiedName): reloaded \(records.count) rows through change \(latest) (\(counts.inserted) inserted, \(counts.updated) updated, \(counts.deleted) deleted)"
        )
        status.applied = latest
        status.latest = max(status.latest, latest)
        resumeWaiters()
        await onApplied?(latest)
    }

    /// Records the applied position in `sift.followers`, at most once a second (and whenever it
    /// is caught up after that long).
    private func recordPosition(on connection: PostgresConnection) async throws {
        let now = ContinuousClock.now
        if let lastRecorded, now - lastRecorded < .seconds(1) { return }
        lastRecorded = now
        _ = try await connection.query(
            """
            INSERT INTO sift.followers (table_name, name, position, updated_at)
            VALUES (\(table.qualifiedName), \(name), \(Int64(status.applied)), now())
            ON CONFLICT (table_name, name) DO UPDATE SET position = EXCLUDED.position, updated_at = now()
            """,
            logger: PostgresSQL.logger
        )
    }

    /// Waits until the index holds `sequence`, or `timeout` passes.
    ///
    /// - Returns: whether it does.
    public func waitUntilApplied(_ sequence: UInt64, timeout: Duration) async -> Bool {
        if status.applied >= sequence { return true }
        wakeup.signal()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expireWaiters(upTo: sequence)
        }
        await withCheckedContinuation { continuation in waiters.append((sequence, continuation)) }
        timer.cancel()
        return status.applied >= sequence
    }

    private func resumeWaiters() {
        let applied = status.applied
        waiters.removeAll { waiter in
            guard waiter.sequence <= applied else { return false }
            waiter.continuation.resume()
            return true
        }
    }

    private func expireWaiters(upTo sequence: UInt64) {
        waiters.removeAll { waiter in
            guard waiter.sequence == sequence else { return false }
            waiter.continuation.resume()
            return true
        }
    }

    /// Wakes the follower (a notification came, or someone waits for a sequence).
    public nonisolated func wake() { wakeup.signal() }
}

/// The first error of a task, read from another.
final class ErrorBox: Sendable {
    private let value = Mutex<(any Error)?>(nil)
    func set(_ error: any Error) { value.withSanitizerVisibleLock { if $0 == nil { $0 = error } } }
    var error: (any Error)? { value.withSanitizerVisibleLock { $0 } }
}

/// A flag set once, read from any task.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withSanitizerVisibleLock { $0 = true } }
    var isSet: Bool { value.withSanitizerVisibleLock { $0 } }
}

/// A signal that wakes one waiter, remembered when no one waits.
///
/// Its state is guarded by an `NSLock` (a pthread mutex, which ThreadSanitizer understands;
/// it reported the `Synchronization.Mutex` that guarded it before as a race, with every access
/// under the lock).
final class Wakeup: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?

    func signal() {
        lock.lock()
        let waiter = self.waiter
        if waiter != nil {
            self.waiter = nil
        } else {
            pending = true
        }
        lock.unlock()
        waiter?.resume()
    }

    /// Returns when signalled (at once if a signal is pending), or after `timeout`.
    func wait(upTo timeout: Duration) async {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.signal()
        }
        await withCheckedContinuation { continuation in
            lock.lock()
            let resumeNow = pending
            if pending {
                pending = false
            } else {
                waiter = continuation
            }
            lock.unlock()
            if resumeNow { continuation.resume() }
        }
        // A signal that came meanwhile stays pending (it may be the timer's: one spare wake).
        timer.cancel()
    }
}

extension PostgresTable {
    /// A row read with ``textColumnsSQL`` as a record: every non-empty value, the id from the id
    /// column; nil for a row without an id.
    func record(from row: PostgresRow) -> Record? {
        var fields: [String: String] = [:]
        fields.reserveCapacity(columns.count)
        var id: String?
        for (cell, column) in zip(row, columns) {
            guard var bytes = cell.bytes, bytes.readableBytes > 0 else { continue }
            let value = bytes.readString(length: bytes.readableBytes) ?? ""
            fields[column] = value
            if column == idColumn { id = value }
        }
        guard let id else { return nil }
        return Record(id: id, fields: fields)
    }
}
