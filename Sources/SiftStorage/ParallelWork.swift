#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// How much the index's parallel work (bulk inserts, the first sort, full scans) may spread.
package enum ParallelWork {
    /// The cores online, at most 8 (more adds little for memory-bound passes).
    package static let cores = max(1, min(8, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
}
