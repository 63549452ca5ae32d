import ArgumentParser
import Foundation
import PostgresNIO
import SiftPostgres

/// Where the records live in PostgreSQL: shared by `sift serve --postgres` and `sift postgres`.
struct PostgresOptions: ParsableArguments {
    @Option(
        name: .customLong("postgres"),
        help: ArgumentHelp(
            "The database, as a URL (or SIFT_POSTGRES_URL): postgres://user:password@host:5432/db, "
                + "or postgres:///db?host=/run/postgresql for a Unix socket.",
            valueName: "url"
        )
    )
    var url: String?

    @Option(help: "The table (or view) holding the records, optionally with its schema (shop.items).")
    var table: String?

    /// The database's location, from `--postgres` or `SIFT_POSTGRES_URL`; nil when neither is given.
    func location() throws -> PostgresLocation? {
        let environment = ProcessInfo.processInfo.environment
        guard let url = url ?? environment["SIFT_POSTGRES_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        do {
            return try PostgresLocation(url: url)
        } catch {
            throw ToolError(error.description)
        }
    }

    /// The location, or an error saying to give it.
    func requiredLocation() throws -> PostgresLocation {
        guard let location = try location() else {
            throw ToolError("give the database with --postgres URL (or SIFT_POSTGRES_URL)")
        }
        return location
    }

    /// The table, or an error saying to give it.
    func requiredTable() throws -> String {
        guard let table, !table.isEmpty else { throw ToolError("give the table with --table NAME") }
        return table
    }
}

/// `sift postgres install|uninstall|prune|status`: the change log that lets `sift serve
/// --postgres` follow a table.
struct PostgresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgres",
        abstract: "Install, inspect and prune the change log that 'sift serve --postgres' follows.",
        discussion: """
            'sift serve --postgres URL --table T' loads a table and then follows it: every insert, \
            update, delete and truncate committed to it shows in every session. Following needs \
            the change log: triggers on the table that record each change in sift.changes and \
            NOTIFY the followers. 'sift postgres install' adds them (and the sift schema, once per \
            database); 'install --print' writes the same SQL for those who run migrations \
            themselves.

            The log grows with every change. 'sift postgres prune' (from cron, say) deletes what \
            every follower has applied; a follower silent for a week is forgotten, and reloads \
            the table when it comes back.
            """,
        subcommands: [Install.self, Uninstall.self, Prune.self, Status.self]
    )

    /// Runs `body` on a connection to the database, closed after.
    static func withConnection<T>(
        _ location: PostgresLocation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection: PostgresConnection
        do {
            connection = try await location.connect()
        } catch {
            throw ToolError(error.description)
        }
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch let error as PostgresSourceError {
            try? await connection.close()
            throw ToolError(error.description)
        } catch {
            try? await connection.close()
            throw error
        }
    }

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the change log's triggers to a table (and the sift schema, once).",
            discussion: """
                Without --print it connects and installs, in one transaction. With --print it \
                writes the SQL instead; then --postgres is optional (without it, give --id, and \
                the table is taken to be in the public schema unless named with its schema).
                """
        )

        @OptionGroup var postgres: PostgresOptions

        @Option(help: "The id column (default: the table's one-column primary key).")
        var id: String?

        @Flag(help: "Print the SQL instead of running it.")
        var print = false

        func run() async throws {
            let name = try postgres.requiredTable()
            if print, try postgres.location() == nil {
                guard let id else { throw ToolError("--print without --postgres needs --id COLUMN") }
                Swift.print(ChangeLog.installSQL(PostgresTable.offline(name, idColumn: id)), terminator: "")
                return
            }
            let location = try postgres.requiredLocation()
            try await PostgresCommand.withConnection(location) { connection in
                let table = try await PostgresTable.describe(name, idColumn: id, on: connection)
                if print {
                    Swift.print(ChangeLog.installSQL(table), terminator: "")
                    return
                }
                try await ChangeLog.install(table, on: connection)
                Swift.print(
                    "sift postgres: \(table.qualifiedName) is followed (id column \(table.idColumn)); "
                        + "changes are logged in sift.changes"
                )
            }
        }
    }

    struct Uninstall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a table's triggers and its entries in the change log (the sift schema stays)."
        )

        @OptionGroup var postgres: PostgresOptions

        func run() async throws {
            let name = try postgres.requiredTable()
            try await PostgresCommand.withConnection(try postgres.requiredLocation()) { connection in
                let qualified = try await ChangeLog.uninstall(named: name, on: connection)
                Swift.print("sift postgres: \(qualified) is no longer followed")
            }
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the change log entries every follower has applied.",
            discussion: """
                Each follower records its position in sift.followers (at most once a second); \
                what the slowest one still needs is kept. A follower not heard from within \
                --forget-after is forgotten: it reloads the whole table when it comes back. \
                Entries younger than --keep are kept for followers yet to start.
                """
        )

        @OptionGroup var postgres: PostgresOptions

        @Option(help: "Seconds of changes to keep whatever the followers have applied.")
        var keep = 0

        @Option(name: .customLong("forget-after"), help: "Seconds after which a silent follower is forgotten.")
        var forgetAfter = 7 * 86_400

        func validate() throws {
            guard keep >= 0, forgetAfter > 0 else {
                throw ValidationError("--keep and --forget-after must be positive")
            }
        }

        func run() async throws {
            try await PostgresCommand.withConnection(try postgres.requiredLocation()) { connection in
                let prunings = try await ChangeLog.prune(
                    table: postgres.table,
                    keepSeconds: keep,
                    forgetAfterSeconds: forgetAfter,
                    on: connection
                )
                if prunings.isEmpty { Swift.print("sift postgres: no table is followed") }
                for pruning in prunings {
                    var line =
                        "\(pruning.table): \(pruning.deleted) entries deleted; the log starts after \(pruning.prunedThrough)"
                    if !pruning.forgottenFollowers.isEmpty {
                        line += "; forgotten followers: \(pruning.forgottenFollowers.joined(separator: ", "))"
                    }
                    Swift.print(line)
                }
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the followed tables, their change logs and their followers' positions."
        )

        @OptionGroup var postgres: PostgresOptions

        func run() async throws {
            try await PostgresCommand.withConnection(try postgres.requiredLocation()) { connection in
                let report = try await ChangeLog.status(table: postgres.table, on: connection)
                if report.isEmpty { Swift.print("sift postgres: no table is followed (run 'sift postgres install')") }
                for table in report {
                    Swift.print(
                        "\(table.table): id column \(table.idColumn), \(table.entries) log entries, "
                            + "latest change \(table.latest), pruned through \(table.prunedThrough)"
                    )
                    for follower in table.followers {
                        let behind = table.latest > follower.position ? table.latest - follower.position : 0
                        Swift.print(
                            "  follower \(follower.name): at \(follower.position) (\(behind) behind), "
                                + "heard from \(follower.secondsAgo) s ago"
                        )
                    }
                }
            }
        }
    }
}
