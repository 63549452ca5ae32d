import Foundation
import PostgresNIO
import Sift
import SiftPostgres
import Testing

/// `sift serve --postgres` as a person runs it: killed with SIGKILL at random moments while
/// others write, restarted from its data directory, it ends holding exactly the table's rows.
@Suite(.enabled(if: TestCluster.isAvailable, "PostgreSQL's server programs are not installed"))
struct ServeFollowingTests {
    typealias Fixtures = PostgresFollowingTests

    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("sift").path

    /// A running `sift serve`, its standard output and error in files.
    struct Server {
        var pid: pid_t
        var output: String

        static func start(_ arguments: [String], output: String) throws -> Server {
            Server(pid: try spawn(["serve"] + arguments, output: output), output: output)
        }

        /// Sends `signal` and waits for the process to end; its exit status.
        func stop(_ signal: Int32) -> Int32 {
            kill(pid, signal)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return status
        }

        /// The port it listens on, once it says so (nil if it ended first).
        func port() async throws -> Int? {
            while true {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                if let range = text.range(of: "listening on http://127.0.0.1:") {
                    let digits = text[range.upperBound...].prefix { $0.isNumber }
                    if let port = Int(digits) { return port }
                }
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { return nil }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Starts `sift ARGUMENTS`, its standard output and error into the file `output`.
    static func spawn(_ arguments: [String], output: String) throws -> pid_t {
        let argv = ([executable] + arguments).map { strdup($0) }
        defer { for arg in argv { free(arg) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv + [nil], environ)
        guard spawned == 0 else { throw PostgresSourceError("sift could not start (\(spawned))") }
        return pid
    }

    /// Runs `sift ARGUMENTS` to the end: its exit status and what it printed.
    static func sift(_ arguments: [String], directory: String) throws -> (status: Int32, output: String) {
        let output = directory + "/sift-\(UInt64.random(in: 0...UInt64.max)).out"
        let pid = try spawn(arguments, output: output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    @Test func postgresCommandsInstallReportPruneAndUninstall() async throws {
        let location = try await TestCluster.shared.makeDatabase()
        let setup = try await location.connect()
        defer { Task { try? await setup.close() } }
        try await Fixtures.makeTable(setup)
        let url = try await TestCluster.shared.serverURL().replacingOccurrences(
            of: "/postgres?",
            with: "/\(location.database!)?"
        )
        let directory = NSTemporaryDirectory() + "sift-postgres-commands-\(UInt64.random(in: 0...UInt64.max))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

        // --print writes the SQL without a database; it names the table as PostgreSQL would.
        let printed = try Self.sift(
            ["postgres", "install", "--table", "Shop.Items", "--id", "id", "--print"],
            directory: directory
        )
        #expect(printed.status == 0)
        #expect(printed.output.contains("CREATE CONSTRAINT TRIGGER sift_change_log"))
        #expect(printed.output.contains("ON \"Shop\".\"Items\""))
        let withoutID = try Self.sift(["postgres", "install", "--table", "items", "--print"], directory: directory)
        #expect(withoutID.status != 0 && withoutID.output.contains("--id"))

        let installed = try Self.sift(
            ["postgres", "install", "--postgres", url, "--table", "items"],
            directory: directory
        )
        #expect(installed.status == 0, "\(installed.output)")
        var rng = SystemRandomNumberGenerator()
        for id in 1...50 { try await Fixtures.upsert(setup, id: id, rng: &rng) }
        _ = try await setup.query(
            "INSERT INTO sift.followers (table_name, name, position) VALUES ('public.items', 'slow', 20)",
            logger: TestCluster.logger
        )
        let status = try Self.sift(["postgres", "status", "--postgres", url], directory: directory)
        #expect(
            status.output.contains("public.items: id column id, 50 log entries, latest change 50"),
            "\(status.output)"
        )
        #expect(status.output.contains("follower slow: at 20 (30 behind)"), "\(status.output)")

        // Pruning keeps what the slow follower still needs.
        let pruned = try Self.sift(["postgres", "prune", "--postgres", url, "--table", "items"], directory: directory)
        #expect(pruned.output.contains("public.items: 20 entries deleted; the log starts after 20"), "\(pruned.output)")
        let unknown = try Self.sift(
            ["postgres", "prune", "--postgres", url, "--table", "nothing"],
            directory: directory
        )
        #expect(unknown.status != 0 && unknown.output.contains("'nothing' is not followed"))

        let removed = try Self.sift(
            ["postgres", "uninstall", "--postgres", url, "--table", "items"],
            directory: directory
        )
        #expect(removed.status == 0 && removed.output.contains("public.items is no longer followed"))
        try await Fixtures.upsert(setup, id: 51, rng: &rng)
        var left: Int64 = -1
        for try await row in try await setup.query(
            "SELECT count(*)::int8 FROM sift.changes",
            logger: TestCluster.logger
        ) {
            left = try row.decode(Int64.self)
        }
        #expect(left == 0)
        let after = try Self.sift(["postgres", "status", "--postgres", url], directory: directory)
        #expect(after.output.contains("no table is followed"))
        let wrong = try Self.sift(
            ["postgres", "status", "--postgres", url.replacingOccurrences(of: "postgres@", with: "nobody@")],
            directory: directory
        )
        #expect(wrong.status != 0 && wrong.output.contains("nobody"), "\(wrong.output)")
    }

    @Test func killedAtRandomMomentsAServerRestartsAndMissesNothing() async throws {
        let (location, setup) = try await Fixtures.followedItems(rows: 300)
        defer { Task { try? await setup.close() } }
        let url = try await TestCluster.shared.serverURL().replacingOccurrences(
            of: "/postgres?",
            with: "/\(location.database!)?"
        )
        let directory = NSTemporaryDirectory() + "sift-serve-follow-\(UInt64.random(in: 0...UInt64.max))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let arguments = [
            "--postgres", url, "--table", "items", "--field", "name,country,notes", "--port", "0",
            "--data-dir", directory + "/data",
        ]

        let writer = Task {
            var rng = SystemRandomNumberGenerator()
            let connection = try await location.connect()
            defer { Task { try? await connection.close() } }
            for _ in 0..<4000 {
                let id = Int.random(in: 1...600, using: &rng)
                if Int.random(in: 0..<4, using: &rng) == 0 {
                    _ = try await connection.query("DELETE FROM items WHERE id = \(id)", logger: TestCluster.logger)
                } else {
                    try await Fixtures.upsert(connection, id: id, rng: &rng)
                }
            }
        }
        // Ten servers in turn, each killed (SIGKILL) at a random moment: loading, catching up,
        // saving a snapshot or following.
        for round in 0..<10 {
            let server = try Server.start(arguments, output: directory + "/serve-\(round).log")
            try await Task.sleep(for: .milliseconds(Int.random(in: 100...1500)))
            _ = server.stop(SIGKILL)
        }
        try await writer.value
        let latest = try await Fixtures.latestSequence(setup)

        // The last one catches up before it listens, then stops (SIGTERM) with a final snapshot.
        let output = directory + "/serve.log"
        let server = try Server.start(arguments, output: output)
        let port = try await server.port()
        let log = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(port != nil, "sift serve did not start: \(log)")
        let status = server.stop(SIGTERM)
        #expect(status == 0, "sift serve exited with \(status): \(log)")
        let index = try SearchIndex.load(from: directory + "/data/index.sift")
        #expect(index.metadata[SharedSearchIndex.postgresSequenceKey].flatMap(UInt64.init) ?? 0 >= latest)
        let (fresh, _) = try await Fixtures.freshIndex(location)
        #expect(try Fixtures.records(index) == (try Fixtures.records(fresh)))
        // And it answers as the same rows indexed afresh with its configuration do.
        let same = try SearchIndex(configuration: index.configuration, records: try Fixtures.records(fresh))
        #expect(try Fixtures.answers(index) == (try Fixtures.answers(same)))

        // The data directory belongs to the table: serving a file over it is refused.
        let cities = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Data/cities.tsv").path
        let overFile = try Self.sift(
            ["serve", cities, "--data-dir", directory + "/data", "--port", "0"],
            directory: directory
        )
        #expect(overFile.status != 0 && overFile.output.contains("holds table public.items"), "\(overFile.output)")
    }
}
