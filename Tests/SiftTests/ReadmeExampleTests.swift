import Testing

@testable import Sift

/// The README's library example, kept honest.
@Suite("README example")
struct ReadmeExampleTests {
    @Test func theLibraryExampleDoesWhatTheReadmeSays() throws {
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "country"],
                collation: Collation(locale: "es"),
                scopes: [
                    Scope(name: "All"),
                    Scope(name: "Name", fields: ["name"], minimumLength: 2),
                    Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"])),
                ],
                sortField: "name"
            ),
            records: [
                Record(id: "1", fields: ["name": "São Paulo", "country": "Brasil", "continent": "SA"]),
                Record(id: "2", fields: ["name": "Niño Jesús", "country": "España", "continent": "EU"]),
                Record(id: "3", fields: ["name": "Nino", "country": "Italia", "continent": "EU"]),
            ]
        )
        // What the README's print lines print.
        let result = try index.search(Query("nino"))
        #expect(String(describing: try result.rows.map { try index.id(of: $0) }) == #"["3"]"#)
        #expect(
            String(describing: result.scopeCounts.map { "\($0.scope) \($0.count ?? 0)" })
                == #"["All 1", "Name 1", "Europe 1"]"#
        )
        #expect(String(describing: try index.search(Query("n", scope: "Name")).state) == "tooShort(needed: 2)")
        let paulo = try index.search(Query("PAULO")).rows[0]
        let name = try index.value(of: "name", for: paulo)
        #expect(name == "São Paulo")
        #expect(
            String(describing: try index.highlights(of: paulo, for: Query("PAULO"))["name"]!.map { name[$0] })
                == #"["Paulo"]"#
        )
        try index.insert(Record(id: "4", fields: ["name": "Niño", "country": "Perú", "continent": "SA"]), at: 0)
        try index.update(Record(id: "3", fields: ["name": "Nino Bixio", "country": "Italia", "continent": "EU"]))
        try index.move(from: 0, to: 2)
        try index.remove(id: "1")
        #expect(try index.handles().map { try index.id(of: $0) } == ["2", "4", "3"])
    }

    /// The README's example of reading rows and fields out of a controller's tables.
    @Test func readingRowsAndFieldsOutOfARecordTable() async throws {
        let controller = try SearchController(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                collation: Collation(locale: "es"),
                sortField: "name"
            ),
            records: [
                Record(id: "1", fields: ["name": "São Paulo", "country": "Brasil"]),
                Record(id: "2", fields: ["name": "Paris", "country": "France"]),
                Record(id: "3", fields: ["name": "Lapa", "country": "Brasil"]),
            ],
            options: .init(resultsTable: TableLayout(order: .sorted, isSectioned: true))
        )
        let update = try await controller.settledUpdate(for: controller.setText("pa"))
        let results = update.tables.results
        var printed: [String] = []
        for section in 0..<results.numberOfSections {
            for row in results.rows(inSection: section) {
                let record = try await controller.record(row)
                printed.append(
                    [results.title(ofSection: section) ?? "-", row.title, record.fields["country"] ?? ""].joined(
                        separator: " "
                    )
                )
            }
        }
        #expect(printed == ["L Lapa Brasil", "P Paris France", "S São Paulo Brasil"])
        let first = results[TableIndexPath(section: 0, row: 0)]
        #expect("\(results.numberOfSections) \(results.rowCount) \(first.id)" == "3 3 3")
    }
}
