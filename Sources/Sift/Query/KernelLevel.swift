internal import CSiftKernels
import SiftStorage
internal import Synchronization

/// The instruction set the scan kernels (CSiftKernels) use: the best the CPU has, detected once.
/// Tests force each lower level in turn, so that every code path a CPU could take is checked on
/// the machine that runs them.
package enum KernelLevel: Int32, CaseIterable, Comparable {
    /// Plain C loops.
    case scalar = 1
    /// AVX2 compares; one-letter sweeps walk each block's separators.
    case avx2 = 2
    /// AVX2 compares and BMI2's pext (fast on Intel, and on AMD from Zen 3).
    case avx2Pext = 3
    /// AVX-512BW compares, with AVX2 and pext.
    case avx512 = 4

    /// The level in use.
    package static var current: KernelLevel { KernelLevel(rawValue: sift_kernel_level()) ?? .scalar }

    /// The levels this CPU can run, lowest first.
    package static var supported: [KernelLevel] {
        let best = KernelLevel(rawValue: sift_best_kernel_level()) ?? .scalar
        return allCases.filter { $0 <= best }
    }

    /// Makes the kernels use at most `level` (nil: the best available), process-wide. Call it
    /// only inside `exclusively(_:)`.
    package static func force(_ level: KernelLevel?) { sift_force_kernel_level(level?.rawValue ?? 0) }

    /// Taken by every caller that forces a level: tests and the fuzz harness's corpus replay run
    /// side by side, and one must not switch the level under another.
    private static let forcing = Mutex(())

    /// Runs `body` alone among the callers that force a level; `body` may call `force(_:)`, and
    /// the best level is back when it returns.
    package static func exclusively<R>(_ body: () throws -> R) throws -> R {
        try forcing.withSanitizerVisibleLock { _ in
            defer { force(nil) }
            return try body()
        }
    }

    package static func < (a: KernelLevel, b: KernelLevel) -> Bool { a.rawValue < b.rawValue }
}
