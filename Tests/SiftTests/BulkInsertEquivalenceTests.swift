import Foundation
import Testing

@testable import Sift

/// The bulk insert (parallel folding and encoding, bulk id checks) must leave an index exactly as
/// one-by-one inserts do: the same buffers, code books, slots and errors.
@Suite("Bulk insert equals one-by-one inserts")
struct BulkInsertEquivalenceTests {
    /// Multilingual records: city and country names in many scripts, some in NFD, upper or lower
    /// case, empty or missing fields, an extra field.
    static let records: [Record] = {
        let cities = (try? readTSV("cities.tsv"))?.rows ?? []
        let names = ((try? readTSV("country_names_i18n.tsv"))?.rows ?? []).map { $0[3] }
        var random = SeededGenerator(seed: 42)
        return (0..<30_000).map { number in
            var name = cities.isEmpty ? "x\(number)" : cities[Int(random.next() % UInt64(cities.count))][1]
            var place = names.isEmpty ? "y\(number)" : names[Int(random.next() % UInt64(names.count))]
            switch random.next() % 10 {
            case 0: name = name.decomposedStringWithCanonicalMapping
            case 1: name = name.uppercased()
            case 2: place = ""
            case 3: place = place.lowercased() + " \(number)"
            default: break
            }
            var fields = ["name": name, "continent": ["EU", "AS", "SA"][number % 3]]
            if number % 17 != 0 { fields["place"] = place }
            return Record(id: "r\(number)", fields: fields)
        }
    }()

    static let configuration = IndexConfiguration(
        searchFields: ["name", "place"], collation: Collation(locale: "de"),
        scopes: [
            Scope(name: "All"),
            Scope(name: "Exact", collation: Collation(locale: "es", strength: .tertiary)),
            Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"])),
        ])

    /// Checks that two indexes hold the same data, buffer by buffer.
    static func expectSame(_ a: SearchIndex, _ b: SearchIndex, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.count == b.count, sourceLocation: sourceLocation)
        #expect(a.order.array == b.order.array, sourceLocation: sourceLocation)
        #expect(a.generations == b.generations, sourceLocation: sourceLocation)
        #expect(a.live.words == b.live.words, sourceLocation: sourceLocation)
        #expect(a.freeSlots == b.freeSlots, sourceLocation: sourceLocation)
        #expect(a.revision == b.revision, sourceLocation: sourceLocation)
        #expect(a.fieldNames == b.fieldNames, sourceLocation: sourceLocation)
        for (x, y) in zip([a.ids] + a.values, [b.ids] + b.values) {
            #expect(x.bytes == y.bytes && x.starts == y.starts && x.lengths == y.lengths, sourceLocation: sourceLocation)
        }
        #expect(a.values.count == b.values.count, sourceLocation: sourceLocation)
        for (f, g) in zip(a.foldings, b.foldings) {
            #expect(f.codeBook.elementsInCodeOrder == g.codeBook.elementsInCodeOrder, sourceLocation: sourceLocation)
            for (c, d) in zip(f.columns, g.columns) {
                let s = c.storage, t = d.storage
                #expect(s.codes == t.codes, sourceLocation: sourceLocation)
                #expect(s.wordStarts == t.wordStarts, sourceLocation: sourceLocation)
                #expect(s.segmentStarts == t.segmentStarts, sourceLocation: sourceLocation)
                #expect(s.segmentOwners == t.segmentOwners, sourceLocation: sourceLocation)
                #expect(s.segmentFlags == t.segmentFlags, sourceLocation: sourceLocation)
                #expect(s.flags == t.flags, sourceLocation: sourceLocation)
                #expect(s.segmentOffsets == t.segmentOffsets, sourceLocation: sourceLocation)
                #expect(s.offsets == t.offsets, sourceLocation: sourceLocation)
                #expect(s.slotSegments == t.slotSegments, sourceLocation: sourceLocation)
            }
        }
        for id in ["r0", "r1", "r17", "r9999", "r29999", "nope", "old3"] {
            #expect(a.handle(forID: id) == b.handle(forID: id), sourceLocation: sourceLocation)
        }
    }

    /// An index with some records, some of them removed (free slots), the sorted order, the
    /// category members and cached results built: the state later inserts must keep current.
    static func used() throws -> SearchIndex {
        let index = try SearchIndex(configuration: configuration)
        for number in 0..<300 {
            try index.insert(Record(id: "old\(number)", fields: ["name": "Ölstadt \(number)", "continent": "EU"]))
        }
        for number in stride(from: 0, to: 300, by: 7) { try index.remove(id: "old\(number)") }
        _ = index.handles(in: .sorted)
        _ = try index.search(Query("stra", scope: "Europe"))
        _ = try index.search(Query("o", scope: "Exact"))
        return index
    }

    @Test(arguments: [65_536, 4_096, 1_000])
    func bulkInsertEqualsOneByOne(batchSize: Int) throws {
        let bulk = try SearchIndex(configuration: Self.configuration)
        bulk.bulkBatchSize = batchSize
        try bulk.insert(contentsOf: Self.records)
        let single = try SearchIndex(configuration: Self.configuration)
        for record in Self.records { try single.insert(record) }
        Self.expectSame(bulk, single)
    }

    @Test func bulkInsertIntoAUsedIndexEqualsOneByOne() throws {
        let bulk = try Self.used()
        bulk.bulkBatchSize = 3_000
        try bulk.insert(contentsOf: Self.records)
        let single = try Self.used()
        for record in Self.records { try single.insert(record) }
        Self.expectSame(bulk, single)
        for query in ["stra", "o", "berl", "ö"] {
            for scope in ["All", "Exact", "Europe"] {
                #expect(try bulk.ids(bulk.search(Query(query, scope: scope))) == single.ids(single.search(Query(query, scope: scope))))
            }
        }
        #expect(try bulk.handles(in: .sorted).map { try bulk.id(of: $0) } == single.handles(in: .sorted).map { try single.id(of: $0) })
    }

    /// Duplicates: of an earlier record in the same batch, in an earlier batch, and of a record
    /// already in the index; the records before the first stay inserted, as one by one.
    @Test(arguments: [(20_000, 19_999), (20_000, 5), (9_000, 3), (29_999, -1), (0, -1), (4_000, 4_000)])
    func aDuplicateStopsWhereOneByOneInsertsStop(at position: Int, copying source: Int) throws {
        var records = Self.records
        records[position] = Record(
            id: source >= 0 ? "r\(source)" : "old1", fields: ["name": "Duplikat \(source)", "place": "ß"])
        if source == position { records[position + 10] = records[position] }
        let bulk = try Self.used()
        bulk.bulkBatchSize = 4_096
        var bulkError: SiftError? = nil
        do { try bulk.insert(contentsOf: records) } catch { bulkError = error }
        let single = try Self.used()
        var singleError: SiftError? = nil
        for record in records {
            do { try single.insert(record) } catch {
                singleError = error
                break
            }
        }
        #expect(bulkError != nil)
        #expect(bulkError == singleError)
        Self.expectSame(bulk, single)
    }
}
