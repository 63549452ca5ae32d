import Foundation
import Testing
import _SiftTestSupport

/// Inputs that can be read only once (standard input, FIFOs) and inputs that never end load as a
/// regular file does, or end in one error line: nothing lost, nothing hung, no trap.
@Suite("sift: pipes, standard input and endless inputs", .timeLimit(.minutes(30)))
struct InputFileTests {
    static let data = "id\tname\n1\tAlpha\n2\tBeta\n3\tGamma\n"

    /// A FIFO whose writer has finished before `sift` reads it: every row and the header arrive
    /// (sniffing for a snapshot used to take the first 8 bytes, or block forever).
    @Test func aFIFOLoadsLikeARegularFile() async throws {
        let directory = testScratch.appendingPathComponent("sift-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fifo = directory.appendingPathComponent("data").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread(block: {
            let handle = FileHandle(forWritingAtPath: fifo)  // waits for the reader to open the FIFO
            handle?.write(Data(Self.data.utf8))
            try? handle?.close()
        })
        writer.start()
        let run = try await Run.sift([
            "query", fifo, "a", "--input-format", "tsv", "--format", "json", "--mode", "contains",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let ids = run.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
        #expect(ids == ["1", "2", "3"])  // Alpha, Beta, Gamma: row 1 was not eaten
    }

    @Test func standardInputIsADataFileToo() async throws {
        let run = try await Run.sift(["query", "-", "beta", "--input-format", "tsv"], stdin: Self.data)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("1 match for \"beta\" in -"))
        #expect(run.stdout.contains("[Beta]"))
    }

    @Test func aSnapshotThroughStandardInputLoads() async throws {
        let data = try Run.file("abc.tsv", Self.data)
        let snapshot = testScratch.appendingPathComponent(
            "sift-\(UUID().uuidString).siftidx"
        ).path
        #expect(try await Run.sift(["index", data, "-o", snapshot]).status == 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: snapshot)))
        let run = try await Run.sift(["query", "-", "gamma"], stdinBytes: bytes)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("[Gamma]"))

    }

    /// `/dev/zero` never ends: reading stops at the input limit with one error line naming it.
    @Test func anEndlessInputEndsInOneErrorLine() async throws {
        let run = try await Run.sift(
            ["query", "/dev/zero", "x", "--input-format", "tsv"],
            environment: ["SIFT_MAX_INPUT_BYTES": "100000"]
        )
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.hasPrefix("sift: /dev/zero: the input is larger than 0 MB, the most it reads"))
    }
}

/// `sift index -o` replaces snapshots, never the data it indexes, and no other file unless asked.
@Suite("sift index: what -o may replace", .timeLimit(.minutes(30)))
struct IndexOutputTests {
    @Test func theDataFileItselfIsNeverReplaced() async throws {
        let data = try Run.file("self.tsv", InputFileTests.data)
        for options in [[String](), ["--force"]] {
            let run = try await Run.sift(["index", data, "-o", data] + options)
            #expect(run.status == 1)
            #expect(run.stderr == "sift: \(data): is the data file being indexed; write the snapshot elsewhere\n")
        }
        // Through another path to the same file (a symbolic link) too.
        let link = data + ".link.siftidx"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: data)
        #expect(try await Run.sift(["index", data, "-o", link, "--force"]).status == 1)
        #expect(try String(contentsOfFile: data, encoding: .utf8) == InputFileTests.data)
    }

    @Test func anotherFileIsReplacedOnlyWithForce() async throws {
        let data = try Run.file("data.tsv", InputFileTests.data)
        let other = try Run.file("notes.txt", "keep me\n")
        let refused = try await Run.sift(["index", data, "-o", other])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("exists and is not a Sift snapshot; not replaced (give --force to replace it)"))
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "keep me\n")
        #expect(try await Run.sift(["index", data, "-o", other, "--force"]).status == 0)
        // A snapshot is replaced without asking: that is what -o is for.
        #expect(try await Run.sift(["index", data, "-o", other]).status == 0)
        #expect(try await Run.sift(["query", other, "beta"]).stdout.contains("[Beta]"))
    }
}
