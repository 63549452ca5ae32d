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

internal import SiftStorage

struct CodeBook {
    /// Open addressing, linear probing: an element (0 marks an empty bucket; processed elements
    /// are never 0) beside its code, so that a lookup touches one cache line. Folding looks up
    /// every element of every field, so this avoids `Dictionary`'s per-lookup hashing cost.
    private var buckets = [Bucket](repeating: Bucket(), count: 1024)
    private(set) var count = 0

    /// One bucket of the table.
    struct Bucket {
        var key: Int64 = 0
        var code: UInt32 = 0
    }

    @inline(__always)  // a multiply and a shift, per element folded
    private func bucket(_ key: Int64) -> Int { Self.bucket(key, shift: 64 - buckets.count.trailingZeroBitCount) }

    /// The home bucket of a key: the top bits of a multiplicative hash (they depend on every
    /// bit of the key; processed elements differ mostly in their high bits, the primary weight).
    @inline(__always)  // a multiply and a shift, per element folded
    fileprivate static func bucket(_ key: Int64, shift: Int) -> Int {
        let product = UInt64(bitPattern: key ^ (key >> 32)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: product >> UInt64(truncatingIfNeeded: shift))
    }

    /// The code of an element, assigning the next one if it is new.
    ///
    /// - Complexity: O(1) amortized.
    mutating func code(for element: Int64) -> UInt32 {
        var i = bucket(element)
        while true {
            let key = buckets[i].key
            if key == element { return buckets[i].code }
            if key == 0 { break }
            i = (i + 1) & (buckets.count - 1)
        }
        count += 1
        let code = UInt32(count)
        buckets[i] = Bucket(key: element, code: code)
        if count * 2 > buckets.count { grow() }
        return code
    }

    /// Forgets the elements given codes after the first `count` (an edit that failed midway
    /// takes back the codes it gave).
    ///
    /// - Complexity: O(*c*) for *c* codes.
    mutating func removeCodes(after count: Int) {
        guard count < self.count else { return }
        var book = CodeBook()
        for element in elementsInCodeOrder.prefix(count) { _ = book.code(for: element) }
        self = book
    }

    private mutating func grow() {
        let old = buckets
        buckets = [Bucket](repeating: Bucket(), count: old.count * 2)
        for entry in old where entry.key != 0 {
            var i = bucket(entry.key)
            while buckets[i].key != 0 { i = (i + 1) & (buckets.count - 1) }
            buckets[i] = entry
        }
    }

    /// Every element seen, in code order (`elementsInCodeOrder[code - 1]`), for snapshots.
    var elementsInCodeOrder: [Int64] {
        var result = [Int64](repeating: 0, count: count)
        for entry in buckets where entry.key != 0 { result[Int(entry.code) - 1] = entry.key }
        return result
    }

    init() {}

    /// A code book giving `elements[i]` the code `i + 1`.
    init(elementsInCodeOrder elements: [Int64]) throws(SnapshotFormatError) {
        for element in elements {
            guard element != 0, existingCode(for: element) == nil else { throw .init("code book") }
            _ = code(for: element)
        }
    }

    /// The code of an element if it has been seen; nil means no folded text contains it.
    func existingCode(for element: Int64) -> UInt32? {
        var i = bucket(element)
        while buckets[i].key != 0 {
            if buckets[i].key == element { return buckets[i].code }
            i = (i + 1) & (buckets.count - 1)
        }
        return nil
    }

    /// Calls `body` with a read-only view of the code book, which several threads may use at once
    /// (bulk inserts encode on all cores) while nothing changes the code book.
    ///
    /// - Complexity: O(1).
    func withView<R>(_ body: (CodeBookView) -> R) -> R {
        buckets.withUnsafeBufferPointer { buckets in body(CodeBookView(buckets: buckets)) }
    }

    /// Number of bytes `code` takes (see `append(_:to:)`).
    @inline(__always)  // comparisons only, per element encoded
    static func length(of code: UInt32) -> Int {
        code < 0x80 ? 1 : code < 0x880 ? 2 : code < 0x10880 ? 3 : 4
    }

    /// Writes the bytes of `code` at `bytes`, as `append(_:to:)` does; returns how many.
    @inline(__always)  // a few shifts, per element encoded
    static func write(_ code: UInt32, to bytes: UnsafeMutablePointer<UInt8>) -> Int {
        if code < 0x80 {
            bytes[0] = UInt8(truncatingIfNeeded: code)
            return 1
        } else if code < 0x880 {
            let k = code &- 0x80
            bytes[0] = 0xC0 | UInt8(truncatingIfNeeded: k >> 6)
            bytes[1] = 0x80 | UInt8(truncatingIfNeeded: k & 0x3F)
            return 2
        } else if code < 0x10880 {
            let k = code &- 0x880
            bytes[0] = 0xE0 | UInt8(truncatingIfNeeded: k >> 12)
            bytes[1] = 0x80 | UInt8(truncatingIfNeeded: (k >> 6) & 0x3F)
            bytes[2] = 0x80 | UInt8(truncatingIfNeeded: k & 0x3F)
            return 3
        } else {
            let k = code &- 0x10880
            bytes[0] = 0xF0 | UInt8(truncatingIfNeeded: (k >> 18) & 0x07)
            bytes[1] = 0x80 | UInt8(truncatingIfNeeded: (k >> 12) & 0x3F)
            bytes[2] = 0x80 | UInt8(truncatingIfNeeded: (k >> 6) & 0x3F)
            bytes[3] = 0x80 | UInt8(truncatingIfNeeded: k & 0x3F)
            return 4
        }
    }

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
            guard let code = existingCode(for: element) else { return nil }
            Self.append(code, to: &bytes)
        }
        return bytes
    }

    /// The codes of a typo-tolerant pattern's elements, an element the book has never seen taking
    /// the code after the last one. No record holds that code now; a record edited later may
    /// (when a new element gets it), and only such a record, which cached results re-check
    /// anyway, so results computed with it stay exact. In an edit distance a query element is only
    /// ever compared with record elements, so all unseen elements may share the one code.
    ///
    /// - Complexity: O(*n*) expected for *n* elements.
    func encodeForTypos(_ elements: [Int64]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.count)
        for element in elements { Self.append(existingCode(for: element) ?? UInt32(count + 1), to: &bytes) }
        return bytes
    }
}

/// A read-only view of a `CodeBook`'s table, valid inside `CodeBook.withView`.
struct CodeBookView {
    let buckets: UnsafeBufferPointer<CodeBook.Bucket>

    /// The code of an element, or 0 when the code book does not have it.
    ///
    /// - Complexity: O(1) expected.
    @inline(__always)  // a probe per element encoded
    func code(for element: Int64) -> UInt32 {
        let mask = buckets.count - 1
        var i = CodeBook.bucket(element, shift: 64 - buckets.count.trailingZeroBitCount)
        while true {
            let bucket = buckets[i]
            if bucket.key == element { return bucket.code }
            if bucket.key == 0 { return 0 }
            i = (i + 1) & mask
        }
    }
}
