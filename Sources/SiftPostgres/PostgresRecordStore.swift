import PostgresNIO
import Sift
public import SiftServer
import SiftStorage
import Synchronization

/// The records of `sift serve --postgres`: edits through the server's API are written to the
/// table (the source of truth) in one transaction each, acknowledged once committed, and shown
/// to the editing session once the follower has applied them (a bounded wait).
///
/// An edit's answer carries the change-log sequence of its last change: the deferred trigger
/// that numbers changes is fired before the commit (`SET CONSTRAINTS ALL IMMEDIATE`), so the
/// number is known while the transaction still holds the numbering lock, and commit order stays
/// number order.
///
/// Values are written as text and cast to each column's type; an empty value is NULL in a
/// column that is not text. An insert whose id exists is a conflict, a delete of a missing id
/// not found; a value PostgreSQL refuses (a number that is not one, a NULL where none may be)
/// is a bad request with PostgreSQL's message and the column. An edit that PostgreSQL aborts to
/// break a deadlock with another writer is written again, up to three times.
public actor PostgresRecordStore: ServerRecordStore {
    public let follower: PostgresFollower
    private let location: PostgresLocation
    private let table: PostgresTable
    private let visibilityTimeout: Duration
    private var connection: PostgresConnection?
    private var following: Task<Void, Never>?
    private var isClosed = false
    private var edits = 0
    private let editTimeout: Duration
    /// Whether an edit holds the connection, and the edits waiting for it, in order.
    private var editing = false
    private var waitingEditors: [CheckedContinuation<Void, Never>] = []

    /// A store over `table`, whose changes `follower` applies.
    ///
    /// - Parameters:
    ///   - visibilityTimeout: how long an edit's answer waits for the follower to show it.
    ///   - editTimeout: how long an edit's transaction may take before it is answered `503` and
    ///     the connection given up.
    ///   - startFollowing: whether to run the follower now, until ``close()``.
    public init(
        location: PostgresLocation,
        table: PostgresTable,
        follower: PostgresFollower,
        visibilityTimeout: Duration = .seconds(5),
        editTimeout: Duration = .seconds(30),
        startFollowing: Bool = true
    ) {
        self.editTimeout = editTimeout
        self.location = location
        self.table = table
        self.follower = follower
        self.visibilityTimeout = visibilityTimeout
        if startFollowing { following = Task { await follower.run() } }
    }

    public func submit(_ edit: ServerEdit) async throws(ServerEditError) -> ServerEditReceipt {
        guard !isClosed else { throw .unavailable("the server is stopping") }
        guard edit.count > 0 else { return ServerEditReceipt(sequence: 0, count: 0, visible: true) }
        // One edit at a time on the connection: the actor is reentrant at every await, and two
        // transactions must never interleave on one session.
        await acquire()
        let connection: PostgresConnection
        do {
            connection = try await openConnection()
        } catch {
            release()
            throw .unavailable("\(table.qualifiedName): \(error.description)")
        }
        var outcome = await withTimeout(editTimeout) { try await self.transaction(edit, on: connection) }
        // PostgreSQL aborts a transaction to break a deadlock with another writer (or a
        // serialization failure): nothing of it was committed, so it is written again, a few times.
        var retries = 0
        while case .failure(let error) = outcome, Self.isTransient(error), retries < Self.transientRetries {
            retries += 1
            outcome = await withTimeout(editTimeout) { try await self.transaction(edit, on: connection) }
        }
        if case .failure(let error) = outcome, error is EditTimeout {
            // The connection may never answer again: give it up (what waits on it stays there).
            self.connection = nil
            Task { try? await connection.close() }
        }
        release()
        let sequence: UInt64
        switch outcome {
        case .success(let value): sequence = value
        case .failure(let error) where error is EditTimeout:
            throw .unavailable(
                "\(table.qualifiedName): PostgreSQL did not answer within \(editTimeout); "
                    + "the edit may or may not have been committed (read the record to know)"
            )
        case .failure(let error): throw mapped(error, on: connection)
        }
        edits += 1
        follower.wake()
        let visible = await follower.waitUntilApplied(sequence, timeout: visibilityTimeout)
        return ServerEditReceipt(sequence: sequence, count: edit.count, visible: visible)
    }

    /// How many times an edit aborted by a deadlock or serialization failure is written again.
    static let transientRetries = 3

    /// Whether PostgreSQL aborted the transaction only because of other transactions (deadlock
    /// `40P01`, serialization failure `40001`): written again, it may well commit.
    static func isTransient(_ error: any Error) -> Bool {
        ["40P01", "40001"].contains((error as? PSQLError)?.serverInfo?[.sqlState] ?? "")
    }

    /// Writes the edit in one transaction and returns the sequence of its last change.
    private func transaction(_ edit: ServerEdit, on connection: PostgresConnection) async throws -> UInt64 {
        do {
            _ = try await connection.query("BEGIN", logger: PostgresSQL.logger)
            switch edit {
            case .insert(let records):
                try checkColumns(records)
                try await refuseExisting(records.map(\.id), on: connection)
                try await write(records, replacing: false, on: connection)
            case .upsert(let records):
                try checkColumns(records)
                try await write(records, replacing: true, on: connection)
            case .delete(let ids):
                try await delete(ids, on: connection)
            }
            _ = try await connection.query("SET CONSTRAINTS ALL IMMEDIATE", logger: PostgresSQL.logger)
            var last: Int64 = 0
            for try await row in try await connection.query(
                "SELECT currval('sift.change_sequence')",
                logger: PostgresSQL.logger
            ) { last = try row.decode(Int64.self) }
            _ = try await connection.query("COMMIT", logger: PostgresSQL.logger)
            return UInt64(last)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: PostgresSQL.logger)
            throw error
        }
    }

    /// Runs `body`, or gives up waiting for it after `timeout` (it then goes on, abandoned).
    private func withTimeout<T: Sendable>(
        _ timeout: Duration,
        _ body: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let work = Task {
                do {
                    once.resume(.success(try await body()))
                } catch {
                    once.resume(.failure(error))
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                if once.resume(.failure(EditTimeout())) { work.cancel() }
            }
        }
    }

    private func acquire() async {
        guard editing else {
            editing = true
            return
        }
        await withCheckedContinuation { waitingEditors.append($0) }
    }

    /// Hands the connection to the next edit waiting (it stays taken), or frees it.
    private func release() {
        if waitingEditors.isEmpty {
            editing = false
        } else {
            waitingEditors.removeFirst().resume()
        }
    }

    public func statistics() async -> ServerSourceStatistics {
        let status = await follower.status
        return ServerSourceStatistics(
            kind: "postgres",
            state: status.state,
            appliedSequence: status.applied,
            latestSequence: status.latest,
            reconnects: status.reconnects,
            lastError: status.lastError,
            figures: [
                "reloads": Double(status.reloads),
                "changesApplied": Double(status.changesApplied),
                "editsWritten": Double(edits),
            ]
        )
    }

    public func close() async {
        isClosed = true
        following?.cancel()
        await following?.value
        following = nil
        try? await connection?.close()
        connection = nil
    }

    // MARK: Writing

    private func openConnection() async throws(PostgresSourceError) -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        let opened = try await location.connect()
        connection = opened
        return opened
    }

    /// Refuses fields the table has no column for, naming the record and field.
    private func checkColumns(_ records: [Record]) throws(ServerEditError) {
        let columns = Set(table.columns)
        for (i, record) in records.enumerated() {
            for field in record.fields.keys.sorted() where !columns.contains(field) {
                throw .badRequest(
                    "\(table.qualifiedName) has no column '\(field)' (columns: \(table.columns.joined(separator: ", ")))",
                    field: "[\(i)].fields.\(field)"
                )
            }
        }
    }

    /// The columns an edit of `records` writes: the id column, then every column one of them names.
    private func writtenColumns(_ records: [Record]) -> [Int] {
        var named = Set<String>()
        for record in records { named.formUnion(record.fields.keys) }
        let idIndex = table.columns.firstIndex(of: table.idColumn)!
        return [idIndex] + table.columns.indices.filter { $0 != idIndex && named.contains(table.columns[$0]) }
    }

    /// What stands for a value a record lacks in the arrays of values (binds carry no NULLs):
    /// a noncharacter, which no text a person sends contains.
    static let missing = "\u{FFFF}"

    /// The SQL that casts the text `value` to column `i`'s type: a missing value is NULL, and so
    /// is an empty one unless the column holds text.
    private func cast(_ value: String, column i: Int) -> String {
        let type = table.types[i]
        let isText =
            type == "text" || type.hasPrefix("character") || type == "name" || type == "citext"
        let present = "nullif(\(value), U&'\\FFFF')"
        return isText ? "\(present)::\(type)" : "nullif(\(present), '')::\(type)"
    }

    /// Inserts the records, or (`replacing`) updates those whose ids exist and inserts the rest,
    /// in one statement over arrays of their values.
    private func write(_ records: [Record], replacing: Bool, on connection: PostgresConnection) async throws {
        let columns = writtenColumns(records)
        var binds = PostgresBindings()
        for i in columns {
            let column = table.columns[i]
            binds.append(records.map { column == table.idColumn ? $0.id : $0.fields[column] ?? Self.missing })
        }
        let names = columns.map { PostgresSQL.identifier(table.columns[$0]) }
        let inputs = columns.indices.map { "$\($0 + 1)::text[]" }.joined(separator: ", ")
        let aliases = columns.indices.map { "c\($0)" }
        let values = zip(columns, aliases).map { cast("sift_input.\($1)", column: $0) }
        let input = "unnest(\(inputs)) AS sift_input(\(aliases.joined(separator: ", ")))"
        let id = PostgresSQL.identifier(table.idColumn)
        let sql: String
        if replacing {
            let updates = zip(names, values).dropFirst().map { "\($0) = \($1)" }
            let set = updates.isEmpty ? "\(id) = sift_row.\(id)" : updates.joined(separator: ", ")
            sql = """
                WITH updated AS (
                    UPDATE \(table.qualifiedName) AS sift_row SET \(set) FROM \(input)
                    WHERE sift_row.\(id) = \(values[0]) RETURNING sift_row.\(id) AS sift_id
                )
                INSERT INTO \(table.qualifiedName) (\(names.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", ")) FROM \(input)
                WHERE \(values[0]) NOT IN (SELECT sift_id FROM updated)
                """
        } else {
            sql = """
                INSERT INTO \(table.qualifiedName) (\(names.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", ")) FROM \(input)
                """
        }
        _ = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: PostgresSQL.logger)
    }

    /// Refuses ids that are in the table, naming the first.
    private func refuseExisting(_ ids: [String], on connection: PostgresConnection) async throws {
        let present = try await existing(ids, on: connection)
        if let i = ids.firstIndex(where: present.contains) {
            throw ServerEditError.conflict(
                "a record with id '\(ids[i])' exists in \(table.qualifiedName)",
                field: "[\(i)].id"
            )
        }
    }

    /// Which of `ids` are in the table.
    private func existing(_ ids: [String], on connection: PostgresConnection) async throws -> Set<String> {
        let id = PostgresSQL.identifier(table.idColumn)
        return try await returnedIDs(
            "SELECT \(id)::text FROM \(table.qualifiedName) WHERE \(table.idIsAnyOfFirstParameterSQL)",
            ids,
            on: connection
        )
    }

    /// The ids, as text, of the rows `sql` returns with `$1` bound to `ids`.
    private func returnedIDs(
        _ sql: String,
        _ ids: [String],
        on connection: PostgresConnection
    ) async throws -> Set<String> {
        var binds = PostgresBindings()
        binds.append(ids)
        var found = Set<String>()
        for try await row in try await connection.query(
            PostgresQuery(unsafeSQL: sql, binds: binds),
            logger: PostgresSQL.logger
        ) { found.insert(try row.decode(String.self)) }
        return found
    }

    /// Deletes the rows with `ids`; all must exist.
    private func delete(_ ids: [String], on connection: PostgresConnection) async throws {
        let id = PostgresSQL.identifier(table.idColumn)
        let deleted = try await returnedIDs(
            "DELETE FROM \(table.qualifiedName) WHERE \(table.idIsAnyOfFirstParameterSQL) RETURNING \(id)::text",
            ids,
            on: connection
        )
        if let i = ids.firstIndex(where: { !deleted.contains($0) }) {
            throw ServerEditError.notFound("no record has id '\(ids[i])' in \(table.qualifiedName)", field: "[\(i)]")
        }
    }

    /// The server's error for what went wrong while writing on `failed`.
    private func mapped(_ error: any Error, on failed: PostgresConnection) -> ServerEditError {
        if let error = error as? ServerEditError { return error }
        let state = (error as? PSQLError)?.serverInfo?[.sqlState] ?? ""
        let column = (error as? PSQLError)?.serverInfo?[.columnName]
        let line = "\(table.qualifiedName): \(PostgresSourceError.describe(error))"
        switch state {
        case "23505": return .conflict(line)
        case _ where state.hasPrefix("22") || state.hasPrefix("23"):
            return .badRequest(line, field: column)
        default:
            if (error as? PSQLError)?.serverInfo == nil, connection === failed { connection = nil }
            return .unavailable(line)
        }
    }
}

/// An edit's transaction took longer than the store waits.
struct EditTimeout: Error {}

/// A continuation resumed by whichever comes first.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>

    init(_ continuation: CheckedContinuation<T, Never>) { self.continuation = Mutex(continuation) }

    /// Resumes with `value` unless already resumed; whether it did.
    @discardableResult
    func resume(_ value: T) -> Bool {
        guard let continuation = continuation.withSanitizerVisibleLock({ $0.take() }) else { return false }
        continuation.resume(returning: value)
        return true
    }
}
