/// Writes JSON text into a byte buffer: the server's answers, written straight from the index's
/// values without an intermediate dictionary (a page of 50 rows is most of a keystroke's answer).
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next value in the current object or array needs a comma before it.
    private var needsComma = false

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Structure

    mutating func object(_ body: (inout JSONWriter) throws -> Void) rethrows {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        try body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func array(_ body: (inout JSONWriter) throws -> Void) rethrows {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        try body(&self)
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A key of the current object; the next call writes its value.
    mutating func key(_ key: String) {
        separate()
        quoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Values

    mutating func string(_ value: String) {
        separate()
        quoted(value)
        needsComma = true
    }

    mutating func int<T: BinaryInteger>(_ value: T) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// A number with at most three decimals (milliseconds to the microsecond).
    mutating func milliseconds(_ value: Double) {
        separate()
        let rounded = (value * 1000).rounded() / 1000
        bytes.append(contentsOf: (rounded.isFinite ? String(rounded) : "0").utf8)
        needsComma = true
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    // Shorthands for `key(_:)` then a value.
    mutating func field(_ name: String, _ value: String) {
        key(name)
        string(value)
    }
    mutating func field<T: BinaryInteger>(_ name: String, _ value: T) {
        key(name)
        int(value)
    }
    mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }
    mutating func field(_ name: String, optional value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }
    mutating func field<T: BinaryInteger>(_ name: String, optional value: T?) {
        key(name)
        if let value { int(value) } else { null() }
    }

    /// Half-open UTF-16 ranges as `[[start, end], …]`.
    mutating func ranges(_ ranges: [Range<Int>]) {
        array { json in
            for range in ranges {
                json.array { pair in
                    pair.int(range.lowerBound)
                    pair.int(range.upperBound)
                }
            }
        }
    }

    // MARK: Escaping

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func quoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 15)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
