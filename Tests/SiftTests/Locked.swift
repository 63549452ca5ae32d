import Foundation

/// A value behind a lock, for the tests' shared logs and clocks.
///
/// A pthread mutex (through `NSLock`), not `Synchronization.Mutex`: ThreadSanitizer sees what a
/// pthread mutex orders, while the standard library's `Mutex` is built on uninstrumented atomics
/// and futexes, so TSan reports accesses it guards as races (`scripts/sanitizers.sh thread`).
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
