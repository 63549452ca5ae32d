/// The controller's injected clock, with the two things the controller does with it: measure
/// time and sleep until a deadline fixed when an input arrives.
struct ControllerClock: Sendable {
    /// A point in time of the clock, that tells how long ago it was.
    struct Mark: Sendable {
        let elapsedSinceMark: @Sendable () -> Duration
        var elapsed: Duration { elapsedSinceMark() }
    }

    let base: any Clock<Duration>

    /// Now.
    func mark() -> Mark { base.controllerMark() }

    /// A sleep until `duration` from now; the deadline is fixed now, not when the sleep starts.
    func sleep(for duration: Duration) -> @Sendable () async throws -> Void { base.controllerSleep(for: duration) }
}

extension Clock where Duration == Swift.Duration {
    fileprivate func controllerMark() -> ControllerClock.Mark {
        let start = now
        return ControllerClock.Mark { start.duration(to: self.now) }
    }

    fileprivate func controllerSleep(for duration: Duration) -> @Sendable () async throws -> Void {
        let deadline = now.advanced(by: duration)
        return {
            try Task.checkCancellation()
            if self.now >= deadline { return }
            try await self.sleep(until: deadline, tolerance: nil)
        }
    }
}
