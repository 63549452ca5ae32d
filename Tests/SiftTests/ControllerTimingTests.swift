import Testing

@testable import Sift

/// Ordering, cancellation and debounce, made deterministic with an injected `ManualClock`: time
/// moves only when a test advances it, and tests wait for events (updates, log entries), never
/// for real time.
@Suite("Controller: debounce, cancellation and ordering on a test clock", .timeLimit(.minutes(30)))
struct ControllerTimingTests {
    let configuration = ControllerFixtures.indexConfiguration()
    let records = ControllerFixtures.records

    func controller(
        _ options: SearchController.Options = .init(),
        source: any SearchSource = LocalIndexSource(),
        clock: ManualClock
    ) throws -> SearchController {
        try SearchController(
            configuration: configuration,
            records: records,
            options: options,
            source: source,
            clock: clock
        )
    }

    @Test func debounceQueriesOnlyTheLastKeystrokeOnceTheIntervalHasPassed() async throws {
        let clock = ManualClock()
        let source = RecordingSource()
        let controller = try controller(.init(debounce: .milliseconds(300)), source: source, clock: clock)
        let recorder = await UpdateRecorder(controller)
        var generation: UInt64 = 0
        for text in ["s", "sa", "sao"] {
            generation = controller.setText(text)
            let waiting = try await recorder.wait { $0.generation == generation }
            #expect(waiting.state == .searching(SearchProgress(stage: .debouncing)))
            await clock.advance(by: .milliseconds(200))  // each keystroke restarts the interval
        }
        await clock.advance(by: .milliseconds(99))
        #expect(source.log.elements.isEmpty)  // 299 ms after the last keystroke: nothing ran
        await clock.advance(by: .milliseconds(1))
        let answer = try await recorder.settled(generation)
        #expect(answer.resultTitles == ["São Paulo"])
        #expect(source.log.elements == ["sao"])
        #expect(answer.timing == SearchTiming(waited: .milliseconds(300), searched: .zero, total: .milliseconds(300)))
        let resumed = recorder.all.filter { $0.generation == generation && $0.reason == .progress }
        #expect(resumed.map(\.state) == [.searching(SearchProgress(stage: .running))])
        #expect(!recorder.all.contains { $0.reason == .answer && $0.generation != generation })
        try expectConsistentHistory(recorder.all)
    }

    @Test func scopeChangesAndSubmitDoNotWaitForTheDebounce() async throws {
        let clock = ManualClock()
        let source = RecordingSource()
        let controller = try controller(.init(debounce: .seconds(1)), source: source, clock: clock)
        let recorder = await UpdateRecorder(controller)
        let scoped = try await recorder.settled(try controller.selectScope("Europe"))
        #expect(scoped.state == .results && scoped.tables.results.rowCount == 13)
        let typed = controller.setText("pa")
        try await recorder.wait { $0.generation == typed && $0.state == .searching(SearchProgress(stage: .debouncing)) }
        let submitted = try await recorder.settled(controller.submit())
        #expect(submitted.resultTitles == ["Paris", "Parma", "Pau"])
        #expect(source.log.elements == ["", "pa"])
        #expect(submitted.timing?.waited == .zero)
    }

    /// A remote query still waiting for its answer is cancelled by the next keystroke.
    @Test func aSupersededRemoteQueryIsCancelled() async throws {
        let clock = ManualClock()
        let source = LatencySource(clock: clock, latency: { _ in .milliseconds(500) })
        let controller = try controller(source: source, clock: clock)
        let recorder = await UpdateRecorder(controller)
        let first = controller.setText("pa")
        try await source.log.wait("the first query started") { $0 == ["start pa"] }
        let second = controller.setText("par")
        try await source.log.wait("the first query stopped and the second started") {
            Set($0) == ["start pa", "cancelled pa", "start par"]
        }
        await clock.advance(by: .milliseconds(500))
        let answer = try await recorder.settled(second)
        #expect(answer.resultTitles == ["Paris", "Parma"])
        #expect(answer.timing?.searched == .milliseconds(500))
        #expect(source.log.count == 4 && source.log.elements.last == "answer par")
        #expect(!recorder.all.contains { $0.generation == first && $0.reason == .answer })
        #expect(answer.scopes.allSatisfy { $0.count == nil })  // the remote source counts nothing
        await #expect(throws: SiftError.self) { try await controller.deleteRecord(id: "c1") }  // read-only
    }

    /// A stubborn remote source answers superseded queries anyway, and out of order: the newer
    /// query's answer first, the older one's later. The late answer is dropped.
    @Test func lateAnswersToSupersededQueriesNeverReachTheTables() async throws {
        let clock = ManualClock()
        let source = LatencySource(
            clock: clock,
            latency: { $0.text == "pa" ? .milliseconds(300) : .milliseconds(100) },
            honoursCancellation: false
        )
        let controller = try controller(source: source, clock: clock)
        let recorder = await UpdateRecorder(controller)
        let first = controller.setText("pa")
        try await source.log.wait("the first query started") { $0 == ["start pa"] }
        let second = controller.setText("pau")
        try await source.log.wait("the second query started") { $0.contains("start pau") }
        await clock.advance(by: .milliseconds(100))
        let answer = try await recorder.settled(second)
        #expect(answer.resultTitles == ["São Paulo", "Saint-Paul", "Pau"])
        await clock.advance(by: .milliseconds(200))
        try await source.log.wait("the first query answered, late") { $0.contains("answer pa") }
        let latest = await controller.currentUpdate  // after the actor has dealt with the late answer
        #expect(latest.generation == second && latest.resultsQuery == Query("pau"))
        try await recorder.caughtUp(with: controller)
        #expect(!recorder.all.contains { $0.generation == first && $0.reason == .answer })
        #expect(recorder.last?.resultTitles == ["São Paulo", "Saint-Paul", "Pau"])
        try expectConsistentHistory(recorder.all)
    }

    /// A query that runs synchronously on the controller's actor (a long scan) stops as soon as a
    /// new keystroke arrives, although the keystroke cannot reach the busy actor.
    @Test func aRunningScanStopsWhenTheNextKeystrokeArrives() async throws {
        let source = SpinningSource(spinningText: "pa")
        let controller = try controller(source: source, clock: ManualClock())
        let recorder = await UpdateRecorder(controller)
        let first = controller.setText("pa")
        // Typed on a thread of its own: the spin holds one of the pool's threads, and a busy
        // parallel test run may hold the other.
        let second = await source.supersede { controller.setText("par") }  // returns at once, with the actor still busy
        #expect(second == first + 1)
        let answer = try await recorder.settled(second)
        #expect(source.log.elements == ["spinning", "cancelled"])
        #expect(answer.resultTitles == ["Paris", "Parma"])
        #expect(!recorder.all.contains { $0.generation == first && $0.reason == .answer })
    }

    @Test func theLocalSourcePassesCancellationToTheIndex() async throws {
        let host = SourceHost()
        await #expect(throws: CancellationError.self) {
            try await host.searchCancelled(Query("pa"), configuration: configuration, records: records)
        }
    }

    @Test func progressAndTimingComeFromTheSourceAndTheClock() async throws {
        let clock = ManualClock()
        let source = LatencySource(clock: clock, latency: { _ in .milliseconds(250) }, reportsProgress: true)
        let controller = try controller(.init(debounce: .milliseconds(100)), source: source, clock: clock)
        let recorder = await UpdateRecorder(controller)
        let generation = controller.setText("pa")
        try await recorder.wait { $0.generation == generation }
        await clock.advance(by: .milliseconds(100))
        let halfway = try await recorder.wait {
            $0.state == .searching(SearchProgress(stage: .running, fractionCompleted: 0.5))
        }
        #expect(halfway.generation == generation && halfway.reason == .progress)
        await clock.advance(by: .milliseconds(250))
        let answer = try await recorder.settled(generation)
        #expect(
            answer.timing
                == SearchTiming(waited: .milliseconds(100), searched: .milliseconds(250), total: .milliseconds(350))
        )
    }

    /// Updates reach callbacks on the chosen actor and on the main actor in publishing order,
    /// each with change sets from the one the callback handled before (updates a busy callback
    /// missed are merged into the newest), while keystrokes arrive faster than queries finish.
    @Test func callbacksDeliverUpdatesInOrderOnTheirActor() async throws {
        let controller = try controller(clock: ManualClock())
        let recorder = await UpdateRecorder(controller)
        let collector = UpdateCollector()
        await controller.deliverUpdates(to: collector) { collector, update in collector.updates.append(update) }
        let mainCollector = MainActorCollector()
        await controller.deliverUpdatesOnMainActor { update in mainCollector.updates.append(update) }
        var last: UInt64 = 0
        for text in ["p", "pa", "par", "pa", "p", "", "o", "os"] { last = controller.setText(text) }
        last = try controller.selectScope("Name")
        let final = try await recorder.settled(last)
        let onActor = try await collector.updates.wait("the final update on the actor") {
            $0.last?.sequence == final.sequence
        }
        let onMain = try await mainCollector.updates.wait("the final update on the main actor") {
            $0.last?.sequence == final.sequence
        }
        #expect(onActor.last?.sequence == final.sequence && onMain.last?.sequence == final.sequence)
        let published = Set(recorder.all.map(\.sequence))
        #expect(onActor.allSatisfy { published.contains($0.sequence) })
        #expect(onMain.allSatisfy { published.contains($0.sequence) })
        try expectConsistentHistory(onActor, merged: true)
        try expectConsistentHistory(onMain, merged: true)
        #expect(final.resultTitles == ["Oslo"])
    }

    @Test func aSlowSubscriberWithANewestBufferGetsTheNewestUpdate() async throws {
        let controller = try controller(clock: ManualClock())
        let recorder = await UpdateRecorder(controller)
        let newest = await controller.updates(buffering: .newest(1))
        var last: UInt64 = 0
        for text in ["p", "pa", "par", "pa"] { last = controller.setText(text) }
        try await recorder.settled(last)
        try await recorder.caughtUp(with: controller)
        var iterator = newest.makeAsyncIterator()
        let got = await iterator.next()
        #expect(got?.sequence == recorder.last?.sequence && got?.generation == last)
    }
}

/// An actor to run a source on.
actor SourceHost {
    /// Asks the local source for a query whose request is cancelled from the start.
    func searchCancelled(
        _ query: Query,
        configuration: IndexConfiguration,
        records: [Record]
    ) async throws -> SearchAnswer {
        let index = try SearchIndex(configuration: configuration, records: records)
        let request = SearchRequest(query: query, generation: 1, isCancelled: { true }, progressHandler: { _ in })
        return try await LocalIndexSource().search(request, in: index, isolation: self)
    }
}

actor UpdateCollector {
    let updates = SharedList<SearchUpdate>()
}

@MainActor final class MainActorCollector {
    let updates = SharedList<SearchUpdate>()
}
