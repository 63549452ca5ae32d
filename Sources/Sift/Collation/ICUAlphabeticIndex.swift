internal import CSiftICU

/// ICU's AlphabeticIndex for a locale: section labels and the section of a name. Spaces and
/// punctuation before the first letter do not count: `'s-Hertogenbosch` is in section S.
///
/// `@unchecked Sendable`: the shim holds an `AlphabeticIndex::ImmutableIndex`, ICU's thread-safe
/// form of the index, and the labels are read once in `init`; `ICUObjectCache` shares one per
/// locale among indexes and threads.
final class ICUAlphabeticIndex: @unchecked Sendable {
    private let handle: OpaquePointer
    let labels: [String]
    /// 0 normal, 1 underflow, 2 inflow, 3 overflow.
    let kinds: [Int32]

    init(locale: String) throws(SiftError) {
        var status: Int32 = 0
        guard let opened = sift_alphabetic_index_open(locale, &status), status <= 0 else {
            throw .icu(operation: "open an alphabetic index", locale: locale, status: statusName(status))
        }
        handle = opened
        let count = sift_alphabetic_index_bucket_count(opened)
        var labels: [String] = []
        var kinds: [Int32] = []
        for bucket in 0..<count {
            var buffer = [CChar](repeating: 0, count: 64)
            var length = sift_alphabetic_index_bucket_label(opened, bucket, &buffer, Int32(buffer.count))
            if length > Int32(buffer.count) {
                buffer = [CChar](repeating: 0, count: Int(length))
                length = sift_alphabetic_index_bucket_label(opened, bucket, &buffer, Int32(buffer.count))
            }
            labels.append(String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            kinds.append(sift_alphabetic_index_bucket_kind(opened, bucket))
        }
        self.labels = labels
        self.kinds = kinds
    }

    deinit { sift_alphabetic_index_close(handle) }

    /// The bucket of a name given as UTF-8.
    ///
    /// - Complexity: O(log *b*) collator comparisons, where *b* is the number of buckets.
    func bucket(utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var status: Int32 = 0
        let bucket = utf8.withMemoryRebound(to: CChar.self) {
            sift_alphabetic_index_bucket_of(handle, $0.baseAddress, Int32($0.count), &status)
        }
        return bucket < 0 ? 0 : Int(bucket)
    }

    /// The bucket of a name.
    ///
    /// - Complexity: O(log *b*) collator comparisons, where *b* is the number of buckets.
    func bucket(of name: String) -> Int {
        var name = name
        var status: Int32 = 0
        let bucket = name.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                sift_alphabetic_index_bucket_of(handle, $0.baseAddress, Int32($0.count), &status)
            }
        }
        return bucket < 0 ? 0 : Int(bucket)
    }
}
