import Testing

@testable import Sift

/// Ids are the same id exactly when their Unicode scalars are: "é" (NFC) and "e\u{301}" (NFD)
/// are two records, in the library as in the `sift` tool (`SiftDatasetTests`, `SiftCLITests`).
@Suite("Record ids compare by Unicode scalars")
struct RecordIDTests {
    static let composed = "Jos\u{E9}"
    static let decomposed = "Jose\u{301}"

    @Test func canonicallyEquivalentIdsAreTwoRecords() throws {
        #expect(Self.composed == Self.decomposed)  // String equality says one
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: [
                Record(id: Self.composed, fields: ["name": "composed"]),
                Record(id: Self.decomposed, fields: ["name": "decomposed"]),
            ]
        )
        #expect(index.count == 2)
        let composed = try #require(index.handle(forID: Self.composed))
        let decomposed = try #require(index.handle(forID: Self.decomposed))
        #expect(try index.value(of: "name", for: composed) == "composed")
        #expect(try index.value(of: "name", for: decomposed) == "decomposed")
        #expect(Array(try index.id(of: decomposed).unicodeScalars) == Array(Self.decomposed.unicodeScalars))
        #expect(throws: SiftError.duplicateID(Self.decomposed)) {
            try index.insert(Record(id: Self.decomposed, fields: ["name": "again"]))
        }
        try index.remove(id: Self.composed)
        #expect(index.handle(forID: Self.composed) == nil)
        #expect(index.handle(forID: Self.decomposed) != nil)
    }
}
