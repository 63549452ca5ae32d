/// Byte constants used by the scanners.
enum ASCII {
    static let lf = UInt8(ascii: "\n")
    static let cr = UInt8(ascii: "\r")
    static let tab = UInt8(ascii: "\t")
    static let space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
}

/// The length of the well-formed UTF-8 sequence starting at `bytes[index]`, or `nil` if the bytes
/// there are not well-formed UTF-8 (stray continuation byte, overlong form, surrogate, value above
/// U+10FFFF, or a sequence cut short by `end`). Follows Table 3-7 of the Unicode Standard.
@inline(__always)
func utf8SequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, end: Int) -> Int? {
    let lead = bytes[index]
    if lead < 0x80 { return 1 }
    @inline(__always) func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
        let j = index + offset
        return j < end && bytes[j] >= low && bytes[j] <= high
    }
    switch lead {
    case 0xC2...0xDF:
        return continuation(1) ? 2 : nil
    case 0xE0:
        return continuation(1, 0xA0) && continuation(2) ? 3 : nil
    case 0xE1...0xEC, 0xEE, 0xEF:
        return continuation(1) && continuation(2) ? 3 : nil
    case 0xED:
        return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : nil
    case 0xF0:
        return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : nil
    case 0xF1...0xF3:
        return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
    case 0xF4:
        return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : nil
    default:
        return nil
    }
}

/// The index of the first byte in `range` that does not start a well-formed UTF-8 sequence,
/// or `nil` if the whole range is valid UTF-8.
func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Int? {
    var i = range.lowerBound
    let end = range.upperBound
    while i < end {
        if bytes[i] < 0x80 {
            i += 1
        } else if let length = utf8SequenceLength(bytes, at: i, end: end) {
            i += length
        } else {
            return i
        }
    }
    return nil
}

/// The number of bytes of the UTF-8 byte order mark at the start of `bytes` (3 or 0).
func byteOrderMarkLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
}

/// `bytes[range]` as a `String`; invalid UTF-8 (if any) is repaired with U+FFFD.
func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
}
