import Foundation
import Testing
import _SiftTestSupport

@testable import Sift

@Suite("Durable snapshots")
struct SnapshotTests {
    static func temporaryPath(_ name: String) -> String {
        testScratch.appendingPathComponent("sift-snap-\(UUID().uuidString)-\(name)").path
    }

    static func sampleIndex() throws -> SearchIndex {
        let cities = try readTSV("cities.tsv")
        let name = cities.header.firstIndex(of: "name")!
        let country = cities.header.firstIndex(of: "country_name")!
        let continent = cities.header.firstIndex(of: "continent_code")!
        let records = cities.rows.prefix(3000).enumerated().map {
            Record(
                id: "c\($0.offset)",
                fields: ["name": $0.element[name], "country": $0.element[country], "continent": $0.element[continent]]
            )
        }
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "country"],
                collation: Collation(locale: "de"),
                scopes: [
                    Scope(name: "All"), Scope(name: "Name", fields: ["name"], minimumLength: 2),
                    Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"])),
                    Scope(name: "Spanish", collation: Collation(locale: "es")),
                ],
                sortField: "name"
            ),
            records: records
        )
        // Edits, so that slots are no longer contiguous or in order.
        try index.remove(id: "c5")
        try index.move(from: 10, to: 0)
        try index.update(Record(id: "c20", fields: ["name": "Straße", "country": "Deutschland", "continent": "EU"]))
        try index.insert(Record(id: "new", fields: ["name": "Ñuñoa", "country": "Chile", "continent": "SA"]), at: 3)
        index.metadata = ["source": "cities.tsv", "note": "ünïcödé"]
        return index
    }

    static let queries: [Query] =
        ["a", "sa", "strasse", "nino", "zür", "san j"].flatMap { text in
            ["All", "Name", "Europe", "Spanish"].flatMap { scope in
                MatchMode.allCases.map { Query(text, scope: scope, mode: $0, order: .original) }
            }
        } + [Query("s", order: .sorted), Query("pa", order: .ranked)]

    @Test func aSavedIndexLoadsWithTheSameAnswers() throws {
        let index = try Self.sampleIndex()
        let path = Self.temporaryPath("round.siftidx")
        try index.save(to: path)
        let loaded = try SearchIndex.load(from: path)
        #expect(loaded.metadata == index.metadata)
        #expect(loaded.configuration == index.configuration)
        #expect(try loaded.handles().map { try loaded.id(of: $0) } == index.handles().map { try index.id(of: $0) })
        for query in Self.queries {
            let a = try index.search(query)
            let b = try loaded.search(query)
            #expect(try index.ids(a) == loaded.ids(b), "\(query)")
            #expect(a.scopeCounts == b.scopeCounts)
            for (x, y) in zip(a.rows.prefix(20), b.rows.prefix(20)) {
                #expect(try index.matchRanges(of: x, for: query) == loaded.matchRanges(of: y, for: query))
            }
        }
        #expect(
            try loaded.record(#require(loaded.handle(forID: "c20")))
                == index.record(#require(index.handle(forID: "c20")))
        )
        // The loaded index is fully editable.
        try loaded.insert(Record(id: "after", fields: ["name": "Strasbourg"]))
        #expect(try loaded.ids(loaded.search(Query("strasb"))).contains("after"))
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }

    @Test func truncatedFilesAreReportedAtEveryLength() throws {
        let path = Self.temporaryPath("t.siftidx")
        try Self.sampleIndex().save(to: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for cut in [0, 4, 8, 20, 31, 32, 33, 100, bytes.count / 2, bytes.count - 1] {
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: path))
            #expect {
                _ = try SearchIndex.load(from: path)
            } throws: { error in
                guard case SiftError.snapshot(_, let reason) = error else { return false }
                return cut < 8 ? reason.contains("not a Sift") : reason.contains("truncated")
            }
        }
    }

    @Test func corruptionIsDetectedByTheChecksum() throws {
        let path = Self.temporaryPath("c.siftidx")
        try Self.sampleIndex().save(to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var generator = SeededGenerator(seed: 9)
        for _ in 0..<20 {
            var copy = bytes
            let position = Int.random(in: 32..<copy.count, using: &generator)
            copy[position] ^= UInt8.random(in: 1...255, using: &generator)
            try copy.write(to: URL(fileURLWithPath: path))
            #expect(throws: SiftError.snapshot(path: path, reason: "corrupted: checksum mismatch")) {
                try SearchIndex.load(from: path)
            }
        }
        bytes[8] = 9  // format version 9
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(
            throws: SiftError.snapshot(
                path: path,
                reason: "format version 9; this Sift reads version \(SnapshotFile.version)"
            )
        ) {
            try SearchIndex.load(from: path)
        }
        bytes[8] = 2  // an older format: the message says what to do
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(
            throws: SiftError.snapshot(
                path: path,
                reason:
                    "format version 2; this Sift reads version \(SnapshotFile.version): rebuild the snapshot from the data"
            )
        ) {
            try SearchIndex.load(from: path)
        }
    }

    /// Damage that slips past the checksum (it is recomputed here) must still never crash or
    /// answer wrongly: it is rejected by the structural checks, or it loads an index whose
    /// queries run.
    @Test func damageBehindAValidChecksumNeverCrashes() throws {
        let path = Self.temporaryPath("d.siftidx")
        try Self.sampleIndex().save(to: path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        var generator = SeededGenerator(seed: 11)
        var rejected = 0
        for _ in 0..<150 {
            var copy = [UInt8](original)
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 32..<copy.count, using: &generator)
                copy[position] = UInt8.random(in: 0...255, using: &generator)
            }
            Self.fixChecksum(&copy)
            try Data(copy).write(to: URL(fileURLWithPath: path))
            do {
                let index = try SearchIndex.load(from: path)
                for query in ["a", "st", "zü"] {
                    let result = try index.search(Query(query))
                    for row in result.rows.prefix(5) { _ = try index.highlights(of: row, for: Query(query)) }
                }
            } catch is SiftError {
                rejected += 1
            }
        }
        #expect(rejected > 0)
    }

    /// Damaged magic bytes in a file that is otherwise a snapshot's are reported as a damaged
    /// snapshot, not as something else.
    @Test(arguments: [[0], [0, 1, 2], [7], Array(0..<8)])
    func damagedMagicBytesAreReportedAsADamagedSnapshot(positions: [Int]) throws {
        let path = Self.temporaryPath("m.siftidx")
        try Self.sampleIndex().save(to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for position in positions { bytes[position] ^= 0x20 }
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SearchIndex.load(from: path)
        } throws: { error in
            guard case SiftError.snapshot(_, let reason) = error else { return false }
            return reason.hasPrefix("looks like a damaged Sift index snapshot")
        }
        // Without the rest of a snapshot's header, eight wrong bytes are just not a snapshot.
        for position in 8..<32 { bytes[position] = 0 }
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(
            SnapshotSignature.classify(header: Array(bytes.prefix(32)), fileSize: bytes.count)
                == (positions.count > 3 ? .other : .damagedSnapshot)
        )
    }

    @Test func anotherICUCollationVersionIsRefused() throws {
        let path = Self.temporaryPath("v.siftidx")
        try Self.sampleIndex().save(to: path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // Change the stored collator version string ("a.b.c.d") and keep the checksum valid.
        let version = Array(try ICUCollator(Collation(locale: "de")).version.utf8)
        let position = try #require(
            bytes.indices.dropFirst(32).first {
                bytes[$0..<min(bytes.count, $0 + version.count)].elementsEqual(version)
            }
        )
        bytes[position] = bytes[position] == UInt8(ascii: "9") ? UInt8(ascii: "8") : UInt8(ascii: "9")
        Self.fixChecksum(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SearchIndex.load(from: path)
        } throws: { error in
            guard case SiftError.snapshot(_, let reason) = error else { return false }
            return reason.contains("rebuild the snapshot")
        }
    }

    @Test func notASnapshotAndUnwritablePathsAreClearErrors() throws {
        #expect(
            throws: SiftError.snapshot(
                path: Paths.data.appendingPathComponent("cities.tsv").path,
                reason: "not a Sift index snapshot"
            )
        ) {
            try SearchIndex.load(from: Paths.data.appendingPathComponent("cities.tsv").path)
        }
        #expect {
            _ = try SearchIndex.load(from: "/nonexistent/x.siftidx")
        } throws: { error in
            guard case SiftError.snapshot(_, let reason) = error else { return false }
            return reason.contains("cannot open")
        }
        let index = try Self.sampleIndex()
        #expect {
            try index.save(to: "/nonexistent-directory/x.siftidx")
        } throws: { error in
            guard case SiftError.snapshot(_, let reason) = error else { return false }
            return reason.contains("cannot create")
        }
        // Saving over an existing snapshot replaces it whole.
        let path = Self.temporaryPath("over.siftidx")
        try index.save(to: path)
        try index.remove(id: "c0")
        try index.save(to: path)
        #expect(try SearchIndex.load(from: path).handle(forID: "c0") == nil)
    }

    static func fixChecksum(_ bytes: inout [UInt8]) {
        let checksum = bytes.withUnsafeBytes { SnapshotFile.checksum(UnsafeRawBufferPointer(rebasing: $0[32...])) }
        withUnsafeBytes(of: checksum.littleEndian) { for i in 0..<8 { bytes[24 + i] = $0[i] } }
    }
}
