import Foundation
import PostgresNIO
import Sift
import SiftPostgres
import SiftServer
import Testing

/// Edits through the server's store are written to PostgreSQL first, refused as the HTTP API
/// refuses them, and shown by the follower once committed.
@Suite(.enabled(if: TestCluster.isAvailable, "PostgreSQL's server programs are not installed"))
struct PostgresRecordStoreTests {
    typealias Fixtures = PostgresFollowingTests

    /// A followed table with rows 1…20, a shared index loaded from it, and a store over both.
    static func makeStore() async throws -> (PostgresLocation, SharedSearchIndex, PostgresRecordStore) {
        let (location, setup) = try await Fixtures.followedItems(rows: 20)
        let table = try await PostgresTable.describe("items", idColumn: nil, on: setup)
        try await setup.close()
        let shared = SharedSearchIndex(try await Fixtures.freshIndex(location).0)
        let follower = try await Fixtures.follower(location, shared, name: "store")
        let store = PostgresRecordStore(
            location: location,
            table: table,
            follower: follower,
            visibilityTimeout: .seconds(60)
        )
        return (location, shared, store)
    }

    /// Waits for the store's follower to apply everything committed, expects the index to hold
    /// what a fresh load of the table does, and closes the store.
    static func expectFollowerEndsWhereAFreshLoadIs(
        _ location: PostgresLocation,
        _ shared: SharedSearchIndex,
        _ store: PostgresRecordStore
    ) async throws {
        let connection = try await location.connect()
        let latest = try await Fixtures.latestSequence(connection)
        try await connection.close()
        await Fixtures.waitFor(store.follower, latest)
        let (fresh, _) = try await Fixtures.freshIndex(location)
        #expect(try await shared.read { try Fixtures.records($0) } == (try Fixtures.records(fresh)))
        await store.close()
    }

    static func row(_ location: PostgresLocation, id: Int) async throws -> [String?]? {
        let connection = try await location.connect()
        defer { Task { try? await connection.close() } }
        var found: [String?]?
        for try await row in try await connection.query(
            "SELECT name, country, notes, rank::text FROM items WHERE id = \(id)",
            logger: TestCluster.logger
        ) {
            let (name, country, notes, rank) = try row.decode((String?, String?, String?, String?).self)
            found = [name, country, notes, rank]
        }
        return found
    }

    @Test func editsAreCommittedThenVisibleWithTheirSequence() async throws {
        let (location, shared, store) = try await Self.makeStore()
        let inserted = try await store.submit(
            .insert([Record(id: "100", fields: ["name": "Zürich Nord", "rank": "7", "notes": ""])])
        )
        #expect(inserted.visible && inserted.count == 1 && inserted.sequence > 0)
        // Written to PostgreSQL: an empty value in a number column is NULL, in a text column empty.
        #expect(try await Self.row(location, id: 100) == ["Zürich Nord", nil, "", "7"])
        let found = try await shared.read { index in
            try index.search(Query("zurich nord", mode: .words)).rows.map { try index.id(of: $0) }
        }
        #expect(found == ["100"])

        let upserted = try await store.submit(
            .upsert([
                Record(id: "100", fields: ["name": "Basel", "rank": ""]),
                Record(id: "101", fields: ["name": "Bern"]),
            ])
        )
        #expect(upserted.visible && upserted.count == 2 && upserted.sequence > inserted.sequence)
        #expect(try await Self.row(location, id: 100) == ["Basel", nil, "", nil])
        #expect(try await Self.row(location, id: 101) == ["Bern", nil, nil, nil])
        #expect(try await shared.read { try $0.record($0.handle(forID: "101")!).fields["name"] } == "Bern")

        let deleted = try await store.submit(.delete(["100", "101"]))
        #expect(deleted.visible && deleted.sequence > upserted.sequence)
        #expect(try await Self.row(location, id: 100) == nil)
        #expect(await shared.read { $0.handle(forID: "100") == nil && $0.handle(forID: "101") == nil })
        let statistics = await store.statistics()
        #expect(statistics.kind == "postgres" && statistics.appliedSequence >= deleted.sequence)
        await store.close()
    }

    @Test func refusedEditsChangeNothing() async throws {
        let (location, shared, store) = try await Self.makeStore()
        let before = try await shared.read { try Fixtures.records($0) }
        func refusal(_ edit: ServerEdit) async -> ServerEditError? {
            do {
                _ = try await store.submit(edit)
                return nil
            } catch {
                return error
            }
        }
        // Each refused edit names the record and field at fault, and nothing of it is written.
        let conflict = await refusal(
            .insert([Record(id: "200", fields: ["name": "new"]), Record(id: "3", fields: ["name": "taken"])])
        )
        #expect(conflict?.kind == .conflict && conflict?.field == "[1].id")
        let missing = await refusal(.delete(["4", "999"]))
        #expect(missing?.kind == .notFound && missing?.field == "[1]")
        let unknown = await refusal(.upsert([Record(id: "5", fields: ["colour": "red"])]))
        #expect(unknown?.kind == .badRequest && unknown?.field == "[0].fields.colour")
        let notANumber = await refusal(.upsert([Record(id: "6", fields: ["rank": "many"])]))
        #expect(notANumber?.kind == .badRequest)
        #expect(notANumber?.message.contains("many") == true)
        let badID = await refusal(.insert([Record(id: "seven", fields: ["name": "x"])]))
        #expect(badID?.kind == .badRequest)
        #expect(try await Self.row(location, id: 200) == nil)
        #expect(try await Self.row(location, id: 4) != nil)

        // Then one that is accepted: the index shows it and nothing of the refused ones.
        let receipt = try await store.submit(.upsert([Record(id: "6", fields: ["rank": "12"])]))
        #expect(receipt.visible)
        let after = try await shared.read { try Fixtures.records($0) }
        #expect(after.count == before.count)
        #expect(after.filter { $0.id != "6" } == before.filter { $0.id != "6" })
        await store.close()
    }

    @Test func concurrentEditsAreEachTheirOwnTransaction() async throws {
        let (location, shared, store) = try await Self.makeStore()
        // Forty edits at once: a refused one (an id that exists) rolls back only itself.
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for i in 0..<40 {
                group.addTask {
                    let edit: ServerEdit =
                        i % 5 == 0
                        ? .insert([Record(id: "300\(i)", fields: ["name": "new \(i)"]), Record(id: "2", fields: [:])])
                        : .upsert([Record(id: "300\(i)", fields: ["name": "new \(i)"])])
                    do {
                        _ = try await store.submit(edit)
                        return (i, true)
                    } catch {
                        return (i, false)
                    }
                }
            }
            var outcomes: [Int: Bool] = [:]
            for await (i, accepted) in group { outcomes[i] = accepted }
            return outcomes
        }
        for i in 0..<40 {
            #expect(outcomes[i] == (i % 5 != 0))
            let row = try await Self.row(location, id: Int("300\(i)")!)
            #expect((row != nil) == (i % 5 != 0))
        }
        try await Self.expectFollowerEndsWhereAFreshLoadIs(location, shared, store)
    }

    @Test func anEditAbortedByADeadlockIsWrittenAgain() async throws {
        let (location, shared, store) = try await Self.makeStore()
        // Another writer holds row 1 and will ask for row 2 once the store's edit holds row 2 and
        // waits for row 1. PostgreSQL checks a waiting session for a deadlock once, when its
        // `deadlock_timeout` has passed since it began to wait, and aborts the session whose
        // check finds the cycle. The store's sessions (it connects at its first edit) check after
        // 10 s, the other writer after 10 minutes: the store's check comes after the cycle is
        // closed unless this test takes more than 10 s to close it, so the store's transaction
        // is the one aborted. (With PostgreSQL's default of 1 s a loaded run could close the cycle
        // too late: the store's check then found none, and the other writer's aborted it.)
        let database = try #require(location.database)
        let setup = try await location.connect()
        try await setup.run("ALTER DATABASE \(database) SET deadlock_timeout = '10s'")
        try await setup.close()
        let other = try await location.connect()
        defer { Task { try? await other.close() } }
        try await other.run("SET deadlock_timeout = '600s'; BEGIN; UPDATE items SET name = 'other' WHERE id = 1")
        let edit = Task {
            try await store.submit(
                .upsert([
                    Record(id: "2", fields: ["name": "store two"]), Record(id: "1", fields: ["name": "store one"]),
                ])
            )
        }
        // Until the store's transaction waits for a lock in this test's database (no clock: a
        // busy machine only waits longer).
        let watcher = try await location.connect()
        defer { Task { try? await watcher.close() } }
        var waiting = 0
        while waiting == 0 {
            for try await row in try await watcher.query(
                "SELECT count(*)::int FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
                logger: TestCluster.logger
            ) { waiting = try row.decode(Int.self) }
            if waiting == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        do {
            try await other.run("UPDATE items SET notes = 'other' WHERE id = 2; COMMIT")
        } catch {
            Issue.record("the other writer's transaction failed: \(String(reflecting: error))")
            throw error
        }
        let receipt = try await edit.value
        #expect(receipt.count == 2)
        #expect(try await Self.row(location, id: 1)?.first == "store one")
        #expect(try await Self.row(location, id: 2)?.first == "store two")
        #expect(try await Self.row(location, id: 2)?[2] == "other")
        try await Self.expectFollowerEndsWhereAFreshLoadIs(location, shared, store)
    }

    @Test func storeEditsAndOtherWritersEndWhereAFreshLoadIs() async throws {
        let (location, shared, store) = try await Self.makeStore()
        let other = Task {
            var rng = SystemRandomNumberGenerator()
            let connection = try await location.connect()
            defer { Task { try? await connection.close() } }
            for _ in 0..<400 {
                try await Fixtures.upsert(connection, id: Int.random(in: 1...60, using: &rng), rng: &rng)
            }
        }
        var rng = SystemRandomNumberGenerator()
        var lastSequence: UInt64 = 0
        for i in 0..<150 {
            let id = String(Int.random(in: 1...60, using: &rng))
            let edit: ServerEdit =
                i % 3 == 0
                ? .upsert([Record(id: id, fields: ["name": "store \(i)", "country": "Ελλάδα"])])
                : .upsert([Record(id: id, fields: ["notes": "note \(i)"])])
            let receipt = try await store.submit(edit)
            #expect(receipt.sequence > lastSequence)
            lastSequence = receipt.sequence
        }
        try await other.value
        try await Self.expectFollowerEndsWhereAFreshLoadIs(location, shared, store)
    }
}
