import Foundation
import SiftDataset
import Testing

@Suite struct LoaderTests {
    @Test func formatIsDetectedFromTheExtension() {
        #expect(DataFormat.detect(path: "a/b/cities.tsv") == .tsv)
        #expect(DataFormat.detect(path: "x.TAB") == .tsv)
        #expect(DataFormat.detect(path: "x.csv") == .csv)
        #expect(DataFormat.detect(path: "dir.d/x.jsonl") == .jsonLines)
        #expect(DataFormat.detect(path: "x.NDJSON") == .jsonLines)
        #expect(DataFormat.detect(path: "x.json") == nil)
        #expect(DataFormat.detect(path: "noext") == nil)
        #expect(DataFormat.detect(path: "dir.tsv/noext") == nil)
        #expect(DataFormat.detect(path: ".tsv") == nil)
        #expect(DataFormat.allCases.count == 3)
    }

    @Test func unreadableFilesAndUnknownFormatsAreErrors() throws {
        let missing = Support.temporaryPath("missing.tsv")
        do {
            _ = try DataLoader.load(path: missing)
            Issue.record("loading a missing file succeeded")
        } catch {
            #expect(error == DataFileError(file: missing, message: "cannot read file (No such file or directory)"))
            #expect(error.description == "\(missing): cannot read file (No such file or directory)")
        }

        let directory = Support.temporaryPath("dir.csv")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: DataFileError(file: directory, message: "cannot read file (Is a directory)")) {
            try DataLoader.load(path: directory)
        }

        #expect(throws: DataFileError.self) { try DataLoader.load(path: "notes.txt") }
    }

    @Test func errorDescriptionsAreOneLine() {
        #expect(DataFileError(file: "f.tsv", message: "m").description == "f.tsv: m")
        #expect(DataFileError(file: "f.tsv", line: 3, message: "m").description == "f.tsv:3: m")
        #expect(
            DataFileError(file: "f.tsv", line: 3, field: "name", message: "m").description == "f.tsv:3: field 'name': m"
        )
        #expect(
            DataFileError(file: "f.tsv", line: 1, field: "a\nb\t\u{0}", message: "x\ny").description
                == "f.tsv:1: field 'a\\nb\\t\\u{0}': x\\ny"
        )
        #expect(DataFileError(file: "f", message: "a\u{2028}b").description == "f: a\\u{2028}b")
    }

    @Test func textColumnsAreColumnsWithNonNumericValues() throws {
        let text =
            "id,name,lat,pop,mixed,blank,code,exp\n1,Oslo,59.91,+700000,12,,007,1e6\n2,Bergen,-5.5,,abc,,AB,-1.5E-3\n3,3,.5,0,,,12,2E+2\n"
        let table = try Support.parse(text, .csv)
        #expect(table.textColumns == ["name", "mixed", "code"])

        let odd = try Support.parse("a,b,c,d,e,f\n1.,-,1e,NaN, 1,1 000\n", .csv)
        #expect(odd.textColumns == ["b", "c", "d", "e", "f"])  // "1." is a number; the rest are text

        let headerOnly = try Support.parse("a,b\n", .csv)
        #expect(headerOnly.textColumns.isEmpty)
    }

    /// The bundled `Data/cities.tsv`.
    static let citiesPath = Support.packageRoot.appendingPathComponent("Data/cities.tsv").path

    @Test func realCitiesFileLoadsWhole() throws {
        // How fast it loads is the benchmarks' business (a timed test fails on a busy machine).
        let table = try DataLoader.load(path: Self.citiesPath)
        #expect(table.rows.count == 34006)
        #expect(
            table.columns == [
                "geonameid", "name", "ascii_name", "country_code", "country_name", "continent_code",
                "admin1_code", "population", "timezone", "latitude", "longitude",
            ]
        )
        #expect(table.rows.allSatisfy { $0.values.count == 11 })
        #expect(table.rows.first?.line == 2)
        #expect(table.rows.last?.line == 34007)
        #expect(table.rows.contains { $0.values[1] == "São Paulo" })
        let text = Set(table.textColumns)
        for name in ["name", "ascii_name", "country_name", "country_code", "timezone"] {
            #expect(text.contains(name), "\(name) should be a text column")
        }
        for name in ["geonameid", "population", "latitude", "longitude"] {
            #expect(!text.contains(name), "\(name) should not be a text column")
        }
    }
}
