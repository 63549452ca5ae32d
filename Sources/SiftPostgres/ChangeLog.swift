public import PostgresNIO

/// The change log in PostgreSQL that followers read: the `sift` schema's tables, the trigger that
/// fills them, and the commands that install, prune and describe them.
///
/// Every insert, update, delete and truncate of a followed table adds a row to `sift.changes`
/// with a number from `sift.change_sequence`, and sends `NOTIFY sift_changes`. The numbers are
/// taken **at commit**, by a deferred constraint trigger, under one transaction-scoped advisory
/// lock: a transaction takes its numbers only after every transaction that took smaller ones has
/// committed, so a follower that has read every number up to *n* will never see a smaller one
/// appear later (a plain `bigserial` would let a slow transaction commit a smaller number after a
/// follower read past it). The lock is held from the first row change's trigger to the commit:
/// the short end of each writing transaction is serialized, nothing else.
///
/// A row whose id changes is logged twice: a delete of the old id, an update of the new one.
/// Followers read ids only and re-read the rows, so the log stays small and the rows' current
/// values are the truth.
public enum ChangeLog {
    /// The channel of `NOTIFY` (the payload is the table's qualified name).
    public static let channel = "sift_changes"
    /// The advisory lock key that orders the change numbers ("SIFT" in ASCII).
    static let lockKey = 0x5349_4654

    /// The schema, tables and functions every followed table shares (idempotent).
    public static let schemaSQL = """
        CREATE SCHEMA IF NOT EXISTS sift;
        CREATE SEQUENCE IF NOT EXISTS sift.change_sequence;
        -- One row per changed row (or truncate), numbered in commit order.
        CREATE TABLE IF NOT EXISTS sift.changes (
            sequence    bigint PRIMARY KEY,
            table_name  text NOT NULL,
            operation   "char" NOT NULL,      -- I insert, U update, D delete, T truncate
            row_id      text,                 -- the id as text (id::text); NULL for a truncate
            committed_at timestamptz NOT NULL DEFAULT clock_timestamp()
        );
        CREATE INDEX IF NOT EXISTS changes_by_table ON sift.changes (table_name, sequence);
        -- The followed tables: their id column, and how far the log was pruned.
        CREATE TABLE IF NOT EXISTS sift.tables (
            table_name     text PRIMARY KEY,
            id_column      text NOT NULL,
            pruned_through bigint NOT NULL DEFAULT 0,
            installed_at   timestamptz NOT NULL DEFAULT now()
        );
        -- Where each follower is, so that pruning keeps what the slowest one still needs.
        CREATE TABLE IF NOT EXISTS sift.followers (
            table_name text NOT NULL,
            name       text NOT NULL,
            position   bigint NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (table_name, name)
        );

        -- Row changes, at commit (a deferred constraint trigger), numbered under the lock.
        CREATE OR REPLACE FUNCTION sift.record_row_change() RETURNS trigger
        LANGUAGE plpgsql AS $sift$
        DECLARE
            id_column  text := TG_ARGV[0];
            table_name text := TG_ARGV[1];
            old_id text;
            new_id text;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(lockKey));
            IF TG_OP <> 'INSERT' THEN
                EXECUTE format('SELECT ($1).%I::text', id_column) USING OLD INTO old_id;
            END IF;
            IF TG_OP <> 'DELETE' THEN
                EXECUTE format('SELECT ($1).%I::text', id_column) USING NEW INTO new_id;
            END IF;
            IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND old_id IS DISTINCT FROM new_id) THEN
                INSERT INTO sift.changes (sequence, table_name, operation, row_id)
                VALUES (nextval('sift.change_sequence'), table_name, 'D', old_id);
            END IF;
            IF TG_OP <> 'DELETE' THEN
                INSERT INTO sift.changes (sequence, table_name, operation, row_id)
                VALUES (nextval('sift.change_sequence'), table_name, left(TG_OP, 1)::"char", new_id);
            END IF;
            PERFORM pg_notify('\(channel)', table_name);
            RETURN NULL;
        END
        $sift$;

        -- A truncate empties the table: followers empty their index.
        CREATE OR REPLACE FUNCTION sift.record_truncate() RETURNS trigger
        LANGUAGE plpgsql AS $sift$
        BEGIN
            PERFORM pg_advisory_xact_lock(\(lockKey));
            INSERT INTO sift.changes (sequence, table_name, operation, row_id)
            VALUES (nextval('sift.change_sequence'), TG_ARGV[0], 'T', NULL);
            PERFORM pg_notify('\(channel)', TG_ARGV[0]);
            RETURN NULL;
        END
        $sift$;
        """

    /// The statements that make `table` followed (after ``schemaSQL``): its triggers and its
    /// row in `sift.tables`.
    public static func tableSQL(_ table: PostgresTable) -> String {
        let name = table.qualifiedName
        return """
            DROP TRIGGER IF EXISTS sift_change_log ON \(name);
            DROP TRIGGER IF EXISTS sift_change_log_truncate ON \(name);
            CREATE CONSTRAINT TRIGGER sift_change_log
                AFTER INSERT OR UPDATE OR DELETE ON \(name)
                DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION sift.record_row_change(\(PostgresSQL.literal(table.idColumn)), \(PostgresSQL.literal(name)));
            CREATE TRIGGER sift_change_log_truncate
                AFTER TRUNCATE ON \(name)
                FOR EACH STATEMENT EXECUTE FUNCTION sift.record_truncate(\(PostgresSQL.literal(name)));
            INSERT INTO sift.tables (table_name, id_column) VALUES (\(PostgresSQL.literal(name)), \(PostgresSQL.literal(table.idColumn)))
                ON CONFLICT (table_name) DO UPDATE SET id_column = EXCLUDED.id_column;
            """
    }

    /// Everything `sift postgres install` runs for `table`, in one transaction.
    public static func installSQL(_ table: PostgresTable) -> String {
        "BEGIN;\n" + schemaSQL + "\n" + tableSQL(table) + "\nCOMMIT;\n"
    }

    /// Installs the change log (once per database) and the triggers of `table`.
    ///
    /// - Throws: ``PostgresSourceError`` for a view (no triggers) or a refused statement.
    public static func install(
        _ table: PostgresTable,
        on connection: PostgresConnection
    ) async throws(PostgresSourceError) {
        guard !table.isView else {
            throw PostgresSourceError(
                "\(table.qualifiedName) is a view: views can be loaded but not followed (install on its tables)"
            )
        }
        do {
            try await connection.runScript(installSQL(table))
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: PostgresSQL.logger)
            throw PostgresSourceError.wrapping(error, "installing the change log of \(table.qualifiedName)")
        }
    }

    /// Removes the triggers of `table` and its rows in the change log (the schema stays for
    /// other tables).
    public static func uninstall(
        _ table: PostgresTable,
        on connection: PostgresConnection
    ) async throws(PostgresSourceError) {
        let name = table.qualifiedName
        let literal = PostgresSQL.literal(name)
        let sql = """
            BEGIN;
            DROP TRIGGER IF EXISTS sift_change_log ON \(name);
            DROP TRIGGER IF EXISTS sift_change_log_truncate ON \(name);
            DELETE FROM sift.changes WHERE table_name = \(literal);
            DELETE FROM sift.followers WHERE table_name = \(literal);
            DELETE FROM sift.tables WHERE table_name = \(literal);
            COMMIT;
            """
        do {
            try await connection.runScript(sql)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: PostgresSQL.logger)
            throw PostgresSourceError.wrapping(error, "removing the change log of \(name)")
        }
    }

    /// What pruning removed.
    public struct Pruning: Sendable, Equatable {
        public var table: String
        /// The entries deleted.
        public var deleted: Int
        /// The log now starts after this sequence.
        public var prunedThrough: UInt64
        /// Followers not heard from within the grace period: no longer waited for, and forgotten.
        public var forgottenFollowers: [String]
    }

    /// Deletes the entries every follower of each followed table has applied.
    ///
    /// A follower that has not recorded its position within `forgetAfterSeconds` is forgotten
    /// (it reloads when it comes back, since the log no longer reaches back to it). A table
    /// without followers keeps its log for `keepSeconds` after each entry's commit.
    ///
    /// - Complexity: one `DELETE` per followed table.
    public static func prune(
        table: String? = nil,
        keepSeconds: Int = 0,
        forgetAfterSeconds: Int = 7 * 86_400,
        on connection: PostgresConnection
    ) async throws(PostgresSourceError) -> [Pruning] {
        var results: [Pruning] = []
        do {
            var names: [String] = []
            let rows = try await connection.query(
                "SELECT table_name FROM sift.tables ORDER BY 1",
                logger: PostgresSQL.logger
            )
            for try await row in rows { names.append(try row.decode(String.self)) }
            if let table {
                names = names.filter { $0 == table || $0.hasSuffix("." + table) || $0.hasSuffix(".\"\(table)\"") }
                guard !names.isEmpty else {
                    throw PostgresSourceError("table '\(table)' is not followed (run 'sift postgres install')")
                }
            }
            for name in names {
                _ = try await connection.query("BEGIN", logger: PostgresSQL.logger)
                var forgotten: [String] = []
                let gone = try await connection.query(
                    """
                    DELETE FROM sift.followers WHERE table_name = \(name)
                    AND updated_at < now() - make_interval(secs => \(Double(forgetAfterSeconds)))
                    RETURNING name
                    """,
                    logger: PostgresSQL.logger
                )
                for try await row in gone { forgotten.append(try row.decode(String.self)) }
                // Keep what the slowest follower still needs, and what is younger than `keepSeconds`.
                let bound = try await connection.query(
                    """
                    SELECT least(
                        coalesce((SELECT min(position) FROM sift.followers WHERE table_name = \(name)), 9223372036854775807),
                        coalesce((SELECT min(sequence) - 1 FROM sift.changes WHERE table_name = \(name)
                                  AND committed_at > now() - make_interval(secs => \(Double(keepSeconds)))), 9223372036854775807),
                        coalesce((SELECT max(sequence) FROM sift.changes WHERE table_name = \(name)), 0))
                    """,
                    logger: PostgresSQL.logger
                )
                var through: Int64 = 0
                for try await row in bound { through = try row.decode(Int64.self) }
                var deleted = 0
                let removed = try await connection.query(
                    """
                    WITH gone AS (DELETE FROM sift.changes WHERE table_name = \(name) AND sequence <= \(through) RETURNING 1)
                    SELECT count(*)::int8 FROM gone
                    """,
                    logger: PostgresSQL.logger
                )
                for try await row in removed { deleted = Int(try row.decode(Int64.self)) }
                _ = try await connection.query(
                    "UPDATE sift.tables SET pruned_through = greatest(pruned_through, \(through)) WHERE table_name = \(name)",
                    logger: PostgresSQL.logger
                )
                _ = try await connection.query("COMMIT", logger: PostgresSQL.logger)
                results.append(
                    Pruning(
                        table: name,
                        deleted: deleted,
                        prunedThrough: UInt64(max(0, through)),
                        forgottenFollowers: forgotten
                    )
                )
            }
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: PostgresSQL.logger)
            throw PostgresSourceError.wrapping(error, "pruning the change log")
        }
        return results
    }
}
