/// One text field (or the ids) of every record, as UTF-8 in one contiguous buffer.
///
/// A `String` per value costs 16 bytes plus, above 15 bytes of UTF-8, a heap object of its own;
/// here a value costs its bytes plus 8 (start and length), and a snapshot stores and loads the
/// buffer as it is. Replacing or clearing a value leaves dead bytes, reclaimed by compaction once
/// they outweigh the live ones.
struct TextColumn {
    private(set) var bytes: [UInt8] = []
    /// Start of each slot's value in `bytes`.
    private(set) var starts: [UInt32] = []
    /// Length of each slot's value (0: empty).
    private(set) var lengths: [UInt32] = []
    private var deadBytes = 0

    init() {}

    /// Number of slots the column has room for.
    var slotCount: Int { starts.count }

    /// The value of a slot ("" when it has none).
    ///
    /// - Complexity: O(*n*) in the value's length (a `String` is made from the bytes).
    func string(_ slot: Int32) -> String {
        let index = Int(slot)
        guard index < lengths.count, lengths[index] > 0 else { return "" }
        let start = Int(starts[index])
        return bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[start..<(start + Int(lengths[index]))]), as: UTF8.self)
        }
    }

    /// Whether a slot's value equals `value`, byte for byte, without making a `String`.
    func equals(_ slot: Int32, _ value: String) -> Bool {
        let index = Int(slot)
        let length = index < lengths.count ? Int(lengths[index]) : 0
        var value = value
        return value.withUTF8 { utf8 in
            guard utf8.count == length else { return false }
            guard length > 0 else { return true }
            let start = Int(starts[index])
            return bytes.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[start..<(start + length)]).elementsEqual(utf8) }
        }
    }

    /// Calls `body` with a slot's UTF-8 bytes.
    func withUTF8<R>(_ slot: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let index = Int(slot)
        let length = index < lengths.count ? Int(lengths[index]) : 0
        let start = length > 0 ? Int(starts[index]) : 0
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<(start + length)])) }
    }

    /// Sets a slot's value.
    ///
    /// - Complexity: O(*n*) in the value's length, amortized.
    mutating func set(_ slot: Int32, _ value: String) {
        let index = Int(slot)
        if index >= starts.count {
            starts.append(contentsOf: repeatElement(0, count: index + 1 - starts.count))
            lengths.append(contentsOf: repeatElement(0, count: index + 1 - lengths.count))
        }
        deadBytes += Int(lengths[index])
        var value = value
        value.withUTF8 { utf8 in
            starts[index] = UInt32(bytes.count)
            lengths[index] = UInt32(utf8.count)
            bytes.append(contentsOf: utf8)
        }
        compactIfWorthwhile()
    }

    /// Makes room for `slots` more values of about `bytes` bytes in all.
    mutating func reserveCapacity(slots: Int, bytes extra: Int) {
        starts.reserveCapacity(starts.count + slots)
        lengths.reserveCapacity(lengths.count + slots)
        bytes.reserveCapacity(bytes.count + extra)
    }

    private mutating func compactIfWorthwhile() {
        guard deadBytes > 65_536, deadBytes * 2 > bytes.count else { return }
        var compacted = [UInt8]()
        compacted.reserveCapacity(bytes.count - deadBytes)
        for index in starts.indices where lengths[index] > 0 {
            let start = Int(starts[index])
            starts[index] = UInt32(compacted.count)
            compacted.append(contentsOf: bytes[start..<(start + Int(lengths[index]))])
        }
        bytes = compacted
        deadBytes = 0
    }

    /// Drops most spare capacity (after a bulk load, where doubling growth can leave up to half),
    /// keeping 1/16 of headroom so that the next edits append without copying the whole buffer.
    mutating func trimCapacity() {
        bytes = withHeadroom(bytes)
        starts = withHeadroom(starts)
        lengths = withHeadroom(lengths)
    }

    /// The column holding `slots[i]`'s value at slot `i` (for snapshots).
    func renumbered(_ slots: [Int32]) -> TextColumn {
        var result = TextColumn()
        result.starts.reserveCapacity(slots.count)
        result.lengths.reserveCapacity(slots.count)
        for slot in slots {
            withUTF8(slot) { utf8 in
                result.starts.append(UInt32(result.bytes.count))
                result.lengths.append(UInt32(utf8.count))
                result.bytes.append(contentsOf: utf8)
            }
        }
        return result
    }

    /// A column from stored buffers, checked: every value inside `bytes` and valid UTF-8.
    init(bytes: [UInt8], starts: [UInt32], lengths: [UInt32]) throws(SnapshotFormatError) {
        guard starts.count == lengths.count else { throw .init("text column sizes") }
        for index in starts.indices {
            let end = UInt64(starts[index]) + UInt64(lengths[index])
            guard end <= UInt64(bytes.count) else { throw .init("text column bounds") }
        }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .init("text column is not UTF-8") }
        self.bytes = bytes
        self.starts = starts
        self.lengths = lengths
        var live = 0
        for length in lengths { live += Int(length) }
        deadBytes = bytes.count - live
    }

    /// Heap bytes used: the UTF-8 buffer, and the per-slot tables.
    var memoryParts: (text: Int, tables: Int) { (bytes.capacity, 4 * (starts.capacity + lengths.capacity)) }
}

/// A copy of `array` with capacity for 1/16 more elements (at least 1024).
func withHeadroom<T>(_ array: [T]) -> [T] {
    var copy = [T]()
    copy.reserveCapacity(array.count + max(1024, array.count / 16))
    copy.append(contentsOf: array)
    return copy
}
