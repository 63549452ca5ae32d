import Foundation
import Sift
import SiftDataset
import Testing

/// The README's example of an app that loads a TSV file with SiftDataset and shows cells of a
/// controller's results: run here on the bundled cities, with what it prints.
@Suite("README: loading a TSV and showing cells")
struct ReadmeCellExampleTests {
    static let cities = Support.packageRoot.appendingPathComponent("Data/cities.tsv").path

    @Test func theExamplePrintsWhatTheReadmeSays() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let path = Self.cities

        let table = try DataLoader.load(path: path)  // TSV, CSV or JSON Lines, by the extension
        let fields = ["name", "country_name"]
        let records = try table.records(idField: "geonameid", fields: fields, categories: ["population"])
        let population = RankingTieBreak(field: "population", numeric: true, descending: true)
        let controller = try SearchController(
            configuration: IndexConfiguration(
                searchFields: fields,
                rankingRules: [.typo, .exactness, .attribute, .custom(population), .length]  // popularity before length
            ),
            records: records,
            options: .init(mode: .words, resultsTable: TableLayout(order: .ranked), displayFields: fields)
        )
        let update = try await controller.settledUpdate(for: controller.setText("zur"))
        let results = update.tables.results
        print(results.rowCount, "results")
        for number in 0..<min(3, results.rowCount) {
            let cell = update.cell(at: results.indexPath(forRowNumber: number)!)!  // no await
            let name = cell[field: "name"]!.segments.map { $0.isHighlighted ? "[\($0.text)]" : String($0.text) }
            print(name.joined(), "·", cell[field: "country_name"]!.text)
        }

        #expect(
            printed == [
                "23 results", "[Zür]ich · Switzerland", "[Zür]ich (Kreis 11) · Switzerland",
                "[Zür]ich (Kreis 3) · Switzerland",
            ]
        )
    }
}
