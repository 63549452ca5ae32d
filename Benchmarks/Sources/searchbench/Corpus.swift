import Foundation
import RecordGenerator
import Sift
import SiftDataset

/// The records every contender searches, in columns: the same strings feed Sift (as `Record`s),
/// the naive filter, ICU usearch and SQLite.
struct Corpus {
    /// What the records are, for the report ("Data/cities.tsv", "generated (seed 42)").
    var source: String
    /// Seed of the generator, nil for a file.
    var seed: UInt64?
    /// The searched fields, in order.
    var fields: [String]
    var ids: [String]
    /// `columns[field][record]`.
    var columns: [[String]]

    var count: Int { ids.count }

    /// UTF-8 bytes of the searched text (every searched field of every record).
    var utf8Bytes: Int {
        columns.reduce(0) { total, column in column.reduce(total) { $0 + $1.utf8.count } }
    }

    /// Records for a `SearchIndex`, holding only the searched fields. With `copyingText`, every
    /// string gets fresh storage, so that the index ends up the only owner of its text once the
    /// records are released, and its heap can be measured with the text it keeps.
    func records(copyingText: Bool) -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(count)
        for i in 0..<count {
            var fields: [String: String] = [:]
            fields.reserveCapacity(self.fields.count)
            for (f, name) in self.fields.enumerated() {
                let value = columns[f][i]
                if value.isEmpty { continue }
                fields[name] = copyingText ? freshCopy(value) : value
            }
            records.append(Record(id: copyingText ? freshCopy(ids[i]) : ids[i], fields: fields))
        }
        return records
    }

    /// One record, as the index would hold it.
    func record(_ i: Int) -> Record {
        var fields: [String: String] = [:]
        for (f, name) in self.fields.enumerated() where !columns[f][i].isEmpty { fields[name] = columns[f][i] }
        return Record(id: ids[i], fields: fields)
    }
}

/// A copy of a string in its own storage (short strings are stored inline anyway).
func freshCopy(_ text: String) -> String {
    var text = text
    return text.withUTF8 { String(decoding: $0, as: UTF8.self) }
}

extension Generator {
    /// Records `0..<count` (ids "1"..."count").
    func corpus(count: Int, progress: Progress? = nil) -> Corpus {
        var ids: [String] = []
        var names: [String] = []
        var places: [String] = []
        ids.reserveCapacity(count)
        names.reserveCapacity(count)
        places.reserveCapacity(count)
        for n in 0..<count {
            let (name, place) = record(n)
            ids.append(String(n + 1))
            names.append(name)
            places.append(place)
            if n & 0xFFF == 0 { progress?.set(n) }
        }
        return Corpus(source: "generated", seed: seed, fields: Self.fields, ids: ids, columns: [names, places])
    }
}

// MARK: - Files

extension Corpus {
    /// Loads a TSV, CSV or JSON Lines file (by extension), searching `fields` (default: every
    /// text column, as `sift query` does). Ids come from `idField` or the 1-based data row.
    static func load(path: String, fields requested: [String], idField: String?) throws -> Corpus {
        let table: DataTable
        do {
            table = try DataLoader.load(path: path)
        } catch {
            throw CorpusError.message(error.description)
        }
        for field in requested + (idField.map { [$0] } ?? []) where table.column(named: field) == nil {
            throw CorpusError.message(
                "\(path): unknown field '\(field)' (columns: \(table.columns.joined(separator: ", ")))"
            )
        }
        var fields = requested
        if fields.isEmpty {
            fields = table.textColumns.filter { $0 != idField }
            if fields.isEmpty { fields = table.columns.filter { $0 != idField } }
        }
        guard !fields.isEmpty else { throw CorpusError.message("\(path): no column to search") }
        let positions = fields.map { table.column(named: $0)! }
        let idPosition = idField.flatMap { table.column(named: $0) }
        var ids: [String] = []
        var columns = [[String]](repeating: [], count: fields.count)
        var seen = Set<String>()
        for row in table.rows {
            let id = idPosition.map { row.values[$0] } ?? String(row.number)
            guard seen.insert(id).inserted else {
                throw CorpusError.message("\(path):\(row.line): duplicate id '\(id)'")
            }
            ids.append(id)
            for (f, p) in positions.enumerated() { columns[f].append(row.values[p]) }
        }
        return Corpus(source: path, seed: nil, fields: fields, ids: ids, columns: columns)
    }

    /// Writes the corpus as TSV (id then the fields), quoting like Python's `csv` module.
    func writeTSV(to path: String) throws {
        try TSVWriter.write(to: path, columns: ["id"] + fields, rowCount: count) { i in
            [ids[i]] + columns.map { $0[i] }
        }
    }
}
