import Foundation
import Testing
import _SiftTestSupport

@testable import Sift

/// The ranking rules after the groups, against a brute-force oracle written from their
/// definitions: every match of a ranked query, sorted by (ranking group, length in collation
/// elements of the field that decides the group, counted on ICU's own folding of the text and
/// capped at 255, the tie-break value, original position), must be exactly `search`'s rows. On
/// multilingual data under several locales and strengths, with numeric and text tie-breaks in
/// both directions, both ways of grouping (bitset passes and record by record), queries typed
/// and erased a character at a time, and edits (updates, inserts in the middle, deletes, moves,
/// a bulk insert) in between.
@Suite("Ranking: shorter fields, then the tie-break field")
struct RankingTieBreakTests {
    static let tieBreaks: [RankingTieBreak?] = [
        nil,
        RankingTieBreak(field: "population", numeric: true, descending: true),
        RankingTieBreak(field: "population", numeric: true),
        RankingTieBreak(field: "text"),
        RankingTieBreak(field: "text", descending: true),
    ]

    static let cases: [(Collation, Int)] = [
        (Collation(locale: "root"), 1), (Collation(locale: "es"), 2), (Collation(locale: "da"), 3),
        (Collation(locale: "de", strength: .secondary), 4), (Collation(locale: "th"), 0),
        (Collation(locale: "root", alternate: .shifted), 1), (Collation(locale: "sv", strength: .tertiary), 3),
    ]

    /// Population values: numbers (repeated, so that they tie too), signs, decimals, exponents,
    /// spaces, and values that are not numbers.
    static func population(_ generator: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return ""
        case 1: return ["n/a", "1,500", "12a", "-", "0x10", "inf", "1e999"].randomElement(using: &generator)!
        case 2: return String(Double(Int.random(in: -500...500, using: &generator)) / 4)
        case 3: return " \(Int.random(in: 0...3, using: &generator))e3 "
        default: return String(Int.random(in: 0...20, using: &generator) * 1000)
        }
    }

    static func record(_ id: String, _ generator: inout SeededGenerator) -> Record {
        let corpus = DifferentialTests.corpus
        return Record(
            id: id,
            fields: [
                "text": corpus.randomElement(using: &generator)!,
                "other": corpus.randomElement(using: &generator)!,
                "population": population(&generator),
            ]
        )
    }

    /// The number in a value, read as the definition says (independently of the index).
    static func number(_ value: String) -> Double? {
        var text = Substring(value)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        guard text.allSatisfy({ "0123456789+-.eE".contains($0) }), text.contains(where: { $0.isNumber }),
            let number = Double(text), number.isFinite
        else { return nil }
        return number
    }

    /// The expected ranked order of a query's matches.
    static func expectedOrder(
        _ index: SearchIndex,
        _ query: Query,
        fields: [String],
        folder: ICUFolder
    ) throws -> [RecordHandle] {
        var plain = query
        plain.order = .original
        let matches = try index.search(plain).rows
        let tieBreak = index.configuration.rankingTieBreak
        var keyed: [(group: Int, length: Int, tie: Int, missing: Bool, tieNumber: Double, position: Int)] = []
        for handle in matches {
            guard let group = try index.rankingGroup(of: handle, for: query) else {
                return matches  // the query does not rank: original order
            }
            // The deciding field: the best score's in fuzzy mode, else the attribute rule's.
            var decidingField = fields[group % fields.count]
            if query.mode != .fuzzy, let values = try index.rankingBuckets(of: handle, for: query)?.values {
                decidingField = fields[values.field]
            }
            let text = try index.value(of: decidingField, for: handle)
            let length = min(255, try folder.fold(text).elements.count)
            var missing = false
            var tie = 0
            var tieNumber = 0.0
            if let tieBreak {
                let value = try index.value(of: tieBreak.field, for: handle)
                if tieBreak.numeric {
                    if let number = number(value) {
                        tieNumber = tieBreak.descending ? -number : number
                    } else {
                        missing = true
                    }
                } else if value.isEmpty {
                    missing = true
                } else {
                    let sorted = try index.sortedPosition(of: handle)
                    tie = tieBreak.descending ? -sorted : sorted
                }
            }
            keyed.append((group, length, tie, missing, tieNumber, try index.position(of: handle)))
        }
        let order = keyed.indices.sorted { a, b in
            let x = keyed[a]
            let y = keyed[b]
            if x.group != y.group { return x.group < y.group }
            if x.length != y.length { return x.length < y.length }
            if x.missing != y.missing { return !x.missing }
            if x.tieNumber != y.tieNumber { return x.tieNumber < y.tieNumber }
            if x.tie != y.tie { return x.tie < y.tie }
            return x.position < y.position
        }
        return order.map { matches[$0] }
    }

    @Test(arguments: cases, [0, Int.max])
    func rankedRowsFollowTheDocumentedKey(_ testCase: (Collation, Int), sparseLimit: Int) throws {
        let (collation, tieBreakNumber) = testCase
        let tieBreak = Self.tieBreaks[(tieBreakNumber + (sparseLimit == 0 ? 0 : 2)) % Self.tieBreaks.count]
        var generator = SeededGenerator(seed: stableSeed(collation.locale) &+ UInt64(tieBreakNumber))
        var nextID = 0
        func newRecord() -> Record {
            defer { nextID += 1 }
            return Self.record("r\(nextID)", &generator)
        }
        let fields = ["text", "other"]
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: fields, collation: collation, rankingTieBreak: tieBreak),
            records: (0..<600).map { _ in newRecord() }
        )
        let folder = try ICUFolder(ICUCollator(collation))
        let queries = DifferentialTests.queries(seed: stableSeed(collation.locale))
            .prefix(TestScale.size(full: 16, default: 7))
        var step = 0
        for text in queries {
            let prefixes = (1...max(1, text.count)).map { String(text.prefix($0)) }
            for typed in prefixes + prefixes.reversed().dropFirst() {
                step += 1
                var queries = [
                    Query(typed, mode: .contains, order: .ranked), Query(typed, mode: .words, order: .ranked),
                ]
                if step % 3 == 0 { queries.append(Query(typed, mode: .fuzzy, order: .ranked)) }
                if step % 4 == 0 { queries.append(Query(typed, mode: .words, order: .ranked, typos: .auto)) }
                if step % 5 == 0 { queries.append(Query(typed, mode: .prefix, order: .ranked, typos: .auto)) }
                for query in queries {
                    let rows = try index.search(query).rows
                    let expected = try Self.expectedOrder(index, query, fields: fields, folder: folder)
                    #expect(
                        try rows.map { try index.id(of: $0) } == expected.map { try index.id(of: $0) },
                        "\(collation) \(String(describing: tieBreak)) '\(typed)' \(query.mode) typos \(query.typos)"
                    )
                    // The per-record key (what the controller places edited records by) agrees.
                    let keys = try rows.map { try index.rankingKey(of: $0, for: query) }
                    if keys.allSatisfy({ $0 != nil }) {
                        let pairs = try zip(keys, rows).map { ($0!, try index.position(of: $1)) }
                        #expect(zip(pairs, pairs.dropFirst()).allSatisfy { $0 < $1 }, "'\(typed)' \(query.mode)")
                    }
                }
                // Edits between keystrokes: the per-slot keys must follow.
                guard step % 4 == 0, index.count > 2 else { continue }
                let handles = index.handles()
                switch step % 16 {
                case 0:
                    let moving = try index.id(of: handles.randomElement(using: &generator)!)
                    var record = newRecord()
                    record = Record(id: moving, fields: record.fields)
                    try index.update(record)
                case 4: try index.insert(newRecord(), at: Int.random(in: 0...index.count, using: &generator))
                case 8: try index.remove(handles.randomElement(using: &generator)!)
                default:
                    try index.move(
                        from: Int.random(in: 0..<index.count, using: &generator),
                        to: Int.random(in: 0..<index.count, using: &generator)
                    )
                }
            }
        }
        // A bulk insert after the keys were built (they are dropped and built again).
        try index.bulkInsert((0..<300).map { _ in newRecord() }, workers: 2, trim: false)
        for text in ["a", "e", "an", "sa"] {
            for mode in [MatchMode.contains, .words, .fuzzy] {
                let query = Query(text, mode: mode, order: .ranked)
                let expected = try Self.expectedOrder(index, query, fields: fields, folder: folder)
                #expect(try index.ids(index.search(query)) == expected.map { try index.id(of: $0) }, "bulk '\(text)'")
            }
        }
    }

    /// Shorter fields first within a group, then the tie-break, then original order: a small
    /// example where every rule decides something.
    @Test func shorterFieldsThenTheTieBreakThenOriginalOrder() throws {
        let records = [
            Record(id: "1", fields: ["name": "Springfield Township", "population": "900"]),
            Record(id: "2", fields: ["name": "Springfield", "population": "30000"]),
            Record(id: "3", fields: ["name": "Springfield", "population": "160000"]),
            Record(id: "4", fields: ["name": "Springs", "population": "n/a"]),
            Record(id: "5", fields: ["name": "Springs", "population": "5000"]),
            Record(id: "6", fields: ["name": "Palm Springs", "population": "44000"]),
        ]
        let plain = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]), records: records)
        let query = Query("spring", order: .ranked)
        // Field start (by length: 7, then 11, 11, then 20), then word start.
        #expect(try plain.ids(plain.search(query)) == ["4", "5", "2", "3", "1", "6"])
        let byPopulation = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                rankingTieBreak: RankingTieBreak(field: "population", numeric: true, descending: true)
            ),
            records: records
        )
        #expect(try byPopulation.ids(byPopulation.search(query)) == ["5", "4", "3", "2", "1", "6"])
        let byName = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                rankingTieBreak: RankingTieBreak(field: "name", descending: true)
            ),
            records: records
        )
        // Equal names: the sorted order breaks their tie by id, descending reverses it.
        #expect(try byName.ids(byName.search(query)) == ["5", "4", "3", "2", "1", "6"])
    }

    /// The column-wide count (eight bytes at a time) against the per-record one and ICU's
    /// folding, for fields of every length around the cap, in several scripts, with updates
    /// (segments away from their slot) and deletes (dead segments) in between.
    @Test func fieldLengthsAreElementCountsCappedAt255() throws {
        var generator = SeededGenerator(seed: 255)
        let pieces = ["a", "é", "ß", "Ж", "東", "ก", "😀", " ", "-", "ch", "aa"]
        func text() -> String {
            let count = [0, 1, 7, 8, 9, 254, 255, 256, 300, Int.random(in: 0...40, using: &generator)]
                .randomElement(using: &generator)!
            return String((0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined().prefix(count))
        }
        let collation = Collation(locale: "da")
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: collation),
            records: (0..<400).map { Record(id: String($0), fields: ["name": text()]) }
        )
        for i in stride(from: 0, to: 400, by: 7) { try index.update(Record(id: String(i), fields: ["name": text()])) }
        for i in stride(from: 3, to: 400, by: 11) { try index.remove(id: String(i)) }
        let folder = try ICUFolder(ICUCollator(collation))
        let lengths = index.rankingKeys.lengths[0][0]
        let column = index.folded.foldings[0].columns[0]
        for handle in index.handles() {
            let expected = min(255, try folder.fold(try index.value(of: "name", for: handle)).elements.count)
            #expect(Int(lengths[Int(handle.slot)]) == expected)
            #expect(Int(column.elementCount(ofSlot: handle.slot)) == expected)
        }
    }

    /// The README's example (Ranked order).
    @Test func theReadmeExample() throws {
        let cities = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                rankingTieBreak: RankingTieBreak(field: "population", numeric: true, descending: true)
            ),
            records: [
                Record(id: "1", fields: ["name": "Springfield Township", "population": "900"]),
                Record(id: "2", fields: ["name": "Springfield", "population": "30000"]),
                Record(id: "3", fields: ["name": "Springfield", "population": "160000"]),
                Record(id: "4", fields: ["name": "Palm Springs", "population": "44000"]),
            ]
        )
        let ranked = try cities.search(Query("spring", order: .ranked))
        #expect(try ranked.rows.map { try cities.id(of: $0) } == ["3", "2", "1", "4"])
    }

    @Test func tieBreakConfigurationIsValidated() throws {
        #expect(throws: SiftError.invalidConfiguration("the ranking tie-break names no field")) {
            try SearchIndex(
                configuration: IndexConfiguration(searchFields: ["name"], rankingTieBreak: RankingTieBreak(field: ""))
            )
        }
        #expect {
            try SearchIndex(
                configuration: IndexConfiguration(
                    searchFields: ["name"],
                    rankingTieBreak: RankingTieBreak(field: "population")
                )
            )
        } throws: { error in
            guard case SiftError.invalidConfiguration(let message) = error else { return false }
            return message.contains("sort field 'name'") && message.contains("'population'")
        }
        // Numeric on any field, text on the sort field: fine.
        _ = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                rankingTieBreak: RankingTieBreak(field: "population", numeric: true)
            )
        )
        _ = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "code"],
                sortField: "code",
                rankingTieBreak: RankingTieBreak(field: "code", descending: true)
            )
        )
    }

    @Test func numbersAreReadAsDocumented() {
        func number(_ text: String) -> Double? { RankingTieBreak.number(in: Substring(text).utf8) }
        #expect(number("42") == 42)
        #expect(number(" -3.5 ") == -3.5)
        #expect(number("1e3") == 1000)
        #expect(number(".5") == 0.5)
        for text in ["", " ", "n/a", "1,500", "0x10", "inf", "nan", "1e999", "12a", "-", "e"] {
            #expect(number(text) == nil, "\(text)")
        }
        let keys = [-1e300, -2, -0.0, 0, 0.5, 3, 1e300].map { RankingTieBreak.key(of: $0, descending: false) }
        #expect(keys == keys.sorted())
        #expect(keys[2] == keys[3])
        let descending = [1e300, 3, 0, -2].map { RankingTieBreak.key(of: $0, descending: true) }
        #expect(descending == descending.sorted())
        #expect(RankingTieBreak.key(of: nil, descending: true) > descending.last!)
    }

    @Test func snapshotsKeepTheTieBreak() throws {
        let tieBreak = RankingTieBreak(field: "population", numeric: true, descending: true)
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], rankingTieBreak: tieBreak),
            records: [
                Record(id: "1", fields: ["name": "Springs", "population": "5"]),
                Record(id: "2", fields: ["name": "Springs", "population": "50"]),
            ]
        )
        let path = testScratch.appendingPathComponent(
            "sift-tiebreak-\(UUID().uuidString).snapshot"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try index.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        #expect(loaded.configuration.rankingTieBreak == tieBreak)
        #expect(try loaded.ids(loaded.search(Query("spr", order: .ranked))) == ["2", "1"])
    }
}
