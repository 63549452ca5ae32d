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
            for (n, pieceLength) in [1, 2, 3, 5, 8, 13, 40].enumerated() {
                // Stretches without a cut over four pieces fold streamed, in chunks of this many
                // elements, converting sub-chunks of about this many bytes.
                folder.streamedChunk = Int32([1, 2, 3, 7, 64, 1 << 16][n % 6])
                folder.streamedSubChunkBytes = [1, 3, 2, 16, 5, 1 << 18, 7][n]
                let pieces = try Self.fold(text, folder, pieceLength: pieceLength)
                let context = Comment(
                    rawValue:
                        "\(collation) piece \(pieceLength) chunk \(folder.streamedChunk): \(text.debugDescription)"
                )
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
        #expect(folder.streamedStretches > 0)
    }

    /// Texts with no space for a long way, or under a collator that forbids cuts at spaces, fold
    /// streamed (issue 14, item 7): the shim holds a sub-chunk of their UTF-16 (cut where no
    /// contraction, prefix rule or reordering spans the cut) and a chunk of elements, and the
    /// result is that of one fold, word starts included, in every collation and chunk size.
    @Test("long stretches without a cut fold streamed, exactly as one fold", arguments: collations)
    func stretchesFoldStreamed(_ collation: Collation) throws {
        let folder = try ICUFolder(ICUCollator(collation))
        let words = Self.texts.joined(separator: " ").split(separator: " ")
        let noSpaces = [
            words.joined(),
            words.joined(separator: "-"),
            String(repeating: "aachStraßeé東京กรุงเทพ", count: 30),
            "x" + String(repeating: "\u{301}", count: 50) + "y",
            // ICU's word breaks over UTF-8 find a boundary at "ទ" that they do not over UTF-16.
            "HonqHercogystėកោះ\u{200B}ទួកKaasakestaanပြင်သစ်",
            // Contractions, prefix rules, reordering marks, Hangul and clusters at every offset.
            String(
                repeating: "chchaaAallLLカーテンコールゝゞ한국어문장각เกเขแคe\u{301}\u{323}ạ\u{302}👨‍👩‍👧🇩🇪\r\n",
                count: 3
            ),
            words.prefix(20).joined() + " " + words.suffix(20).joined() + "   " + words.prefix(5).joined(),
        ]
        for text in noSpaces {
            let whole = try Self.fold(text, folder, pieceLength: Int.max)
            let wholeText = try folder.fold(text)
            for (chunk, subChunk) in [(1, 1), (2, 4), (5, 2), (33, 9), (1 << 16, 3), (1 << 16, 1 << 18)] {
                folder.streamedChunk = Int32(chunk)
                folder.streamedSubChunkBytes = subChunk
                let before = folder.streamedStretches
                let streamed = try Self.fold(text, folder, pieceLength: 8)
                #expect(folder.streamedStretches > before)
                let context = Comment(
                    rawValue: "\(collation) chunk \(chunk) sub-chunk \(subChunk): \(text.debugDescription)"
                )
                #expect(streamed.elements == whole.elements, context)
                #expect(streamed.flags == whole.flags, context)
                #expect(streamed.ends == whole.ends, context)
                folder.pieceLength = 8
                let offsets = try folder.offsets(of: text)
                folder.pieceLength = ICUFolder.defaultPieceLength
                #expect(offsets.lows == wholeText.lows, context)
                #expect(offsets.limits == wholeText.limits, context)
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
        whole.folded.foldings[0].folder.pieceLength = Int.max
        try whole.insert(contentsOf: records)
        let pieces = try SearchIndex(configuration: configuration, records: [])
        pieces.folded.foldings[0].folder.pieceLength = 4
        try pieces.insert(contentsOf: records)
        // The pieces' index folds highlights in pieces too (`ICUFolder.offsets(of:)`).
        #expect(pieces.folded.foldings[0].columns[0].codes == whole.folded.foldings[0].columns[0].codes)
        #expect(pieces.folded.foldings[0].columns[0].flags == whole.folded.foldings[0].columns[0].flags)
        #expect(pieces.folded.foldings[0].columns[0].wordStarts == whole.folded.foldings[0].columns[0].wordStarts)
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

    /// A streamed text's bytes are written after the column's last segment before the slot's old
    /// segment is withdrawn: when that old segment was the last, only its own bytes are dead.
    /// (The invariant checks found this counted the new text's bytes dead too.)
    @Test("replacing the last segment with a streamed text counts only the old one dead")
    func replacingTheLastSegmentCountsOnlyItsBytesDead() throws {
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["text"]), records: [])
        index.folded.foldings[0].folder.pieceLength = 4
        try index.insert(contentsOf: (0..<3).map { Record(id: "\($0)", fields: ["text": "Straße \($0)"]) })
        let before = index.folded.foldings[0].columns[0]
        let lastSegmentBytes = before.codes.count - before.start(ofSegment: before.segmentCount - 1)
        #expect(before.deadBytes == 0)
        try index.update(Record(id: "2", fields: ["text": "København ist nicht Straße"]))
        #expect(index.folded.foldings[0].columns[0].deadBytes == lastSegmentBytes)
        try index.remove(id: "0")
        index.checkInvariants()
    }
}

/// A long text is folded straight into its column a piece at a time (issue 14 item 7): its
/// collation elements (8 bytes each) are never collected, snapshots are streamed to the file, and
/// highlights walk the offsets a piece at a time, with results byte for byte those of before.
@Suite("Long texts go straight to their columns")
struct StreamedFieldTests {
    static func longText(bytes: Int) -> String {
        let words = ["Straße", "København", "chico", "東京都", "ภาษาไทย", "e\u{301}cole", "Москва", "hello"]
        var text = ""
        var i = 0
        while text.utf8.count < bytes {
            text += words[i % words.count] + " "
            i += 1
        }
        return text
    }

    @Test("folding a record for the index keeps no element of its long text")
    func batchHoldsNoLongText() throws {
        let text = Self.longText(bytes: 2 << 20)
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "body"], collation: Collation(locale: "da")),
            records: []
        )
        var batch = FoldedBatch()
        let record = Record(id: "1", fields: ["name": "Huge", "body": text])
        try index.fold(record, folders: index.folded.foldings.map(\.folder), into: &batch)
        #expect(batch.ends.count == 2)
        #expect(batch.streamed == [1..<2])
        // "Huge" only: without streaming, the batch held every element of the text (over a million).
        #expect(batch.elements.count == 4)
        try index.insert(contentsOf: [record])
        let whole = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "body"], collation: Collation(locale: "da")),
            records: []
        )
        whole.folded.foldings[0].folder.pieceLength = Int.max
        try whole.insert(contentsOf: [record])
        for field in 0..<2 {
            #expect(index.folded.foldings[0].columns[field].codes == whole.folded.foldings[0].columns[field].codes)
            #expect(index.folded.foldings[0].columns[field].flags == whole.folded.foldings[0].columns[field].flags)
            #expect(
                index.folded.foldings[0].columns[field].wordStarts == whole.folded.foldings[0].columns[field].wordStarts
            )
        }
        #expect(
            index.folded.foldings[0].codeBook.elementsInCodeOrder
                == whole.folded.foldings[0].codeBook.elementsInCodeOrder
        )
    }

    @Test("a bulk insert streams its long texts and equals a fold of the whole")
    func bulkInsertStreamsLongTexts() throws {
        // 9,000 records (the bulk path), a few of them long: first, in the middle, last, and two
        // in a row; with 64-byte pieces a 300-byte text is long.
        let long: Set<Int> = [0, 4_000, 4_001, 8_999]
        let records = (0..<9_000).map { i in
            Record(
                id: String(i),
                fields: [
                    "name": "n\(i)", "body": long.contains(i) ? Self.longText(bytes: 300) + "\(i)" : "b \(i % 97)",
                ]
            )
        }
        let configuration = IndexConfiguration(searchFields: ["name", "body"], collation: Collation(locale: "da"))
        let index = try SearchIndex(configuration: configuration, records: [])
        index.folded.foldings[0].folder.pieceLength = 64
        try index.insert(contentsOf: records)
        #expect(index.folded.streamedTextCount == long.count, "each long text folded straight into its column")
        let whole = try SearchIndex(configuration: configuration, records: [])
        whole.folded.foldings[0].folder.pieceLength = Int.max
        try whole.insert(contentsOf: records)
        #expect(whole.folded.streamedTextCount == 0)
        #expect(try index.handles().map { try index.id(of: $0) } == records.map(\.id))
        for field in 0..<2 {
            #expect(index.folded.foldings[0].columns[field].codes == whole.folded.foldings[0].columns[field].codes)
            #expect(index.folded.foldings[0].columns[field].flags == whole.folded.foldings[0].columns[field].flags)
            #expect(
                index.folded.foldings[0].columns[field].wordStarts == whole.folded.foldings[0].columns[field].wordStarts
            )
        }
        #expect(
            index.folded.foldings[0].codeBook.elementsInCodeOrder
                == whole.folded.foldings[0].codeBook.elementsInCodeOrder
        )
        for query in ["københavn 4000", "straße", "b 5", "8999"] {
            #expect(try index.ids(index.search(Query(query))) == whole.ids(whole.search(Query(query))), "\(query)")
        }
        // A duplicate id after a long text: the records before it stay, as one by one.
        let more =
            [Record(id: "x", fields: ["body": Self.longText(bytes: 300)])]
            + (0..<8_200).map {
                Record(id: $0 == 5 ? "3" : "y\($0)", fields: ["body": "c"])
            }
        #expect(throws: SiftError.duplicateID("3")) { try index.insert(contentsOf: more) }
        #expect(index.count == 9_000 + 1 + 5)
    }

    @Test("updates and single inserts of long texts equal a fold of the whole", arguments: PieceFoldingTests.collations)
    func editsEqualWhole(_ collation: Collation) throws {
        let texts = PieceFoldingTests.texts
        let configuration = IndexConfiguration(searchFields: ["a", "b"], collation: collation)
        var indexes: [SearchIndex] = []
        for pieceLength in [Int.max, 3] {
            let index = try SearchIndex(configuration: configuration, records: [])
            index.folded.foldings[0].folder.pieceLength = pieceLength
            for (i, text) in texts.enumerated() {
                try index.insert(Record(id: String(i), fields: ["a": "x\(i)", "b": text]))
            }
            for (i, text) in texts.enumerated().reversed() where i % 2 == 0 {
                try index.update(Record(id: String(i), fields: ["a": text, "b": "y \(text) z"]))
            }
            try index.addDeferredWordStarts()  // single edits leave out dictionary words' starts
            indexes.append(index)
        }
        // Live segments only: a dead one keeps the word starts it had (a single edit's fold of a
        // short text leaves out dictionary words' starts, which only live segments get later).
        let slots = (0..<Int32(texts.count)).map { $0 }
        for field in 0..<2 {
            let whole = indexes[0].folded.foldings[0].columns[field].renumbered(slots)
            let pieces = indexes[1].folded.foldings[0].columns[field].renumbered(slots)
            #expect(pieces.codes == whole.codes, "\(collation)")
            #expect(pieces.flags == whole.flags, "\(collation)")
            #expect(pieces.wordStarts == whole.wordStarts, "\(collation)")
        }
        #expect(
            indexes[1].folded.foldings[0].codeBook.elementsInCodeOrder
                == indexes[0].folded.foldings[0].codeBook.elementsInCodeOrder
        )
    }

    @Test("a discarded pending segment leaves the column and code book as they were")
    func discardPending() throws {
        let folder = try ICUFolder(ICUCollator(Collation(locale: "th")))
        folder.pieceLength = 16
        var column = FoldedColumn()
        var book = CodeBook()
        var batch = FoldedBatch()
        try folder.fold("กรุงเทพ abc", into: &batch)
        batch.withView { view in column.set(slot: 0, folded: view[0], codeBook: &book) }
        let (codes, flags, words, count) = (column.codes, column.flags, column.wordStarts, book.count)
        let before = book.elementsInCodeOrder
        var pending = column.beginPending(reserving: 64)
        try folder.forEachPiece(of: PieceFoldingTests.texts[3] + " " + PieceFoldingTests.texts[1]) { piece in
            column.appendPending(piece, codeBook: &book, to: &pending)
        }
        #expect(column.codes.count > codes.count)
        #expect(book.count > count)
        column.discardPending(pending)
        book.removeCodes(after: count)
        #expect(column.codes == codes)
        #expect(column.flags == flags)
        #expect(column.wordStarts.prefix(words.count).elementsEqual(words))
        #expect(column.wordStarts.dropFirst(words.count).allSatisfy { $0 == 0 })
        #expect(book.elementsInCodeOrder == before)
        for element in before { #expect(book.existingCode(for: element) != nil) }
    }

    @Test("a streamed snapshot has the checksum of its bytes, and never buffers a whole array")
    func streamedChecksum() throws {
        var random = SystemRandomNumberGenerator()
        let sizes = [0, 1, 7, 31, 32, 33, 63, 64, 100, SnapshotWriter.flushSize - 1, SnapshotWriter.flushSize + 5]
        var all: [UInt8] = []
        var written: [UInt8] = []
        var writer = SnapshotWriter(seed: SnapshotFile.checksumSeed) { part in
            written.append(contentsOf: part)
            return nil
        }
        for size in sizes {
            let array = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            writer.write(UInt32(size))
            writer.write(array: array)
            #expect(writer.bytes.count < SnapshotWriter.flushSize)
            var plain = SnapshotWriter()
            plain.write(UInt32(size))
            plain.write(array: array)
            all += plain.bytes
        }
        let (length, checksum) = writer.finish()
        #expect(written == all)
        #expect(length == all.count)
        #expect(checksum == all.withUnsafeBytes { SnapshotFile.checksum($0) })
    }
}
