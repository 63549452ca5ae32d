/// Two-bit flag entries, four to a byte (entry *k* in bits 2(*k* mod 4) of byte *k* / 4): the
/// start and end bits of `FoldFlags`, as the kernels read them.
enum PackedFlags {
    /// Entry `k` of packed flags.
    @inline(__always)  // a load and a shift
    static func entry(_ bytes: [UInt8], _ k: Int) -> UInt8 { (bytes[k >> 2] >> UInt8((k & 3) << 1)) & 3 }

    /// Appends the flag entries of one segment, starting on a byte: the start and end bits of
    /// each element at its lead byte in `codes` (the segment without its separator), 0 at the
    /// other bytes and one 0 entry for the separator.
    ///
    /// - Complexity: O(*n*) in the segment's length.
    static func appendSegment(
        codes: ArraySlice<UInt8>,
        elementFlags: UnsafeBufferPointer<UInt8>,
        to bytes: inout [UInt8]
    ) {
        let boundaryFlags = FoldFlags.startOK | FoldFlags.endOK
        var pending: UInt8 = 0
        var entry = 0
        var element = 0
        func append(_ value: UInt8) {
            pending |= value << UInt8((entry & 3) << 1)
            entry += 1
            if entry & 3 == 0 {
                bytes.append(pending)
                pending = 0
            }
        }
        for byte in codes {
            if CodeBook.isLead(byte) {
                append(elementFlags[element] & boundaryFlags)
                element += 1
            } else {
                append(0)
            }
        }
        append(0)
        if entry & 3 != 0 { bytes.append(pending) }
    }
}
