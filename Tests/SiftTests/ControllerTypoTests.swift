import Testing

@testable import Sift

/// Typo-tolerant queries through a `SearchController`: typed, with edits in between (records that
/// enter the results exactly or with a typo, or leave them), the tables and badges equal a fresh
/// index's answer to the same query, ranked tables included (the controller places an edited
/// record with `rankingGroup(of:for:)`), and every update's change sets replay.
@Suite("Controller: typo tolerance with edits", .timeLimit(.minutes(30)))
struct ControllerTypoTests {
    @Test(arguments: [MatchMode.words, .prefix], [ResultOrder.ranked, .original])
    func typoQueriesStayExactAcrossEdits(_ mode: MatchMode, _ order: ResultOrder) async throws {
        let configuration = ControllerFixtures.indexConfiguration()
        var records = ControllerFixtures.records
        let controller = try SearchController(
            configuration: configuration,
            records: records,
            options: SearchController.Options(mode: mode, resultsTable: TableLayout(order: order), typos: .auto)
        )
        let recorder = await UpdateRecorder(controller)
        var typed = ""
        for character in "strase" {
            typed.append(character)
            try await recorder.settled(controller.setText(typed))
            try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        }
        // Straße, one edit away.
        #expect(await controller.currentUpdate.resultIDs == ["c14"])
        // Edits: an exact match enters (ranked first), a typo match enters, the typo match leaves.
        let edits = [
            Record(id: "c11", fields: ["name": "Strase Oslo", "continent": "EU", "code": "OS"]),
            Record(id: "c12", fields: ["name": "Strasbourg", "continent": "EU", "code": "ST"]),
            Record(id: "c14", fields: ["name": "Berlin", "continent": "EU", "code": "BE"]),
        ]
        for record in edits {
            try await controller.update(record)
            records[records.firstIndex { $0.id == record.id }!] = record
            try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        }
        #expect(await Set(controller.currentUpdate.resultIDs) == ["c11", "c12"])
        try await controller.deleteRecord(id: "c12")
        records.removeAll { $0.id == "c12" }
        try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        while !typed.isEmpty {
            typed.removeLast()
            try await recorder.settled(controller.setText(typed))
            try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        }
        try await recorder.caughtUp(with: controller)
        try expectConsistentHistory(recorder.all)
    }
}
