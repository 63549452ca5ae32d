internal import CSiftKernels

/// The instruction set the scan kernels (CSiftKernels) use: the best the CPU has, detected once.
/// Tests force each lower level in turn, so that every code path a CPU could take is checked on
/// the machine that runs them.
enum KernelLevel: Int32, CaseIterable, Comparable {
    /// Plain C loops.
    case scalar = 1
    /// AVX2 compares; one-letter sweeps walk each block's separators.
    case avx2 = 2
    /// AVX2 compares and BMI2's pext (fast on Intel, and on AMD from Zen 3).
    case avx2Pext = 3
    /// AVX-512BW compares, with AVX2 and pext.
    case avx512 = 4

    /// The level in use.
    static var current: KernelLevel { KernelLevel(rawValue: sift_kernel_level()) ?? .scalar }

    /// The levels this CPU can run, lowest first.
    static var supported: [KernelLevel] {
        let best = KernelLevel(rawValue: sift_best_kernel_level()) ?? .scalar
        return allCases.filter { $0 <= best }
    }

    /// Makes the kernels use at most `level` (nil: the best available), process-wide.
    static func force(_ level: KernelLevel?) { sift_force_kernel_level(level?.rawValue ?? 0) }

    static func < (a: KernelLevel, b: KernelLevel) -> Bool { a.rawValue < b.rawValue }
}
