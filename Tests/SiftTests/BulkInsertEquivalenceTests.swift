import Foundation
import SiftStorage
import Testing

@testable import Sift

/// The bulk insert (parallel folding and encoding, bulk id checks) must leave an index exactly as
/// one-by-one inserts do: the same buffers, code books, slots and errors.
@Suite("Bulk insert equals one-by-one inserts", .serialized)  // one at a time: they are long and synchronous
struct BulkInsertEquivalenceTests {
    /// Multilingual records: city and country names in many scripts, some in NFD, upper or lower
    /// case, empty or missing fields, an extra field.
    static let records: [Record] = {
        let cities = (try? readTSV("cities.tsv"))?.rows ?? []
        let names = ((try? readTSV("country_names_i18n.tsv"))?.rows ?? []).map { $0[3] }
        var random = SeededGenerator(seed: 42)
        return (0..<12_000).map { number in
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
            if number == 9_345 { fields["note"] = "spät" }  // fields first seen late, one of them empty
            if number == 10_000 { fields["zone"] = "" }
            return Record(id: "r\(number)", fields: fields)
        }
    }()

    static let configuration = IndexConfiguration(
        searchFields: ["name", "place"],
        collation: Collation(locale: "de"),
        scopes: [
            Scope(name: "All"),
            Scope(name: "Exact", collation: Collation(locale: "es", strength: .tertiary)),
            Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"])),
        ]
    )

    /// Checks that two indexes hold the same data, buffer by buffer (naming the first that differs),
    /// as reads see it: with the word starts that single-record edits deferred added.
    static func expectSame(_ a: SearchIndex, _ b: SearchIndex, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: Never.self) {
            try a.addDeferredWordStarts()
            try b.addDeferredWordStarts()
        }
        var differences: [String] = []
        func check(_ same: Bool, _ what: String) { if !same { differences.append(what) } }
        check(a.count == b.count, "count")
        check(a.orders.order.array == b.orders.order.array, "order")
        check(a.orderFollowsSlots == b.orderFollowsSlots, "orderFollowsSlots")
        check(a.records.generations == b.records.generations, "generations")
        check(a.records.live.words == b.records.live.words, "live")
        check(a.records.freeSlots == b.records.freeSlots, "freeSlots")
        check(a.revision == b.revision, "revision")
        check(a.fieldNames == b.fieldNames, "fieldNames")
        check(a.records.values.count == b.records.values.count, "values.count")
        for (number, (x, y)) in zip([a.records.ids] + a.records.values, [b.records.ids] + b.records.values).enumerated()
        {
            let sameValues =
                x.slotCount == y.slotCount
                && (0..<x.slotCount).allSatisfy { x.string(Int32($0)) == y.string(Int32($0)) }
            check(sameValues, "text column \(number)")
        }
        for (f, (x, y)) in zip(a.folded.foldings, b.folded.foldings).enumerated() {
            check(x.codeBook.elementsInCodeOrder == y.codeBook.elementsInCodeOrder, "code book \(f)")
            for (c, (m, n)) in zip(x.columns, y.columns).enumerated() {
                let s = m.storage
                let t = n.storage
                check(s.codes == t.codes, "codes \(f).\(c)")
                check(s.wordStarts == t.wordStarts, "wordStarts \(f).\(c)")
                check(s.segmentStarts == t.segmentStarts, "segmentStarts \(f).\(c)")
                check(s.segmentOwners == t.segmentOwners, "segmentOwners \(f).\(c)")
                check(s.segmentFlags == t.segmentFlags, "segmentFlags \(f).\(c)")
                check(s.flags == t.flags, "flags \(f).\(c)")
                let slots = max(m.slotCount, n.slotCount)
                check(
                    (0..<Int32(slots)).allSatisfy { m.segment(ofSlot: $0) == n.segment(ofSlot: $0) },
                    "slot segments \(f).\(c)"
                )
                let words = (m.segmentCount + 63) / 64
                check(m.checkedSegments.prefix(words) == n.checkedSegments.prefix(words), "checkedSegments \(f).\(c)")
            }
        }
        for id in ["r0", "r1", "r17", "r9999", "r11999", "nope", "old3"] {
            // The same slot and generation (each index tags its handles: see ForeignHandleTests).
            let (x, y) = (a.handle(forID: id), b.handle(forID: id))
            check(
                x?.slot == y?.slot
                    && x.map { $0.generation & SlotGenerations.mask }
                        == y.map { $0.generation & SlotGenerations.mask },
                "handle(forID: \(id))"
            )
        }
        #expect(differences.isEmpty, "\(differences)", sourceLocation: sourceLocation)
    }

    /// An index with some records, some of them removed (free slots), and (`built`) the sorted
    /// order, the category members and cached results built: the state later inserts must keep
    /// current.
    static func used(built: Bool = true) throws -> SearchIndex {
        let index = try SearchIndex(configuration: configuration)
        for number in 0..<300 {
            try index.insert(Record(id: "old\(number)", fields: ["name": "Ölstadt \(number)", "continent": "EU"]))
        }
        for number in stride(from: 0, to: 300, by: 7) { try index.remove(id: "old\(number)") }
        guard built else { return index }
        _ = index.handles(in: .sorted)
        _ = try index.search(Query("stra", scope: "Europe"))
        _ = try index.search(Query("o", scope: "Exact"))
        return index
    }

    @Test func bulkInsertEqualsOneByOne() throws {
        let single = try SearchIndex(configuration: Self.configuration)
        for record in Self.records { try single.insert(record) }
        // Chinese, Japanese and Thai places: single inserts left their word starts for later.
        #expect(single.folded.slotsAwaitingWordStarts.count == SearchIndex.maximumSlotsAwaitingWordStarts)
        for batchSize in [65_536, 4_096, 1_000] {
            let bulk = try SearchIndex(configuration: Self.configuration)
            bulk.knobs.bulkBatchSize = batchSize
            try bulk.insert(contentsOf: Self.records)
            Self.expectSame(bulk, single)
        }
    }

    /// From 65,536 records on, the spare capacity is dropped at the end: the contents stay those
    /// of smaller batches (which the other tests compare with one-by-one inserts).
    @Test func aLargeBulkInsertEqualsSmallBatches() throws {
        let records = (0..<6).flatMap { copy in
            Self.records.map { Record(id: "\(copy)-\($0.id)", fields: $0.fields) }
        }
        let large = try SearchIndex(configuration: Self.configuration, records: records)
        let small = try SearchIndex(configuration: Self.configuration)
        small.knobs.bulkBatchSize = 5_000
        try small.insert(contentsOf: records)
        Self.expectSame(large, small)
    }

    @Test(arguments: [true, false])
    func bulkInsertIntoAUsedIndexEqualsOneByOne(built: Bool) throws {
        let bulk = try Self.used(built: built)
        bulk.knobs.bulkBatchSize = 3_000
        try bulk.insert(contentsOf: Self.records)
        let single = try Self.used(built: built)
        for record in Self.records { try single.insert(record) }
        Self.expectSame(bulk, single)
        for query in ["stra", "o", "berl", "ö"] {
            for scope in ["All", "Exact", "Europe"] {
                #expect(
                    try bulk.ids(bulk.search(Query(query, scope: scope)))
                        == single.ids(single.search(Query(query, scope: scope)))
                )
            }
        }
        #expect(
            try bulk.handles(in: .sorted).map { try bulk.id(of: $0) }
                == single.handles(in: .sorted).map { try single.id(of: $0) }
        )
    }

    /// Below 8,192 records, records are committed one by one after folding: the same state and
    /// the same error as inserting them one by one.
    @Test func aSmallBatchWithADuplicateStopsAtIt() throws {
        var records = Array(Self.records.prefix(500))
        records[300] = Record(id: "r120", fields: ["name": "Duplikat"])
        let batch = try Self.used(built: false)
        #expect(throws: SiftError.duplicateID("r120")) { try batch.insert(contentsOf: records) }
        let single = try Self.used(built: false)
        for record in records.prefix(300) { try single.insert(record) }
        Self.expectSame(batch, single)
    }

    /// Duplicates: of an earlier record in the same batch, in an earlier batch, and of a record
    /// already in the index; the records before the first stay inserted, as one by one.
    @Test(arguments: [(10_000, 9_999), (9_000, 3), (11_999, -1), (0, -1)])
    func aDuplicateStopsWhereOneByOneInsertsStop(at position: Int, copying source: Int) throws {
        var records = Self.records
        records[position] = Record(
            id: source >= 0 ? "r\(source)" : "old1",
            fields: ["name": "Duplikat \(source)", "place": "ß"]
        )
        let bulk = try Self.used()
        bulk.knobs.bulkBatchSize = 4_096
        var bulkError: SiftError? = nil
        do { try bulk.insert(contentsOf: records) } catch { bulkError = error }
        // `insert(contentsOf:)` registers the field names of every record, even past the failure.
        let single = try Self.used()
        single.registerFields(of: records)
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
