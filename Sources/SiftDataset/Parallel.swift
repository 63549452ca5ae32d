internal import Dispatch
internal import SiftStorage
internal import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The number of cores to spread work over (at least 1): those the process may run on.
let workerCount = ParallelWork.usableCores

/// A value handed to worker threads as it is.
///
/// `@unchecked Sendable` is sound where it is used: `parallelFor` returns only after every worker
/// has finished, and each worker writes only its own part of what it is given (its own chunk,
/// its own rows of a buffer), reading nothing that another one writes.
struct UnsafeSendable<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Calls `body` with every number in `0..<count`, on every core, and returns when all are done.
/// The calls must touch disjoint state (see ``UnsafeSendable``).
func parallelFor(_ count: Int, _ body: (Int) -> Void) {
    guard count > 1, workerCount > 1 else {
        for i in 0..<count { body(i) }
        return
    }
    withoutActuallyEscaping(body) { body in
        let work = UnsafeSendable(body)
        DispatchQueue.concurrentPerform(iterations: count) { work.value($0) }
    }
}

/// Adds up work done on several threads and reports the running total.
final class ProgressCounter: Sendable {
    private let done: Mutex<Int>
    private let report: (@Sendable (Int) -> Void)?

    init(report: (@Sendable (Int) -> Void)?, initial: Int = 0) {
        self.report = report
        done = Mutex(initial)
    }

    func add(_ amount: Int) {
        guard let report else { return }
        let total = done.withSanitizerVisibleLock { done in
            done += amount
            return done
        }
        report(total)
    }
}
