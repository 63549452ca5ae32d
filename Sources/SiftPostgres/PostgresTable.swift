import Foundation
internal import Logging
public import PostgresNIO

/// A table (or view) as PostgreSQL describes it: its canonical name, its columns and their types,
/// and the id column that names each record.
public struct PostgresTable: Sendable {
    /// The name as given (`items`, `shop.items`).
    public var givenName: String
    /// `schema.table`, each part quoted as needed: the key of the change log.
    public var qualifiedName: String
    /// Every column, in table order.
    public var columns: [String]
    /// Each column's type as `format_type` writes it (`bigint`, `text`, `character varying(80)`).
    public var types: [String]
    /// The column whose values are the records' ids.
    public var idColumn: String
    /// Whether the relation is a view (it can be loaded, not followed: views have no triggers).
    public var isView: Bool

    /// The id column's type.
    public var idType: String { types[columns.firstIndex(of: idColumn)!] }

    /// Whether ids compare as integers (`smallint`, `integer`, `bigint`): the order records are
    /// kept in is then numeric, else the byte order of the ids' text.
    public var hasIntegerIDs: Bool { ["smallint", "integer", "bigint"].contains(idType) }

    /// The SQL that orders rows as the index keeps its records.
    var idOrderSQL: String {
        // `sift_row.` names the table's column, not the output column of the same name (its text).
        hasIntegerIDs
            ? "sift_row.\(PostgresSQL.identifier(idColumn))"
            : "sift_row.\(PostgresSQL.identifier(idColumn))::text COLLATE \"C\""
    }

    /// The condition that a row's id is one of the ids bound to `$1` (text, cast to the id
    /// column's type, so that its index serves the lookup).
    var idIsAnyOfFirstParameterSQL: String {
        "\(PostgresSQL.identifier(idColumn)) = ANY($1::text[]::\(idType)[])"
    }

    /// The column list of a `SELECT` that reads every column as text.
    var textColumnsSQL: String {
        columns.map { "\(PostgresSQL.identifier($0))::text" }.joined(separator: ", ")
    }

    /// Reads the table's description.
    ///
    /// - Parameters:
    ///   - name: the table, optionally with its schema (`shop.items`).
    ///   - idColumn: the column of ids; nil: the primary key when it is one column.
    /// - Throws: ``PostgresSourceError`` for a missing table or id column, or no way to tell the id.
    public static func describe(
        _ name: String,
        idColumn: String?,
        on connection: PostgresConnection
    ) async throws(PostgresSourceError) -> PostgresTable {
        let relation: (oid: Int64, qualified: String, kind: String)
        do {
            let rows = try await connection.query(
                """
                SELECT c.oid::int8, format('%I.%I', n.nspname, c.relname), c.relkind::text
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.oid = to_regclass(\(name))
                """,
                logger: PostgresSQL.logger
            )
            var found: (Int64, String, String)?
            for try await row in rows { found = try row.decode((Int64, String, String).self) }
            guard let found else {
                throw PostgresSourceError(
                    "table '\(name)' does not exist (or is not visible to this user)",
                    sqlState: "42P01"
                )
            }
            relation = found
        } catch {
            throw PostgresSourceError.wrapping(error, "table '\(name)'")
        }
        guard ["r", "p", "v", "m", "f"].contains(relation.kind) else {
            throw PostgresSourceError("'\(name)' is not a table or view")
        }
        var columns: [String] = []
        var types: [String] = []
        var primaryKey: [String] = []
        do {
            let rows = try await connection.query(
                """
                SELECT a.attname::text, format_type(a.atttypid, a.atttypmod),
                       coalesce((SELECT true FROM pg_index i
                                 WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY(i.indkey)), false)
                FROM pg_attribute a
                WHERE a.attrelid = \(relation.oid)::oid AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """,
                logger: PostgresSQL.logger
            )
            for try await row in rows {
                let (column, type, isKey) = try row.decode((String, String, Bool).self)
                columns.append(column)
                types.append(type)
                if isKey { primaryKey.append(column) }
            }
        } catch {
            throw PostgresSourceError.wrapping(error, "table '\(name)'")
        }
        let id: String
        if let idColumn {
            guard columns.contains(idColumn) else {
                throw PostgresSourceError(
                    "table \(relation.qualified): no column '\(idColumn)' for the ids (columns: \(columns.joined(separator: ", ")))"
                )
            }
            id = idColumn
        } else if primaryKey.count == 1 {
            id = primaryKey[0]
        } else {
            throw PostgresSourceError(
                "table \(relation.qualified): give the id column with --id (it has "
                    + (primaryKey.isEmpty ? "no primary key" : "a primary key of \(primaryKey.count) columns") + ")"
            )
        }
        let idType = types[columns.firstIndex(of: id)!]
        guard !["bytea", "json", "jsonb"].contains(idType), !idType.hasSuffix("[]") else {
            throw PostgresSourceError(
                "table \(relation.qualified), column \(id): ids of type \(idType) are not supported (use text, a number or uuid)"
            )
        }
        return PostgresTable(
            givenName: name,
            qualifiedName: relation.qualified,
            columns: columns,
            types: types,
            idColumn: id,
            isView: relation.kind == "v" || relation.kind == "m"
        )
    }

    /// A table described without a connection, for SQL written ahead (`sift postgres install
    /// --print`): `name` is taken to be in the `public` schema unless it names its schema, and
    /// every column but the id is unknown.
    public static func offline(_ name: String, idColumn: String) -> PostgresTable {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        let qualified = (parts.count == 2 ? parts : ["public", name]).map(quotedIfNeeded).joined(separator: ".")
        return PostgresTable(
            givenName: name,
            qualifiedName: qualified,
            columns: [idColumn],
            types: ["text"],
            idColumn: idColumn,
            isView: false
        )
    }

    /// An identifier as `format('%I')` writes it: bare when it is lowercase letters, digits and
    /// underscores not starting with a digit, else quoted.
    static func quotedIfNeeded(_ name: String) -> String {
        let bare =
            !name.isEmpty && name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
            && !(name.utf8.first! >= 48 && name.utf8.first! <= 57)
        return bare ? name : PostgresSQL.identifier(name)
    }

    /// Whether `a` comes before `b` in the order records are kept (see ``hasIntegerIDs``).
    public func idPrecedes(_ a: String, _ b: String) -> Bool {
        if hasIntegerIDs, let x = Int64(a), let y = Int64(b) { return x < y }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

/// SQL text helpers.
enum PostgresSQL {
    static let logger: Logger = {
        var logger = Logger(label: "sift.postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// An identifier quoted as PostgreSQL's `quote_ident` would: always in double quotes, with
    /// inner quotes doubled.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A string literal.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

extension PostgresSQL {
    /// Splits a script into statements at semicolons outside quotes, identifiers, comments and
    /// dollar-quoted bodies (the extended protocol takes one statement at a time).
    static func statements(_ script: String) -> [String] {
        var statements: [String] = []
        var current: [Character] = []
        let characters = Array(script)
        var i = 0
        while i < characters.count {
            let c = characters[i]
            if c == "'" || c == "\"" {
                current.append(c)
                i += 1
                while i < characters.count {
                    current.append(characters[i])
                    i += 1
                    if characters[i - 1] == c { break }
                }
            } else if c == "-", i + 1 < characters.count, characters[i + 1] == "-" {
                while i < characters.count, characters[i] != "\n" { i += 1 }
            } else if c == "$", let end = characters[(i + 1)...].firstIndex(of: "$"),
                characters[(i + 1)..<end].allSatisfy({ $0.isLetter || $0 == "_" })
            {
                let tag = Array(characters[i...end])
                current += tag
                i = end + 1
                while i < characters.count, Array(characters[i..<min(characters.count, i + tag.count)]) != tag {
                    current.append(characters[i])
                    i += 1
                }
                current += tag
                i += tag.count
            } else if c == ";" {
                let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
                if !text.isEmpty { statements.append(text) }
                current = []
                i += 1
            } else {
                current.append(c)
                i += 1
            }
        }
        let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty { statements.append(text) }
        return statements
    }
}

extension PostgresConnection {
    /// Runs a script of several statements, one at a time.
    func runScript(_ script: String) async throws {
        for statement in PostgresSQL.statements(script) {
            _ = try await query(PostgresQuery(unsafeSQL: statement), logger: PostgresSQL.logger)
        }
    }
}
