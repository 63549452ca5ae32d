import Foundation
import Testing
import _SiftTestSupport

/// Under a memory limit (`ulimit -v`), an input that cannot fit or cannot be data ends in one
/// error line and exit status 1, never an abort (134) on a failed allocation.
@Suite("sift: inputs under memory limits", .timeLimit(.minutes(30)))
struct MemoryLimitCommandTests {
    /// `sift ARGS` under `ulimit -v KB`, through the shell.
    static func sift(_ arguments: [String], virtualKB: Int) async throws -> Run {
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        return try await Run.sift(
            ["-c", "ulimit -v \(virtualKB) && exec '\(Run.executable.path)' \(quoted)"],
            executable: URL(fileURLWithPath: "/bin/sh")
        )
    }

    @Test func anEndlessInputOfNoKnownFormatIsRefusedAtOnce() async throws {
        // Before, it was read to the input limit first (here 300 MB; by default half the memory).
        let run = try await Run.sift(["query", "/dev/zero", "x"], environment: ["SIFT_MAX_INPUT_BYTES": "300000000"])
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "sift: /dev/zero: cannot tell the data format from the file extension (none); "
                + "name it .tsv, .csv or .jsonl, or give --input-format tsv|csv|jsonl\n"
        )
    }

    @Test(arguments: ["query", "index"])
    func anEndlessInputUnderALimitEndsInOneErrorLine(command: String) async throws {
        let output = testScratch.appendingPathComponent("sift-\(UUID().uuidString).sift")
            .path
        let arguments =
            command == "query"
            ? ["query", "/dev/zero", "x", "--input-format", "tsv"]
            : ["index", "/dev/zero", "-o", output, "--input-format", "csv"]
        let run = try await Self.sift(arguments, virtualKB: 4_000_000)
        #expect(run.status == 1, "\(run.stderr.prefix(2_000))")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.hasPrefix("sift: /dev/zero:1: the header line has no line break in its first 64 MiB"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A file whose parse needs more than the limit leaves is refused before it is parsed.
    @Test func aFileLargerThanTheLimitAllowsIsRefusedNamingTheLimit() async throws {
        // 24 MB of one-letter values: 16 bytes each to parse, about 190 MB; the limit (against
        // the resident memory, about 50 MB once the file is read) leaves about 50 MB.
        let row = Array(repeating: "x", count: 200).joined(separator: "\t") + "\n"
        let text = (0..<200).map { "c\($0)" }.joined(separator: "\t") + "\n" + String(repeating: row, count: 60_000)
        let data = try Run.file("narrow.tsv", text)
        let run = try await Run.sift(["query", data, "x"], environment: ["SIFT_MEMORY_LIMIT": "100M"])
        #expect(run.status == 1, "\(run.stderr.prefix(2_000))")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.hasPrefix("sift: \(data): parsing the file needs about 192."))
        #expect(run.stderr.contains("is available (SIFT_MEMORY_LIMIT 104.9 MB"))
    }
}
