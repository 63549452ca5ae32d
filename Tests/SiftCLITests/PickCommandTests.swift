import Foundation
import Testing

/// `sift pick`: `--filter` against a brute-force filter, exit statuses, and picking through a
/// pseudo-terminal that is only the controlling terminal (lines come from a pipe, the pick goes
/// to a pipe), as in `ls | sift pick | xargs …`.
@Suite(.serialized) struct PickCommandTests {
    static let fruits = "apple\nbanana\ncherry\napricot\ngrape\npineapple\n"

    /// Seeded lines of lowercase words with a few capitals, for comparing with a brute-force filter.
    static func generatedLines(count: Int, seed: UInt64) -> [String] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let letters = Array("abcdeilnorstu")
        return (0..<count).map { _ in
            let words = (0..<(1 + Int(next() % 3))).map { _ in
                String((0..<(2 + Int(next() % 6))).map { _ in letters[Int(next() % UInt64(letters.count))] })
            }
            let line = words.joined(separator: next() % 4 == 0 ? "-" : " ")
            return next() % 5 == 0 ? line.capitalized : line
        }
    }

    /// Whether `pattern`'s characters occur in `line` in order (ASCII, case ignored).
    static func isSubsequence(_ pattern: String, of line: String) -> Bool {
        var rest = line.lowercased()[...]
        for character in pattern.lowercased() {
            guard let found = rest.firstIndex(of: character) else { return false }
            rest = rest[rest.index(after: found)...]
        }
        return true
    }

    static func filter(_ lines: [String], _ arguments: [String]) async throws -> Run {
        try await Run.sift(["pick"] + arguments, stdin: lines.map { $0 + "\n" }.joined())
    }

    @Test func filterInOriginalOrderIsTheBruteForceFilter() async throws {
        let lines = Self.generatedLines(count: 2_000, seed: 29)
        for pattern in ["a", "st", "tor", "ae", "lose", "dnr", "x"] {
            let fuzzy = try await Self.filter(lines, ["--filter", pattern, "--order", "original"])
            let expected = lines.filter { Self.isSubsequence(pattern, of: $0) }
            #expect(fuzzy.stdout == expected.map { $0 + "\n" }.joined(), "fuzzy \(pattern)")
            #expect(fuzzy.status == (expected.isEmpty ? 1 : 0))
            let contains = try await Self.filter(
                lines,
                ["--filter", pattern, "--order", "original", "--mode", "contains"]
            )
            let expectedContains = lines.filter { $0.lowercased().contains(pattern) }
            #expect(contains.stdout == expectedContains.map { $0 + "\n" }.joined(), "contains \(pattern)")
        }
    }

    @Test func filterRanksTheSameLinesBestFirst() async throws {
        let lines = Self.generatedLines(count: 2_000, seed: 7) + ["tors"]
        let run = try await Self.filter(lines, ["--filter", "tors"])
        let printed = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        let expected = lines.filter { Self.isSubsequence("tors", of: $0) }
        #expect(printed.sorted() == expected.sorted())
        // The line that is exactly the text ranks first.
        #expect(printed.first == "tors")
    }

    @Test func filterWithNoMatchExitsWithOne() async throws {
        let run = try await Self.filter(["one", "two"], ["--filter", "zzz"])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.isEmpty)
    }

    @Test func anEmptyFilterPrintsEveryLineInInputOrder() async throws {
        let run = try await Run.sift(["pick", "--filter", ""], stdin: "b\na\n\nc")
        #expect(run.status == 0)
        #expect(run.stdout == "b\na\n\nc\n")
    }

    @Test func headerIsNeitherSearchedNorPrinted() async throws {
        let run = try await Run.sift(["pick", "--header", "--filter", "name"], stdin: "name\nfirst name\nage\n")
        #expect(run.stdout == "first name\n")
    }

    @Test(arguments: [["--mode", "nope"], ["--typos", "auto"], ["--bogus"], ["a", "b"]])
    func badUsageExitsWithTwo(arguments: [String]) async throws {
        let run = try await Run.sift(["pick", "--filter", "x"] + arguments, stdin: "x\n")
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("sift: "))
    }

    @Test func anUnreadableFileExitsWithTwo() async throws {
        let run = try await Run.sift(["pick", "/nonexistent/lines.txt", "--filter", "x"])
        #expect(run.status == 2)
        #expect(run.stderr == "sift: /nonexistent/lines.txt: No such file or directory\n")
    }

    @Test func invalidUTF8IsMatchedReplacedAndPrintedAsRead() throws {
        // "fo\xFFo" and "caf\xC3" (a cut é): matched as "fo�o" and "caf�", printed byte for byte.
        let input: [UInt8] = Array("fo".utf8) + [0xFF] + Array("o\nbar\ncaf".utf8) + [0xC3, 0x0A]
        let terminal = try PseudoTerminal(["pick", "--filter", "o"], pipedInput: input)
        #expect(terminal.waitForExit() == 0)
        #expect(terminal.standardOutput == Array("fo".utf8) + [0xFF] + Array("o\n".utf8))
        let all = try PseudoTerminal(["pick", "--filter", "", "--order", "original"], pipedInput: input)
        #expect(all.waitForExit() == 0)
        #expect(all.standardOutput == input)
    }

    // MARK: - On the terminal

    /// `sift pick` over piped lines, drawing on the pseudo-terminal, once the list is on screen.
    static func picker(_ options: [String] = [], lines: String = fruits) throws -> PseudoTerminal {
        let terminal = try PseudoTerminal(["pick"] + options, rows: 12, columns: 60, pipedInput: Array(lines.utf8))
        terminal.waitForScreen("the list") { $0.contains("Enter pick") && $0.lines.contains { $0.hasPrefix(">") } }
        return terminal
    }

    /// The text of the selected line on screen.
    static func selected(_ screen: Screen) -> String? {
        screen.lines.dropFirst().first { $0.hasPrefix(">") }.map { String($0.dropFirst(3)) }
    }

    @Test func typeMoveAndPick() throws {
        let terminal = try Self.picker()
        terminal.type("ap")
        let narrowed = terminal.waitForScreen("the matches of ap") { $0.contains("4/6") }
        #expect(narrowed.lines[0] == "> ap ")  // the cursor after the text
        terminal.type("\u{1B}[B")  // Down
        let moved = terminal.waitForScreen("the second match selected") { screen in
            screen.lines.firstIndex { $0.hasPrefix(">") && !$0.hasPrefix("> ap") } == 3
        }
        let second = Self.selected(moved)
        #expect(second != nil)
        terminal.type("\r")
        #expect(terminal.waitForExit() == 0)
        #expect(String(decoding: terminal.standardOutput, as: UTF8.self) == (second ?? "") + "\n")
        // The terminal is as it was: line editing and echo back on.
        #expect(terminal.settings.c_lflag & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO))
    }

    @Test func theInitialQueryNarrowsAtOnce() throws {
        let terminal = try Self.picker(["--query", "nan"])
        let screen = terminal.waitForScreen("banana alone") { $0.contains("1/6") }
        #expect(Self.selected(screen) == "banana")
        // The matched characters are highlighted.
        #expect(terminal.lastFrame.contains("ba\u{1B}[1;7mnan\u{1B}[0ma"))
        terminal.type("\r")
        #expect(terminal.waitForExit() == 0)
        #expect(terminal.standardOutput == Array("banana\n".utf8))
    }

    @Test func multiPrintsTheMarkedLinesInMarkingOrder() throws {
        let terminal = try Self.picker(["--multi"])
        terminal.type("\t")  // marks apple, moves to banana
        terminal.waitForScreen("one marked") { $0.contains("1 marked") }
        terminal.type("\u{1B}[B\t")  // cherry marked
        terminal.waitForScreen("two marked") { $0.contains("2 marked") }
        terminal.type("\u{1B}[A\u{1B}[A\u{1B}[A\t")  // up to apple: unmarked
        terminal.waitForScreen("one marked again") { $0.contains("1 marked") }
        terminal.type("\u{1B}[A\t")  // apple marked again, after cherry
        terminal.waitForScreen("two marked again") { $0.contains("2 marked") }
        terminal.type("\r")
        #expect(terminal.waitForExit() == 0)
        #expect(terminal.standardOutput == Array("cherry\napple\n".utf8))
    }

    @Test(arguments: ["\u{1B}", "\u{03}"])
    func escOrCtrlCExitsWith130(key: String) throws {
        let terminal = try Self.picker()
        terminal.type("an")
        terminal.waitForScreen("the matches of an") { $0.lines[0] == "> an " }
        terminal.type(key)
        #expect(terminal.waitForExit() == 130)
        #expect(terminal.standardOutput.isEmpty)
    }

    @Test func enterWithNoMatchExitsWithOne() throws {
        let terminal = try Self.picker()
        terminal.type("zzz")
        terminal.waitForScreen("no match") { $0.contains("0/6") }
        terminal.type("\r")
        #expect(terminal.waitForExit() == 1)
        #expect(terminal.standardOutput.isEmpty)
    }

    @Test func theHintsFitANarrowTerminalWithoutCuttingAWord() throws {
        let terminal = try PseudoTerminal(["pick"], rows: 8, columns: 24, pipedInput: Array(Self.fruits.utf8))
        let screen = terminal.waitForScreen("the list") { $0.contains("Enter pick") }
        #expect(screen.lines.last == "Enter pick · ↑↓ move")
        terminal.type("\u{1B}")
        #expect(terminal.waitForExit() == 130)
    }
}

extension PickCommandTests {
    /// Keys typed before the list appears are kept, and act in order: the text, then Enter.
    @Test func keysTypedAheadAreKeptInOrder() throws {
        let terminal = try PseudoTerminal(["pick"], rows: 12, columns: 60, pipedInput: Array(Self.fruits.utf8))
        terminal.type("nan\r")
        #expect(terminal.waitForExit() == 0)
        #expect(terminal.standardOutput == Array("banana\n".utf8))
    }
}
