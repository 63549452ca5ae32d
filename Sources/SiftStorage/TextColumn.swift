internal import CSiftKernels

/// One text field (or the ids) of every record, as UTF-8 in one contiguous buffer.
///
/// A `String` per value costs 16 bytes plus, above 15 bytes of UTF-8, a heap object of its own.
/// Here slots are grouped by eight: a group's values lie one after the other in `bytes`, each
/// behind a length prefix, and one `UInt32` per group says where the group starts. A value thus
/// costs its bytes plus about 1.5 (its prefix byte and an eighth of a group start), and reading
/// one skips at most seven prefixes of its group, which lie in the same cache line or two.
///
/// A prefix is one byte, the length itself, for values of up to 126 bytes; a longer value has
/// 0x7F and then five bytes of seven bits each (low first). Every prefix byte is ASCII, so
/// `bytes` is valid UTF-8 exactly when every value is, and no value can end inside a character
/// of the next: a snapshot checks the whole buffer at once.
///
/// Setting a value rewrites its group: in place when the group shrinks, grows into the slack a
/// shrink left behind it, or ends the buffer; else as a copy at the end, the old copy becoming
/// dead bytes that compaction reclaims once they outweigh the live ones. The slack (up to 255
/// bytes per group) makes the usual update, a value cleared and then set again to one of similar
/// length in the same slot, an edit in place rather than a copy of eight values. Offsets are `UInt32`, so a column holds at most 4 GiB: `canStore`
/// tells beforehand whether a value fits, and `set` stops the process rather than wrap around.
package struct TextColumn: Sendable {
    /// Slots per group: a read skips at most `groupSize - 1` prefixes.
    package static let groupSize = 8
    package static let groupShift = 3
    /// The first byte of a long prefix (also the length from which values need one).
    private static let longPrefix: UInt8 = 0x7F
    package static let longPrefixSize = 6

    /// Every group's values, each behind its length prefix; groups in any order, with dead bytes
    /// between them.
    package var bytes: [UInt8] = []
    /// Start of each group of `groupSize` slots in `bytes`.
    package var groupStarts: [UInt32] = []
    /// Dead bytes right after each group, into which it can grow in place (0 for a group that
    /// ends `bytes`: its slack is given back at once).
    package var groupSlack: [UInt8] = []
    /// Number of slots the column holds a value for (later slots read as "").
    package var slotCount = 0
    /// Bytes of `bytes` that belong to no group (slack included).
    package internal(set) var deadBytes = 0
    /// Whether the last group (the one holding slot `slotCount - 1`) ends `bytes`, so that a value
    /// for the next slot is a plain append. False is always safe.
    package var lastGroupEndsBytes = false

    // MARK: A rebuild in progress (see `TextColumn+Compaction.swift`)
    /// The column being rebuilt in slot order (at most one element: an array holds the recursive
    /// value), empty when no rebuild runs. `set` writes the slots below `rebuildCursor` to both.
    package var rebuildTarget: [TextColumn] = []
    /// The next slot the rebuild copies.
    package var rebuildCursor = 0
    /// The largest `bytes.count` allowed: group starts are `UInt32`. Internal so that tests can
    /// lower it.
    package var byteLimit = Int(UInt32.max)

    package init() {}

    // MARK: Prefixes

    /// Size of the prefix of a value of `length` bytes.
    @inline(__always)
    @inlinable
    package static func prefixSize(_ length: Int) -> Int { length < Int(longPrefix) ? 1 : longPrefixSize }

    /// The length of the value whose prefix starts at `p`, and the size of that prefix.
    @inline(__always)  // one load and a branch in the common case; called per skipped value
    private static func decode(_ p: UnsafePointer<UInt8>) -> (length: Int, prefix: Int) {
        let first = p[0]
        if first < longPrefix { return (Int(first), 1) }
        var length = 0
        for i in 0..<5 { length |= Int(p[1 + i]) << (7 * i) }
        return (length, longPrefixSize)
    }

    /// Writes the prefix of a value of `length` bytes at `p`; returns its size.
    package static func writePrefix(_ length: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard length >= Int(longPrefix) else {
            p[0] = UInt8(length)
            return 1
        }
        p[0] = longPrefix
        for i in 0..<5 { p[1 + i] = UInt8(truncatingIfNeeded: length >> (7 * i)) & 0x7F }
        return longPrefixSize
    }

    // MARK: Reading

    /// Offset in `buffer` (the column's `bytes`) and length of a slot's value; (0, 0) past
    /// `slotCount`.
    @inline(__always)  // a few loads; on the paths of id lookups and result display
    private func locate(_ slot: Int32, in buffer: UnsafeBufferPointer<UInt8>) -> (start: Int, length: Int) {
        let index = Int(slot)
        guard index >= 0, index < slotCount, let base = buffer.baseAddress else { return (0, 0) }
        var p = base + Int(groupStarts[index >> Self.groupShift])
        for _ in 0..<(index & (Self.groupSize - 1)) {
            let (length, prefix) = Self.decode(p)
            p += prefix + length
        }
        let (length, prefix) = Self.decode(p)
        return (p - base + prefix, length)
    }

    /// The value of a slot ("" when it has none).
    ///
    /// - Complexity: O(*n*) in the value's length (a `String` is made from the bytes), plus O(1)
    ///   to find it (at most seven prefixes skipped).
    package func string(_ slot: Int32) -> String {
        withUTF8(slot) { $0.isEmpty ? "" : String(decoding: $0, as: UTF8.self) }
    }

    /// Whether a slot's value equals `value`, byte for byte, without making a `String`.
    ///
    /// - Complexity: O(*n*) in the value's length, plus O(1) to find it.
    @inlinable
    package func equals(_ slot: Int32, _ value: String) -> Bool {
        var value = value
        return value.withUTF8 { utf8 in withUTF8(slot) { $0.count == utf8.count && $0.elementsEqual(utf8) } }
    }

    /// Calls `body` with a slot's UTF-8 bytes (empty past `slotCount`).
    ///
    /// - Complexity: O(1) to find the value (at most seven prefixes skipped), plus `body`.
    @inlinable
    package func withUTF8<R>(_ slot: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            let (start, length) = locate(slot, in: buffer)
            return body(UnsafeBufferPointer(rebasing: buffer[start..<(start + length)]))
        }
    }

    // MARK: Writing

    /// Bytes that belong to a group.
    private var liveBytes: Int { bytes.count - deadBytes }

    private var lastGroup: Int { (slotCount - 1) >> Self.groupShift }

    /// Where a group ends in `bytes` (just past its last value), and where its member `member`
    /// starts (its prefix) and how many bytes it takes, prefix included.
    package func layout(ofGroup group: Int, member: Int) -> (start: Int, value: Int, size: Int, end: Int) {
        let members = min(Self.groupSize, slotCount - (group << Self.groupShift))
        return bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let start = Int(groupStarts[group])
            var p = start
            var value = start
            var size = 0
            for i in 0..<members {
                let (length, prefix) = Self.decode(base + p)
                if i == member { (value, size) = (p, prefix + length) }
                p += prefix + length
            }
            return (start, value, size, p)
        }
    }

    /// Whether `set(slot, value)` with a value of `count` UTF-8 bytes fits in the 4 GiB the
    /// column can address (with compaction, which `set` runs when it must).
    ///
    /// - Complexity: O(1).
    @inlinable
    package func canStore(_ count: Int, at slot: Int32) -> Bool {
        let index = Int(slot)
        guard index >= 0 else { return false }
        var needed = Self.longPrefixSize + count
        if index < slotCount {
            let (start, _, _, end) = layout(ofGroup: index >> Self.groupShift, member: -1)
            needed += end - start
        } else {
            if slotCount & (Self.groupSize - 1) != 0 {
                let (start, _, _, end) = layout(ofGroup: lastGroup, member: -1)
                needed += end - start
            }
            needed += index + 1 - slotCount
        }
        return needed <= byteLimit - liveBytes
    }

    /// Whether `canStore(count, at: slot)` holds by a wide margin: the column and the value with
    /// the slots before it each take at most a quarter of the limit (a group is part of the live
    /// bytes, so its copy fits too).
    ///
    /// - Complexity: O(1), without reading the values.
    @inlinable
    package func hasAmpleRoom(for count: Int, at slot: Int32) -> Bool {
        liveBytes <= byteLimit / 4 && count <= byteLimit / 4 - Self.longPrefixSize - Int(slot) - 1
    }

    /// Sets a slot's value. Slots between `slotCount` and `slot` get "".
    ///
    /// - Precondition: `canStore(value.utf8.count, at: slot)`; beyond 4 GiB the process stops.
    /// - Complexity: O(*n*) in the value's length plus the size of its group of eight values,
    ///   amortized (compaction); O(*n*) in the value's length alone when appending a new slot.
    package mutating func set(_ slot: Int32, _ value: String) {
        var value = value
        value.withUTF8 { set(slot, utf8: $0) }
    }

    /// Sets a slot's value from UTF-8 bytes (which must not point into this column).
    ///
    /// - Complexity: as `set(_:_:)`.
    package mutating func set(_ slot: Int32, utf8 value: UnsafeBufferPointer<UInt8>) {
        let index = Int(slot)
        precondition(index >= 0, "negative slot")
        if index < rebuildCursor && !rebuildTarget.isEmpty { rebuildTarget[0].set(slot, utf8: value) }
        if index == slotCount, index & (Self.groupSize - 1) == 0 || lastGroupEndsBytes,
            Self.prefixSize(value.count) + value.count <= byteLimit - bytes.count
        {
            appendNew(value)  // the bulk-load path
            return
        }
        if index >= slotCount {
            guard !value.isEmpty else { return }  // slots past `slotCount` read as "" already
            extend(to: index + 1)
        }
        replace(index, with: value)
        compactIfWorthwhile()
    }

    /// Appends the value of slot `slotCount`, where it starts a group or the last group ends
    /// `bytes`.
    private mutating func appendNew(_ value: UnsafeBufferPointer<UInt8>) {
        if slotCount & (Self.groupSize - 1) == 0 {
            groupStarts.append(UInt32(bytes.count))
            groupSlack.append(0)
        }
        growGently(&bytes, by: Self.longPrefixSize + value.count)
        if value.count < Int(Self.longPrefix) {
            bytes.append(UInt8(value.count))
        } else {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.longPrefixSize) { prefix in
                _ = Self.writePrefix(value.count, to: prefix.baseAddress!)
                bytes.append(contentsOf: prefix)
            }
        }
        bytes.append(contentsOf: value)
        slotCount += 1
        lastGroupEndsBytes = true
    }

    /// Makes sure `bytes` can grow by `count` within `byteLimit`, compacting if that is enough.
    /// Group starts may change.
    private mutating func makeRoom(_ count: Int) {
        if count > byteLimit - bytes.count { compact() }
        precondition(count <= byteLimit - bytes.count, "a text column cannot exceed 4 GiB")
    }

    /// Appends `count` bytes (zeros) to `bytes` and returns where they start.
    private mutating func grow(_ count: Int) -> Int {
        makeRoom(count)
        growGently(&bytes, by: count)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        return start
    }

    /// Gives slots `slotCount..<newCount` the value "".
    private mutating func extend(to newCount: Int) {
        if slotCount & (Self.groupSize - 1) != 0 {
            // Fill the last group, moving it to the end first unless it is there.
            let group = lastGroup
            let added = min(Self.groupSize - slotCount & (Self.groupSize - 1), newCount - slotCount)
            if !lastGroupEndsBytes {
                let (start, _, _, end) = layout(ofGroup: group, member: -1)
                if end - start + added > byteLimit - bytes.count { compact() }  // it ends `bytes` then
            }
            if !lastGroupEndsBytes {
                let (start, _, _, end) = layout(ofGroup: group, member: -1)
                let target = grow(end - start)
                bytes.withUnsafeMutableBufferPointer { b in
                    let base = b.baseAddress!
                    (base + target).update(from: base + start, count: end - start)
                }
                groupStarts[group] = UInt32(target)
                groupSlack[group] = 0  // its slack was counted dead already
                deadBytes += end - start
            }
            _ = grow(added)
            slotCount += added
            lastGroupEndsBytes = true
        }
        while slotCount < newCount {
            let added = min(Self.groupSize, newCount - slotCount)
            let start = grow(added)
            groupStarts.append(UInt32(start))
            groupSlack.append(0)
            slotCount += added
            lastGroupEndsBytes = true
        }
    }

    /// Replaces the value of a slot below `slotCount`.
    private mutating func replace(_ index: Int, with value: UnsafeBufferPointer<UInt8>) {
        let group = index >> Self.groupShift
        let member = index & (Self.groupSize - 1)
        var (start, at, oldSize, end) = layout(ofGroup: group, member: member)
        var slack = Int(groupSlack[group])
        let newSize = Self.prefixSize(value.count) + value.count
        let delta = newSize - oldSize
        if delta > slack, (end + slack == bytes.count ? delta - slack : end - start + delta) > byteLimit - bytes.count {
            compact()
            (start, at, oldSize, end) = layout(ofGroup: group, member: member)
            slack = 0
        }
        let tail = at + oldSize
        let tailCount = end - tail
        if delta <= slack || end + slack == bytes.count {
            // In place: the group shrinks, grows into its slack, or ends `bytes` and grows there.
            if delta > slack {
                _ = grow(delta - slack)
                deadBytes -= slack
                slack = 0
            } else {
                slack -= delta
                deadBytes -= delta
            }
            bytes.withUnsafeMutableBufferPointer { b in
                let base = b.baseAddress!
                // The value's old bytes are the only ones overwritten before the rest of the group
                // has moved (`update(from:count:)` copies overlapping ranges like `memmove`).
                if delta >= 0 { (base + at + newSize).update(from: base + tail, count: tailCount) }
                let prefix = Self.writePrefix(value.count, to: base + at)
                if let source = value.baseAddress { (base + at + prefix).update(from: source, count: value.count) }
                if delta < 0 { (base + at + newSize).update(from: base + tail, count: tailCount) }
            }
            if end + delta + slack == bytes.count {
                // The group ends `bytes`: give the slack back.
                bytes.removeLast(slack)
                deadBytes -= slack
                slack = 0
            }
            groupSlack[group] = UInt8(min(slack, Int(UInt8.max)))  // slack beyond stays dead
            return
        }
        // A copy at the end; the old copy and its slack are dead.
        let target = grow(end - start + delta)
        bytes.withUnsafeMutableBufferPointer { b in
            let base = b.baseAddress!
            (base + target).update(from: base + start, count: at - start)
            let prefix = Self.writePrefix(value.count, to: base + target + at - start)
            if let source = value.baseAddress {
                (base + target + at - start + prefix).update(from: source, count: value.count)
            }
            (base + target + at - start + newSize).update(from: base + tail, count: tailCount)
        }
        groupStarts[group] = UInt32(target)
        groupSlack[group] = 0
        deadBytes += end - start
        lastGroupEndsBytes = group == lastGroup
    }

    /// Makes room for `slots` more values of about `bytes` bytes in all.
    package mutating func reserveCapacity(slots: Int, bytes extra: Int) {
        groupStarts.reserveCapacity(groupStarts.count + slots / Self.groupSize + 1)
        groupSlack.reserveCapacity(groupSlack.count + slots / Self.groupSize + 1)
        bytes.reserveCapacity(bytes.count + extra + slots)
    }

    private mutating func compactIfWorthwhile() {
        guard deadBytes > 65_536, deadBytes * 2 > bytes.count else { return }
        compact()
    }

    /// Copies every group, in order, to a new buffer without dead bytes.
    ///
    /// - Complexity: O(*n*) in the live bytes.
    private mutating func compact() {
        guard deadBytes > 0 else { return }
        let old = bytes
        var compacted = [UInt8]()
        compacted.reserveCapacity(liveBytes + liveBytes / 64)
        for group in groupStarts.indices {
            let (start, _, _, end) = layout(ofGroup: group, member: -1)
            groupStarts[group] = UInt32(compacted.count)
            old.withUnsafeBufferPointer { compacted.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<end])) }
        }
        bytes = compacted
        groupSlack = [UInt8](repeating: 0, count: groupStarts.count)
        deadBytes = 0
        lastGroupEndsBytes = true
    }

    /// Drops most spare capacity (after a bulk load, where doubling growth can leave up to half),
    /// keeping some headroom (`withHeadroom`) so that the next edits append without copying the whole buffer.
    ///
    /// - Complexity: O(*n*) in the column's size.
    package mutating func trimCapacity() {
        abandonRebuild()
        bytes = withHeadroom(bytes)
        groupStarts = withHeadroom(groupStarts)
        groupSlack = withHeadroom(groupSlack)
    }

    // MARK: Snapshots

    /// The column holding `slots[i]`'s value at slot `i`, without dead bytes (for snapshots).
    ///
    /// - Complexity: O(*n*) in the size of the values.
    package func renumbered(_ slots: [Int32]) -> TextColumn {
        var result = TextColumn()
        result.reserveCapacity(slots: slots.count, bytes: liveBytes)
        for slot in slots { withUTF8(slot) { result.appendNew($0) } }
        return result
    }

    /// A column of `slotCount` values stored back to back in group order (as `renumbered` makes
    /// them), checked: every prefix well formed, every value inside `bytes`, no byte left over, and
    /// valid UTF-8.
    ///
    /// - Complexity: O(*n*) in the size of `bytes`.
    package init(bytes: [UInt8], slotCount: Int) throws(SnapshotFormatError) {
        guard bytes.count <= byteLimit else { throw .init("text column larger than 4 GiB") }
        // Every value takes at least its prefix byte: no allocation from an absurd count.
        guard slotCount >= 0, slotCount <= bytes.count else { throw .init("text column size") }
        var starts: [UInt32] = []
        starts.reserveCapacity((slotCount + Self.groupSize - 1) / Self.groupSize)
        let end = bytes.withUnsafeBufferPointer { b -> Int? in
            var p = 0
            for slot in 0..<slotCount {
                if slot & (Self.groupSize - 1) == 0 { starts.append(UInt32(p)) }
                guard p < b.count else { return nil }
                var length = Int(b[p])
                var prefix = 1
                if b[p] >= Self.longPrefix {
                    guard b[p] == Self.longPrefix, b.count - p >= Self.longPrefixSize,
                        b[(p + 1)..<(p + Self.longPrefixSize)].allSatisfy({ $0 < 0x80 })
                    else { return nil }
                    (length, prefix) = Self.decode(b.baseAddress! + p)
                }
                guard length <= b.count - p - prefix else { return nil }
                p += prefix + length
            }
            return p
        }
        guard let end else { throw .init("text column bounds") }
        guard end == bytes.count else { throw .init("text column has bytes after its last value") }
        guard (try? UTF8Span(validating: bytes.span)) != nil else { throw .init("text column is not UTF-8") }
        self.bytes = bytes
        groupStarts = starts
        groupSlack = [UInt8](repeating: 0, count: starts.count)
        self.slotCount = slotCount
        lastGroupEndsBytes = true
    }

    /// Asks for the cache line of a slot's group start (see `SearchIndex.prefetchRecord`).
    package func prefetch(_ slot: Int32) {
        let group = Int(slot) >> Self.groupShift
        guard slot >= 0, group < groupStarts.count else { return }
        groupStarts.withUnsafeBufferPointer { sift_prefetch($0.baseAddress! + group) }
    }

    /// Heap bytes used: the buffer of values (with their prefixes), and the group starts and slack.
    /// A rebuild in progress counts too.
    package var memoryParts: (text: Int, tables: Int) {
        var parts = (text: bytes.capacity, tables: 4 * groupStarts.capacity + groupSlack.capacity)
        for target in rebuildTarget {
            parts.text += target.memoryParts.text
            parts.tables += target.memoryParts.tables
        }
        return parts
    }
}

/// A copy of `array` with capacity for 1/64 more elements (at least 1024, or as many as it holds
/// when that is fewer): after a bulk load, room for the next edits (about 15,000 more records
/// after a million) without holding much unused memory. Past it, the array grows geometrically,
/// as arrays do. A small array gets no more than its own size: an index of a million columns
/// holds a dozen of these per column, and 1,024 spare elements each made 55 KB a column.
///
/// The spare capacity is written once (zeros, then removed), so that the memory is really
/// there: otherwise an edit that first reaches a page of it takes a page fault, which in a
/// virtual machine can cost tens of microseconds, and such edits made the slowest 1% of edits.
@inlinable
package func withHeadroom<T: FixedWidthInteger>(_ array: [T]) -> [T] {
    let headroom = max(min(1024, array.count), array.count / 64)
    var copy = [T]()
    copy.reserveCapacity(array.count + headroom)
    copy.append(contentsOf: array)
    copy.append(contentsOf: repeatElement(0, count: headroom))
    copy.removeLast(headroom)
    return copy
}

/// Makes room for `extra` more elements, growing a full array by an eighth of its size (at least
/// 1,024 elements, or doubling a smaller one) instead of doubling it: a large buffer that edits
/// keep appending to, and whose dead part compaction reclaims, then holds at most an eighth more
/// than it needs, not up to twice; a small one (a column of a few records, of which a wide file
/// has a million) stays small. Appends stay amortized O(1) (each growth copies the array, once
/// per eighth).
///
/// - Complexity: O(1) when there is room, O(*n*) when the array grows.
@inline(__always)  // a compare and a branch on every append of an edit
@inlinable
package func growGently<T>(_ array: inout [T], by extra: Int) {
    guard array.count + extra > array.capacity else { return }
    array.reserveCapacity(array.count + max(extra, array.count / 8, min(1024, array.count + 16)))
}
