import Testing

@testable import Sift

/// Operator queries through a `SearchController`: typed, with edits in between, the tables and
/// badges equal a fresh index's answer to the same query (the syntax included), and every update's
/// change sets replay.
@Suite("Controller: operator queries with edits", .timeLimit(.minutes(30)))
struct ControllerOperatorTests {
    @Test(arguments: QuerySyntax.allCases)
    func operatorQueriesStayExactAcrossEdits(_ syntax: QuerySyntax) async throws {
        let configuration = ControllerFixtures.indexConfiguration()
        var records = ControllerFixtures.records
        let controller = try SearchController(
            configuration: configuration,
            records: records,
            options: SearchController.Options(mode: .words, syntax: syntax, resultsTable: TableLayout(order: .ranked))
        )
        let recorder = await UpdateRecorder(controller)
        var typed = ""
        for character in "pa|lyon -paris" {
            typed.append(character)
            try await recorder.settled(controller.setText(typed))
            try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        }
        let update = await controller.currentUpdate
        // São Paulo, Saint-Paul, Parma, Pau and Lyon; Paris is excluded.
        #expect(update.resultIDs.sorted() == (syntax == .operators ? ["c0", "c10", "c12", "c7", "c9"] : []))
        // Edits: a record enters the results, one leaves because of the negated term, one is removed.
        try await controller.update(Record(id: "c11", fields: ["name": "Oslo Pampa", "continent": "EU", "code": "OS"]))
        records[11] = Record(id: "c11", fields: ["name": "Oslo Pampa", "continent": "EU", "code": "OS"])
        try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        try await controller.update(Record(id: "c9", fields: ["name": "Parma Paris", "continent": "EU", "code": "PA"]))
        records[9] = Record(id: "c9", fields: ["name": "Parma Paris", "continent": "EU", "code": "PA"])
        try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        try await controller.deleteRecord(id: "c12")
        records.remove(at: 12)
        try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        // Backspaces: each one answered again, exactly.
        while !typed.isEmpty {
            typed.removeLast()
            try await recorder.settled(controller.setText(typed))
            try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        }
        try await recorder.caughtUp(with: controller)
        try expectConsistentHistory(recorder.all)
    }
}
