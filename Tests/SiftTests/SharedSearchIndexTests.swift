import Testing

@testable import Sift

/// Several controllers over one `SharedSearchIndex`: each keeps its own text, options and tables;
/// an edit through any of them, or through the shared index, reaches every one as an `.edit`
/// update whose change sets turn its previous tables into its new ones.
@Suite("Shared index: many controllers, one index")
struct SharedSearchIndexTests {
    private func makeShared() throws -> SharedSearchIndex {
        SharedSearchIndex(
            try SearchIndex(
                configuration: ControllerFixtures.indexConfiguration(),
                records: ControllerFixtures.records
            )
        )
    }

    private func names(_ table: RecordTable) -> [String] { table.rows(numbered: 0..<table.rowCount).map(\.title) }

    @Test func controllersKeepTheirOwnTextAndTables() async throws {
        let shared = try makeShared()
        let alice = try await shared.makeController()
        let bob = try await shared.makeController()
        let a = alice.setText("par")
        let b = bob.setText("zu")
        let aliceUpdate = try await alice.settledUpdate(for: a)
        let bobUpdate = try await bob.settledUpdate(for: b)
        #expect(Set(names(aliceUpdate.tables.results)) == ["Paris", "Parma"])
        #expect(names(bobUpdate.tables.results) == ["Zürich"])
        #expect(aliceUpdate.query.text == "par" && bobUpdate.query.text == "zu")
        #expect(await shared.controllerCount == 2)
    }

    @Test func anEditThroughTheSharedIndexReachesEveryController() async throws {
        let shared = try makeShared()
        let alice = try await shared.makeController()
        let bob = try await shared.makeController()
        let aliceBefore = try await alice.settledUpdate(for: alice.setText("par"))
        _ = try await bob.settledUpdate(for: bob.setText("o"))
        let aliceUpdates = await alice.updates(buffering: .all)
        let bobUpdates = await bob.updates(buffering: .all)
        // Each stream starts with the current update; read it before the edit, so that the edit's
        // update follows it rather than standing for both.
        var aliceIterator = aliceUpdates.makeAsyncIterator()
        var bobIterator = bobUpdates.makeAsyncIterator()
        _ = await aliceIterator.next()
        _ = await bobIterator.next()
        try await shared.insert(Record(id: "new", fields: ["name": "Parati", "continent": "SA", "code": "PA"]))

        let aliceEdit = try #require(await aliceIterator.next())
        #expect(aliceEdit.reason == .edit)
        #expect(names(aliceEdit.tables.results).contains("Parati"))
        let applied = try aliceEdit.resultsChanges.apply(
            to: aliceBefore.tables.results,
            dataSource: aliceEdit.tables.results
        )
        #expect(names(applied) == names(aliceEdit.tables.results))

        let bobEdit = try #require(await bobIterator.next())
        #expect(bobEdit.reason == .edit)
        // "Parati" has no "o": Bob's results are unchanged, his original table gained a row.
        #expect(!names(bobEdit.tables.results).contains("Parati"))
        #expect(bobEdit.tables.original.rowCount == ControllerFixtures.records.count + 1)
    }

    @Test func anEditThroughOneControllerReachesTheOthers() async throws {
        let shared = try makeShared()
        let alice = try await shared.makeController()
        let bob = try await shared.makeController()
        _ = try await bob.settledUpdate(for: bob.setText("zur"))
        try await alice.update(Record(id: "c3", fields: ["name": "Zug", "continent": "EU", "code": "ZU"]))
        let bobNow = await bob.currentUpdate
        #expect(bobNow.reason == .edit)
        #expect(names(bobNow.tables.results).isEmpty)
        try await alice.deleteRecord(id: "c1")
        #expect(await bob.currentUpdate.tables.original.rowCount == ControllerFixtures.records.count - 1)
        let count = await shared.read { $0.count }
        #expect(count == ControllerFixtures.records.count - 1)
    }

    @Test func aControllerThatGoesAwayLeavesTheSharedIndex() async throws {
        let shared = try makeShared()
        var controller: SearchController? = try await shared.makeController()
        #expect(await shared.controllerCount == 1)
        _ = controller
        controller = nil
        #expect(await shared.controllerCount == 0)
        try await shared.remove(id: "c0")
        #expect(await shared.read { $0.count } == ControllerFixtures.records.count - 1)
    }

    @Test func queryOptionsChangeWithoutANewController() async throws {
        let shared = try makeShared()
        let controller = try await shared.makeController()
        let contains = try await controller.settledUpdate(for: controller.setText("pa"))
        #expect(Set(names(contains.tables.results)) == ["São Paulo", "Paris", "Saint-Paul", "Lapa", "Parma", "Pau"])
        let prefix = try await controller.settledUpdate(for: controller.setQueryOptions(mode: .prefix, order: .sorted))
        #expect(prefix.query.mode == .prefix && prefix.query.order == .sorted)
        #expect(names(prefix.tables.results) == ["Paris", "Parma", "Pau"])
        #expect(prefix.tables.results.layout.order == .sorted)
        let typos = try await controller.settledUpdate(for: controller.setQueryOptions(typos: .auto))
        #expect(typos.query.typos == .auto && typos.query.mode == .prefix)
    }
}
