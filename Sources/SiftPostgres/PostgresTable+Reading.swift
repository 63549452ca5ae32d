import NIOCore
public import PostgresNIO

/// A table's rows as read at one moment, with the change log position they include.
public struct PostgresTableRows: Sendable {
    /// The rows as CSV (a header of the column names, then one line per row, in id order):
    /// what `DataFile(bytes:source:format:)` parses as it parses a file, so that a table loads
    /// exactly as the same rows exported to a file would.
    public var csv: [UInt8]
    public var rowCount: Int
    /// The last change log sequence of the table these rows include (0: none, or no change log).
    public var position: UInt64
    /// Whether the change log is installed for the table.
    public var isFollowable: Bool
}

extension PostgresTable {
    /// Reads every row, as text, in id order, in one `REPEATABLE READ` transaction together with
    /// the change log's position, streaming (postgres-nio applies back pressure).
    ///
    /// NULL values read as empty values; a NULL id or a repeated id is an error naming the table,
    /// the column and the row (by its place in id order, and its other values).
    ///
    /// - Parameter progress: called with the rows read so far and PostgreSQL's estimate of the total.
    /// - Throws: ``PostgresSourceError``.
    /// - Complexity: O(*n*) in the size of the table.
    public func readRows(
        on connection: PostgresConnection,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws(PostgresSourceError) -> PostgresTableRows {
        var csv: [UInt8] = []
        var rowCount = 0
        var position: UInt64 = 0
        var followable = false
        let idIndex = columns.firstIndex(of: idColumn)!
        do {
            _ = try await connection.query(
                "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                logger: PostgresSQL.logger
            )
            (position, followable) = try await changeLogPosition(on: connection)
            var estimate = 0
            for try await row in try await connection.query(
                "SELECT greatest(reltuples, 0)::int8 FROM pg_class WHERE oid = to_regclass(\(qualifiedName))",
                logger: PostgresSQL.logger
            ) { estimate = Int(try row.decode(Int64.self)) }
            csv.reserveCapacity(max(4096, estimate * 64))
            for (i, column) in columns.enumerated() {
                if i > 0 { csv.append(UInt8(ascii: ",")) }
                Self.appendCSV(Array(column.utf8), to: &csv)
            }
            csv.append(UInt8(ascii: "\n"))
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(textColumnsSQL) FROM \(qualifiedName) AS sift_row ORDER BY \(idOrderSQL)"
                ),
                logger: PostgresSQL.logger
            )
            var previousID: [UInt8] = []
            for try await row in rows {
                rowCount += 1
                var i = 0
                for cell in row {
                    if i > 0 { csv.append(UInt8(ascii: ",")) }
                    if var bytes = cell.bytes {
                        let value = bytes.readBytes(length: bytes.readableBytes) ?? []
                        if i == idIndex {
                            if value == previousID && rowCount > 1 {
                                throw PostgresSourceError(
                                    "table \(qualifiedName), column \(idColumn): duplicate id '\(String(decoding: value, as: UTF8.self))' (ids must be unique)"
                                )
                            }
                            if value.isEmpty { throw nullID(row: rowCount, row) }
                            previousID = value
                        }
                        Self.appendCSV(value, to: &csv)
                    } else if i == idIndex {
                        throw nullID(row: rowCount, row)
                    }
                    i += 1
                }
                csv.append(UInt8(ascii: "\n"))
                if rowCount & 0xFFFF == 0 { progress?(rowCount, max(estimate, rowCount)) }
            }
            _ = try await connection.query("COMMIT", logger: PostgresSQL.logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: PostgresSQL.logger)
            throw PostgresSourceError.wrapping(error, "reading table \(qualifiedName)")
        }
        progress?(rowCount, rowCount)
        return PostgresTableRows(csv: csv, rowCount: rowCount, position: position, isFollowable: followable)
    }

    /// The error for a row without an id: names the table, the column and the row's other values.
    private func nullID(row number: Int, _ row: PostgresRow) -> PostgresSourceError {
        var shown: [String] = []
        for (cell, column) in zip(row, columns) where column != idColumn {
            guard var bytes = cell.bytes, shown.count < 3 else { continue }
            shown.append("\(column)=\(bytes.readString(length: min(bytes.readableBytes, 40)) ?? "")")
        }
        return PostgresSourceError(
            "table \(qualifiedName), column \(idColumn): row \(number) (in id order) has no id (NULL or empty)"
                + (shown.isEmpty ? "" : "; its values: " + shown.joined(separator: ", "))
        )
    }

    /// The last change committed to this table's change log (0: none, or no change log), and
    /// whether the table is followed.
    ///
    /// - Throws: ``PostgresSourceError``.
    public func latestChange(
        on connection: PostgresConnection
    ) async throws(PostgresSourceError) -> (
        sequence: UInt64, isFollowable: Bool
    ) {
        do {
            return try await changeLogPosition(on: connection)
        } catch {
            throw PostgresSourceError.wrapping(error, "reading the change log of \(qualifiedName)")
        }
    }

    /// The last change log sequence of this table that the transaction sees, and whether the
    /// table is followed at all (installed). Call inside a `REPEATABLE READ` transaction.
    func changeLogPosition(on connection: PostgresConnection) async throws -> (UInt64, Bool) {
        var installed = false
        for try await row in try await connection.query(
            "SELECT to_regclass('sift.tables') IS NOT NULL",
            logger: PostgresSQL.logger
        ) { installed = try row.decode(Bool.self) }
        guard installed else { return (0, false) }
        var result: (Int64, Bool) = (0, false)
        for try await row in try await connection.query(
            """
            SELECT greatest(coalesce((SELECT max(sequence) FROM sift.changes WHERE table_name = \(qualifiedName)), 0),
                            coalesce(t.pruned_through, 0)), t.table_name IS NOT NULL
            FROM (SELECT 1) one LEFT JOIN sift.tables t ON t.table_name = \(qualifiedName)
            """,
            logger: PostgresSQL.logger
        ) { result = try row.decode((Int64, Bool).self) }
        return (UInt64(max(0, result.0)), result.1)
    }

    /// Appends a CSV field: quoted (with inner quotes doubled) when it holds a comma, a quote, a
    /// line break or spaces at its ends.
    static func appendCSV(_ value: [UInt8], to csv: inout [UInt8]) {
        var needsQuotes = false
        for byte in value where byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D {
            needsQuotes = true
            break
        }
        if !needsQuotes, let first = value.first, let last = value.last, first == 0x20 || last == 0x20 {
            needsQuotes = true
        }
        guard needsQuotes else {
            csv.append(contentsOf: value)
            return
        }
        csv.append(0x22)
        for byte in value {
            csv.append(byte)
            if byte == 0x22 { csv.append(0x22) }
        }
        csv.append(0x22)
    }
}
