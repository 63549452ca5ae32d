import Testing

@testable import Sift

/// Long texts are folded in pieces (`ICUFolder.pieceLength`) so that the shim's buffers stay
/// bounded; the result must be exactly that of one fold of the whole text.
@Suite("Folding long texts in pieces")
struct PieceFoldingTests {
    /// Multilingual texts with spaces, combining marks, contractions, expansions, ignorables,
    /// dictionary-segmented scripts and texts with no space at all.
    static let texts: [String] = [
        "Aarhus aa Aalborg haar, Åse gaar ud; chico chata Chrudim ch ach! México",
        "Straße STRASSE Weiß ß æ œ ﬁnance Ǆemal e\u{301}clair e\u{301} \u{301}a x\u{308} y",
        "東京都 こんにちは世界 日本語の文章 カタカナ ひらがな 漢字 東京 京都",
        "กรุงเทพมหานคร ภาษาไทย สวัสดีครับ ขอบคุณ ไทย ลาว",
        "Rock'n'Roll - rock n roll ... a.b, c;d (e) [f] \u{AD}soft\u{AD} zero\u{200B}width \u{200D}joiner x",
        "Ελληνικά Москва İzmir ıslak Łódź ملعب שלום 👍🏽 👨‍👩‍👧 🇩🇪🇫🇷 ٠١٢ 12.5 3,000",
        "nospaceatallbutquitealongtextthatcannotbecutanywhereatall",
        "a  b   c    d \t e \n f\r\ng  ",
        " leading space and trailing ",
        "\u{600} prepended \u{600}x mark",
        String(repeating: "aa ch Straße é東京 ", count: 40),
    ]

    static let collations: [Collation] = [
        Collation(locale: "root"),
        Collation(locale: "da"),
        Collation(locale: "es@collation=traditional"),
        Collation(locale: "cs"),
        Collation(locale: "de", strength: .secondary),
        Collation(locale: "sv", strength: .tertiary),
        Collation(locale: "root", alternate: .shifted),
        Collation(locale: "cs", alternate: .shifted),
        Collation(locale: "da", strength: .tertiary, alternate: .shifted),
        Collation(locale: "root", strength: .quaternary, alternate: .shifted),
        Collation(locale: "ja"),
        Collation(locale: "th"),
        Collation(locale: "root", rules: "&z < 'a b'"),
    ]

    static func fold(_ text: String, _ folder: ICUFolder, pieceLength: Int) throws -> FoldedBatch {
        folder.pieceLength = pieceLength
        var batch = FoldedBatch()
        try folder.fold(text, into: &batch)
        try folder.fold("after", into: &batch)
        folder.pieceLength = ICUFolder.defaultPieceLength
        return batch
    }

    @Test("pieces give exactly the elements, flags, offsets and limits of one fold", arguments: collations)
    func foldedEqually(_ collation: Collation) throws {
        let folder = try ICUFolder(ICUCollator(collation))
        let all = Self.texts + [Self.texts.joined(separator: " ")]
        for text in all {
            let whole = try Self.fold(text, folder, pieceLength: Int.max)
            let wholeText = try folder.fold(text)
            for pieceLength in [1, 2, 3, 5, 8, 13, 40] {
                let pieces = try Self.fold(text, folder, pieceLength: pieceLength)
                let context = Comment(rawValue: "\(collation) piece \(pieceLength): \(text.debugDescription)")
                #expect(pieces.elements == whole.elements, context)
                #expect(pieces.flags == whole.flags, context)
                #expect(pieces.ends == whole.ends, context)
                folder.pieceLength = pieceLength
                let offsets = try folder.offsets(of: text)
                folder.pieceLength = ICUFolder.defaultPieceLength
                #expect(offsets.lows == wholeText.lows, context)
                #expect(offsets.limits == wholeText.limits, context)
                #expect(offsets.lows.count == whole.ends[0], context)
            }
        }
    }

    @Test("folding a long text keeps the shim's buffers bounded by the piece")
    func buffersBounded() throws {
        let words = ["Straße", "København", "chico", "東京都", "ภาษาไทย", "e\u{301}cole", "Москва", "hello"]
        var text = ""
        var i = 0
        while text.utf8.count < 4 << 20 {
            text += words[i % words.count] + " "
            i += 1
        }
        let folder = try ICUFolder(ICUCollator(Collation(locale: "da")))
        var batch = FoldedBatch()
        try folder.fold(text, into: &batch)
        let (lows, _) = try folder.offsets(of: text)
        #expect(lows.count == batch.elements.count)
        // One fold of the whole text needed room for every element (over two million here).
        #expect(batch.elements.count > 2_000_000)
        #expect(folder.elementCapacityForTesting < 2 * ICUFolder.defaultPieceLength)
    }

    @Test("a collator with a contraction holding a space is never cut")
    func spaceContraction() throws {
        let folder = try ICUFolder(ICUCollator(Collation(locale: "root", rules: "&z < 'a b'")))
        #expect(folder.spaceSplitsForTesting == false)
        let plain = try ICUFolder(ICUCollator(Collation(locale: "da")))
        #expect(plain.spaceSplitsForTesting == true)
    }

    @Test("an index of long texts folded in pieces answers as one folded whole", arguments: collations)
    func indexAnswersEqually(_ collation: Collation) throws {
        let records = (Self.texts + [Self.texts.joined(separator: " ")]).enumerated().map {
            Record(id: String($0.offset), fields: ["text": $0.element])
        }
        let configuration = IndexConfiguration(searchFields: ["text"], collation: collation)
        let whole = try SearchIndex(configuration: configuration, records: [])
        whole.foldings[0].folder.pieceLength = Int.max
        try whole.insert(contentsOf: records)
        let pieces = try SearchIndex(configuration: configuration, records: [])
        pieces.foldings[0].folder.pieceLength = 4
        try pieces.insert(contentsOf: records)
        // The pieces' index folds highlights in pieces too (`ICUFolder.offsets(of:)`).
        #expect(pieces.foldings[0].columns[0].codes == whole.foldings[0].columns[0].codes)
        #expect(pieces.foldings[0].columns[0].flags == whole.foldings[0].columns[0].flags)
        #expect(pieces.foldings[0].columns[0].wordStarts == whole.foldings[0].columns[0].wordStarts)
        let queries = ["aa", "a", "ch", "c", "strasse", "ß", "e", "東京", "京", "ไทย", "rock n", "b", "a b", "x", "12"]
        for text in queries {
            for mode in [MatchMode.contains, .prefix, .words] {
                let query = Query(text, mode: mode)
                let expected = try whole.ids(whole.search(query))
                #expect(try pieces.ids(pieces.search(query)) == expected, "\(collation) \(mode) \(text)")
                for handle in try whole.search(query).rows {
                    let id = try whole.id(of: handle)
                    guard let other = pieces.handles().first(where: { (try? pieces.id(of: $0)) == id }) else {
                        Issue.record("missing \(id)")
                        continue
                    }
                    #expect(
                        try pieces.highlights(of: other, for: query) == whole.highlights(of: handle, for: query),
                        "\(collation) \(mode) \(text) \(id)"
                    )
                }
            }
        }
    }
}
