import Foundation
import PostgresNIO
import Sift
import SiftDataset
import SiftPostgres
import Synchronization
import Testing

/// Against a real PostgreSQL (a throwaway cluster, see `TestCluster`): a loaded table answers as
/// the same rows do from a file; a follower under concurrent writers, restarts, server restarts,
/// pruning and bad data ends where a fresh load of the table is.
///
/// Needs PostgreSQL's server programs (`.ci/run` installs Debian's `postgresql`); without them
/// the suite is skipped.
@Suite(.enabled(if: TestCluster.isAvailable, "PostgreSQL's server programs are not installed"), .serialized)
struct PostgresFollowingTests {
    // MARK: Fixtures

    /// Values that exercise CSV quoting, Unicode, case and accents, NULLs and empty strings.
    static let words = [
        "Zürich", "zurich", "São Paulo", "Straße", "strasse", "niño", "a,b", "say \"hi\"", "two\nlines",
        " padded ", "José", "jose", "東京", "Ελλάδα", "", "x\ty", "O'Brien", "naïve", "Œuvre", "ﬁle",
    ]

    static func randomValue(_ rng: inout some RandomNumberGenerator) -> String? {
        if Int.random(in: 0..<10, using: &rng) == 0 { return nil }
        let count = Int.random(in: 1...3, using: &rng)
        return (0..<count).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")
    }

    static func makeTable(_ connection: PostgresConnection, name: String = "items") async throws {
        try await connection.run(
            "CREATE TABLE \(name) (id bigint PRIMARY KEY, name text, country varchar(40), notes text, rank integer)"
        )
    }

    /// Inserts or replaces a row.
    static func upsert(
        _ connection: PostgresConnection,
        table: String = "items",
        id: Int,
        rng: inout some RandomNumberGenerator
    )
        async throws
    {
        let (name, country, notes) = (randomValue(&rng), randomValue(&rng), randomValue(&rng))
        let rank = Int.random(in: 0..<1000, using: &rng)
        _ = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(table) (id, name, country, notes, rank) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (id) DO UPDATE SET name = $2, country = $3, notes = $4, rank = $5
                    """,
                binds: {
                    var binds = PostgresBindings()
                    binds.append(id)
                    binds.append(name)
                    binds.append(country)
                    binds.append(notes)
                    binds.append(rank)
                    return binds
                }()
            ),
            logger: TestCluster.logger
        )
    }

    /// A fresh load of the table: its rows through the CSV the loader makes, indexed.
    static func freshIndex(_ location: PostgresLocation, table: String = "items") async throws -> (SearchIndex, UInt64)
    {
        let connection = try await location.connect()
        defer { Task { try? await connection.close() } }
        let described = try await PostgresTable.describe(table, idColumn: nil, on: connection)
        let rows = try await described.readRows(on: connection)
        let file = try DataFile(bytes: rows.csv, source: table, format: .csv)
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "country", "notes"], sortField: "name"),
            records: try file.records(idField: "id")
        )
        index.metadata[SharedSearchIndex.postgresSequenceKey] = String(rows.position)
        return (index, rows.position)
    }

    static func records(_ index: SearchIndex) throws -> [Record] {
        try index.handles().map { try index.record($0) }
    }

    static let queries = [
        "zur", "jose", "strasse", "nino", "a,b", "hi", "lines", "東", "ελ", "o'b", "file", "s", "pa", "e",
    ]

    /// The ids each query answers, in every mode and order.
    static func answers(_ index: SearchIndex) throws -> [String] {
        var lines: [String] = []
        for text in queries {
            for mode in [MatchMode.contains, .prefix, .words] {
                for order in [ResultOrder.original, .sorted, .ranked] {
                    let result = try index.search(Query(text, mode: mode, order: order))
                    lines.append(
                        "\(text) \(mode) \(order): "
                            + (try result.rows.map { try index.id(of: $0) }).joined(separator: ",")
                    )
                }
            }
        }
        return lines
    }

    static func follower(
        _ location: PostgresLocation,
        _ shared: SharedSearchIndex,
        name: String = "test",
        log lines: LogLines? = nil
    )
        async throws -> PostgresFollower
    {
        let connection = try await location.connect()
        defer { Task { try? await connection.close() } }
        let table = try await PostgresTable.describe("items", idColumn: nil, on: connection)
        return PostgresFollower(
            location: location,
            table: table,
            name: name,
            shared: shared,
            pollInterval: .milliseconds(200),
            stallTimeout: .seconds(3),
            batchSize: 500
        ) { lines?.append($0) }
    }

    /// The highest sequence in the change log.
    static func latestSequence(_ connection: PostgresConnection) async throws -> UInt64 {
        var latest: Int64 = 0
        for try await row in try await connection.query(
            "SELECT coalesce(max(sequence), 0) FROM sift.changes",
            logger: TestCluster.logger
        ) {
            latest = try row.decode(Int64.self)
        }
        return UInt64(latest)
    }

    static func install(_ connection: PostgresConnection) async throws {
        let table = try await PostgresTable.describe("items", idColumn: nil, on: connection)
        try await ChangeLog.install(table, on: connection)
    }

    /// A new database holding `items` with its change log installed and rows 1…`rows` written,
    /// and the connection that made it (the caller closes it).
    static func followedItems(rows: Int) async throws -> (PostgresLocation, PostgresConnection) {
        let location = try await TestCluster.shared.makeDatabase()
        let setup = try await location.connect()
        try await makeTable(setup)
        try await install(setup)
        var rng = SystemRandomNumberGenerator()
        for id in 1...rows { try await upsert(setup, id: id, rng: &rng) }
        return (location, setup)
    }

    /// Whether PostgreSQL aborted a statement to break a deadlock (or a serialization failure):
    /// the transaction is lost, and its writer may roll back and go on.
    static func isDeadlock(_ error: PSQLError) -> Bool {
        ["40P01", "40001"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// Waits (without a wall-clock limit: a busy machine only makes it slower) for the follower
    /// to apply `sequence`.
    static func waitFor(_ follower: PostgresFollower, _ sequence: UInt64) async {
        while !(await follower.waitUntilApplied(sequence, timeout: .seconds(5))) {}
    }

    // MARK: Loading

    @Test func aLoadedTableHoldsEveryRowAsWrittenInIDOrder() async throws {
        let location = try await TestCluster.shared.makeDatabase()
        let connection = try await location.connect()
        defer { Task { try? await connection.close() } }
        try await Self.makeTable(connection)
        var rng = SystemRandomNumberGenerator()
        var expected: [Int: [String: String]] = [:]
        for id in (1...400).shuffled() {
            let values = [Self.randomValue(&rng), Self.randomValue(&rng), Self.randomValue(&rng)]
            let rank = Int.random(in: -5...5)
            var binds = PostgresBindings()
            binds.append(id)
            for value in values { binds.append(value) }
            binds.append(rank)
            _ = try await connection.query(
                PostgresQuery(unsafeSQL: "INSERT INTO items VALUES ($1, $2, $3, $4, $5)", binds: binds),
                logger: TestCluster.logger
            )
            var fields = ["id": String(id), "rank": String(rank)]
            for (name, value) in zip(["name", "country", "notes"], values) where value?.isEmpty == false {
                fields[name] = value
            }
            expected[id] = fields
        }
        let (index, _) = try await Self.freshIndex(location)
        let records = try Self.records(index)
        #expect(records.map(\.id) == (1...400).map(String.init))
        for record in records { #expect(record.fields == expected[Int(record.id)!]) }
    }

    @Test func badDataIsReportedNamingTableColumnAndRow() async throws {
        let location = try await TestCluster.shared.makeDatabase()
        let connection = try await location.connect()
        defer { Task { try? await connection.close() } }
        try await connection.run(
            "CREATE TABLE loose (code text, name text); INSERT INTO loose VALUES ('a', 'Anna'), (NULL, 'Bert'), ('b', 'Cleo');"
        )
        let loose = try await PostgresTable.describe("loose", idColumn: "code", on: connection)
        let nullID = await #expect(throws: PostgresSourceError.self) { try await loose.readRows(on: connection) }
        #expect(nullID?.message.contains("public.loose") == true)
        #expect(nullID?.message.contains("column code") == true)
        #expect(nullID?.message.contains("name=Bert") == true)
        try await connection.run("DELETE FROM loose WHERE code IS NULL; INSERT INTO loose VALUES ('a', 'Dora')")
        let duplicate = await #expect(throws: PostgresSourceError.self) { try await loose.readRows(on: connection) }
        #expect(duplicate?.message.contains("duplicate id 'a'") == true)

        let missingTable = await #expect(throws: PostgresSourceError.self) {
            try await PostgresTable.describe("nowhere", idColumn: nil, on: connection)
        }
        #expect(missingTable?.message.contains("'nowhere' does not exist") == true)
        let missingColumn = await #expect(throws: PostgresSourceError.self) {
            try await PostgresTable.describe("loose", idColumn: "nope", on: connection)
        }
        #expect(missingColumn?.message.contains("no column 'nope'") == true)
        let noKey = await #expect(throws: PostgresSourceError.self) {
            try await PostgresTable.describe("loose", idColumn: nil, on: connection)
        }
        #expect(noKey?.message.contains("--id") == true)

        var stranger = location
        stranger.user = "nobody_here"
        let refused = await #expect(throws: PostgresSourceError.self) { try await stranger.connect() }
        #expect(refused?.message.contains("nobody_here") == true)
    }

    // MARK: Following

    @Test func aFollowerUnderFourWritersEndsWhereAFreshLoadIs() async throws {
        let (location, setup) = try await Self.followedItems(rows: 500)
        defer { Task { try? await setup.close() } }
        let (start, _) = try await Self.freshIndex(location)
        let shared = SharedSearchIndex(start)
        let follower = try await Self.follower(location, shared)
        let following = Task { await follower.run() }

        // Four writers, 20,000 changes in all: inserts, updates, deletes, id changes, in
        // transactions of one to five statements. Writers that lock the same rows in different
        // orders deadlock now and then; PostgreSQL then aborts one of the transactions, which its
        // writer rolls back and goes on, as a real writer retries: the follower must end where a
        // fresh load is whatever committed.
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        var rng = SystemRandomNumberGenerator()
                        let connection = try await location.connect()
                        defer { Task { try? await connection.close() } }
                        var done = 0
                        while done < 5000 {
                            let statements = Int.random(in: 1...5, using: &rng)
                            _ = try await connection.query("BEGIN", logger: TestCluster.logger)
                            do {
                                for _ in 0..<statements {
                                    let id = Int.random(in: 1...2000, using: &rng)
                                    switch Int.random(in: 0..<10, using: &rng) {
                                    case 0..<6: try await Self.upsert(connection, id: id, rng: &rng)
                                    case 6..<9:
                                        _ = try await connection.query(
                                            "DELETE FROM items WHERE id = \(id)",
                                            logger: TestCluster.logger
                                        )
                                    default:
                                        // Ids of their own, above every random one: no writer's id
                                        // change can collide with another row.
                                        _ = try await connection.query(
                                            "UPDATE items SET id = \(10_000 + writer * 100_000 + done) WHERE id = \(id)",
                                            logger: TestCluster.logger
                                        )
                                    }
                                    done += 1
                                }
                            } catch let error as PSQLError where Self.isDeadlock(error) {
                                _ = try await connection.query("ROLLBACK", logger: TestCluster.logger)
                                continue
                            }
                            if Int.random(in: 0..<8, using: &rng) == 0 {
                                _ = try await connection.query("ROLLBACK", logger: TestCluster.logger)
                            } else {
                                _ = try await connection.query("COMMIT", logger: TestCluster.logger)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        } catch let error as PSQLError {
            // PSQLError's own description hides the server's message; CI must show it.
            Issue.record("a writer failed: \(String(reflecting: error))")
            throw error
        }
        let latest = try await Self.latestSequence(setup)
        await Self.waitFor(follower, latest)
        following.cancel()
        await following.value

        let (fresh, position) = try await Self.freshIndex(location)
        #expect(position == latest)
        let followed = try await shared.read { try Self.records($0) }
        #expect(followed == (try Self.records(fresh)))
        #expect(try await shared.read { try Self.answers($0) } == (try Self.answers(fresh)))
        #expect(await shared.followedSequence == latest)
    }

    @Test func restartedFollowersCatchUpFromWhereTheirIndexWas() async throws {
        let (location, setup) = try await Self.followedItems(rows: 300)
        defer { Task { try? await setup.close() } }
        let (start, _) = try await Self.freshIndex(location)
        // A snapshot of the follower's index, saved now and then, as `sift serve --data-dir` keeps one.
        let snapshot = NSTemporaryDirectory() + "sift-follow-\(UInt64.random(in: 0...UInt64.max)).sift"
        defer { unlink(snapshot) }
        try start.save(to: snapshot)

        let writer = Task {
            var rng = SystemRandomNumberGenerator()
            let connection = try await location.connect()
            defer { Task { try? await connection.close() } }
            for _ in 0..<3000 {
                let id = Int.random(in: 1...600, using: &rng)
                if Int.random(in: 0..<4, using: &rng) == 0 {
                    _ = try await connection.query("DELETE FROM items WHERE id = \(id)", logger: TestCluster.logger)
                } else {
                    try await Self.upsert(connection, id: id, rng: &rng)
                }
            }
        }
        // Ten followers in turn, each stopped at a random moment (its work in flight abandoned,
        // as a kill would), some saving a snapshot first; each next one starts from the snapshot.
        for round in 0..<10 {
            let index = try SearchIndex.load(from: snapshot)
            let shared = SharedSearchIndex(index)
            let follower = try await Self.follower(location, shared, name: "round")
            let following = Task { await follower.run() }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...300)))
            if round % 2 == 0 { try await shared.read { try $0.save(to: snapshot) } }
            following.cancel()
            await following.value
        }
        try await writer.value
        let latest = try await Self.latestSequence(setup)
        let shared = SharedSearchIndex(try SearchIndex.load(from: snapshot))
        let follower = try await Self.follower(location, shared, name: "round")
        let following = Task { await follower.run() }
        await Self.waitFor(follower, latest)
        following.cancel()
        await following.value
        let (fresh, _) = try await Self.freshIndex(location)
        #expect(try await shared.read { try Self.records($0) } == (try Self.records(fresh)))
    }

    @Test func aFollowerCatchesUpAfterTheServerRestartsDuringWrites() async throws {
        let location = try await TestCluster.shared.makeDatabase()
        let setup = try await location.connect()
        try await Self.makeTable(setup)
        try await Self.install(setup)
        try await setup.close()
        let shared = SharedSearchIndex(try await Self.freshIndex(location).0)
        let follower = try await Self.follower(location, shared)
        let following = Task { await follower.run() }
        // Writes before, during (failing, then retried on a new connection) and after a restart.
        var rng = SystemRandomNumberGenerator()
        var written = 0
        var restarted = false
        var connection = try await location.connect()
        while written < 1500 {
            if written == 500 && !restarted {
                restarted = true
                try await TestCluster.shared.restartServer()
                // A writer's connection dies with the server; in this test a query sent on it
                // right after the restart never returned (postgres-nio 1.33), so it starts anew,
                // as a pool would. What is tested is the follower, which must find out by itself.
                let old = connection
                Task { try? await old.close() }
                connection = try await location.connect()
            }
            do {
                try await Self.upsert(connection, id: Int.random(in: 1...700, using: &rng), rng: &rng)
                written += 1
            } catch {
                try? await connection.close()
                try await Task.sleep(for: .milliseconds(100))
                if let next = try? await location.connect() { connection = next }
            }
        }
        let latest = try await Self.latestSequence(connection)
        try await connection.close()
        await Self.waitFor(follower, latest)
        let status = await follower.status
        following.cancel()
        await following.value
        #expect(status.reconnects >= 1)
        let (fresh, _) = try await Self.freshIndex(location)
        #expect(try await shared.read { try Self.records($0) } == (try Self.records(fresh)))
    }

    @Test func threeFollowersGiveTheSameAnswers() async throws {
        let (location, setup) = try await Self.followedItems(rows: 200)
        defer { Task { try? await setup.close() } }
        var rng = SystemRandomNumberGenerator()
        // Each starts at another moment of the burst, from its own fresh load.
        var followers: [(SharedSearchIndex, PostgresFollower, Task<Void, Never>)] = []
        for n in 0..<3 {
            for _ in 0..<400 {
                let id = Int.random(in: 1...500, using: &rng)
                if Int.random(in: 0..<5, using: &rng) == 0 {
                    _ = try await setup.query("DELETE FROM items WHERE id = \(id)", logger: TestCluster.logger)
                } else {
                    try await Self.upsert(setup, id: id, rng: &rng)
                }
            }
            let shared = SharedSearchIndex(try await Self.freshIndex(location).0)
            let follower = try await Self.follower(location, shared, name: "f\(n)")
            followers.append((shared, follower, Task { await follower.run() }))
        }
        try await setup.run("TRUNCATE items")
        for id in 1...100 { try await Self.upsert(setup, id: id * 7, rng: &rng) }
        let latest = try await Self.latestSequence(setup)
        var answers: [[String]] = []
        for (shared, follower, task) in followers {
            await Self.waitFor(follower, latest)
            task.cancel()
            await task.value
            answers.append(try await shared.read { try Self.answers($0) + Self.records($0).map(\.id) })
        }
        #expect(answers[0] == answers[1])
        #expect(answers[1] == answers[2])
        let (fresh, _) = try await Self.freshIndex(location)
        #expect(answers[0] == (try Self.answers(fresh) + Self.records(fresh).map(\.id)))
    }

    @Test func aLogPrunedPastAFollowerMakesItReloadAndSaySo() async throws {
        let (location, setup) = try await Self.followedItems(rows: 100)
        defer { Task { try? await setup.close() } }
        var rng = SystemRandomNumberGenerator()
        let (stale, _) = try await Self.freshIndex(location)
        for id in 50...180 { try await Self.upsert(setup, id: id, rng: &rng) }
        try await setup.run("DELETE FROM items WHERE id < 20")
        // No follower has recorded a position: pruning removes the whole log.
        let pruned = try await ChangeLog.prune(on: setup)
        #expect(pruned.first?.deleted ?? 0 > 0)
        let lines = LogLines()
        let shared = SharedSearchIndex(stale)
        let follower = try await Self.follower(location, shared, name: "late", log: lines)
        let following = Task { await follower.run() }
        let latest = try await Self.latestSequence(setup)
        await Self.waitFor(follower, max(latest, pruned[0].prunedThrough))
        following.cancel()
        await following.value
        #expect(await follower.status.reloads == 1)
        #expect(lines.all.contains { $0.contains("pruned") && $0.contains("reloading the whole table") })
        let (fresh, _) = try await Self.freshIndex(location)
        #expect(try await shared.read { try Self.records($0) } == (try Self.records(fresh)))
        // Pruning keeps what a recorded follower still needs.
        for id in 1...30 { try await Self.upsert(setup, id: id, rng: &rng) }
        try await setup.run("INSERT INTO sift.followers VALUES ('public.items', 'slow', 0, now())")
        let kept = try await ChangeLog.prune(on: setup)
        #expect(kept.first?.deleted == 0)
    }

    @Test func aDroppedTableKeepsTheIndexServingAndIsReported() async throws {
        let (location, setup) = try await Self.followedItems(rows: 50)
        defer { Task { try? await setup.close() } }
        var rng = SystemRandomNumberGenerator()
        let shared = SharedSearchIndex(try await Self.freshIndex(location).0)
        let lines = LogLines()
        let follower = try await Self.follower(location, shared, name: "x", log: lines)
        let following = Task { await follower.run() }
        try await Self.upsert(setup, id: 51, rng: &rng)
        await Self.waitFor(follower, try await Self.latestSequence(setup))
        try await setup.run("DROP TABLE items")
        try await setup.run(
            "INSERT INTO sift.changes VALUES (nextval('sift.change_sequence'), 'public.items', 'U', '7')"
        )
        while await follower.status.lastError == nil { try await Task.sleep(for: .milliseconds(50)) }
        let status = await follower.status
        following.cancel()
        await following.value
        #expect(status.lastError?.contains("items") == true)
        #expect(await shared.read { $0.count } == 51)
        #expect(lines.all.contains { $0.contains("public.items") })
    }
}

/// Lines a follower logged.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
