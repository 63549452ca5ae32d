import Foundation
import SiftStorage
import Testing

@testable import Sift

/// Snapshots edited consistently (the checksum recomputed after the edit): the records' texts are
/// the truth, so a forged file is refused, or loads as a fresh build of the records it holds.
@Suite("Forged snapshots")
struct SnapshotForgeryTests {
    /// Records from the bundled cities plus texts that fold into flagged segments, dictionary
    /// word starts, expansions and an empty field; edited so that the code book is not in the
    /// order a fresh build gives it, and with a second folding (a scope's collation).
    static func sampleIndex(count: Int) throws -> SearchIndex {
        let cities = try readTSV("cities.tsv")
        let name = cities.header.firstIndex(of: "name")!
        let country = cities.header.firstIndex(of: "country_name")!
        let continent = cities.header.firstIndex(of: "continent_code")!
        var records = cities.rows.prefix(count).enumerated().map {
            Record(
                id: "c\($0.offset)",
                fields: ["name": $0.element[name], "country": $0.element[country], "continent": $0.element[continent]]
            )
        }
        let extra = [
            "ภาษาไทย", "東京タワー", "Rock'n'Roll", "Cafe\u{301} Ñandú", "Straße", "", "½ – ﬁnal", "Ǆemal Chávez",
        ]
        for (i, text) in extra.enumerated() {
            records.append(Record(id: "x\(i)", fields: ["name": text, "country": i % 2 == 0 ? "" : text]))
        }
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "country"],
                collation: Collation(locale: "de"),
                scopes: [
                    Scope(name: "All"), Scope(name: "Name", fields: ["name"], minimumLength: 2),
                    Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"])),
                    Scope(name: "Spanish", collation: Collation(locale: "es")),
                ],
                sortField: "name"
            ),
            records: records
        )
        try index.remove(id: "c1")
        try index.update(Record(id: "c2", fields: ["name": "Chía", "country": "Colombia", "continent": "SA"]))
        try index.insert(Record(id: "new", fields: ["name": "Ñuñoa", "country": "Chile", "continent": "SA"]), at: 3)
        return index
    }

    static let queries: [Query] = {
        var queries: [Query] = []
        let orders: [ResultOrder] = [.original, .sorted, .ranked]
        for (t, text) in ["a", "ch", "san", "ber", "o", "strasse", "nu", "tai", "rock n"].enumerated() {
            for (s, scope) in ["All", "Name", "Europe", "Spanish"].enumerated() {
                for (m, mode) in MatchMode.allCases.enumerated() {
                    queries.append(Query(text, scope: scope, mode: mode, order: orders[(t + s + m) % 3]))
                }
            }
        }
        return queries
    }()

    /// What `index` answers to one query: the ids in order and the scope counts.
    struct Answer: Equatable {
        var ids: [String]
        var counts: [Int?]
    }

    /// What `index` answers to `queries`.
    static func answers(_ index: SearchIndex) throws -> [Answer] {
        try queries.map { query in
            let result = try index.search(query)
            return Answer(ids: try index.ids(result), counts: result.scopeCounts.map(\.count))
        }
    }

    /// How two answers to `queries[query]` differ, briefly.
    static func difference(_ a: Answer, _ b: Answer, query: Int) -> String {
        let q = queries[query]
        let only = (Set(a.ids).subtracting(b.ids).sorted(), Set(b.ids).subtracting(a.ids).sorted())
        return "\"\(q.text)\" \(q.scope) \(q.mode) \(q.order): loaded only \(only.0), fresh only \(only.1), "
            + "counts \(a.counts) vs \(b.counts)" + (only == ([], []) && a.counts == b.counts ? ", another order" : "")
    }

    /// The answers of a fresh build of the records `index` holds (in its original order).
    static func freshAnswers(of index: SearchIndex) throws -> [Answer] {
        let records = try index.handles().map { try index.record($0) }
        return try answers(SearchIndex(configuration: index.configuration, records: records))
    }

    static func write(_ bytes: [UInt8]) throws -> String {
        let path = SnapshotTests.temporaryPath("forged.siftidx")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Random edits of the payload with the checksum recomputed: a byte set, a bit flipped, a
    /// range copied over another. Each must be refused, or load and answer every query (all
    /// modes, orders and scopes) as a fresh build of its own records does; none may crash.
    @Test func randomConsistentEditsAreRefusedOrLoadAsAFreshBuild() throws {
        let path = SnapshotTests.temporaryPath("source.siftidx")
        try Self.sampleIndex(count: 250).save(to: path)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var generator = SeededGenerator(seed: 27)
        var (refused, loaded, differing) = (0, 0, [String]())
        for attempt in 0..<TestScale.size(full: 3000, default: 200) {
            var bytes = original
            let payload = SnapshotFile.headerSize..<bytes.count
            let position = Int.random(in: payload, using: &generator)
            switch attempt % 3 {
            case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
            case 1: bytes[position] ^= 1 << UInt8.random(in: 0...7, using: &generator)
            default:
                let length = Int.random(in: 1...24, using: &generator)
                let from = Int.random(in: payload.lowerBound...(bytes.count - length), using: &generator)
                let to = min(position, bytes.count - length)
                bytes.replaceSubrange(to..<(to + length), with: Array(bytes[from..<(from + length)]))
            }
            guard bytes != original else { continue }
            SnapshotTests.fixChecksum(&bytes)
            let forged = try Self.write(bytes)
            defer { try? FileManager.default.removeItem(atPath: forged) }
            let index: SearchIndex
            do {
                index = try SearchIndex.load(from: forged)
            } catch {
                guard case .snapshot = error else {
                    Issue.record("attempt \(attempt): not a snapshot error: \(error)")
                    continue
                }
                refused += 1
                continue
            }
            loaded += 1
            let answers = try Self.answers(index)
            let fresh = try Self.freshAnswers(of: index)
            if answers != fresh {
                let query = answers.indices.first { answers[$0] != fresh[$0] }!
                differing.append(
                    "attempt \(attempt) at byte \(position): "
                        + Self.difference(answers[query], fresh[query], query: query)
                )
            }
        }
        #expect(
            differing.isEmpty,
            "\(differing.count) forgeries answer otherwise:\n\(differing.joined(separator: "\n"))"
        )
        #expect(refused > 0 && loaded > 0, "refused \(refused), loaded \(loaded)")
    }

    /// A record's text edited without its folded data, saved with a valid checksum: refused,
    /// naming the record.
    @Test func aTextEditedWithoutItsFoldingIsRefused() throws {
        let index = try Self.sampleIndex(count: 100)
        let slot = try #require(index.records.slotOfID.slot(of: "c10", ids: index.records.ids))
        let position = try #require(index.records.fieldPositions["name"])
        index.records.values[position].set(slot, "Chur")  // the text only: the folded column keeps the old one
        let path = SnapshotTests.temporaryPath("text.siftidx")
        try index.save(to: path)
        #expect {
            _ = try SearchIndex.load(from: path)
        } throws: { error in
            guard case SiftError.snapshot(_, let reason) = error else { return false }
            return reason.contains("the folded name of record") && reason.contains("id \"c10\"")
        }
    }

    /// A code book with two elements swapped (every record holding them then matches the other's
    /// queries): refused, also when the sample of a large snapshot does not hold every record,
    /// since the first record holding each code is always folded again.
    @Test func aSwappedCodeBookIsRefused() throws {
        let large = TestScale.size(full: SearchIndex.snapshotFullVerificationLimit + 1000, default: 100)
        for (count, verification) in [(large, SnapshotVerification.sampled), (100, .everyRecord)] {
            let index = try Self.sampleIndex(count: count)
            var elements = index.folded.foldings[0].codeBook.elementsInCodeOrder
            elements.swapAt(2, 5)
            index.folded.foldings[0].codeBook = try CodeBook(elementsInCodeOrder: elements)
            let path = SnapshotTests.temporaryPath("book.siftidx")
            try index.save(to: path)
            #expect {
                _ = try SearchIndex.load(from: path, verifying: verification)
            } throws: { error in
                guard case SiftError.snapshot(_, let reason) = error else { return false }
                return reason.contains("does not match its text")
            }
        }
    }

    /// A snapshot larger than `snapshotFullVerificationLimit` folds every code's first record and
    /// a sample: the first records are in it, the sample is a small part of the rest.
    @Test func aLargeSnapshotFoldsItsFirstUsesAndASample() {
        let count = 1_000_000
        let records = SearchIndex.recordsToVerify(
            count: count,
            firstUses: [0, 7, 999_999],
            verification: .sampled
        )
        #expect(Set([0, 7, 999_999]).isSubset(of: records))
        #expect(records == records.sorted())
        #expect(records.count > count / 80 && records.count < count / 50)
        #expect(
            SearchIndex.recordsToVerify(count: count, firstUses: [], verification: .everyRecord).count == count
        )
        #expect(SearchIndex.recordsToVerify(count: 300, firstUses: [], verification: .sampled).count == 300)
    }
}
