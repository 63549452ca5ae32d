/// The edit log's files: segment names, the entry layout, and the scan that checks a segment and
/// finds a torn last write.
///
/// A log is a folder of segment files named `edits-<first sequence, 20 digits>.log`, each a run of
/// entries with consecutive sequences; the newest segment is the one being appended to. An entry
/// is a 32-byte header and its payload, all integers little-endian:
///
/// | Bytes | Field |
/// |---|---|
/// | 0..<4 | magic `F5 53 4C 31` (`F5` never occurs in UTF-8 text) |
/// | 4..<8 | CRC-32C of bytes 8..<32 and the payload |
/// | 8..<16 | sequence |
/// | 16..<20 | payload length |
/// | 20..<24 | position of the entry in its write (0-based) |
/// | 24..<28 | number of entries in its write |
/// | 28..<32 | flags, 0 |
///
/// The entries of one group commit form one *write*: they are written together and made durable
/// by one `fdatasync`, and none of them is acknowledged before all are durable. Recording the
/// write in every entry lets recovery tell a torn last write (drop it) from damage to
/// acknowledged data (refuse to open).
enum EditLogFormat {
    static let magic: (UInt8, UInt8, UInt8, UInt8) = (0xF5, 0x53, 0x4C, 0x31)
    static let headerSize = 32
    /// The largest payload the format records, whatever limit a log is opened with.
    static let maximumPayloadBytes = 1 << 30

    static let segmentPrefix = "edits-"
    static let segmentSuffix = ".log"
    private static let digits = 20

    /// The name of the segment whose first entry has sequence `base`.
    static func segmentName(base: UInt64) -> String {
        let number = String(base)
        return segmentPrefix + String(repeating: "0", count: max(0, digits - number.count)) + number
            + segmentSuffix
    }

    /// The first sequence of a segment file with this name, or `nil` for another file (sequences
    /// start at 1).
    static func segmentBase(name: String) -> UInt64? {
        guard name.hasPrefix(segmentPrefix), name.hasSuffix(segmentSuffix) else { return nil }
        let number = name.dropFirst(segmentPrefix.count).dropLast(segmentSuffix.count)
        guard number.count == digits, number.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        return UInt64(number).flatMap { $0 > 0 ? $0 : nil }
    }

    /// An entry's header fields.
    struct Header: Equatable {
        var sequence: UInt64
        var length: Int
        var position: UInt32
        var count: UInt32
        var flags: UInt32
    }

    /// Appends one entry (header and payload) to `buffer`.
    ///
    /// - Complexity: O(*n*) in the payload's size.
    static func encode(_ header: Header, payload: [UInt8], into buffer: inout [UInt8]) {
        let start = buffer.count
        buffer.append(contentsOf: [magic.0, magic.1, magic.2, magic.3, 0, 0, 0, 0])
        appendLittleEndian(header.sequence, to: &buffer)
        appendLittleEndian(UInt32(header.length), to: &buffer)
        appendLittleEndian(header.position, to: &buffer)
        appendLittleEndian(header.count, to: &buffer)
        appendLittleEndian(header.flags, to: &buffer)
        buffer.append(contentsOf: payload)
        let crc = buffer.withUnsafeBytes { bytes in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[(start + 8)...]))
        }
        withUnsafeBytes(of: crc.littleEndian) { crcBytes in
            for i in 0..<4 { buffer[start + 4 + i] = crcBytes[i] }
        }
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    /// What ``parse(_:at:)`` found at an offset.
    enum Parsed {
        /// A whole entry whose checksum matches; the next entry starts at `end`.
        case entry(Header, payload: Range<Int>, end: Int)
        /// No good entry starts here: why.
        case bad(String)
    }

    /// Reads the entry that starts at `offset` and checks its checksum.
    ///
    /// - Complexity: O(*n*) in the entry's size.
    static func parse(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Parsed {
        let available = bytes.count - offset
        guard available >= headerSize else {
            return .bad("a partial entry header (\(available) of \(headerSize) bytes)")
        }
        guard bytes[offset] == magic.0, bytes[offset + 1] == magic.1, bytes[offset + 2] == magic.2,
            bytes[offset + 3] == magic.3
        else { return .bad("no entry header (bad magic number)") }
        func load<T: FixedWidthInteger>(_ at: Int, as: T.Type) -> T {
            T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + at, as: T.self))
        }
        let header = Header(
            sequence: load(8, as: UInt64.self),
            length: Int(load(16, as: UInt32.self)),
            position: load(20, as: UInt32.self),
            count: load(24, as: UInt32.self),
            flags: load(28, as: UInt32.self)
        )
        guard header.length <= maximumPayloadBytes else {
            return .bad("an entry header with an impossible length (\(header.length) bytes)")
        }
        let end = offset + headerSize + header.length
        guard end <= bytes.count else {
            return .bad("a partial entry (\(available) of \(headerSize + header.length) bytes)")
        }
        let stored: UInt32 = load(4, as: UInt32.self)
        let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<end]))
        guard stored == computed else { return .bad("an entry whose checksum does not match") }
        return .entry(header, payload: (offset + headerSize)..<end, end: end)
    }

    /// A good entry found by ``scan(_:path:base:tornTailAllowed:)``.
    struct ScannedEntry {
        var sequence: UInt64
        var payload: Range<Int>
    }

    /// A torn last write that ``scan(_:path:base:tornTailAllowed:)`` found and cut off.
    struct Tear {
        /// Where the damage is.
        var offset: Int
        /// Where the segment must be truncated: the start of the torn write.
        var validBytes: Int
        /// Whole entries of the torn write that come before the damage (dropped with it).
        var droppedEntries: Int
        var reason: String
    }

    /// What ``scan(_:path:base:tornTailAllowed:)`` found in a segment.
    struct Scan {
        /// The good entries, in order (without a torn last write).
        var entries: [ScannedEntry]
        /// The segment's length without a torn last write.
        var validBytes: Int
        var tear: Tear?
    }

    /// Checks every entry of a segment whose first sequence is `base`.
    ///
    /// Entries must have consecutive sequences from `base`, and each write must be whole. When
    /// `tornTailAllowed` (the newest segment, on open), damage that nothing good follows, except
    /// entries of the same unfinished write, is a torn last write: the result says where to cut.
    /// Anything else throws ``EditLogError/corrupted(path:offset:reason:)``.
    ///
    /// - Complexity: O(*n*) in the segment's size; O(*n*) more after damage, to look for good
    ///   entries past it.
    static func scan(
        _ bytes: UnsafeRawBufferPointer,
        path: String,
        base: UInt64,
        tornTailAllowed: Bool
    ) throws(EditLogError) -> Scan {
        /// The write being read: its first sequence, its size, where it starts, its first entry's
        /// index in `entries`.
        var open: (first: UInt64, count: UInt32, offset: Int, index: Int)?
        var entries: [ScannedEntry] = []
        var offset = 0
        var expected = base
        while offset < bytes.count {
            switch parse(bytes, at: offset) {
            case .entry(let header, let payload, let end):
                guard header.sequence == expected else {
                    throw .corrupted(
                        path: path,
                        offset: offset,
                        reason: "an entry with sequence \(header.sequence) where \(expected) was expected"
                    )
                }
                guard header.flags == 0 else {
                    throw .corrupted(
                        path: path,
                        offset: offset,
                        reason: "an entry with unknown flags \(header.flags) (written by a newer version?)"
                    )
                }
                guard header.count > 0, header.position < header.count else {
                    throw .corrupted(
                        path: path,
                        offset: offset,
                        reason: "an entry numbered \(header.position) in a write of \(header.count) entries"
                    )
                }
                if let write = open {
                    guard header.count == write.count, UInt64(header.position) == header.sequence - write.first
                    else {
                        throw .corrupted(
                            path: path,
                            offset: offset,
                            reason:
                                "entry \(header.position) of a write of \(header.count) entries inside a write of "
                                + "\(write.count) entries that starts at sequence \(write.first)"
                        )
                    }
                } else {
                    guard header.position == 0 else {
                        throw .corrupted(
                            path: path,
                            offset: offset,
                            reason: "entry \(header.position) of a write of \(header.count) entries without its start"
                        )
                    }
                    open = (header.sequence, header.count, offset, entries.count)
                }
                entries.append(ScannedEntry(sequence: header.sequence, payload: payload))
                if header.position + 1 == header.count { open = nil }
                expected += 1
                offset = end
            case .bad(let reason):
                guard tornTailAllowed else { throw .corrupted(path: path, offset: offset, reason: reason) }
                let tornFirst = open?.first ?? expected
                if let (goodOffset, sequence) = goodEntry(
                    in: bytes,
                    after: offset,
                    outsideWriteStarting: tornFirst,
                    count: open?.count
                ) {
                    throw .corrupted(
                        path: path,
                        offset: offset,
                        reason: "\(reason), followed by a good entry (sequence \(sequence)) at byte \(goodOffset)"
                    )
                }
                let cut = open?.offset ?? offset
                let kept = open?.index ?? entries.count
                let tear = Tear(offset: offset, validBytes: cut, droppedEntries: entries.count - kept, reason: reason)
                return Scan(entries: Array(entries[..<kept]), validBytes: cut, tear: tear)
            }
        }
        if let write = open {
            let written = entries.count - write.index
            let reason = "the file ends after \(written) of the \(write.count) entries of its last write"
            guard tornTailAllowed else { throw .corrupted(path: path, offset: offset, reason: reason) }
            let tear = Tear(offset: offset, validBytes: write.offset, droppedEntries: written, reason: reason)
            return Scan(entries: Array(entries[..<write.index]), validBytes: write.offset, tear: tear)
        }
        return Scan(entries: entries, validBytes: offset, tear: nil)
    }

    /// The first good entry after `offset` that is not part of the unfinished write that starts at
    /// sequence `first` (with `count` entries, when known): its offset and sequence.
    private static func goodEntry(
        in bytes: UnsafeRawBufferPointer,
        after offset: Int,
        outsideWriteStarting first: UInt64,
        count: UInt32?
    ) -> (Int, UInt64)? {
        var candidate = offset + 1
        while candidate + headerSize <= bytes.count {
            defer { candidate += 1 }
            guard bytes[candidate] == magic.0, case .entry(let header, _, _) = parse(bytes, at: candidate) else {
                continue
            }
            let sameWrite =
                header.sequence >= first && header.sequence - first == UInt64(header.position)
                && header.position < header.count && (count == nil || header.count == count)
            if !sameWrite { return (candidate, header.sequence) }
        }
        return nil
    }
}
