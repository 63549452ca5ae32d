import ArgumentParser
import Foundation
import Sift
import SiftDataset
import SiftServer

/// `sift serve FILE`: the search page, a WebSocket session per person and the HTTP JSON API over
/// one shared index.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a data file: a search page at /, WebSocket sessions and an HTTP JSON API.",
        discussion: """
            FILE is read as 'sift repl' and 'sift query' read it (its description file included). \
            Open the address it prints in a browser to search as you type; other programs use \
            GET /search, GET /records/ID and the rest of the API that GET /openapi.json describes.

            Without keys the server is read-only and listens on loopback only. --search-key (or \
            SIFT_SEARCH_KEY) makes searches need 'Authorization: Bearer KEY' (the page takes \
            ?key=KEY in its address); --admin-key (or SIFT_ADMIN_KEY) allows edits (POST, PUT \
            and DELETE /records) with that key. Edits also need --data-dir: each is written to \
            the edit log there and fsynced before it is acknowledged, and the log is compacted \
            into a snapshot (DIR/index.sift) in the background. With a snapshot in DIR, the \
            server starts from it and replays the log; FILE is then not read.

            With --postgres URL --table T (instead of FILE) the records live in PostgreSQL: the \
            table is loaded, then followed (see 'sift postgres install'), and edits through the \
            API are written to the table and acknowledged once committed there. --data-dir then \
            keeps a snapshot with the last change applied, so a restart catches up instead of \
            reading the whole table again.

            SIGINT or SIGTERM stops the server: it stops accepting, closes the sessions and exits 0.
            """
    )

    @Argument(
        help:
            "A TSV, CSV or JSON Lines file with a header (or keys), or an index snapshot from 'sift index'; none with --postgres."
    )
    var file: String?

    @OptionGroup(title: "PostgreSQL (the records live in a table that the server follows)")
    var postgres: PostgresOptions

    @Option(
        name: .customLong("follower-name"),
        help: ArgumentHelp(
            "This server's name among the table's followers "
                + "(default: the host name and --data-dir, or the process id)."
        )
    )
    var followerName: String?

    @OptionGroup(title: "Index options (shared with 'sift query', 'sift repl' and 'sift index')")
    var index: IndexOptions

    @OptionGroup(title: "Search options (shared with 'sift query' and 'sift repl')")
    var search: SearchOptions

    @Option(help: "The address to listen on (default: 127.0.0.1, loopback only).")
    var host: String?

    @Option(help: "The port to listen on (0: any free port).")
    var port = 7700

    @Option(name: .customLong("search-key"), help: "The key searches need (or SIFT_SEARCH_KEY).")
    var searchKey: String?

    @Option(
        name: .customLong("admin-key"),
        help: "The key edits need (or SIFT_ADMIN_KEY); without it the server is read-only."
    )
    var adminKey: String?

    @Option(
        name: .customLong("data-dir"),
        help: "Where edits are logged and snapshots kept; without it edits are refused."
    )
    var dataDirectory: String?

    @Option(
        name: .customLong("allow-origin"),
        help: "An origin (such as https://example.com) whose pages may call the API (CORS); repeat for more."
    )
    var allowedOrigins: [String] = []

    @Option(name: .customLong("max-body-bytes"), help: "The largest request body.")
    var maxBodyBytes = 8 << 20

    @Option(name: .customLong("max-sessions"), help: "The most WebSocket sessions at once.")
    var maxSessions = 1000

    @Option(name: .customLong("max-messages-per-second"), help: "The most messages a session may send a second.")
    var maxMessagesPerSecond = 60

    @Option(name: .customLong("idle-timeout"), help: "Seconds a silent session stays open.")
    var idleTimeout = 1800

    func validate() throws {
        let following = postgres.url != nil || postgres.table != nil
        if following, file != nil {
            throw ValidationError("give FILE or --postgres with --table, not both")
        }
        if !following, file == nil { throw ValidationError("give FILE, or --postgres URL --table NAME") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard maxBodyBytes > 0, maxSessions > 0, maxMessagesPerSecond > 0, idleTimeout > 0 else {
            throw ValidationError(
                "--max-body-bytes, --max-sessions, --max-messages-per-second and --idle-timeout must be positive"
            )
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration()
        configuration.host = host ?? "127.0.0.1"
        configuration.port = port
        configuration.searchKey = searchKey ?? environment["SIFT_SEARCH_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.adminKey = adminKey ?? environment["SIFT_ADMIN_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.dataDirectory = dataDirectory
        configuration.allowedOrigins = allowedOrigins
        configuration.limits.bodyBytes = maxBodyBytes
        configuration.limits.sessions = maxSessions
        configuration.limits.messagesPerSecond = maxMessagesPerSecond
        configuration.limits.idleTimeout = .seconds(idleTimeout)
        if host != nil, configuration.searchKey == nil, configuration.adminKey == nil {
            warn(
                "listening on \(configuration.host) without keys: anyone who reaches it can search (give --search-key)"
            )
        }
        // A table (SIFT_POSTGRES_URL alone only says where the database is: FILE wins).
        if file == nil {
            return try await runFollowing(try postgres.requiredLocation(), configuration: configuration)
        }
        if configuration.adminKey != nil, dataDirectory == nil {
            warn("no --data-dir: edits will be refused, since they could not be made durable")
        }
        guard let file else { throw ToolError("give FILE, or --postgres URL --table NAME") }

        // Start from the data directory's snapshot when there is one: it holds the index options
        // the directory was first made with, and every edit up to its sequence.
        var request = DatasetRequest(file: file, index: index, search: search)
        if let dataDirectory {
            let snapshot = SearchServer.snapshotPath(in: dataDirectory)
            if FileManager.default.fileExists(atPath: snapshot) {
                let given = request.configuringOptions
                request = DatasetRequest(file: snapshot, index: try IndexOptions.parse([]), search: search)
                FileHandle.standardError.write(
                    Data("sift serve: starting from \(snapshot) and its edit log; \(file) is not read\n".utf8)
                )
                if !given.isEmpty {
                    warn(
                        "\(given.joined(separator: ", ")) come from the snapshot, as \(dataDirectory) was first made; "
                            + "to change them, start with a new --data-dir"
                    )
                }
            }
        }
        let source = request.file
        let clock = ContinuousClock()
        let start = clock.now
        FileHandle.standardError.write(Data("sift serve: loading \(source)…\n".utf8))
        request.keepsRecords = false
        let opened = try DatasetLoader.open(request)
        let index = try opened.makeIndex()
        if opened.snapshot == nil { index.metadata = DatasetLoader.metadata(opened) }
        if let dataDirectory, let table = index.metadata[Self.postgresTableKey] {
            // Its records live in PostgreSQL: an edit log beside them would fork them.
            throw ToolError(
                "\(dataDirectory) holds table \(table) of 'sift serve --postgres': serve it with --table, "
                    + "or give another --data-dir"
            )
        }
        let server = try await SearchServer(
            index: index,
            fieldOrder: opened.dataset.columns,
            shownFields: opened.settings.showIsGiven ? opened.settings.show : [],
            configuration: configuration,
            options: Self.sessionOptions(opened.settings)
        )
        if let note = server.recoveryNote { warn(note) }
        let loaded = clock.now - start
        var line = "sift serve: \(server.recordCount) records ready in \(IndexCommand.seconds(loaded))"
        if server.replayedEdits > 0 { line += ", \(server.replayedEdits) logged edits replayed" }
        FileHandle.standardError.write(Data((line + "\n").utf8))
        try await Self.serve(server, configuration: configuration)
    }

    /// How sessions search and lay out their tables, from the dataset's settings.
    static func sessionOptions(_ settings: DatasetSettings) -> SearchController.Options {
        var options = SearchServer.defaultOptions
        options.mode = settings.mode
        options.syntax = settings.syntax
        options.typos = settings.typos
        options.resultsTable = TableLayout(order: settings.order, isSectioned: false)
        options.originalTable = TableLayout(order: .sorted, isSectioned: settings.isSectioned)
        return options
    }

    /// Serves until SIGINT or SIGTERM, printing the address once it listens.
    static func serve(_ server: SearchServer, configuration: ServerConfiguration) async throws {
        let shownHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        try await server.run { port in
            print("sift serve: listening on http://\(shownHost):\(port)/")
            fflush(nil)
        }
    }

    func warn(_ message: String) {
        FileHandle.standardError.write(Data("sift serve: warning: \(message)\n".utf8))
    }
}
