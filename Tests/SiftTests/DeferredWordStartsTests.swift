import Foundation
import Testing
import _SiftTestSupport

@testable import Sift

/// Single-record edits leave out the word starts of text ICU segments with a dictionary (Thai,
/// Chinese, Japanese, ...) and the next read adds them: every read must answer as an index built
/// in one go from the same records does.
@Suite("Word starts deferred by edits: reads see them")
struct DeferredWordStartsTests {
    /// Real names in many scripts, with the dictionary-segmented ones first in line for edits.
    static let texts: [String] = {
        let corpus = DifferentialTests.corpus.filter { !$0.isEmpty }
        let dictionary = corpus.filter { text in
            text.unicodeScalars.contains { scalar in
                (0x0E00...0x109F).contains(scalar.value) || (0x1780...0x17FF).contains(scalar.value)
                    || (0x3040...0x30FF).contains(scalar.value) || (0x4E00...0x9FFF).contains(scalar.value)
            }
        }
        return dictionary + ["ประเทศไทยสวยงาม", "ภาษาไทย", "東京都庁", "京都市", "ກຸງວຽງຈັນ", "ព្រះរាជាណាចក្រកម្ពុជា"]
    }()

    static let others: [String] = DifferentialTests.corpus.filter { !$0.isEmpty && !texts.contains($0) }

    /// Queries: pieces of the edited texts (by grapheme) and whole words of them.
    static func queries(_ generator: inout SeededGenerator) -> [String] {
        var result = ["ไทย", "สวยงาม", "京都", "東京", "中国", "ニア", "ລາວ"]
        for _ in 0..<40 {
            let text = Array(texts.randomElement(using: &generator)!)
            let length = Int.random(in: 1...min(4, text.count), using: &generator)
            let start = Int.random(in: 0...(text.count - length), using: &generator)
            result.append(String(text[start..<(start + length)]))
        }
        return result
    }

    /// Compares searches (every mode, original and ranked order) and highlights of `edited`
    /// against `fresh`, which holds the same records in the same order.
    static func expectSameAnswers(_ edited: SearchIndex, _ fresh: SearchIndex, queries: [String]) throws {
        for text in queries {
            for mode in [MatchMode.words, .contains, .prefix] {
                for order in [ResultOrder.original, .ranked] {
                    let query = Query(text, mode: mode, order: order)
                    let expected = try fresh.ids(fresh.search(query))
                    let result = try edited.search(query)
                    #expect(try edited.ids(result) == expected, "\(mode) \(order) '\(text)'")
                    for row in result.rows.prefix(5) {
                        let id = try edited.id(of: row)
                        let freshRanges = try fresh.matchRanges(of: try #require(fresh.handle(forID: id)), for: query)
                        #expect(
                            try edited.matchRanges(of: row, for: query) == freshRanges,
                            "\(mode) '\(text)' in \(id)"
                        )
                    }
                }
            }
        }
    }

    @Test(arguments: [
        Collation(locale: "root"), Collation(locale: "th"), Collation(locale: "ja", strength: .secondary),
    ])
    func editedRecordsAnswerAsAFreshIndex(_ collation: Collation) throws {
        var generator = SeededGenerator(seed: 21)
        let configuration = IndexConfiguration(
            searchFields: ["name", "place"],
            collation: collation,
            scopes: [Scope(name: "All"), Scope(name: "Root", fields: ["name"], collation: Collation(locale: "root"))]
        )
        func record(_ id: String) -> Record {
            let name =
                Bool.random(using: &generator)
                ? Self.texts.randomElement(using: &generator)! : Self.others.randomElement(using: &generator)!
            return Record(id: id, fields: ["name": name, "place": Self.texts.randomElement(using: &generator)!])
        }
        var model = (0..<300).map { record("r\($0)") }
        let edited = try SearchIndex(configuration: configuration, records: model)
        edited.knobs.postingsMinimumRecords = 0  // postings read word starts too: they must wait for them
        var next = 300
        for round in 0..<4 {
            // A burst of edits, some past the number of slots that may wait for word starts.
            for _ in 0..<(round == 2 ? SearchIndex.maximumSlotsAwaitingWordStarts + 20 : 30) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    let position = Int.random(in: 0...model.count, using: &generator)
                    let new = record("r\(next)")
                    next += 1
                    try edited.insert(new, at: position)
                    model.insert(new, at: position)
                case 1:
                    let new = record("r\(next)")
                    next += 1
                    try edited.insert(new)
                    model.append(new)
                case 2:
                    let position = Int.random(in: model.indices, using: &generator)
                    let updated = record(model[position].id)
                    try edited.update(updated)
                    model[position] = updated
                default:
                    let position = Int.random(in: model.indices, using: &generator)
                    try edited.remove(id: model.remove(at: position).id)
                }
            }
            #expect(!edited.folded.slotsAwaitingWordStarts.isEmpty, "round \(round): nothing was deferred")
            #expect(edited.folded.slotsAwaitingWordStarts.count <= SearchIndex.maximumSlotsAwaitingWordStarts)
            let fresh = try SearchIndex(configuration: configuration, records: model)
            try Self.expectSameAnswers(edited, fresh, queries: Self.queries(&generator))
            #expect(edited.folded.slotsAwaitingWordStarts.isEmpty)
        }
    }

    @Test func aSnapshotSavedRightAfterEditsHoldsTheirWordStarts() throws {
        let configuration = IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "th"))
        let index = try SearchIndex(
            configuration: configuration,
            records: [Record(id: "0", fields: ["name": "Bangkok"])]
        )
        try index.insert(Record(id: "1", fields: ["name": "ประเทศไทยสวยงาม"]))
        try index.update(Record(id: "0", fields: ["name": "ภาษาไทย"]))
        #expect(index.folded.slotsAwaitingWordStarts.count == 2)
        let path = testScratch.appendingPathComponent(
            "sift-deferred-\(UUID().uuidString).snapshot"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try index.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        #expect(try loaded.ids(loaded.search(Query("สวยงาม", mode: .words))) == ["1"])
        #expect(try loaded.ids(loaded.search(Query("ไทย", mode: .words))) == ["0"])
        // One record, checked on its own (the path an edited row in a live table takes).
        try index.update(Record(id: "1", fields: ["name": "ภาษาไทย"]))
        #expect(try index.matches(try #require(index.handle(forID: "1")), Query("ไทย", mode: .words)))
    }
}
