internal import CSiftKernels

/// How much the index's parallel work (bulk inserts, the first sort, full scans) may spread.
package enum ParallelWork {
    /// The cores this process may run on (its CPU affinity, which `taskset`, a cpuset or a
    /// container sets; otherwise the cores online), at most 8 (more adds little for memory-bound
    /// passes). A worker per core online on a process held to fewer cores would only take turns
    /// with the others, each with buffers of its own.
    package static let cores = min(8, usableCores)

    /// The cores this process may run on, however many: its CPU affinity, or the cores online.
    package static let usableCores = max(1, sift_usable_cores())
}
