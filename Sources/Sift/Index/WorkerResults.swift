/// One result per worker of a parallel job (`concurrentPerform`, a dispatch group), each slot
/// written by its worker only, read after every worker has returned.
final class WorkerResults<Value>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// Called by worker `index` only, once.
    func set(_ index: Int, _ value: Value) { slots[index] = value }

    var values: [Value?] { Array(slots) }
}

/// A worker's job for `concurrentPerform`: it reads the index, which no one changes meanwhile
/// (the caller waits), and writes only its own `WorkerResults` slot.
struct UncheckedWork: @unchecked Sendable {
    let run: (Int) -> Void
    init(_ run: @escaping (Int) -> Void) { self.run = run }
}
