import Foundation
import SiftStorage
import Testing

@testable import Sift

/// An index over very many fields: finding each field's position is a dictionary lookup, so
/// opening an index over 200,000 search fields takes time linear in them (it once took time
/// quadratic in them: 0.5 s at 10,000 columns, never finishing at 1,000,000).
@Suite("Many columns")
struct ManyColumnsTests {
    static let columnCount = 200_000
    static let fields = (0..<columnCount).map { "c\($0)" }

    @Test func anIndexOverManyFieldsOpensAndSearchesEachOne() throws {
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: Self.fields,
                scopes: [
                    Scope(name: "All"), Scope(name: "Last", fields: [Self.fields.last!, "c0"]),
                    Scope(name: "Middle", fields: ["c100000"]),
                ]
            )
        )
        let plans = index.folded.scopePlans
        #expect(plans.map(\.fields.count) == [Self.columnCount, 2, 1])
        #expect(plans[0].fields == Array(0..<Self.columnCount))
        #expect(plans[1].fields == [Self.columnCount - 1, 0])
        #expect(plans[2].fields == [100_000])
        #expect(throws: SiftError.unknownField("c200000")) {
            try SearchIndex(
                configuration: IndexConfiguration(
                    searchFields: Self.fields,
                    scopes: [Scope(name: "All"), Scope(name: "Beyond", fields: ["c200000"])]
                )
            )
        }
    }

    /// A header of many columns and no rows (issue 27): no field holds a folded column of its own
    /// until a record arrives, and the names take a compact table, so the index holds a few dozen
    /// bytes a field (`memoryUsage` counted 96 when every field had its own empty column, which
    /// also took 168 bytes inline, and the names a dictionary of about 50 bytes a name).
    @Test func anEmptyIndexOverManyFieldsHoldsFewBytesAField() throws {
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: Self.fields))
        #expect(index.folded.foldings.allSatisfy { !$0.columns.isStored })
        let perField = index.memoryUsage.total / Self.columnCount
        #expect(perField <= 40, "\(perField) bytes a field")
        #expect(try index.search(Query("c7")).rows.count == 0)

        // The first record gives every field its column, and each field is searched (on fewer
        // fields: a search visits each of them).
        let some = try SearchIndex(configuration: IndexConfiguration(searchFields: Array(Self.fields.prefix(20_000))))
        try some.insert(Record(id: "1", fields: ["c0": "alpha", "c19999": "omega", "c10000": "gamma"]))
        #expect(some.folded.foldings.allSatisfy { $0.columns.isStored && $0.columns.storedColumns.count == 20_000 })
        some.checkInvariants()
        for word in ["alpha", "omega", "gamma"] {
            #expect(try some.search(Query(word)).rows.count == 1, "\(word)")
        }
        #expect(try some.search(Query("beta")).rows.count == 0)
    }

    /// A snapshot of an empty wide index loads without a column per field, and takes records.
    @Test func anEmptyWideSnapshotLoadsWithoutAColumnPerField() throws {
        let path = SnapshotTests.temporaryPath("wide-empty.sift")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fields = Array(Self.fields.prefix(50_000))
        try SearchIndex(configuration: IndexConfiguration(searchFields: fields)).save(to: path)
        let loaded = try SearchIndex.load(from: path)
        #expect(loaded.configuration.searchFields == fields)
        #expect(loaded.folded.foldings.allSatisfy { !$0.columns.isStored })
        #expect(loaded.records.values.isEmpty)
        try loaded.insert(Record(id: "x", fields: ["c49999": "Zürich"]))
        #expect(try loaded.search(Query("zurich")).rows.count == 1)
    }

    /// Field names keep their positions in the compact table: repeats keep the first, the table
    /// grows, and absent names are absent.
    @Test func fieldTableKeepsFirstPositions() {
        var table = FieldTable(["a", "b", "a"])
        #expect(!table.hasUniqueNames)
        #expect(table["a"] == 0 && table["b"] == 1 && table["c"] == nil)
        table = FieldTable(["x"])
        for i in 0..<5_000 { #expect(table.append("f\(i)") == i + 1) }
        #expect(table.append("x") == 0)
        #expect(table.append("f17") == 18)
        #expect(table.count == 5_001 && table.hasUniqueNames)
        #expect((0..<5_000).allSatisfy { table["f\($0)"] == $0 + 1 })
        #expect(table["f5000"] == nil && table[""] == nil)
        let positions = NamePositions(["q", "r", "q", "s"])
        #expect(positions.position(of: "q", in: ["q", "r", "q", "s"]) == 0)
        #expect(positions.position(of: "s", in: ["q", "r", "q", "s"]) == 3)
    }

    /// `matchRanges(of:for:fields:)` looks only at the fields asked for (the shown columns of a
    /// wide row): the full answer restricted to them, in every scope; names not searched by the
    /// scope, or not fields at all, are absent.
    @Test func matchRangesOfSomeFieldsAreTheFullAnswerRestricted() throws {
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["a", "b", "c"],
                scopes: [Scope(name: "All"), Scope(name: "BC", fields: ["c", "b"])]
            ),
            records: [Record(id: "1", fields: ["a": "Straße straße", "b": "strasse", "c": "Rue", "d": "strasse"])]
        )
        let row = try #require(index.handle(forID: "1"))
        for scope in ["All", "BC"] {
            for mode in [MatchMode.contains, .words] {
                let query = Query("strasse", scope: scope, mode: mode)
                let full = try index.matchRanges(of: row, for: query)
                #expect(!full.isEmpty)
                for fields in [["a"], ["b", "a"], ["c"], ["d", "zz"], [], ["a", "b", "c"]] {
                    let some = try index.matchRanges(of: row, for: query, fields: fields)
                    #expect(some == full.filter { fields.contains($0.key) }, "\(scope) \(mode) \(fields)")
                }
            }
        }
    }

    @Test func aFieldThatIsNotSearchedIsUnknownToScopes() throws {
        // The sort field is a field of the index but not a search field: no scope may search it.
        #expect(throws: SiftError.unknownField("population")) {
            try SearchIndex(
                configuration: IndexConfiguration(
                    searchFields: ["name"],
                    scopes: [Scope(name: "All"), Scope(name: "Bad", fields: ["population"])],
                    sortField: "population"
                )
            )
        }
    }
}
