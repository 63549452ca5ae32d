#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Invariant checks of the index's structures, in the manner of swift-collections'
/// `_checkInvariants()`.
///
/// Each structure has a `checkInvariants()` that traps, naming the broken rule, when its parts
/// disagree. The checks cost O(*n*) and are always compiled, so tests may call them; a process
/// started with the environment variable `SIFT_INTERNAL_CHECKS=1` (or any process of a build
/// with `-Xswiftc -DSIFT_INTERNAL_CHECKS`) also calls `SearchIndex.checkInvariants()` after
/// every edit, bulk insert, snapshot load and compaction (`SearchIndex.checkAfterMutation()`;
/// past `everyMutationUpTo` records, after one mutation in *n* / that many).
/// `.ci/run` runs the editing suites so.
package enum InternalChecks {
    /// Up to this many records, the checks run after every mutation; beyond, after one in
    /// *n* / this many.
    package static let everyMutationUpTo = 1024

    /// Whether this process checks after every mutation: read once, at the first mutation.
    /// Otherwise an edit pays one load and branch for it.
    #if SIFT_INTERNAL_CHECKS
    package static let afterEveryMutation = true
    #else
    package static let afterEveryMutation: Bool = {
        guard let value = getenv("SIFT_INTERNAL_CHECKS") else { return false }
        return String(cString: value) == "1"
    }()
    #endif
}

/// Traps with `message` (and where) unless `condition` holds: an invariant check's assertion,
/// kept in release builds too, since the checks run only when asked for.
@inline(__always)
@inlinable
package func invariant(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { preconditionFailure("invariant: \(message())", file: file, line: line) }
}
