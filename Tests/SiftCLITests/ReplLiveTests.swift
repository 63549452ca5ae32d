import Foundation
import Testing

@testable import SiftTool

/// Live mode, through a pseudo-terminal: keys in, screens out.
@Suite("sift repl: live mode on a terminal", .timeLimit(.minutes(30)))
struct ReplLiveTests {
    static let escape = "\u{1B}"
    static let highlight = "\u{1B}[1;7m"
    static let reset = "\u{1B}[0m"

    func start(rows: Int = 20, columns: Int = 80, _ options: [String] = []) throws -> PseudoTerminal {
        let directory = try Repl.directory(["cities.tsv": Repl.cities, "cities.sift.json": Repl.description])
        return try PseudoTerminal(["repl", directory + "/cities.tsv"] + options, rows: rows, columns: columns)
    }

    /// The rows of the table on screen: the lines between the table header and the section index.
    func tableRows(_ screen: Screen) -> [String] {
        guard let header = screen.lines.firstIndex(where: { $0.contains("#  name") }) else { return [] }
        return screen.lines[(header + 1)...].prefix { !$0.hasPrefix("index") && !$0.isEmpty }.map { $0 }
    }

    @Test func typingNarrowsTheListWithHighlightsAndQuittingRestoresTheTerminal() throws {
        let terminal = try start()
        let before = terminal.settings
        let original = terminal.waitForScreen("the original table") { $0.contains("original table · 10 records") }
        #expect(original.lines[0].hasPrefix("Search:"))
        #expect(original.contains("index … A B C"))  // the section index of the original table
        #expect(tableRows(original).count == 10)
        #expect(terminal.settings.c_lflag & tcflag_t(ICANON | ECHO) == 0)  // raw mode

        // Each keystroke narrows the list; "ü" arrives in two reads.
        terminal.type("z")
        terminal.type([0xC3])
        terminal.type([0xBC])
        terminal.type("r")
        var screen = terminal.waitForScreen("the results of zür") {
            $0.lines[0].hasPrefix("Search: zür") && $0.lines[2].hasPrefix("1 result ·")
        }
        #expect(tableRows(screen).count == 1)
        #expect(tableRows(screen).first?.contains("Zürich") == true)
        #expect(terminal.lastFrame.contains(Self.highlight + "Zür" + Self.reset + "ich"))
        #expect(screen.lines[1].contains("All 1") && screen.lines[1].contains("Europe 1"))  // scope badges

        // Tab selects the next scope; backspaces widen the list again, and erasing the whole text
        // goes back to the list the REPL opened with: sorted, in sections.
        terminal.type("\t")
        screen = terminal.waitForScreen("the Name scope") { _ in terminal.lastFrame.contains("\u{1B}[7m Name 1 ") }
        terminal.type([0x7F, 0x7F])
        terminal.waitForScreen("the results of z") {
            $0.lines[0].hasPrefix("Search: z ") && $0.lines[2].contains("result")
        }
        terminal.type([0x7F])
        screen = terminal.waitForScreen("the opening list") {
            $0.lines[0].trimmingCharacters(in: .whitespaces) == "Search:"
                && $0.lines[2].hasPrefix("original table · 10 records")
        }
        #expect(screen.contains("index … A B C"))
        #expect(tableRows(screen) == tableRows(original))
        // Arrows move the selection; Enter shows the selected record; Esc goes back.
        terminal.type("pa")
        terminal.waitForScreen("the results of pa") { $0.lines[2].hasPrefix("3 results") }
        terminal.type(Self.escape + "[B" + Self.escape + "[B")
        screen = terminal.waitForScreen("the third row selected") { $0.lines[2].hasSuffix("row 3 of 3") }
        #expect(tableRows(screen)[2].hasPrefix(">"))
        terminal.type("\r")
        screen = terminal.waitForScreen("the record") { $0.contains("· row 3 of the results table") }
        terminal.type(Self.escape)
        terminal.waitForScreen("the table again") { tableRows($0).count == 3 }
        terminal.type(Self.escape)
        terminal.waitForScreen("the original table after Esc") { $0.lines[2].hasPrefix("original table") }

        // Wide characters: CJK and emoji rows never overflow the line.
        terminal.type("日本")
        screen = terminal.waitForScreen("two cities in Japan") {
            $0.lines[2].hasPrefix("0 results") || $0.lines[2].hasPrefix("2 results")
        }
        terminal.type(Self.escape)
        screen = terminal.waitForScreen("the original table again") { $0.lines[2].hasPrefix("original table") }
        #expect(screen.widestLine <= 80)

        // A narrower window redraws within its width.
        terminal.resize(rows: 12, columns: 40)
        screen = terminal.waitForScreen("a 40-column frame") {
            $0.lines[11] == KeyHints.fit(LiveMode.keyHints, width: 40)
        }
        #expect(screen.widestLine <= 40)
        #expect(tableRows(screen).count == 6)

        // Ctrl-C quits at once, with status 0, and the terminal is as it was.
        terminal.type([0x03])
        #expect(terminal.waitForExit() == 0)
        #expect(String(decoding: terminal.output, as: UTF8.self).hasSuffix(TerminalMode.exitSequence))
        let after = terminal.settings
        #expect(after.c_lflag == before.c_lflag && after.c_iflag == before.c_iflag)
        #expect(after.c_lflag & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO))
    }

    @Test func bothTablesSideBySideAndDeletingTheSelectedRecord() throws {
        let terminal = try start(rows: 16, columns: 100)
        terminal.waitForScreen("the original table") { $0.contains("original table · 10 records") }
        terminal.type("pa")
        terminal.waitForScreen("the results of pa") { $0.lines[2].hasPrefix("3 results") }
        terminal.type([0x14])  // Ctrl-T
        var screen = terminal.waitForScreen("both tables") {
            $0.contains("original table") && $0.contains("results table")
        }
        // The original pane shows every record, matches highlighted, and follows the selection.
        #expect(screen.lines.contains { $0.contains("Kraków") && $0.contains("│") })
        terminal.type(Self.escape + "[3~")  // Delete: the selected result, Pamplona
        screen = terminal.waitForScreen("the deletion") {
            $0.lines[2].hasPrefix("2 results") && $0.lines.last?.hasPrefix("deleted") == true
        }
        #expect(!screen.lines.dropLast().contains { $0.contains("Pamplona") })  // from both tables
        #expect(screen.lines.last?.hasPrefix("deleted 7 \"Pamplona\"") == true)
        #expect(screen.widestLine <= 100)
        terminal.type([0x04])  // Ctrl-D quits too
        #expect(terminal.waitForExit() == 0)
    }

    /// A keystroke draws only the lines above the table until its answer comes (the table
    /// changes then), and the record or a notice on screen goes at once: the screen never keeps
    /// a stale part.
    @Test func typingAfterTheRecordOrANoticeRedrawsTheWholeScreen() throws {
        let terminal = try start()
        terminal.waitForScreen("the original table") { $0.contains("original table · 10 records") }
        terminal.type("pa")
        terminal.waitForScreen("the results of pa") { $0.lines[2].hasPrefix("3 results") }
        terminal.type("\r")
        terminal.waitForScreen("the record") { $0.contains("Esc or Enter: back") }
        terminal.type("r")
        var screen = terminal.waitForScreen("the results of par") {
            $0.lines[0].hasPrefix("Search: par") && $0.lines[2].hasPrefix("1 result")
        }
        #expect(!screen.contains("Esc or Enter: back"))
        #expect(tableRows(screen).count == 1)
        #expect(tableRows(screen).first?.contains("Paris") == true)

        terminal.type(Self.escape + "[3~")  // Delete: Paris
        terminal.waitForScreen("the deletion") { $0.lines.last?.hasPrefix("deleted") == true }
        terminal.type([0x7F])
        screen = terminal.waitForScreen("the results of pa without the notice") {
            $0.lines[2].hasPrefix("2 results") && $0.lines.last?.hasPrefix("^C quit") == true
        }
        #expect(tableRows(screen).count == 2)
        #expect(!screen.lines.contains { $0.contains("Paris") })
        terminal.type([0x03])
        #expect(terminal.waitForExit() == 0)
    }

    @Test func aSignalRestoresTheTerminalAndExits() throws {
        let terminal = try start(["--on-submit"])
        terminal.waitForScreen("the original table") { $0.contains("original table · 10 records") }
        // Submit-only mode: typing waits for Enter.
        terminal.type("zü")
        terminal.waitForScreen("waiting for Enter") { $0.lines[2].hasPrefix("press Enter to search") }
        terminal.type("\r")
        terminal.waitForScreen("the answer") { $0.lines[2].hasPrefix("1 result") }
        kill(terminal.pid, SIGTERM)
        #expect(terminal.waitForExit() == 128 + SIGTERM)
        #expect(String(decoding: terminal.output, as: UTF8.self).hasSuffix(TerminalMode.exitSequence))
        #expect(terminal.settings.c_lflag & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO))
    }
}

/// Live mode's query options: switched by keys and by `:` commands while typing, and shown on
/// the status line.
@Suite("sift repl: live mode options", .timeLimit(.minutes(30)))
struct ReplLiveOptionsTests {
    func start(rows: Int = 20, columns: Int = 80) throws -> PseudoTerminal {
        let directory = try Repl.directory(["cities.tsv": Repl.cities, "cities.sift.json": Repl.description])
        return try PseudoTerminal(["repl", directory + "/cities.tsv"], rows: rows, columns: columns)
    }

    @Test func keysSwitchModeTyposAndOrderWhileTyping() throws {
        let terminal = try start()
        terminal.waitForScreen("the original table") { $0.contains("original table · 10 records") }
        #expect(terminal.screen.lines[2].hasSuffix("contains · sorted · row 1 of 10"))
        terminal.type("zurcih")
        terminal.waitForScreen("no result in contains mode") {
            $0.lines[2].hasPrefix("0 results") && $0.lines[2].hasSuffix("contains · sorted")
        }
        terminal.type([0x05, 0x05])  // Ctrl-E twice: prefix, then words
        terminal.waitForScreen("words mode") { $0.lines[2].hasSuffix("words · sorted") }
        terminal.type([0x19])  // Ctrl-Y: typos auto
        var screen = terminal.waitForScreen("Zürich with a typo") {
            $0.lines[2].hasPrefix("1 result ·") && $0.lines[2].hasSuffix("words · sorted · typos auto")
        }
        #expect(screen.contains("Zürich"))
        terminal.type([0x12])  // Ctrl-R: sorted → ranked
        screen = terminal.waitForScreen("ranked order") { $0.lines[2].contains("words · ranked · typos auto") }
        #expect(screen.lines.last?.hasPrefix("order ranked") == true)
        terminal.type([0x03])
        #expect(terminal.waitForExit() == 0)
    }

    @Test func colonCommandsSwitchOptionsAndReportErrors() throws {
        let terminal = try start()
        terminal.waitForScreen("the original table") { $0.contains("original table · 10 records") }
        terminal.type(":mode fuzzy")
        terminal.waitForScreen("the command line") { $0.lines[0].hasPrefix("Command: :mode fuzzy") }
        terminal.type("\r")
        terminal.waitForScreen("fuzzy mode") { $0.lines[2].hasSuffix("fuzzy · sorted · row 1 of 10") }
        terminal.type(":order nope\r")
        let screen = terminal.waitForScreen("the error") { $0.lines.last?.hasPrefix("error: expected") == true }
        #expect(screen.lines.last == "error: expected original, sorted, ranked, got 'nope'")
        terminal.type("zrch")
        terminal.waitForScreen("Zürich by fuzzy") {
            $0.lines[0].hasPrefix("Search: zrch") && $0.lines[2].hasPrefix("1 result")
        }
        terminal.type([0x03])
        #expect(terminal.waitForExit() == 0)
    }

    /// With no text, Tab to a scope without a category keeps the opening list; to a category
    /// scope, it lists the category's records.
    @Test func tabWithNoTextKeepsTheOpeningListUnlessTheScopeIsACategory() throws {
        let terminal = try start()
        terminal.waitForScreen("the original table") { $0.contains("original table · 10 records") }
        terminal.type("\t")
        var screen = terminal.waitForScreen("the Name scope") { _ in terminal.lastFrame.contains("\u{1B}[7m Name ") }
        #expect(screen.lines[2].hasPrefix("original table · 10 records"))
        #expect(screen.contains("index … A B C"))
        terminal.type("\t\t")
        screen = terminal.waitForScreen("the Europe scope") { $0.lines[2].hasPrefix("5 results") }
        #expect(terminal.lastFrame.contains("\u{1B}[7m Europe 5 "))
        terminal.type([0x03])
        #expect(terminal.waitForExit() == 0)
    }

    @Test(arguments: [80, 60, 40, 24])
    func keyHintsFitWithoutCuttingAWord(columns: Int) throws {
        let terminal = try start(rows: 14, columns: columns)
        let screen = terminal.waitForScreen("the hints") { $0.lines[13].hasPrefix("^C quit") }
        let hints = screen.lines[13]
        #expect(DisplayWidth.of(hints) <= columns)
        #expect(hints == KeyHints.fit(LiveMode.keyHints, width: columns))
        #expect(hints.components(separatedBy: KeyHints.separator).allSatisfy(LiveMode.keyHints.contains))
        if columns >= 80 { #expect(hints.contains("^E mode") && hints.contains("^R order")) }
        terminal.type([0x03])
        #expect(terminal.waitForExit() == 0)
    }
}
