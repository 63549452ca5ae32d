/// Maps processed collation elements (64-bit) to compact byte codes.
///
/// Each distinct element gets a number in order of first appearance; the number is written as a
/// self-synchronizing byte sequence (UTF-8's shape: lead bytes and continuation bytes never
/// overlap), so a byte-level substring match of an encoded pattern is exactly an element-level
/// match and `memchr`/`memmem` can scan folded text. The byte 0 never occurs in a code; it
/// separates records in a column.
///
/// Latin, Greek and Cyrillic text mostly gets one-byte codes (the first 127 elements seen), so a
/// folded field is about as long as its UTF-8 text.
struct CodeBook {
    private var codes: [Int64: UInt32] = [:]

    /// Number of distinct elements seen.
    var count: Int { codes.count }

    /// The code of an element, assigning the next one if it is new.
    ///
    /// - Complexity: O(1) amortized.
    mutating func code(for element: Int64) -> UInt32 {
        if let code = codes[element] { return code }
        let code = UInt32(codes.count + 1)
        codes[element] = code
        return code
    }

    /// The code of an element if it has been seen; nil means no folded text contains it.
    func existingCode(for element: Int64) -> UInt32? { codes[element] }

    /// Appends the bytes of `code` to `bytes`; returns how many were written.
    @discardableResult
    static func append(_ code: UInt32, to bytes: inout [UInt8]) -> Int {
        switch code {
        case 1...0x7F:
            bytes.append(UInt8(code))
            return 1
        case 0x80..<(0x80 + 0x800):
            let k = code - 0x80
            bytes.append(0xC0 | UInt8(k >> 6))
            bytes.append(0x80 | UInt8(k & 0x3F))
            return 2
        case (0x80 + 0x800)..<(0x880 + 0x10000):
            let k = code - 0x880
            bytes.append(0xE0 | UInt8(k >> 12))
            bytes.append(0x80 | UInt8((k >> 6) & 0x3F))
            bytes.append(0x80 | UInt8(k & 0x3F))
            return 3
        default:
            let k = code - 0x10880
            bytes.append(0xF0 | UInt8((k >> 18) & 0x07))
            bytes.append(0x80 | UInt8((k >> 12) & 0x3F))
            bytes.append(0x80 | UInt8((k >> 6) & 0x3F))
            bytes.append(0x80 | UInt8(k & 0x3F))
            return 4
        }
    }

    /// Whether a byte starts a code (it is not a continuation byte).
    @inline(__always)  // one comparison, called per byte when counting elements
    static func isLead(_ byte: UInt8) -> Bool { byte & 0xC0 != 0x80 }

    /// The encoded pattern, or nil when some element never occurs in any folded text (then
    /// nothing can match).
    func encode(_ elements: [Int64]) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.count)
        for element in elements {
            guard let code = codes[element] else { return nil }
            Self.append(code, to: &bytes)
        }
        return bytes
    }
}
