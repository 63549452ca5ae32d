internal import CSiftKernels
public import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, with each handoff of the lock made visible to ThreadSanitizer.
    ///
    /// On Linux, `Mutex` hands a contended lock from one thread to the next inside the kernel (a
    /// priority-inheritance futex, called from the uninstrumented Synchronization library), so
    /// ThreadSanitizer sees nothing that orders the two threads' critical sections and reports
    /// the accesses they guard as races, while the lock holds (it found one in `EditLog` under
    /// concurrent appends). This tells it of the acquire and the release, on the mutex's address,
    /// inside the critical section. Outside sanitizer builds it adds two calls
    /// that do nothing. Use it for every `Mutex` in the package.
    ///
    /// - Complexity: O(1) beyond `body`.
    @inlinable
    package borrowing func withSanitizerVisibleLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        // The mutex's own address (a borrow, which ThreadSanitizer does not track): the value's
        // would need an access to the value before the acquire, which it reports.
        let address = withUnsafePointer(to: self) { UnsafeRawPointer($0) }
        return try withLock { (value: inout sending Value) throws(E) -> sending Result in
            sanitizerAcquired(address)
            defer { sanitizerReleasing(address) }
            return try body(&value)
        }
    }
}

/// `sift_sanitizer_acquire`, for inlinable code.
@usableFromInline
package func sanitizerAcquired(_ address: UnsafeRawPointer) { sift_sanitizer_acquire(address) }

/// `sift_sanitizer_release`, for inlinable code.
@usableFromInline
package func sanitizerReleasing(_ address: UnsafeRawPointer) { sift_sanitizer_release(address) }
