import VaporCSQLite

/// A minimal wrapper over SQLite's C API: the hot loops step statements directly, so the FTS5
/// peer pays no wrapper overhead.
///
/// The SQLite is the one `vapor/sqlite-nio` vendors (its `VaporCSQLite` module: the amalgamation
/// with FTS5 enabled and every symbol prefixed `sqlite_nio_`), not the system library: Debian's
/// SQLite can be older than 3.45, whose trigram tokenizer has no `remove_diacritics`, and a
/// peer that cannot fold accents is not a fair one. The module is not one of sqlite-nio's
/// products; it is importable because its `SQLiteNIO` product depends on it.
final class SQLiteDatabase {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var handle: OpaquePointer?

    init() throws {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        guard sqlite_nio_sqlite3_open_v2(":memory:", &handle, flags, nil) == SQLITE_OK else {
            throw Failure(description: "cannot open an in-memory SQLite database")
        }
    }

    deinit { sqlite_nio_sqlite3_close_v2(handle) }

    static var version: String { String(cString: sqlite_nio_sqlite3_libversion()) }

    var lastError: String { String(cString: sqlite_nio_sqlite3_errmsg(handle)) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>? = nil
        if sqlite_nio_sqlite3_exec(handle, sql, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite_nio_sqlite3_free(message)
            throw Failure(description: "\(text) (in: \(sql))")
        }
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer? = nil
        guard sqlite_nio_sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "\(lastError) (in: \(sql))")
        }
        return SQLiteStatement(statement, database: self)
    }

    func integer(_ sql: String) throws -> Int {
        let statement = try prepare(sql)
        guard sqlite_nio_sqlite3_step(statement.handle) == SQLITE_ROW else { throw Failure(description: lastError) }
        return Int(sqlite_nio_sqlite3_column_int64(statement.handle, 0))
    }
}

final class SQLiteStatement {
    let handle: OpaquePointer
    private unowned let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite_nio_sqlite3_finalize(handle) }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ text: String, at position: Int32) {
        sqlite_nio_sqlite3_bind_text(handle, position, text, -1, Self.transient)
    }

    func bind(_ value: Int64, at position: Int32) {
        sqlite_nio_sqlite3_bind_int64(handle, position, value)
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws {
        defer {
            sqlite_nio_sqlite3_reset(handle)
            sqlite_nio_sqlite3_clear_bindings(handle)
        }
        let status = sqlite_nio_sqlite3_step(handle)
        guard status == SQLITE_DONE || status == SQLITE_ROW else {
            throw SQLiteDatabase.Failure(description: database.lastError)
        }
    }

    /// The first column of every row, as integers (rowids), then resets.
    func integers(into result: inout [Int32], offset: Int64 = 0) throws {
        defer {
            sqlite_nio_sqlite3_reset(handle)
            sqlite_nio_sqlite3_clear_bindings(handle)
        }
        while true {
            let status = sqlite_nio_sqlite3_step(handle)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw SQLiteDatabase.Failure(description: database.lastError) }
            result.append(Int32(sqlite_nio_sqlite3_column_int64(handle, 0) - offset))
        }
    }
}
