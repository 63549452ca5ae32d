/// What the first bytes of a file say about it: a snapshot, a snapshot whose first bytes are
/// damaged, or something else. `SearchIndex.load(from:)` and the `sift` tool ask it, so that a
/// damaged snapshot is reported as one rather than as a data file of unknown format.
package enum SnapshotSignature: Equatable, Sendable {
    /// The magic bytes are intact.
    case snapshot
    /// The magic bytes are not intact, but the file is most likely a damaged snapshot: most of
    /// the magic bytes are right, or the rest of the header is a snapshot's (the byte-order mark
    /// in its place, and a payload length that is the file's size less the header).
    case damagedSnapshot
    /// Anything else.
    case other

    /// Classifies a file by its first bytes (at least the 32-byte header, when the file has as
    /// many) and its size.
    ///
    /// - Complexity: O(1).
    package static func classify(header bytes: some Collection<UInt8>, fileSize: Int) -> SnapshotSignature {
        let header = Array(bytes.prefix(SnapshotFile.headerSize))
        guard header.count >= SnapshotFile.magic.count else { return .other }
        let matching = zip(header, SnapshotFile.magic).filter { $0 == $1 }.count
        if matching == SnapshotFile.magic.count { return .snapshot }
        // Five of eight: a few damaged bytes, never the chance agreement of text with "SIFTSNAP".
        if matching >= 5 { return .damagedSnapshot }
        guard header.count == SnapshotFile.headerSize else { return .other }
        func integer<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
            header[offset..<(offset + MemoryLayout<T>.size)].reversed().reduce(T.zero) { $0 << 8 | T($1) }
        }
        let byteOrderMatches = integer(UInt32.self, at: 12) == SnapshotFile.byteOrderMark
        let lengthMatches = integer(UInt64.self, at: 16) == UInt64(max(0, fileSize - SnapshotFile.headerSize))
        return byteOrderMatches && lengthMatches ? .damagedSnapshot : .other
    }
}
