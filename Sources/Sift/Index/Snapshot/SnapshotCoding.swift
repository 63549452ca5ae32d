internal import CSiftKernels
internal import SiftStorage

/// Appends little-endian binary values to a byte buffer (the snapshot payload), or streams them:
/// with an `output`, the buffer is handed to it (and checksummed) whenever it passes
/// `flushSize`, and large arrays go to it without being copied, so that a snapshot is never held
/// whole in memory.
struct SnapshotWriter {
    private(set) var bytes: [UInt8] = []
    /// Takes the next bytes of a streamed payload; returns a failure's description, or nil.
    private let output: ((UnsafeRawBufferPointer) -> String?)?
    /// Bytes already given to `output`, and their checksum so far.
    private var written = 0
    private var checksum = sift_checksum_state()
    /// The first failure `output` reported (later bytes are dropped).
    private(set) var failure: String?
    /// A streamed buffer is handed on once it holds this many bytes.
    static let flushSize = 1 << 20

    /// A writer that keeps the payload in `bytes`.
    init() { output = nil }

    /// A writer that streams the payload to `output`, checksummed with `seed` (see `finish()`).
    init(seed: UInt64, output: @escaping (UnsafeRawBufferPointer) -> String?) {
        self.output = output
        sift_checksum_begin(&checksum, seed)
    }

    /// Hands `part` to the output (after what the buffer holds).
    private mutating func emit(_ part: UnsafeRawBufferPointer) {
        guard let output, part.count > 0 else { return }
        written += part.count
        sift_checksum_update(&checksum, part.baseAddress, part.count)
        if failure == nil { failure = output(part) }
    }

    /// Streams the buffer once it is full (nothing without an output).
    private mutating func flushIfFull(adding extra: Int = 0) {
        guard output != nil, bytes.count + extra >= Self.flushSize else { return }
        var buffered: [UInt8] = []
        swap(&buffered, &bytes)
        buffered.withUnsafeBytes { emit($0) }
        buffered.removeAll(keepingCapacity: true)
        swap(&buffered, &bytes)
    }

    /// A streamed payload's length and checksum, once everything is written (the rest of the
    /// buffer is handed on first).
    mutating func finish() -> (length: Int, checksum: UInt64) {
        let buffered = bytes
        bytes = []
        buffered.withUnsafeBytes { emit($0) }
        return (written, sift_checksum_end(&checksum))
    }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ value: Bool) { write(UInt8(value ? 1 : 0)) }

    mutating func write(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            write(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func write(_ value: String?) {
        write(value != nil)
        if let value { write(value) }
    }

    /// A string list: count, then every length, then all UTF-8 bytes (fast to read back).
    /// Streamed as it goes, never gathered (a million field names).
    mutating func write(_ strings: [String]) {
        write(UInt64(strings.count))
        var blobLength = 0
        for string in strings {
            write(UInt32(string.utf8.count))
            blobLength += string.utf8.count
            flushIfFull()
        }
        write(UInt64(blobLength))
        for string in strings {
            var string = string
            string.withUTF8 { bytes.append(contentsOf: $0) }
            flushIfFull()
        }
    }

    /// An array of integers: count, then the raw little-endian elements.
    mutating func write<T: FixedWidthInteger>(array: [T]) {
        write(UInt64(array.count))
        array.withUnsafeBufferPointer { buffer in
            // Snapshots are little-endian; so are the machines Sift runs on (checked at load).
            write(raw: UnsafeRawBufferPointer(buffer))
        }
    }

    /// Raw bytes: streamed without a copy when they are many.
    mutating func write(raw part: UnsafeRawBufferPointer) {
        flushIfFull(adding: part.count)
        if output != nil && part.count >= Self.flushSize {
            emit(part)
        } else {
            bytes.append(contentsOf: part)
        }
    }
}

/// Reads what `SnapshotWriter` wrote, from a file a window at a time (`SnapshotFileInput`),
/// checking every length against what is left, so that a damaged payload is reported and never
/// read out of bounds.
struct SnapshotReader {
    private let input: SnapshotFileInput

    /// Reads `input` on from where it is.
    init(_ input: SnapshotFileInput) {
        self.input = input
    }

    var isAtEnd: Bool { input.remaining == 0 }

    /// Whether the unread bytes start with `tag` (nothing is read).
    func startsWith(_ tag: [UInt8]) throws(SnapshotFormatError) -> Bool {
        try input.peek(tag.count)?.elementsEqual(tag) ?? false
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type, _ what: String) throws(SnapshotFormatError) -> T {
        var value = T.zero
        try withUnsafeMutableBytes(of: &value) { target throws(SnapshotFormatError) in
            try input.read(into: target, what)
        }
        return T(littleEndian: value)
    }

    mutating func readBool(_ what: String) throws(SnapshotFormatError) -> Bool {
        let value = try read(UInt8.self, what)
        guard value <= 1 else { throw .init(what) }
        return value == 1
    }

    mutating func readString(_ what: String) throws(SnapshotFormatError) -> String {
        let length = Int(try read(UInt32.self, what))
        guard length <= input.remaining else { throw .init("\(what) runs past the end") }
        var bytes = [UInt8](repeating: 0, count: length)
        try bytes.withUnsafeMutableBytes { target in
            Result { () throws(SnapshotFormatError) in try input.read(into: target, what) }
        }.get()
        guard let string = String(validating: bytes, as: UTF8.self) else { throw .init("\(what) is not UTF-8") }
        return string
    }

    mutating func readOptionalString(_ what: String) throws(SnapshotFormatError) -> String? {
        try readBool(what) ? try readString(what) : nil
    }

    mutating func readStrings(_ what: String) throws(SnapshotFormatError) -> [String] {
        let lengths = try readArray(UInt32.self, what)
        let blob = try readArray(UInt8.self, what)
        var strings: [String] = []
        strings.reserveCapacity(lengths.count)
        var offset = 0
        var failure: SnapshotFormatError? = nil
        blob.withUnsafeBytes { raw in
            for length in lengths {
                let end = offset + Int(UInt32(littleEndian: length))
                guard end <= raw.count else {
                    failure = .init("\(what) lengths")
                    return
                }
                guard let string = String(validating: raw[offset..<end], as: UTF8.self) else {
                    failure = .init("\(what) is not UTF-8")
                    return
                }
                strings.append(string)
                offset = end
            }
        }
        if let failure { throw failure }
        guard offset == blob.count else { throw .init("\(what) lengths") }
        return strings
    }

    /// An array: its count (a `UInt64`), then its elements, read straight into its storage.
    mutating func readArray<T: FixedWidthInteger>(_: T.Type, _ what: String) throws(SnapshotFormatError) -> [T] {
        let count = try read(UInt64.self, what)
        let size = UInt64(MemoryLayout<T>.size)
        guard count <= UInt64(input.remaining) / size else { throw .init("\(what) runs past the end") }
        // Never through `unsafeUninitializedCapacity` with 0: that writes into the shared empty
        // array storage, a data race when several threads do it (ThreadSanitizer reports it).
        guard count > 0 else { return [] }
        var failure: SnapshotFormatError? = nil
        let array = [T](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
            do throws(SnapshotFormatError) {
                try input.read(into: UnsafeMutableRawBufferPointer(buffer), what)
                initialized = Int(count)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return array
    }
}
