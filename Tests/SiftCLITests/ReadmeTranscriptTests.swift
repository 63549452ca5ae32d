import Foundation
import Testing

/// A transcript block of README.md: a fenced block right after a `<!-- transcript -->` line,
/// whose `$ ` lines are shell commands, each followed by its output.
struct ReadmeTranscript: Sendable {
    /// One command and the output the README shows for it.
    struct Step: Sendable {
        /// The command as the README shows it (continuation lines joined, `\` and line feed kept).
        var command: String
        /// The lines the README shows after it.
        var output: [String]
    }

    /// The line numbers (0-based) of the block's body: after its opening fence, up to its closing one.
    var body: Range<Int>
    var steps: [Step]

    /// The marker a transcript block follows, on a line of its own.
    static let marker = "<!-- transcript -->"

    /// The transcript blocks of a Markdown text, given as its lines.
    static func blocks(in lines: [String]) -> [ReadmeTranscript] {
        var blocks: [ReadmeTranscript] = []
        var i = 0
        while i < lines.count {
            defer { i += 1 }
            guard lines[i].trimmingCharacters(in: .whitespaces) == marker, i + 1 < lines.count,
                lines[i + 1].hasPrefix("```")
            else { continue }
            let start = i + 2
            var end = start
            while end < lines.count, lines[end] != "```" { end += 1 }
            var steps: [Step] = []
            var j = start
            while j < end {
                if lines[j].hasPrefix("$ ") {
                    var command = String(lines[j].dropFirst(2))
                    while command.hasSuffix("\\"), j + 1 < end {
                        j += 1
                        command += "\n" + lines[j]
                    }
                    steps.append(Step(command: command, output: []))
                } else if !steps.isEmpty {
                    steps[steps.count - 1].output.append(lines[j])
                }
                j += 1
            }
            blocks.append(ReadmeTranscript(body: start..<end, steps: steps))
            i = end
        }
        return blocks
    }

    /// Output with its timings masked: a number followed by a unit of time (`0.4 ms`, `12µs`,
    /// `1.5 s`) reads `<time>`, so a transcript compares equal however fast the machine ran it.
    static func masked(_ lines: [String]) -> [String] {
        lines.map { line in
            line.replacingOccurrences(
                of: #"\b[0-9]+([.,][0-9]+)? ?(ms|µs|us|ns|s)\b"#,
                with: "<time>",
                options: .regularExpression
            )
        }
    }

    /// The command as the test runs it: `swift run [-c release] sift` is the `sift` the tests
    /// built (first on the `PATH`).
    static func runnable(_ command: String) -> String {
        command.replacingOccurrences(of: "swift run -c release sift", with: "sift")
            .replacingOccurrences(of: "swift run sift", with: "sift")
    }

    /// The lines a command prints (standard output and error, as a terminal interleaves them),
    /// run by `/bin/sh` in the package root with the built `sift` first on the `PATH`, 80
    /// columns and no color; a trailing empty line is left out.
    static func output(of command: String) async throws -> [String] {
        let path = Run.executable.deletingLastPathComponent().path
        let run = try await Run.sift(
            ["-c", "exec 2>&1; " + runnable(command)],
            environment: [
                "PATH": path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb",
            ],
            currentDirectory: Run.packageRoot.path,
            executable: URL(fileURLWithPath: "/bin/sh")
        )
        var lines = run.stdout.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// Every transcript in README.md (a block after `<!-- transcript -->`) is what the real program
/// prints: each `$ ` command runs (with the `sift` the tests built, in the package root, on the
/// bundled `Data/` files) and its output must be the lines the README shows, timings masked. On a
/// difference the test fails with a diff; with `SIFT_UPDATE_README=1` in the environment it
/// rewrites the blocks in README.md instead (keeping a block whose only differences are timings).
@Suite("README transcripts", .timeLimit(.minutes(30)))
struct ReadmeTranscriptTests {
    static let readme = Run.packageRoot.appendingPathComponent("README.md")

    @Test func readmeTranscriptsAreWhatSiftPrints() async throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        let blocks = ReadmeTranscript.blocks(in: lines)
        #expect(!blocks.isEmpty, "README.md has no \(ReadmeTranscript.marker) block")
        let updating = ProcessInfo.processInfo.environment["SIFT_UPDATE_README"] == "1"
        var rewritten = false
        // Last block first, so that rewriting one leaves the line numbers of those before it.
        for block in blocks.reversed() {
            #expect(!block.steps.isEmpty, "a transcript block at line \(block.body.lowerBound) has no `$ ` command")
            var actual: [String] = []
            for step in block.steps {
                actual += ["$ " + step.command] + (try await ReadmeTranscript.output(of: step.command))
            }
            actual = actual.flatMap { $0.components(separatedBy: "\n") }
            let shown = Array(lines[block.body])
            guard ReadmeTranscript.masked(shown) != ReadmeTranscript.masked(actual) else { continue }
            if updating {
                lines.replaceSubrange(block.body, with: actual)
                rewritten = true
            } else {
                Issue.record(
                    """
                    README.md line \(block.body.lowerBound + 1): the transcript differs from what sift prints \
                    (- README, + sift; rerun with SIFT_UPDATE_README=1 to rewrite it):
                    \(Self.diff(shown, actual).joined(separator: "\n"))
                    """
                )
            }
        }
        if rewritten { try lines.joined(separator: "\n").write(to: Self.readme, atomically: true, encoding: .utf8) }
    }

    /// The parser: markers, fences, commands with continuation lines, outputs.
    @Test func transcriptBlocksAreFoundAndParsed() {
        let markdown = """
            Text
            ```
            $ not a transcript
            ```
            <!-- transcript -->
            ```console
            $ printf 'a\\n' | sift --line \\
                --page-size 3
            first
            second
            $ echo done

            ```
            """
        let blocks = ReadmeTranscript.blocks(in: markdown.components(separatedBy: "\n"))
        #expect(blocks.count == 1)
        #expect(blocks.first?.body == 6..<12)
        #expect(
            blocks.first?.steps.map(\.command) == ["printf 'a\\n' | sift --line \\\n    --page-size 3", "echo done"]
        )
        #expect(blocks.first?.steps.map(\.output) == [["first", "second"], [""]])
        #expect(ReadmeTranscript.runnable("swift run -c release sift --line") == "sift --line")
        #expect(
            ReadmeTranscript.masked(["answered in 0.4 ms · 12µs", "22 results", "took 1.5 s"])
                == ["answered in <time> · <time>", "22 results", "took <time>"]
        )
        #expect(Self.diff(["a", "b", "c"], ["a", "x", "c", "d"]) == ["  a", "- b", "+ x", "  c", "+ d"])
    }

    /// A command's output is what the shell prints, standard error included.
    @Test func commandsRunInThePackageRoot() async throws {
        #expect(
            try await ReadmeTranscript.output(of: "ls Data/cities.tsv; echo oops >&2") == ["Data/cities.tsv", "oops"]
        )
    }

    /// A line diff (longest common subsequence): unchanged lines with two spaces, removed with
    /// `- `, added with `+ `.
    static func diff(_ old: [String], _ new: [String]) -> [String] {
        var lengths = [[Int]](repeating: [Int](repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                lengths[i][j] = old[i] == new[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var result: [String] = []
        var i = 0
        var j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                result.append("  " + old[i])
                i += 1
                j += 1
            } else if i < old.count, j == new.count || lengths[i + 1][j] >= lengths[i][j + 1] {
                result.append("- " + old[i])
                i += 1
            } else {
                result.append("+ " + new[j])
                j += 1
            }
        }
        return result
    }
}
