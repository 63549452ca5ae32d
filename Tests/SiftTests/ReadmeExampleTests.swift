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
                sortField: "name"),
            records: [
                Record(id: "1", fields: ["name": "São Paulo", "country": "Brasil", "continent": "SA"]),
                Record(id: "2", fields: ["name": "Niño Jesús", "country": "España", "continent": "EU"]),
                Record(id: "3", fields: ["name": "Nino", "country": "Italia", "continent": "EU"]),
            ])
        let result = try index.search(Query("nino"))
        #expect(try result.rows.map { try index.id(of: $0) } == ["3"])
        #expect(result.scopeCounts.map(\.count) == [1, 1, 1])
        #expect(try index.search(Query("n", scope: "Name")).state == .tooShort(needed: 2))
        let paulo = try index.search(Query("PAULO")).rows[0]
        let name = try index.value(of: "name", for: paulo)
        #expect(try index.highlights(of: paulo, for: Query("PAULO"))["name"]!.map { String(name[$0]) } == ["Paulo"])
        try index.insert(Record(id: "4", fields: ["name": "Niño", "country": "Perú", "continent": "SA"]), at: 0)
        try index.update(Record(id: "3", fields: ["name": "Nino Bixio", "country": "Italia", "continent": "EU"]))
        try index.move(from: 0, to: 2)
        try index.remove(id: "1")
        #expect(try index.handles().map { try index.id(of: $0) } == ["2", "4", "3"])
    }
}
