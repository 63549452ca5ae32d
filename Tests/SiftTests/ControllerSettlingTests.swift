import Testing

@testable import Sift

/// `settledUpdate(for:)`: the awaitable way to get the display's state after an input.
@Suite("Controller: awaiting the settled update of an input", .timeLimit(.minutes(30)))
struct ControllerSettlingTests {
    let configuration = ControllerFixtures.indexConfiguration()

    @Test func theSettledUpdateOfAnInputIsItsAnswer() async throws {
        let controller = try SearchController(configuration: configuration, records: ControllerFixtures.records)
        let initial = try await controller.settledUpdate(for: 0)
        #expect(initial.sequence == 0 && initial.state == .inactive)
        let generation = controller.setText("sao")
        let answer = try await controller.settledUpdate(for: generation)
        #expect(answer.generation == generation && answer.state == .results)
        #expect(answer.resultTitles == ["São Paulo"])
        // Asked again once settled, it answers at once with the same update.
        #expect(try await controller.settledUpdate(for: generation).sequence == answer.sequence)
        // Below a scope's minimum length the settled state is "too short".
        _ = try controller.selectScope("Code")
        let short = try await controller.settledUpdate(for: controller.setText("s"))
        #expect(short.state == .tooShort(needed: 2))
    }

    /// A debounced input superseded before it settles: its waiters get the newer input's answer,
    /// never an update from before the input.
    @Test func aSupersededInputSettlesWithTheNewerOne() async throws {
        let clock = ManualClock()
        let controller = try SearchController(
            configuration: configuration,
            records: ControllerFixtures.records,
            options: .init(debounce: .milliseconds(200)),
            clock: clock
        )
        let recorder = await UpdateRecorder(controller)
        let first = controller.setText("pa")
        let waiting = Task { try await controller.settledUpdate(for: first) }
        try await recorder.wait { $0.generation == first && $0.state == .searching(SearchProgress(stage: .debouncing)) }
        let second = controller.setText("par")
        try await recorder.wait { $0.generation == second }
        await clock.advance(by: .milliseconds(200))
        let settled = try await waiting.value
        #expect(settled.generation == second && settled.state == .results)
        #expect(settled.resultTitles == ["Paris", "Parma"])
    }

    /// A generation that has not been issued yet is waited for.
    @Test func aFutureGenerationIsWaitedFor() async throws {
        let controller = try SearchController(configuration: configuration, records: ControllerFixtures.records)
        let next = controller.latestGeneration + 1
        let waiting = Task { try await controller.settledUpdate(for: next) }
        let recorder = await UpdateRecorder(controller)
        try await recorder.wait { $0.sequence == 0 }
        #expect(controller.setText("oslo") == next)
        let settled = try await waiting.value
        #expect(settled.generation == next && settled.resultTitles == ["Oslo"])
    }

    /// A waiter whose task is cancelled stops waiting with `CancellationError`; the controller
    /// goes on.
    @Test func cancellingTheWaitingTaskEndsTheWait() async throws {
        let clock = ManualClock()
        let controller = try SearchController(
            configuration: configuration,
            records: ControllerFixtures.records,
            options: .init(debounce: .seconds(1)),
            clock: clock
        )
        let recorder = await UpdateRecorder(controller)
        let generation = controller.setText("pa")
        try await recorder.wait { $0.generation == generation }
        let waiting = Task { try await controller.settledUpdate(for: generation) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        await clock.advance(by: .seconds(1))
        let answer = try await controller.settledUpdate(for: generation)
        #expect(answer.generation == generation && answer.state == .results)
        try await expectMatchesFreshIndex(controller, records: ControllerFixtures.records, configuration: configuration)
    }
}
