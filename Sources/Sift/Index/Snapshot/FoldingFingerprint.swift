internal import CSiftKernels

/// What a folding's folded data was made with, saved beside that data in a snapshot and compared
/// with the collator the stored settings open when it loads, so that settings edited after the
/// fact (a strength, an alternate, a locale, rules) are refused instead of searching data folded
/// another way.
///
/// The text is `key=value` pairs separated by `;`: the collator's identity (its version, valid
/// locale, every ICU attribute, reorder codes and a hash of its tailoring rules, see
/// `ICUCollator.identity`), then `probe=`, a hash of the elements and flags Sift folds from a fixed
/// text that exercises case, accents, punctuation, spaces, contractions, expansions and several
/// scripts. Equal fingerprints mean the same collator and the same folding code: what the folded
/// columns hold is what this Sift would fold.
struct FoldingFingerprint: Equatable {
    var text: String

    /// The fixed text whose folding is hashed: letters with case and accents, contractions and
    /// expansions of common tailorings, spaces, punctuation and symbols (which `alternate`
    /// decides), digits, and words of scripts segmented with a dictionary.
    static let probe =
        "Aa Ää Åå Ææ Øø aa ch CH ll ñ č ř ß ẞ ﬁ Ǆǅ ı İ ŉ e\u{301} Ω ω Жж ب ก ण 漢字 かなカナ 한글 "
        + "0 1 9 10 ١٢ ½ ' ’ - – — . , ; : ! ? @ # % & * + = / \\ | ~ ^ _ ` < > ( ) [ ] { } 👍🏽\t\n"
        + "Rock'n'Roll naïve résumé Straße ภาษาไทย 東京タワー"

    init(text: String) { self.text = text }

    /// The fingerprint of a folding as it is now: its collator's identity and its probe folding.
    init(of folding: Folding) throws(SiftError) {
        let folded = try folding.folder.fold(Self.probe)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(9 * folded.elements.count)
        for (element, flags) in zip(folded.elements, folded.flags) {
            withUnsafeBytes(of: element.littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(flags)
        }
        let hash = bytes.withUnsafeBytes { sift_checksum($0.baseAddress!, $0.count, 0x5052_4F42_4546_4F4C) }
        let hex = String(hash, radix: 16)
        text = folding.folder.collator.identity + ";probe=" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// What differs, for an error message: the pairs with other values (`strength tertiary in the
    /// data, primary by the stored settings`), or the probe's folding when nothing else does.
    func differences(from stored: FoldingFingerprint) -> String {
        let current = Self.pairs(text)
        let old = Self.pairs(stored.text)
        var keys = old.map(\.key)
        for (key, _) in current where !keys.contains(key) { keys.append(key) }
        let mine = Dictionary(current, uniquingKeysWith: { a, _ in a })
        let theirs = Dictionary(old, uniquingKeysWith: { a, _ in a })
        let differing = keys.compactMap { key in
            let a = theirs[key] ?? "none"
            let b = mine[key] ?? "none"
            return a == b || key == "probe" ? nil : "\(key) \(a) in the data, \(b) by the stored settings"
        }
        return differing.isEmpty ? "the folding of a probe text differs" : differing.joined(separator: ", ")
    }

    private static func pairs(_ text: String) -> [(key: String, value: String)] {
        text.split(separator: ";").map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return (String(pair), "") }
            return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
        }
    }
}
