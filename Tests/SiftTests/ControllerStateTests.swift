import Testing

@testable import Sift

@Suite("Controller: inputs, states, thresholds, scopes", .timeLimit(.minutes(30)))
struct ControllerStateTests {
    let configuration = ControllerFixtures.indexConfiguration()
    let records = ControllerFixtures.records

    func controller(
        _ options: SearchController.Options = .init(),
        source: any SearchSource = LocalIndexSource()
    ) throws -> SearchController {
        try SearchController(configuration: configuration, records: records, options: options, source: source)
    }

    @Test func startsInactiveWithTheOriginalTable() async throws {
        let controller = try controller()
        let update = await controller.currentUpdate
        #expect(update.sequence == 0 && update.generation == 0 && update.reason == .initial)
        #expect(update.state == .inactive && update.resultsQuery == nil)
        #expect(update.tables.original.everyRow.map(\.id) == records.map(\.id))
        #expect(update.tables.original.everyRow.map(\.title) == ControllerFixtures.names)
        #expect(update.tables.results.rowCount == 0)
        #expect(update.scopes.map(\.name) == ["All", "Name", "Code", "Europe"])
        #expect(update.scopes.map(\.minimumLength) == [1, 1, 2, 1])
        #expect(controller.latestGeneration == 0)
    }

    @Test func typingSearchesAndCancelGoesBackToTheOriginalTable() async throws {
        let controller = try controller()
        let recorder = await UpdateRecorder(controller)
        let generation = controller.setText("pa")
        #expect(generation == 1)
        let answer = try await recorder.settled(generation)
        #expect(answer.state == .results && answer.reason == .answer)
        #expect(answer.query == Query("pa", scope: "All"))
        #expect(answer.resultTitles == ["São Paulo", "Paris", "Saint-Paul", "Lapa", "Parma", "Pau"])
        #expect(answer.timing != nil)
        // The update before the answer said the query was running, for the same generation.
        let running = try #require(recorder.all.first { $0.generation == generation })
        #expect(running.state == .searching(SearchProgress(stage: .running)) && running.reason == .input)
        try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        // A row's record and highlights, for its cell.
        let paris = answer.tables.results[TableIndexPath(section: 0, row: 1)]
        #expect(try await controller.record(paris) == records[1])
        let highlights = try await controller.highlights(of: paris)
        #expect(highlights["name"]?.map { String("Paris"[$0]) } == ["Pa"] && highlights["code"] != nil)

        let cancelled = try await recorder.settled(controller.cancel())
        #expect(cancelled.state == .inactive && cancelled.query.text.isEmpty && cancelled.tables.results.rowCount == 0)
        #expect(cancelled.resultsChanges.deletedRows.count == 6)
        #expect(cancelled.scopes.allSatisfy { $0.count == nil })
        #expect(try await controller.highlights(of: paris).isEmpty)  // no query shown
        try expectConsistentHistory(recorder.all)
    }

    @Test func emptyTextShowsEveryRecordOfTheScope() async throws {
        let controller = try controller()
        let recorder = await UpdateRecorder(controller)
        let all = try await recorder.settled(controller.setText(""))
        #expect(all.state == .results && all.tables.results.rowCount == records.count)
        let europe = try await recorder.settled(try controller.selectScope("Europe"))
        #expect(europe.query.scope == "Europe")
        #expect(
            europe.resultIDs == records.indices.filter { ControllerFixtures.continents[$0] == "EU" }.map { "c\($0)" }
        )
        try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        #expect(throws: SiftError.unknownScope("Mars")) { try controller.selectScope("Mars") }
        try expectConsistentHistory(recorder.all)
    }

    @Test func scopeButtonsCountEveryScope() async throws {
        let controller = try controller()
        let recorder = await UpdateRecorder(controller)
        let update = try await recorder.settled(controller.setText("pa"))
        // All and Name: 6 names; Code "PA": Paris, Parma, Pau; Europe: Paris, Parma, Pau.
        #expect(update.scopes.map(\.count) == [6, 6, 3, 3])
        let code = try await recorder.settled(try controller.selectScope("Code"))
        #expect(code.resultTitles == ["Paris", "Parma", "Pau"] && code.scopes.map(\.count) == [6, 6, 3, 3])
        try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
    }

    /// Below the threshold no query runs; the results table follows the policy. The default is
    /// `.originalList`.
    @Test(arguments: BelowThresholdPolicy.allCases)
    func belowThresholdPolicies(policy: BelowThresholdPolicy) async throws {
        #expect(SearchController.Options().belowThreshold == .originalList)
        let source = RecordingSource()
        let controller = try controller(.init(belowThreshold: policy), source: source)
        let recorder = await UpdateRecorder(controller)
        try await recorder.settled(try controller.selectScope("Code"))
        let pa = try await recorder.settled(controller.setText("PA"))
        #expect(pa.resultTitles == ["Paris", "Parma", "Pau"])
        let short = try await recorder.settled(controller.setText("P"))
        #expect(short.state == .tooShort(needed: 2))
        #expect(source.log.elements == ["", "PA"])  // nothing ran for "P"
        switch policy {
        case .originalList:
            #expect(short.tables.results.everyRow.map(\.id) == records.map(\.id) && short.resultsQuery == nil)
            #expect(short.scopes.allSatisfy { $0.count == nil })
        case .empty:
            #expect(short.tables.results.rowCount == 0 && short.resultsQuery == nil)
        case .keepPrevious:
            #expect(short.resultTitles == ["Paris", "Parma", "Pau"] && short.resultsChanges.isEmpty)
            #expect(short.resultsQuery == Query("PA", scope: "Code") && short.scopes.map(\.count) == [6, 6, 3, 3])
        }
        try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        // Edits keep following the policy's table.
        try await controller.insert(
            Record(id: "new", fields: ["name": "Pamplona", "code": "PA"]),
            atOriginalPosition: 0
        )
        try await expectMatchesFreshIndex(
            controller,
            records: [Record(id: "new", fields: ["name": "Pamplona", "code": "PA"])] + records,
            configuration: configuration
        )
        try expectConsistentHistory(recorder.all)
    }

    @Test func searchOnSubmitWaitsForTheSearchButton() async throws {
        let source = RecordingSource()
        let controller = try controller(.init(trigger: .onSubmit), source: source)
        let recorder = await UpdateRecorder(controller)
        let typed = try await recorder.settled(controller.setText("pa"))
        #expect(typed.state == .awaitingSubmit && typed.tables.results.rowCount == 0 && source.log.elements.isEmpty)
        let submitted = try await recorder.settled(controller.submit())
        #expect(submitted.state == .results && submitted.resultTitles.count == 6 && source.log.elements == ["pa"])
        // A scope change re-runs the submitted text; a text change waits again, keeping the results.
        let scoped = try await recorder.settled(try controller.selectScope("Europe"))
        #expect(scoped.resultTitles == ["Paris", "Parma", "Pau"] && source.log.elements == ["pa", "pa"])
        let more = try await recorder.settled(controller.setText("par"))
        #expect(more.state == .awaitingSubmit && more.resultTitles == ["Paris", "Parma", "Pau"])
        #expect(more.resultsQuery == Query("pa", scope: "Europe"))
        // The threshold still answers at once.
        try controller.selectScope("Code")
        let short = try await recorder.settled(controller.setText("P"))
        #expect(short.state == .tooShort(needed: 2))
        #expect(source.log.elements == ["pa", "pa"])
        try expectConsistentHistory(recorder.all)
    }

    @Test(arguments: [
        (TableLayout(order: .sorted, isSectioned: true), TableLayout(order: .sorted, isSectioned: true)),
        (TableLayout(order: .original, isSectioned: true), TableLayout(order: .ranked, isSectioned: true)),
        (TableLayout(order: .sorted, isSectioned: false), TableLayout(order: .ranked, isSectioned: false)),
    ])
    func layoutsMatchAFreshIndex(original: TableLayout, results: TableLayout) async throws {
        let controller = try controller(.init(originalTable: original, resultsTable: results))
        let recorder = await UpdateRecorder(controller)
        if original.isSectioned {
            let titles = (await controller.currentUpdate).tables.original.everySection.map(\.title)
            #expect(titles.contains("Ñ") && titles.contains("N") && titles.contains("Á") == false)
        }
        for text in ["p", "pa", "pau", "pa", "a", "", "ñ", "s"] {
            try await recorder.settled(controller.setText(text))
            try await expectMatchesFreshIndex(controller, records: records, configuration: configuration)
        }
        try expectConsistentHistory(recorder.all)
    }

    @Test func rankedResultsReorderWithMovesAndNarrowWithDeletes() async throws {
        let controller = try controller(.init(resultsTable: TableLayout(order: .ranked)))
        let recorder = await UpdateRecorder(controller)
        let a = try await recorder.settled(controller.setText("pa"))
        #expect(a.resultTitles == ["Paris", "Parma", "Pau", "São Paulo", "Saint-Paul", "Lapa"])
        let narrowed = try await recorder.settled(controller.setText("pau"))
        #expect(narrowed.resultTitles == ["Pau", "São Paulo", "Saint-Paul"])
        #expect(narrowed.resultsChanges.insertedRows.isEmpty && narrowed.resultsChanges.movedRows.isEmpty)
        try await recorder.settled(controller.setText("pa"))
        // "a": prefixes (Ávila, Åse) first, then the rest shorter names first, which reorders the
        // rows "pa" had ranked first: moves, as few as possible.
        let widened = try await recorder.settled(controller.setText("a"))
        #expect(Array(widened.resultTitles.prefix(2)) == ["Åse", "Ávila"])
        let common = ["Pau", "Lapa", "Paris", "Parma", "São Paulo", "Saint-Paul"]
        #expect(widened.resultTitles.filter(common.contains) == common)
        // Pau and Lapa (3 and 4 letters) move ahead of Paris, Parma, São Paulo, Saint-Paul.
        #expect(widened.resultsChanges.movedRows.count == 2 && widened.resultsChanges.deletedRows.isEmpty)
        try expectConsistentHistory(recorder.all)
    }

    @Test func aFailingSourceShowsTheFailure() async throws {
        struct Unreachable: Error, CustomStringConvertible { var description: String { "service unreachable" } }
        struct FailingSource: SearchSource {
            func search(
                _ request: SearchRequest,
                in index: SearchIndex,
                isolation: isolated any Actor
            ) async throws
                -> SearchAnswer
            { throw Unreachable() }
        }
        let controller = try controller(source: FailingSource())
        let recorder = await UpdateRecorder(controller)
        let failed = try await recorder.settled(controller.setText("pa"))
        #expect(failed.state == .failed("service unreachable") && failed.reason == .answer)
        await #expect(throws: SiftError.self) { try await controller.deleteRecord(id: "c1") }
    }

    @Test func rankedOriginalTablesAreRejected() {
        #expect(throws: SiftError.self) {
            try SearchController(
                configuration: configuration,
                records: records,
                options: .init(originalTable: TableLayout(order: .ranked))
            )
        }
    }
}
