// The Collation/ICU*.swift files are the only Swift files that call the C shim. Raw pointers and
// int32 statuses stay in them.

internal import CSiftICU

public var icuVersion: String { String(cString: sift_icu_version()) }

func statusName(_ status: Int32) -> String { String(cString: sift_status_name(status)) }

/// The processed collation elements of one text, with what matching and highlighting need.
package struct FoldedText {
    /// Processed collation elements, exactly those ICU usearch compares.
    package var elements: [Int64] = []
    /// UTF-16 index where each element starts.
    package var lows: [Int32] = []
    /// UTF-16 limit of a match that ends with this element (meaningful when `endOK`).
    package var limits: [Int32] = []
    /// `FoldFlags` per element.
    package var flags: [UInt8] = []
    /// UTF-16 length of the text.
    package var utf16Length: Int32 = 0
}

/// Per-element flags, the same bits as the shim's `SIFT_CE_*`.
package enum FoldFlags {
    package static let startOK: UInt8 = 1 << 0
    package static let endOK: UInt8 = 1 << 1
    package static let wordStart: UInt8 = 1 << 2
}
