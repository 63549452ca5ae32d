// `cellbench`: what a screen of cells costs (issue 29): the rows a table view shows, made as
// `TableRow`s and as `TableCell`s (display fields, highlights), over the bundled cities.
//
//     cellbench [file] [screens]
//
// Loads `file` (Data/cities.tsv by default, run from the repository root) with the fields the
// bundled description searches, builds a controller with ranked results and the default display
// fields (the sort field, then the search fields), and for each query of a list settles it, then
// makes the first 50 rows of the results table `screens` times (20 by default): as rows
// (`rows(numbered:)`) and as cells (`cells(numbered:highlighting:)` with the update's query).
// Prints, per query and in all, the median and 99th percentile of the time per row and per cell.

import Foundation
import Sift
import SiftDataset

let arguments = CommandLine.arguments.dropFirst()
let path = arguments.first ?? "Data/cities.tsv"
let screens = arguments.dropFirst().first.flatMap { Int($0) } ?? 20
let screenRows = 50

let fields = ["name", "ascii_name", "country_name", "country_code"]
let table = try DataLoader.load(path: path)
let records = try table.records(idField: "geonameid", fields: fields, categories: ["population"])
let controller = try SearchController(
    configuration: IndexConfiguration(searchFields: fields, collation: Collation(locale: "root", strength: .primary)),
    records: records,
    options: .init(resultsTable: TableLayout(order: .ranked))
)
let queries: [(String, MatchMode, TypoTolerance)] = [
    ("z", .contains, .off), ("zur", .contains, .off), ("san j", .words, .off), ("new york", .words, .off),
    ("ch", .contains, .off), ("sao paulo", .words, .off), ("berlni", .words, .auto), ("mnchen", .fuzzy, .off),
]

/// Nanoseconds per item of `count` items made by `body`, once per screen.
func perItem(_ count: Int, _ body: () -> Void) -> [Double] {
    let clock = ContinuousClock()
    return (0..<screens).map { _ in
        let elapsed = clock.measure(body)
        let (seconds, attoseconds) = elapsed.components
        return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(count)
    }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func micro(_ nanoseconds: Double) -> String { String(format: "%.1f µs", nanoseconds / 1000) }

print("\(records.count) records from \(path), display fields \(fields), \(screens) screens of \(screenRows) rows")
var allRows: [Double] = []
var allCells: [Double] = []
for (text, mode, typos) in queries {
    controller.setQueryOptions(mode: mode, typos: typos)
    let update = try await controller.settledUpdate(for: controller.setText(text))
    let results = update.tables.results
    let count = min(screenRows, results.rowCount)
    guard count > 0 else {
        print("\"\(text)\" \(mode): no results")
        continue
    }
    var sink = 0
    let rows = perItem(count) { sink &+= results.rows(numbered: 0..<count).count }
    let cells = perItem(count) {
        sink &+= results.cells(numbered: 0..<count, highlighting: update.resultsQuery).count
    }
    precondition(sink > 0)
    allRows += rows
    allCells += cells
    print(
        "\"\(text)\" \(mode)\(typos == .off ? "" : " typos"): \(results.rowCount) results;",
        "row p50 \(micro(percentile(rows, 0.5))), cell p50 \(micro(percentile(cells, 0.5))),",
        "p99 \(micro(percentile(cells, 0.99)))"
    )
}
print(
    "all: row p50 \(micro(percentile(allRows, 0.5))) p99 \(micro(percentile(allRows, 0.99)));",
    "cell p50 \(micro(percentile(allCells, 0.5))) p99 \(micro(percentile(allCells, 0.99)))"
)
