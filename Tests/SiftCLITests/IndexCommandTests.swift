import Foundation
import Testing
import _SiftTestSupport

@Suite("sift index and snapshots")
struct IndexCommandTests {
    @Test func aSnapshotAnswersLikeItsDataFile() async throws {
        let data = try Run.file("cities.csv", "id,name,continent\nb1,Straße,EU\nb2,Strasbourg,EU\nb3,São Paulo,SA\n")
        let snapshot = testScratch.appendingPathComponent(
            "sift-\(UUID().uuidString).siftidx"
        ).path
        let index = try await Run.sift(["index", data, "--locale", "de", "--id", "id", "-o", snapshot])
        #expect(index.status == 0)
        #expect(index.stdout.hasPrefix("indexed 3 records (id, name, continent)"))  // ids of text are searched too
        for query in ["strasse", "stras", "sa"] {
            let fromSnapshot = try await Run.sift(["query", snapshot, query, "--format", "json"])
            let fromFile = try await Run.sift([
                "query", data, query, "--locale", "de", "--id", "id", "--format", "json",
            ])
            #expect(fromSnapshot.status == 0)
            #expect(fromSnapshot.stdout == fromFile.stdout)
        }
        let text = try await Run.sift(["query", snapshot, "strasse"])
        #expect(text.stdout.contains("in \(data)"))  // reports the data file it was built from
    }

    @Test func snapshotErrorsAreOneLine() async throws {
        let data = try Run.file("c.tsv", "name\nParis\n")
        let snapshot = testScratch.appendingPathComponent(
            "sift-\(UUID().uuidString).siftidx"
        ).path
        #expect(try await Run.sift(["index", data, "-o", snapshot]).status == 0)
        let conflicting = try await Run.sift(["query", snapshot, "p", "--locale", "es"])
        #expect(conflicting.status == 1)
        #expect(conflicting.stderr.contains("--locale cannot change an index snapshot"))
        // Damage the snapshot: one clear line, no crash.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: snapshot))
        bytes[bytes.count - 3] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: snapshot))
        let damaged = try await Run.sift(["query", snapshot, "p"])
        #expect(damaged.status == 1)
        #expect(damaged.stderr.split(separator: "\n").count == 1)
        #expect(damaged.stderr.contains("corrupted: checksum mismatch"))
        try bytes.prefix(40).write(to: URL(fileURLWithPath: snapshot))
        #expect(try await Run.sift(["query", snapshot, "p"]).stderr.contains("truncated"))
    }

    /// The tool takes ids as the library does: NFC and NFD forms are two records, not duplicates.
    @Test func idsInNFCAndNFDAreTwoRecords() async throws {
        let data = try Run.file("ids.tsv", "id\tname\nJos\u{E9}\tcomposed\nJose\u{301}\tdecomposed\n")
        let run = try await Run.sift(["query", data, "o", "--id", "id", "--field", "name", "--mode", "contains"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("2 matches"), "\(run.stdout)")
    }

    /// A snapshot whose first bytes are damaged is reported as a damaged snapshot, not as a file
    /// of unknown data format, whatever its name, and through a pipe too.
    @Test func aSnapshotWithDamagedMagicBytesIsCalledOne() async throws {
        let data = try Run.file("c.tsv", "name\nParis\n")
        let directory = testScratch
        let snapshot = directory.appendingPathComponent("sift-\(UUID().uuidString).siftidx").path
        #expect(try await Run.sift(["index", data, "-o", snapshot]).status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: snapshot))
        bytes[0] = UInt8(ascii: "X")
        bytes[3] = 0
        for name in [snapshot, directory.appendingPathComponent("sift-\(UUID().uuidString).tsv").path] {
            try bytes.write(to: URL(fileURLWithPath: name))
            for command in [["query", name, "p"], ["index", name, "-o", name + ".out"]] {
                let run = try await Run.sift(command)
                #expect(run.status == 1)
                #expect(
                    run.stderr.hasPrefix("sift: \(name): looks like a damaged Sift index snapshot"),
                    "\(run.stderr)"
                )
                #expect(run.stderr.split(separator: "\n").count == 1)
            }
        }
        let piped = try await Run.sift(["query", "-", "p"], stdinBytes: [UInt8](bytes))
        #expect(piped.stderr.hasPrefix("sift: -: looks like a damaged Sift index snapshot"), "\(piped.stderr)")
    }
}
