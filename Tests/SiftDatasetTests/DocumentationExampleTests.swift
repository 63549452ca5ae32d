import Foundation
import Sift
import SiftDataset
import Testing

// The code examples of the DocC catalog (Sources/SiftDataset/SiftDataset.docc), run here and
// checked against what the catalog says they print. Each example is copied verbatim into a test
// below; `everyCatalogExampleIsTestedHere` fails when the catalog's Swift code is not found in
// this file, whitespace aside. In each test, a local `print` records the printed lines.

/// The lines an example prints.
private final class PrintedLines {
    private(set) var lines: [String] = []

    /// Records one printed line, as `Swift.print` would write it.
    func print(_ items: [Any], separator: String = " ") {
        lines.append(items.map { "\($0)" }.joined(separator: separator))
    }
}

@Suite("Documentation examples (SiftDataset.docc)")
struct DocumentationExampleTests {
    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/SiftDataset/SiftDataset.docc")

    /// Six GeoNames cities, as the catalog describes them.
    static let citiesTSV = """
        geonameid\tname\tcountry_name\tcontinent_code\tpopulation
        2657896\tZürich\tSwitzerland\tEU\t415367
        2661552\tBern\tSwitzerland\tEU\t121631
        2988507\tParis\tFrance\tEU\t2138551
        4717560\tParis\tUnited States\tNA\t24782
        3448439\tSão Paulo\tBrazil\tSA\t12400232
        3621849\tSan José\tCosta Rica\tNA\t335007

        """

    @Test func everyCatalogExampleIsTestedHere() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let tested = Self.withoutWhitespace(source)
        var blocks = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.catalog.path) where file.hasSuffix(".md") {
            let text = try String(contentsOf: Self.catalog.appendingPathComponent(file), encoding: .utf8)
            for block in text.components(separatedBy: "```swift\n").dropFirst() {
                let lines = block.components(separatedBy: "\n```")[0].components(separatedBy: "\n")
                for line in lines where line.hasPrefix("import ") {
                    #expect(source.contains("\n\(line)\n"), "\(file) imports what this file does not: \(line)")
                }
                let code = lines.filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
                let isTested = tested.contains(Self.withoutWhitespace(code))
                #expect(isTested, "an example of \(file) is not tested here:\n\(code)")
                blocks += 1
            }
        }
        #expect(blocks >= 2)
    }

    /// `text` without any whitespace: examples compare equal however they are indented and wrapped.
    static func withoutWhitespace(_ text: String) -> String {
        String(text.unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init))
    }

    @Test func loadingAFileIntoAnIndex() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }
        let path = Support.temporaryPath("cities.tsv")
        try Data(Self.citiesTSV.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }

        let table = try DataLoader.load(path: path)  // TSV, CSV or JSON Lines, by the file's extension
        print(table.format, table.rows.count)  // tsv 6
        print(table.defaultSearchFields)  // ["name", "country_name", "continent_code"]: the text columns

        let fields = ["name", "country_name"]
        let records = try table.records(idField: "geonameid", fields: fields, categories: ["continent_code"])
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: fields,
                scopes: [
                    Scope(name: "All"),
                    Scope(name: "Europe", filter: .init(field: "continent_code", values: ["EU"])),
                ]
            ),
            records: records
        )
        let result = try index.search(Query("paris"))
        print(try result.rows.map { try index.value(of: "country_name", for: $0) })  // ["France", "United States"]
        print(result.scopeCounts.map { "\($0.scope) \($0.count ?? 0)" })  // ["All 2", "Europe 1"]
        print(try index.search(Query("switz")).rows.map { try index.id(of: $0) })  // ["2657896", "2661552"]

        do {
            _ = try DataLoader.load(path: "missing.tsv")
        } catch {
            print(error)  // missing.tsv: cannot read file (No such file or directory)
        }
        do {
            _ = try table.records(idField: "country_name")
        } catch {
            print(error.line ?? 0, error.message)  // 3 duplicate id 'Switzerland' (first on line 2)
        }

        #expect(
            console.lines == [
                "tsv 6",
                #"["name", "country_name", "continent_code"]"#,
                #"["France", "United States"]"#,
                #"["All 2", "Europe 1"]"#,
                #"["2657896", "2661552"]"#,
                "missing.tsv: cannot read file (No such file or directory)",
                "3 duplicate id 'Switzerland' (first on line 2)",
            ]
        )
    }
}
