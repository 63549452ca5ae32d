import Foundation
import SiftStorage
import Testing

@testable import Sift

/// A wide index of few records keeps its columns pooled (`PooledColumns`, issue 27's wide
/// headers), and answers exactly as the same index with every column its own: every mode and
/// order, values, highlights, through edits, compaction, renumbering and snapshots, and once its
/// columns outgrow the pool.
@Suite("Pooled columns")
struct PooledColumnsTests {
    static let fields = (0..<48).map { "f\($0)" }
    static let words = [
        "Zürich", "zurich", "Straße", "strasse", "niño", "東京都", "ありがとう", "José María", "",
        "Ålborg fjord", "naïve café", "Σωκράτης", "Москва", "a", "x-ray 12", "e\u{301}te\u{301}",
    ]

    /// A record whose fields take words by a seed (some fields left out).
    static func record(_ id: Int, seed: Int) -> Record {
        var fields: [String: String] = [:]
        for (n, field) in Self.fields.enumerated() where (n * 7 + seed) % 5 != 0 {
            fields[field] = Self.words[(n * 13 + seed * 3) % Self.words.count] + " \(seed % 4)"
        }
        return Record(id: "r\(id)", fields: fields)
    }

    /// Two indexes over the same fields: one pooling from 8 fields, one never.
    static func pair(_ configuration: IndexConfiguration) throws -> (pooled: SearchIndex, plain: SearchIndex) {
        let pooled = try SearchIndex(configuration: configuration)
        pooled.knobs.poolColumnsFromFields = 8
        pooled.knobs.rebuildStepBytes = 64
        let plain = try SearchIndex(configuration: configuration)
        plain.knobs.poolColumnsFromFields = .max
        plain.knobs.rebuildStepBytes = 64
        return (pooled, plain)
    }

    static let queries = ["zur", "strasse", "nino", "東京", "jose ma", "a", "2", "cafe", "σω", "ete", "fjord 1", "x"]

    /// The answers of both indexes agree: rows in every mode and order, values, highlights.
    static func expectSameAnswers(_ a: SearchIndex, _ b: SearchIndex, _ context: String) throws {
        #expect(a.count == b.count, "\(context)")
        for text in queries {
            for mode in [MatchMode.contains, .prefix, .words, .fuzzy] {
                for order in [ResultOrder.original, .sorted, .ranked] {
                    let query = Query(text, mode: mode, order: order)
                    let left = try a.search(query).rows.map { try a.id(of: $0) }
                    let right = try b.search(query).rows.map { try b.id(of: $0) }
                    #expect(left == right, "\(context): \(text) \(mode) \(order)")
                }
            }
            let query = Query(text, mode: .words)
            for row in try a.search(query).rows.prefix(3) {
                let id = try a.id(of: row)
                let other = try #require(try b.search(query).rows.first { try b.id(of: $0) == id })
                #expect(try a.matchRanges(of: row, for: query) == b.matchRanges(of: other, for: query), "\(context)")
                for field in fields.prefix(6) {
                    #expect(try a.value(of: field, for: row) == b.value(of: field, for: other), "\(context)")
                }
            }
        }
    }

    /// Updates the record of that id, or inserts it.
    static func upsert(_ record: Record, into index: SearchIndex) throws {
        if (try? index.search(Query("")).rows.contains { try index.id(of: $0) == record.id }) == true {
            _ = try index.update(record)
        } else {
            _ = try index.insert(record)
        }
    }

    @Test func aWideIndexOfFewRecordsPoolsAndAnswersAsUnpooled() throws {
        let (pooled, plain) = try Self.pair(IndexConfiguration(searchFields: Self.fields, sortField: "f1"))
        for id in 0..<6 {
            _ = try pooled.insert(Self.record(id, seed: id))
            _ = try plain.insert(Self.record(id, seed: id))
        }
        #expect(pooled.folded.foldings.allSatisfy { $0.columns.isPooled } && pooled.records.values.isPooled)
        #expect(!plain.records.values.isPooled)
        pooled.checkInvariants()
        try Self.expectSameAnswers(pooled, plain, "inserted")

        // Edits: updates, removals, re-inserts, a move; compaction.
        for round in 0..<12 {
            for index in [pooled, plain] {
                try Self.upsert(Self.record(round % 6, seed: round + 7), into: index)
                if round % 3 == 0 { try? index.remove(id: "r\((round + 2) % 6)") }
                if round % 3 == 2 {
                    try Self.upsert(Self.record(round == 5 ? 40 : (round + 1) % 6, seed: round), into: index)
                }
                if index.count > 2 { try index.move(from: 0, to: index.count - 1) }
            }
        }
        #expect(pooled.records.values.isPooled)
        pooled.checkInvariants()
        try Self.expectSameAnswers(pooled, plain, "edited")
        pooled.compactNow()
        plain.compactNow()
        try Self.expectSameAnswers(pooled, plain, "compacted")

        // A snapshot of each loads and answers alike, pooled again when the loader pools.
        let path = SnapshotTests.temporaryPath("pooled.sift")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try pooled.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        loaded.checkInvariants()
        try Self.expectSameAnswers(loaded, plain, "loaded")
    }

    /// Columns that outgrow the pool end it (every column unpacked), and the answers stay exact.
    @Test func columnsThatOutgrowThePoolEndIt() throws {
        let (pooled, plain) = try Self.pair(IndexConfiguration(searchFields: Self.fields))
        var id = 0
        repeat {
            _ = try pooled.insert(Self.record(id, seed: id))
            _ = try plain.insert(Self.record(id, seed: id))
            id += 1
            #expect(id < 400, "pooling never ended")
            if id >= 400 { return }
        } while pooled.folded.foldings[0].columns.isPooled || pooled.records.values.isPooled
        #expect(id > 6, "ended after \(id) records")
        pooled.checkInvariants()
        try Self.expectSameAnswers(pooled, plain, "unpooled after \(id) records")
        for round in 0..<20 {
            try Self.upsert(Self.record(round, seed: round * 5), into: pooled)
            try Self.upsert(Self.record(round, seed: round * 5), into: plain)
        }
        try Self.expectSameAnswers(pooled, plain, "edited after unpooling")
    }

    /// A packed column reads back equal, whatever it holds: the packing writes every buffer.
    @Test func packedColumnsReadBackEqual() throws {
        var columns = FoldedColumns(count: 16, poolingMinimum: 1)
        var texts = TextColumns(count: 16, poolingMinimum: 1)
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["a"]))
        for (n, word) in Self.words.enumerated() {
            _ = try index.insert(Record(id: "\(n)", fields: ["a": word]))
        }
        let column = index.folded.foldings[0].columns[0]
        for position in 0..<16 where position % 3 != 0 {
            columns[position] = column
            texts[position] = index.records.values[0]
        }
        #expect(columns.isPooled && texts.isPooled)
        for position in 0..<16 {
            #expect(columns[position].storage.codes == (position % 3 != 0 ? column.storage.codes : [0]))
            #expect(columns[position].storage.segmentStarts == (position % 3 != 0 ? column.storage.segmentStarts : []))
            let text = texts[position]
            for slot in 0..<Int32(Self.words.count) {
                #expect(text.string(slot) == (position % 3 != 0 ? Self.words[Int(slot)] : ""))
            }
        }
    }

    /// A rewrite puts every column it wrote back as it was (however often it wrote it), keeps
    /// them when ended, and, when a write would end pooling, rolls back before unpooling.
    @Test func aRewriteRollsBackOrKeepsEveryColumn() {
        var texts = TextColumns(count: 16, poolingMinimum: 1)
        for position in 0..<16 where position % 4 != 0 { texts[position].set(0, "v\(position)") }
        func values(_ texts: TextColumns) -> [String] { (0..<16).map { texts[$0].string(0) } }
        let before = values(texts)
        let opened = texts.beginRewrite(reservingColumns: 16)
        #expect(opened)
        for round in 0..<3 {
            for position in 0..<16 { texts[position].set(0, "new \(position) \(round)") }
        }
        texts[5].set(0, "")
        #expect(values(texts) != before)
        texts.rollBackRewrite()
        #expect(values(texts) == before)

        let reopened = texts.beginRewrite()
        #expect(reopened)
        for position in 0..<16 { texts[position].set(0, "kept \(position)") }
        texts.endRewrite()
        let kept = values(texts)
        #expect(kept == (0..<16).map { "kept \($0)" })

        // Past `maximumPackedBytes`: pooling ends with the columns as the rewrite found them.
        let third = texts.beginRewrite()
        #expect(third)
        texts[1].set(0, "changed")
        texts[2].set(0, String(repeating: "long ", count: 400))
        #expect(!texts.isPooled)
        #expect(values(texts) == kept)
        let unpooled = texts.beginRewrite()
        #expect(!unpooled, "no rewrite of unpooled columns")
    }

    /// A mutation that changes nothing (a scan that takes its column in place) leaves no dead
    /// copy in the pool, and queries read pooled columns without writing them.
    @Test func unchangedColumnsAreNotWrittenAgain() throws {
        let small = try SearchIndex(configuration: IndexConfiguration(searchFields: ["a"]))
        _ = try small.insert(Record(id: "1", fields: ["a": "Zürich"]))
        var columns = FoldedColumns(count: 16, poolingMinimum: 1)
        for position in 0..<16 { columns[position] = small.folded.foldings[0].columns[0] }
        #expect(columns.isPooled && columns.deadPackedBytes == 0)
        for position in 0..<16 { columns[position].prefetch(slot: 0) }  // mutating, changes nothing
        #expect(columns.deadPackedBytes == 0)
        columns[3] = FoldedColumn()
        columns[4].remove(slot: 0)
        #expect(columns.deadPackedBytes > 0)

        let (pooled, _) = try Self.pair(IndexConfiguration(searchFields: Self.fields))
        for id in 0..<3 { _ = try pooled.insert(Self.record(id, seed: id)) }
        let dead = pooled.folded.foldings.map(\.columns.deadPackedBytes)
        for text in Self.queries {
            for mode in [MatchMode.contains, .prefix, .words, .fuzzy] {
                for row in try pooled.search(Query(text, mode: mode, order: .ranked)).rows {
                    _ = try pooled.matchRanges(of: row, for: Query(text, mode: mode))
                }
            }
            _ = try pooled.search(Query(text, mode: .words, typos: .auto))
        }
        #expect(pooled.folded.foldings.map(\.columns.deadPackedBytes) == dead)
    }

    /// A record of pooled columns is folded straight into them: its batch holds no element (9
    /// bytes each, more than its pooled columns take), and its texts are one run of streamed ones.
    @Test func aWideRecordIsFoldedStraightIntoItsColumns() throws {
        let (pooled, plain) = try Self.pair(IndexConfiguration(searchFields: Self.fields))
        var batch = FoldedBatch()
        let record = Self.record(1, seed: 3)
        try pooled.fold(record, folders: pooled.folded.foldings.map(\.folder), into: &batch)
        #expect(batch.elements.isEmpty && batch.streamed == [0..<Self.fields.count])
        batch.withView { view in
            #expect(view.isStreamed(0) && view.isStreamed(Self.fields.count - 1) && !view.isStreamed(Self.fields.count))
            #expect(view.hasStreamed(3..<4) && !view.hasStreamed(Self.fields.count..<(Self.fields.count + 2)))
        }
        batch.removeAll()
        try plain.fold(record, folders: plain.folded.foldings.map(\.folder), into: &batch)
        #expect(!batch.elements.isEmpty && batch.streamed.isEmpty)
    }

    /// The figure issue 27 asks for: a header of 20,000 columns and one row holds at most 200
    /// bytes a column, all counted: 119 pooled; 458 with a folded and a text column per field
    /// (`poolColumnsFromFields = .max`), and more in allocations `memoryUsage` does not see.
    @Test func aWideRowHoldsAtMost200BytesAColumn() throws {
        let fields = (0..<20_000).map { "c\($0)" }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: fields))
        var values: [String: String] = [:]
        for (n, field) in fields.enumerated() { values[field] = "w\(n)" }
        _ = try index.insert(Record(id: "1", fields: values))
        #expect(index.folded.foldings.allSatisfy { $0.columns.isPooled } && index.records.values.isPooled)
        let perColumn = index.memoryUsage.total / fields.count
        #expect(perColumn <= 200, "\(perColumn) bytes a column")
        #expect(try index.search(Query("w19999")).rows.count == 1)
        #expect(try index.search(Query("w19999", mode: .words)).rows.count == 1)
        #expect(try index.search(Query("w20000")).rows.count == 0)
        // A ranked query builds the ranking keys: pooled fields share their tables of lengths
        // (here one per length, 2 to 6 elements), not one allocation per field.
        #expect(try index.search(Query("w1999", order: .ranked)).rows.count == 1)
        let tables = Set(
            index.rankingKeys.lengths[0].map { $0.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        )
        #expect(tables.count <= 8, "\(tables.count) tables of lengths")
    }
}
