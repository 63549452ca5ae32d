import Testing

@testable import SiftDataset

/// `DataFile.categoryColumns(among:maximumValues:)` against a brute-force count of each column's
/// distinct values, on tables split into many chunks (so that per-chunk sets are merged).
@Suite struct CategoryColumnsTests {
    /// The oracle: at least 100 rows, at most `min(maximum, rows / 20)` distinct non-empty values.
    static func expected(_ rows: [[String]], columns: [String], maximum: Int) -> [String: [String]] {
        guard rows.count >= 100 else { return [:] }
        var result: [String: [String]] = [:]
        for (c, name) in columns.enumerated() {
            let values = Set(rows.map { $0[c] }.filter { !$0.isEmpty })
            if !values.isEmpty && values.count <= min(maximum, rows.count / 20) {
                result[name] = values.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
            }
        }
        return result
    }

    @Test(arguments: [50, 99, 100, 400, 2_000])
    func agreesWithACountOfDistinctValues(rowCount: Int) throws {
        var generator = SplitMix64(state: UInt64(rowCount))
        let columns = ["name", "continent", "sparse", "grade", "twentyfive"]
        let rows: [[String]] = (0..<rowCount).map { i in
            [
                "city \(i)",
                ["EU", "AS", "AF", "Ñorte"][Int(generator.next() % 4)],
                generator.next() % 5 == 0 ? "x" : "",
                String(generator.next() % 12),
                "v\(i % 25)",
            ]
        }
        let text = columns.joined(separator: "\t") + "\n" + rows.map { $0.joined(separator: "\t") + "\n" }.joined()
        let file = try DataFile(bytes: Array(text.utf8), source: "t.tsv", format: .tsv, chunkBytes: 256)
        for maximum in [3, 12, 100] {
            let found = file.categoryColumns(among: columns, maximumValues: maximum)
            let byName = [String: [String]](uniqueKeysWithValues: found.map { ($0.column, $0.values) })
            #expect(
                byName == Self.expected(rows, columns: columns, maximum: maximum),
                "rows \(rowCount), max \(maximum)"
            )
            #expect(found.map { $0.column } == columns.filter { byName[$0] != nil })  // in the order asked
        }
    }
}
