import Foundation
import PostgresNIO
import Sift
import SiftPostgres

/// One throwaway PostgreSQL cluster for the whole test process (`scripts/postgres-cluster.sh`),
/// stopped when the process exits; each test makes its own database in it.
///
/// Without PostgreSQL's server programs the tests that need it are not run (CI installs them).
actor TestCluster {
    static let shared = TestCluster()

    /// Whether `initdb` can be found (on the PATH or in Debian's folder).
    static let isAvailable: Bool = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        if paths.contains(where: { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }) { return true }
        let debian = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return debian.contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }
    }()

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres-cluster.sh").path

    private var url: String?
    private(set) var directory: String?

    /// The cluster's URL (the `postgres` database), starting the cluster the first time.
    func serverURL() throws -> String {
        if let url { return url }
        let directory = NSTemporaryDirectory() + "sift-postgres-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let port = 20_000 + Int(getpid() % 20_000)
        try Self.runScript(["start", directory], port: port)
        clusterDirectory = strdup(directory)
        atexit {
            if let directory = clusterDirectory { try? TestCluster.runScript(["stop", String(cString: directory)]) }
        }
        self.directory = directory
        url = "postgres://postgres@/postgres?host=\(directory)&port=\(port)"
        return url!
    }

    /// Restarts the server (fast shutdown, then start), as a crash-and-recover would.
    func restartServer() throws {
        guard let directory else { return }
        try Self.runScript(["restart", directory])
    }

    /// A new, empty database, and where it is.
    func makeDatabase() async throws -> PostgresLocation {
        let base = try PostgresLocation(url: try serverURL())
        let name = "t\(UInt64.random(in: 0...UInt64.max))"
        let connection = try await base.connect()
        defer { Task { try? await connection.close() } }
        _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Self.logger)
        var location = base
        location.database = name
        return location
    }

    static let logger = Logger(label: "tests")

    /// Runs the script, its output to /dev/null, and waits for it (`posix_spawn` and `waitpid`:
    /// Foundation's `Process.waitUntilExit` never returned here once the server had started).
    static func runScript(_ arguments: [String], port: Int? = nil) throws {
        if let port { setenv("SIFT_POSTGRES_PORT", String(port), 1) }
        let argv = (["/bin/bash", script] + arguments).map { strdup($0) }
        defer { for arg in argv { free(arg) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv + [nil], environ)
        guard spawned == 0 else { throw PostgresSourceError("postgres-cluster.sh could not start (\(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            throw PostgresSourceError("postgres-cluster.sh \(arguments.joined(separator: " ")) failed (\(status))")
        }
    }
}

/// The cluster folder, for the `atexit` handler (a C function cannot capture).
nonisolated(unsafe) private var clusterDirectory: UnsafeMutablePointer<CChar>?

extension PostgresConnection {
    /// Runs statements (several, separated by semicolons) and waits for them.
    func run(_ sql: String) async throws {
        for statement in sql.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
            _ = try await query(PostgresQuery(unsafeSQL: String(statement)), logger: TestCluster.logger)
        }
    }
}
