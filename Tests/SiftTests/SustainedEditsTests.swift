import Foundation
import Testing
import _SiftTestSupport

@testable import Sift

/// Issue 14, item 8: memory under sustained edits. Edits leave dead bytes in the folded and text
/// columns and put updated records' segments away from their slot numbers; rebuilds, a bounded
/// piece per edit, give them back. Memory must stay near a fresh build of the same records, and
/// every answer, with rebuilds in progress or just finished, must equal a fresh build's and ICU
/// usearch's.
@Suite("Sustained edits: memory and answers")
struct SustainedEditsTests {
    static var configuration: IndexConfiguration { IndexConfiguration(searchFields: ["name", "other"]) }

    /// Mixed edits: a third each of inserts at random positions, updates and deletes (of random
    /// records), mirrored in `records`; `after(step, records)` runs after each.
    static func edit(
        _ index: SearchIndex,
        _ records: inout [Record],
        count: Int,
        names: [String],
        random: inout SeededGenerator,
        nextID: inout Int,
        after: (Int, [Record]) throws -> Void = { _, _ in }
    ) throws {
        func name() -> String { names[Int(random.next() % UInt64(names.count))] }
        for step in 0..<count {
            switch random.next() % 3 {
            case 0:
                let position = Int(random.next() % UInt64(records.count + 1))
                let record = Record(id: "n\(nextID)", fields: ["name": name(), "other": name()])
                nextID += 1
                try index.insert(record, at: position)
                records.insert(record, at: position)
            case 1 where !records.isEmpty:
                let position = Int(random.next() % UInt64(records.count))
                records[position] = Record(id: records[position].id, fields: ["name": name(), "other": name()])
                try index.update(records[position])
            default:
                guard !records.isEmpty else { continue }
                let position = Int(random.next() % UInt64(records.count))
                try index.remove(id: records[position].id)
                records.remove(at: position)
            }
            try after(step, records)
        }
    }

    static func initialRecords(_ count: Int, names: [String]) -> [Record] {
        (0..<count).map {
            Record(id: "r\($0)", fields: ["name": names[$0 % names.count], "other": names[(7 * $0 + 3) % names.count]])
        }
    }

    /// The parts of the index's memory that hold records (folded codes, record text), without
    /// the caches.
    static func recordBytes(_ usage: IndexMemoryUsage) -> Int {
        usage.foldedCodes + usage.foldedAuxiliary + usage.recordText
    }

    /// 40,000 edits over 20,000 records: without its caches, the index stays within 1.7× a fresh
    /// build of the same records with its spare capacity dropped (measured 1.31–1.61×: the
    /// original order in blocks, which inserts at random positions bring, the segment maps of
    /// updated records, and at the last checkpoint a rebuild in progress, which holds a copy of
    /// one column), and its folded codes and text within 1.45× (1.09–1.38×). With compaction
    /// switched off: 2.12–2.80×, and 1.77–2.20× for codes and text.
    ///
    /// The fresh build is trimmed because its capacities are otherwise whatever its buffers'
    /// doubling reached, which depends on the sizes the allocator handed out (from 1.2× to 1.9×
    /// its codes in runs of the same test): compared with that, the ratio moved by a tenth from
    /// run to run and once passed its bound.
    @Test func memoryAfterManyEditsStaysNearAFreshBuild() throws {
        let names = SweepLayoutTests.multilingualNames()
        var random = SeededGenerator(seed: 14)
        var records = Self.initialRecords(20_000, names: names)
        let index = try SearchIndex(configuration: Self.configuration, records: records)
        var nextID = 0
        try Self.edit(index, &records, count: 40_000, names: names, random: &random, nextID: &nextID) { step, records in
            guard step % 10_000 == 9999 else { return }
            let fresh = try SearchIndex(configuration: Self.configuration, records: records)
            fresh.trimCapacity()
            let edited = index.memoryUsage
            let built = fresh.memoryUsage
            let ratio = Double(edited.total - edited.caches) / Double(built.total)
            #expect(ratio <= 1.7, "after \(step + 1) edits: \(edited) against a fresh build's \(built)")
            let records = Double(Self.recordBytes(edited)) / Double(Self.recordBytes(built))
            #expect(records <= 1.45, "after \(step + 1) edits: \(edited) against a fresh build's \(built)")
        }
        #expect(index.folded.rebuildsFinished > 0)
    }

    /// Rebuilds in progress (small steps, so that each spans many edits and queries), just
    /// finished and started again: every answer equals a fresh build's and ICU usearch's, with the
    /// query cache kept across edits (narrowing and backspace) and emptied.
    @Test(arguments: [(UInt64(1), 16), (2, 256), (3, 4096)])
    func answersWithRebuildsInProgressEqualAFreshBuild(_ seed: UInt64, step: Int) throws {
        let names = SweepLayoutTests.multilingualNames()
        var random = SeededGenerator(seed: seed)
        var records = Self.initialRecords(500, names: names)
        let index = try SearchIndex(configuration: Self.configuration, records: records)
        index.knobs.rebuildStepBytes = step
        index.knobs.scanChunkBytes = 97  // many chunk boundaries
        let reference = try ReferenceSearch(collation: Collation())
        var nextID = 0
        var checkedDuringRebuild = 0
        try Self.edit(index, &records, count: 3000, names: names, random: &random, nextID: &nextID) { step, records in
            if step % 37 == 0 {
                // A keystroke as a user types it, through the cache.
                for typed in ["s", "sa", "san"] { _ = try index.search(Query(typed)) }
            }
            guard step % 300 == 299 else { return }
            if index.folded.rebuilding != nil { checkedDuringRebuild += 1 }
            let fresh = try SearchIndex(configuration: Self.configuration, records: records)
            for mode in [MatchMode.contains, .prefix, .words] {
                for query in ["a", "an", "san", "ia", "и", "ス", "o"] {
                    let cached = try index.ids(index.search(Query(query, mode: mode)))
                    index.discardCachedResults()
                    let scanned = try index.ids(index.search(Query(query, mode: mode)))
                    let expected = try fresh.ids(fresh.search(Query(query, mode: mode)))
                    #expect(
                        cached == expected,
                        "step \(step) \(mode) '\(query)' (cached): \(cached.count) of \(expected.count)"
                    )
                    #expect(
                        scanned == expected,
                        "step \(step) \(mode) '\(query)': \(scanned.count) of \(expected.count)"
                    )
                    if mode == .contains {
                        let usearch = try records.filter {
                            try reference.contains(query, in: $0["name"]) || reference.contains(query, in: $0["other"])
                        }.map(\.id)
                        #expect(
                            scanned == usearch,
                            "step \(step) '\(query)': \(scanned.count), ICU usearch \(usearch.count)"
                        )
                    }
                }
            }
            // Highlights read the folded segment too.
            if let first = try index.search(Query("a")).rows.first {
                let id = try index.id(of: first)
                let expected = try fresh.matchRanges(of: try #require(fresh.handle(forID: id)), for: Query("a"))
                #expect(try index.matchRanges(of: first, for: Query("a")) == expected)
            }
        }
        #expect(index.folded.rebuildsFinished > 0)
        #expect(checkedDuringRebuild > 0 || step >= 4096)
    }

    /// A snapshot saved while a rebuild is in progress holds the records as they are, and loads
    /// into an index that answers like a fresh build.
    @Test func snapshotDuringARebuildLoadsTheSameRecords() throws {
        let names = SweepLayoutTests.multilingualNames()
        var random = SeededGenerator(seed: 5)
        var records = Self.initialRecords(800, names: names)
        let index = try SearchIndex(configuration: Self.configuration, records: records)
        index.knobs.rebuildStepBytes = 8
        var nextID = 0
        var step = 0
        while index.folded.rebuilding == nil || step < 500 {
            try Self.edit(index, &records, count: 1, names: names, random: &random, nextID: &nextID)
            step += 1
            try #require(step < 50_000)
        }
        let path = testScratch.appendingPathComponent("sustained-\(getpid()).sift").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try index.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        let fresh = try SearchIndex(configuration: Self.configuration, records: records)
        #expect(try loaded.handles().map { try loaded.record($0) } == records)
        for query in ["a", "san", "и", "ia"] {
            #expect(try loaded.ids(loaded.search(Query(query))) == fresh.ids(fresh.search(Query(query))))
            #expect(try index.ids(index.search(Query(query))) == fresh.ids(fresh.search(Query(query))))
        }
    }
}
