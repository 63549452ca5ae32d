import Sift
import SiftDataset
import Testing

/// A data file with very many columns: column names are found by dictionary lookup, so making
/// records of 200,000 named fields takes time linear in them (it once took time quadratic in
/// them, with a linear search of the header per field: 40,000 columns took 50 s in `sift`).
@Suite("Many columns in a data file")
struct ManyColumnsTests {
    static let columnCount = 200_000

    @Test func recordsOfEveryNamedColumn() throws {
        let names = (0..<Self.columnCount).map { "c\($0)" }
        let text = names.joined(separator: "\t") + "\n" + names.joined(separator: "\t") + "\n"
        let file = try DataFile(bytes: Array(text.utf8), source: "wide.tsv", format: .tsv)
        #expect(file.columns == names)
        #expect(file.column(named: "c200000") == nil)
        for column in [0, 1, 99_999, 199_999] { #expect(file.column(named: names[column]) == column) }
        let records = try file.records(fields: names.reversed(), categories: ["c7"])
        #expect(records.count == 1)
        #expect(records[0].fields.count == Self.columnCount)
        #expect(records[0].fields["c199999"] == "c199999")
    }
}
