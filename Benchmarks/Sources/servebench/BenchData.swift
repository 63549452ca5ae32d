import Foundation
import RecordGenerator
import Sift
import SiftDataset

/// The records the server and the in-process controller search, and the words the traces type.
struct BenchData {
    /// What the records are, for the report.
    var source: String
    /// The columns, in the order rows list them.
    var fieldOrder: [String]
    var configuration: IndexConfiguration
    var records: [Record]
    /// Distinct words of the records' first searched field, lower-cased, in a seeded order.
    var words: [String]

    /// `count` generated records (searchbench's generator: names and places from the bundled
    /// data in many languages), ids "1"..."count".
    static func generated(count: Int, seed: UInt64) throws -> BenchData {
        let generator = try Generator(seed: seed, locations: DataLocations.find(data: nil, shared: nil))
        var records: [Record] = []
        records.reserveCapacity(count)
        for n in 0..<count {
            let (name, place) = generator.record(n)
            records.append(Record(id: String(n + 1), fields: ["name": name, "place": place]))
        }
        let configuration = IndexConfiguration(
            searchFields: Generator.fields,
            scopes: [Scope(name: "All")],
            sortField: "name"
        )
        return BenchData(
            source: "\(grouped(count)) generated records (seed \(seed); \(generator.sources.count) source tables)",
            fieldOrder: Generator.fields,
            configuration: configuration,
            records: records,
            words: words(of: records, field: "name", seed: seed)
        )
    }

    /// The records of a TSV, CSV or JSON Lines file: every column kept, the text columns searched
    /// (an `id` column, when there is one, gives the ids), sorted by the first searched field.
    static func file(_ path: String, seed: UInt64) throws -> BenchData {
        let table = try DataLoader.load(path: path)
        let idField = table.column(named: "id") != nil ? "id" : nil
        let searchFields = table.defaultSearchFields.filter { $0 != idField }
        guard let first = searchFields.first else { throw CorpusError.message("\(path): no column to search") }
        let records = try table.records(idField: idField)
        let configuration = IndexConfiguration(
            searchFields: searchFields,
            scopes: [Scope(name: "All")],
            sortField: first
        )
        return BenchData(
            source: "\(path) (\(grouped(records.count)) records, searching \(searchFields.joined(separator: ", ")))",
            fieldOrder: table.columns,
            configuration: configuration,
            records: records,
            words: words(of: records, field: first, seed: seed)
        )
    }

    /// Words of 4 to 9 letters from a seeded sample of the records' `field`, lower-cased, each
    /// once, in a seeded order.
    private static func words(of records: [Record], field: String, seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed ^ 0x5E4E_BE4C)
        var seen = Set<String>()
        var words: [String] = []
        guard !records.isEmpty else { return [] }
        for _ in 0..<min(50_000, records.count * 4) {
            let record = records[rng.below(records.count)]
            guard let value = record.fields[field] else { continue }
            for token in value.precomposedStringWithCanonicalMapping.lowercased().split(whereSeparator: { !$0.isLetter }
            ) {
                guard (4...9).contains(token.count) else { continue }
                let word = String(token)
                if seen.insert(word).inserted { words.append(word) }
            }
        }
        // Seeded shuffle (Fisher–Yates).
        if words.count > 1 {
            for i in stride(from: words.count - 1, to: 0, by: -1) {
                words.swapAt(i, rng.below(i + 1))
            }
        }
        return words
    }

    /// Writes the records as TSV (`id` then the fields), for `sift serve` and the startup script.
    func writeTSV(to path: String) throws {
        try TSVWriter.write(to: path, columns: ["id"] + fieldOrder, rowCount: records.count) { i in
            [records[i].id] + fieldOrder.map { records[i].fields[$0] ?? "" }
        }
    }
}

/// Hands out words for traces: each word once, and for section 1 no two words with the same
/// first two letters, so that no keystroke is answered by a cache entry an earlier word left.
struct WordPool {
    private let words: [String]
    private var next = 0
    private var usedPrefixes = Set<String>()

    init(_ words: [String]) { self.words = words }

    /// The next unused word; with `freshPrefix`, one whose first two letters no word handed out
    /// with `freshPrefix` began with. Nil when the pool is spent.
    mutating func take(freshPrefix: Bool) -> String? {
        while next < words.count {
            let word = words[next]
            next += 1
            if freshPrefix {
                let prefix = String(word.prefix(2))
                guard usedPrefixes.insert(prefix).inserted else { continue }
            }
            return word
        }
        return nil
    }

    /// `count` words typed letter by letter, each after clearing the box: the texts sent, with
    /// the clears as empty strings.
    mutating func trace(words count: Int, freshPrefix: Bool) -> [String] {
        var texts: [String] = []
        for _ in 0..<count {
            guard let word = take(freshPrefix: freshPrefix) else { break }
            texts.append("")
            var typed = ""
            for character in word {
                typed.append(character)
                texts.append(typed)
            }
        }
        return texts
    }
}
