/// Buffers written one after the other into a run of bytes, and read back (`PooledColumns`
/// keeps the small columns of a wide index so, without an array of their own each).
///
/// Integers are LEB128; an array is its count (doubled, plus one unless every element is zero),
/// then, unless every element is zero, the count of its elements up to the last nonzero one and
/// those elements' bytes (little-endian): the zero words that pad an empty column's bitsets take
/// one byte.
package struct PackedBytesWriter {
    /// What was written so far. To append to a buffer of one's own without copying it, swap it
    /// in and out (`swap(&writer.bytes, &buffer)`).
    package var bytes: [UInt8] = []

    package init() {}

    /// Appends a non-negative integer.
    package mutating func write(_ value: Int) {
        precondition(value >= 0, "packed integers are non-negative")
        var rest = UInt(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends an array of integers.
    ///
    /// - Complexity: O(*n*) for *n* elements.
    package mutating func write(_ array: [UInt8]) { writeElements(array) }
    package mutating func write(_ array: [UInt16]) { writeElements(array) }
    package mutating func write(_ array: [UInt32]) { writeElements(array) }
    package mutating func write(_ array: [UInt64]) { writeElements(array) }
    package mutating func write(_ array: [Int32]) { writeElements(array) }

    // Concrete entry points around one generic body, specialized here: a caller in another
    // module would otherwise run it unspecialized (type metadata looked up per array).
    @inline(__always)
    private mutating func writeElements<T: FixedWidthInteger>(_ array: [T]) {
        let used = (array.lastIndex { $0 != 0 } ?? -1) + 1
        write(array.count << 1 | (used > 0 ? 1 : 0))
        guard used > 0 else { return }
        write(used)
        array.withUnsafeBytes { raw in bytes.append(contentsOf: raw.prefix(used * MemoryLayout<T>.size)) }
    }
}

/// Reads what a `PackedBytesWriter` wrote, in the same order. The bytes are the program's own
/// (never read from a file): a malformed run stops the process.
package struct PackedBytesReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset: Int

    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        offset = 0
    }

    /// Whether every byte was read.
    package var isAtEnd: Bool { offset == bytes.count }

    package mutating func readInt() -> Int {
        var value: UInt = 0
        var shift: UInt = 0
        while true {
            let byte = bytes[offset]
            offset += 1
            value |= UInt(byte & 0x7F) << shift
            if byte < 0x80 { return Int(value) }
            shift += 7
        }
    }

    /// Reads an array written by `write(_:)`, of the type the caller asks for.
    ///
    /// - Complexity: O(*n*) for *n* elements.
    package mutating func readArray() -> [UInt8] { readElements(zeros: Self.zeroBytes) }
    package mutating func readArray() -> [UInt16] { readElements(zeros: []) }
    package mutating func readArray() -> [UInt32] { readElements(zeros: Self.zeroWords32) }
    package mutating func readArray() -> [UInt64] { readElements(zeros: Self.zeroWords64) }
    package mutating func readArray() -> [Int32] { readElements(zeros: []) }

    // The all-zero arrays an empty or small column holds (`[0]`, `[0, 0]`), shared instead of
    // allocated each time a column is unpacked.
    private static let zeroBytes: [[UInt8]] = [[], [0]]
    private static let zeroWords32: [[UInt32]] = [[], [0]]
    private static let zeroWords64: [[UInt64]] = [[], [0], [0, 0]]

    @inline(__always)
    private mutating func readElements<T: FixedWidthInteger>(zeros: [[T]]) -> [T] {
        let header = readInt()
        let count = header >> 1
        let used = header & 1 == 0 ? 0 : readInt()
        precondition(used <= count, "packed array")
        if used == 0 && count < zeros.count { return zeros[count] }
        // Never through `unsafeUninitializedCapacity` with 0: that writes into the shared empty
        // array storage, a data race when columns unpack on several threads (ThreadSanitizer).
        if count == 0 { return [] }
        let size = used * MemoryLayout<T>.size
        let source = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)])
        offset += size
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.copyMemory(from: source)
            raw[size...].initializeMemory(as: UInt8.self, repeating: 0)
            initialized = count
        }
    }
}
