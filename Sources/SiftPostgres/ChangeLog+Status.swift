public import PostgresNIO

extension ChangeLog {
    /// A followed table's change log, as `sift postgres status` shows it.
    public struct TableStatus: Sendable, Equatable {
        public var table: String
        public var idColumn: String
        /// Entries in the log now.
        public var entries: Int
        /// The highest sequence in the log (0: none).
        public var latest: UInt64
        /// The log starts after this sequence.
        public var prunedThrough: UInt64
        /// The followers that recorded their position.
        public var followers: [FollowerStatus]
    }

    /// Where a follower last said it was.
    public struct FollowerStatus: Sendable, Equatable {
        public var name: String
        public var position: UInt64
        /// Seconds since it recorded its position.
        public var secondsAgo: Int
    }

    /// The followed tables (or the one named), with their followers.
    ///
    /// - Throws: ``PostgresSourceError`` when the change log is not installed in the database.
    /// - Complexity: one query per table, each reading its log's index.
    public static func status(
        table: String? = nil,
        on connection: PostgresConnection
    ) async throws(PostgresSourceError) -> [TableStatus] {
        var report: [TableStatus] = []
        do {
            guard try await isInstalled(on: connection) else { return [] }
            for try await row in try await connection.query(
                """
                SELECT t.table_name, t.id_column, t.pruned_through,
                       (SELECT count(*) FROM sift.changes c WHERE c.table_name = t.table_name)::int8,
                       coalesce((SELECT max(sequence) FROM sift.changes c WHERE c.table_name = t.table_name), t.pruned_through)
                FROM sift.tables t ORDER BY 1
                """,
                logger: PostgresSQL.logger
            ) {
                let (name, id, pruned, entries, latest) = try row.decode((String, String, Int64, Int64, Int64).self)
                report.append(
                    TableStatus(
                        table: name,
                        idColumn: id,
                        entries: Int(entries),
                        latest: UInt64(max(0, latest)),
                        prunedThrough: UInt64(max(0, pruned)),
                        followers: []
                    )
                )
            }
            if let table {
                report = report.filter { matches($0.table, table) }
                guard !report.isEmpty else {
                    throw PostgresSourceError("table '\(table)' is not followed (run 'sift postgres install')")
                }
            }
            for i in report.indices {
                for try await row in try await connection.query(
                    """
                    SELECT name, position, extract(epoch FROM now() - updated_at)::int8
                    FROM sift.followers WHERE table_name = \(report[i].table) ORDER BY position, name
                    """,
                    logger: PostgresSQL.logger
                ) {
                    let (name, position, seconds) = try row.decode((String, Int64, Int64).self)
                    report[i].followers.append(
                        FollowerStatus(name: name, position: UInt64(max(0, position)), secondsAgo: Int(seconds))
                    )
                }
            }
        } catch {
            throw PostgresSourceError.wrapping(error, "reading the change log")
        }
        return report
    }

    /// Whether the `sift` schema's tables exist.
    static func isInstalled(on connection: PostgresConnection) async throws -> Bool {
        var installed = false
        for try await row in try await connection.query(
            "SELECT to_regclass('sift.tables') IS NOT NULL",
            logger: PostgresSQL.logger
        ) { installed = try row.decode(Bool.self) }
        return installed
    }

    /// Whether the qualified name `qualified` (`public.items`) is what a person named `given`
    /// (`items`, `public.items`).
    static func matches(_ qualified: String, _ given: String) -> Bool {
        qualified == given || qualified.hasSuffix("." + given) || qualified.hasSuffix(".\"\(given)\"")
    }

    /// Removes the triggers of the table named `name` (if it still exists) and its rows in the
    /// change log; the schema stays for other tables.
    ///
    /// - Returns: the table's qualified name.
    /// - Throws: ``PostgresSourceError`` when the table is neither there nor followed.
    public static func uninstall(
        named name: String,
        on connection: PostgresConnection
    ) async throws(PostgresSourceError) -> String {
        var qualified: String?
        do {
            for try await row in try await connection.query(
                """
                SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(\(name))
                """,
                logger: PostgresSQL.logger
            ) { qualified = try row.decode(String.self) }
            if qualified == nil, try await isInstalled(on: connection) {
                // The table was dropped: its entries in the log can still go.
                for try await row in try await connection.query(
                    "SELECT table_name FROM sift.tables ORDER BY 1",
                    logger: PostgresSQL.logger
                ) {
                    let followed = try row.decode(String.self)
                    if matches(followed, name) { qualified = followed }
                }
            }
        } catch {
            throw PostgresSourceError.wrapping(error, "table '\(name)'")
        }
        guard let qualified else {
            throw PostgresSourceError("table '\(name)' does not exist and is not followed", sqlState: "42P01")
        }
        let literal = PostgresSQL.literal(qualified)
        let exists = (try? await tableExists(qualified, on: connection)) ?? false
        let installed = (try? await isInstalled(on: connection)) ?? false
        var sql = "BEGIN;\n"
        if exists {
            sql += """
                DROP TRIGGER IF EXISTS sift_change_log ON \(qualified);
                DROP TRIGGER IF EXISTS sift_change_log_truncate ON \(qualified);

                """
        }
        if installed {
            sql += """
                DELETE FROM sift.changes WHERE table_name = \(literal);
                DELETE FROM sift.followers WHERE table_name = \(literal);
                DELETE FROM sift.tables WHERE table_name = \(literal);

                """
        }
        sql += "COMMIT;"
        do {
            try await connection.runScript(sql)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: PostgresSQL.logger)
            throw PostgresSourceError.wrapping(error, "removing the change log of \(qualified)")
        }
        return qualified
    }

    private static func tableExists(_ qualified: String, on connection: PostgresConnection) async throws -> Bool {
        var exists = false
        for try await row in try await connection.query(
            "SELECT to_regclass(\(qualified)) IS NOT NULL",
            logger: PostgresSQL.logger
        ) { exists = try row.decode(Bool.self) }
        return exists
    }

    /// Forgets a follower (one that stops for good, and whose position should no longer hold
    /// back pruning).
    public static func forgetFollower(
        _ name: String,
        table: PostgresTable,
        on connection: PostgresConnection
    ) async throws(PostgresSourceError) {
        do {
            _ = try await connection.query(
                "DELETE FROM sift.followers WHERE table_name = \(table.qualifiedName) AND name = \(name)",
                logger: PostgresSQL.logger
            )
        } catch {
            throw PostgresSourceError.wrapping(error, "forgetting follower \(name)")
        }
    }
}
