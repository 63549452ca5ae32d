import Foundation
import Testing

/// Inputs that can be read only once (standard input, FIFOs) and inputs that never end load as a
/// regular file does, or end in one error line: nothing lost, nothing hung, no trap.
@Suite("sift: pipes, standard input and endless inputs", .timeLimit(.minutes(10)))
struct InputFileTests {
    static let data = "id\tname\n1\tAlpha\n2\tBeta\n3\tGamma\n"

    /// A FIFO whose writer has finished before `sift` reads it: every row and the header arrive
    /// (sniffing for a snapshot used to take the first 8 bytes, or block forever).
    @Test func aFIFOLoadsLikeARegularFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fifo = directory.appendingPathComponent("data").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread(block: {
            let handle = FileHandle(forWritingAtPath: fifo)  // waits for the reader to open the FIFO
            handle?.write(Data(Self.data.utf8))
            try? handle?.close()
        })
        writer.start()
        let run = try await Run.sift(["query", fifo, "a", "--input-format", "tsv", "--format", "json"])
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
        let snapshot = FileManager.default.temporaryDirectory.appendingPathComponent(
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
