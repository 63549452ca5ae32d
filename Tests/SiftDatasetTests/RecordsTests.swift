import Sift
import SiftDataset
import Testing

/// `DataTable.records(idField:fields:categories:)`: a data file into records, as `sift` does.
@Suite("Records from a data table")
struct RecordsTests {
    let table = try! Support.parse(
        """
        id\tname\tcountry\tcontinent\tpopulation
        7\tZürich\tSwitzerland\tEU\t415367
        3\tSão Paulo\t\tSA\t12325232
        9\tNuuk\tGreenland\tNA\t
        """,
        .tsv,
        source: "cities.tsv"
    )

    @Test func idsFromAColumnAndOnlyTheNamedColumns() throws {
        let records = try table.records(idField: "id", fields: ["name", "country"], categories: ["continent"])
        #expect(records.map(\.id) == ["7", "3", "9"])
        #expect(records[0].fields == ["name": "Zürich", "country": "Switzerland", "continent": "EU"])
        #expect(records[1].fields == ["name": "São Paulo", "continent": "SA"])  // an empty value is no field
    }

    @Test func withoutAnIdFieldRecordsAreNumberedByDataRowAndKeepEveryColumn() throws {
        let records = try table.records()
        #expect(records.map(\.id) == ["1", "2", "3"])
        #expect(records[2].fields == ["id": "9", "name": "Nuuk", "country": "Greenland", "continent": "NA"])
    }

    /// Ids compare by Unicode scalars, as a `SearchIndex` compares them: NFC and NFD forms of an
    /// id are two records, and only the same scalars are a duplicate.
    @Test func idsInNFCAndNFDAreTwoRecords() throws {
        let table = try Support.parse("id\tname\nJos\u{E9}\tcomposed\nJose\u{301}\tdecomposed\n", .tsv)
        let records = try table.records(idField: "id")
        #expect(
            records.map { Array($0.id.unicodeScalars) } == [
                Array("Jos\u{E9}".unicodeScalars), Array("Jose\u{301}".unicodeScalars),
            ]
        )
        let duplicate = try Support.parse("id\tname\nJose\u{301}\ta\nJose\u{301}\tb\n", .tsv, source: "d.tsv")
        #expect(throws: DataFileError.self) { try duplicate.records(idField: "id") }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]), records: records)
        #expect(index.count == 2)
    }

    @Test func theDefaultSearchFieldsAreTheTextColumns() throws {
        #expect(table.defaultSearchFields == ["name", "country", "continent"])  // "id" holds numbers
        let packages = try Support.parse("package\tsummary\tsize\nripgrep\tsearch tool\t12\n", .tsv)
        #expect(packages.defaultSearchFields == ["package", "summary"])  // a text id is searched
        let numbers = try Support.parse("a\tb\n1\t2\n", .tsv)
        #expect(numbers.defaultSearchFields == ["a", "b"])
    }

    @Test func theRecordsIndexAndSearchAsTheToolDoes() throws {
        let fields = table.defaultSearchFields
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: fields,
                scopes: [Scope(name: "All"), Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"]))]
            ),
            records: try table.records(idField: "id", fields: fields)
        )
        let result = try index.search(Query("zurich"))
        #expect(try result.rows.map { try index.id(of: $0) } == ["7"])
        #expect(result.scopeCounts.map(\.count) == [1, 1])
    }

    @Test(arguments: [
        ("id\tname\n1\tA\n\tB\n", "id", "cities.tsv:3: field 'id': empty id"),
        ("id\tname\n1\tA\n2\tB\n1\tC\n", "id", "cities.tsv:4: field 'id': duplicate id '1' (first on line 2)"),
        ("id\tname\n1\tA\n", "key", "cities.tsv: unknown id field 'key' (columns: id, name)"),
    ])
    func badIdsAreErrorsNamingFileLineAndField(text: String, idField: String, message: String) throws {
        let table = try Support.parse(text, .tsv, source: "cities.tsv")
        #expect(throws: DataFileError.self) { try table.records(idField: idField) }
        do {
            _ = try table.records(idField: idField)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func unknownFieldsAndCategoriesAreErrors() throws {
        do {
            _ = try table.records(fields: ["name", "nope"])
            Issue.record("no error")
        } catch {
            #expect(error.description.hasPrefix("cities.tsv: unknown field 'nope'"))
        }
        do {
            _ = try table.records(categories: ["region"])
            Issue.record("no error")
        } catch {
            #expect(error.description.hasPrefix("cities.tsv: unknown category field 'region'"))
        }
    }
}
