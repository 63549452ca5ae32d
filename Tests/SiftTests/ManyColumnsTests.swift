import Testing

@testable import Sift

/// An index over very many fields: finding each field's position is a dictionary lookup, so
/// opening an index over 200,000 search fields takes time linear in them (it once took time
/// quadratic in them: 0.5 s at 10,000 columns, never finishing at 1,000,000).
@Suite("Many columns", .timeLimit(.minutes(1)))
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
        let plans = index.scopePlans
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
