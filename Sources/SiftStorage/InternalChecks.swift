/// Invariant checks of the index's structures, in the manner of swift-collections'
/// `_checkInvariants()`.
///
/// Each structure has a `checkInvariants()` that traps, naming the broken rule, when its parts
/// disagree. The checks cost O(*n*) and are always compiled, so tests may call them; a build with
/// `-Xswiftc -DSIFT_INTERNAL_CHECKS` also calls `SearchIndex.checkInvariants()` after every
/// edit, bulk insert, snapshot load and compaction (`SearchIndex.checkAfterMutation()`; past
/// `everyMutationUpTo` records, after one mutation in *n* / that many).
/// `.ci/run` runs the editing suites in such a build.
package enum InternalChecks {
    /// Whether this build checks after every mutation.
    /// Up to this many records, the checks run after every mutation; beyond, after one in
    /// *n* / this many.
    package static let everyMutationUpTo = 1024

    #if SIFT_INTERNAL_CHECKS
    package static let afterEveryMutation = true
    #else
    package static let afterEveryMutation = false
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
