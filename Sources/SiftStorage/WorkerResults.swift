/// One result per worker of a parallel job (`concurrentPerform`, a dispatch group), each slot
/// written by its worker only, read after every worker has returned.
package final class WorkerResults<Value>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Value?>

    package init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// Called by worker `index` only, once.
    package func set(_ index: Int, _ value: Value) { slots[index] = value }

    package var values: [Value?] { Array(slots) }
}

/// A worker's job for `concurrentPerform`: it reads the index, which no one changes meanwhile
/// (the caller waits), and writes only its own `WorkerResults` slot.
package struct UncheckedWork: @unchecked Sendable {
    package let run: (Int) -> Void
    package init(_ run: @escaping (Int) -> Void) { self.run = run }
}
