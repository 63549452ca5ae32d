import ArgumentParser
import Foundation
import Sift

/// `sift pick [FILE]`: choose lines from a list and print them, as fzf does.
struct PickCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pick",
        abstract: "Pick lines from standard input or a file, as fzf does, and print them.",
        discussion: """
            Reads plain lines (no header, unless --header) from FILE or standard input, and shows \
            them on the terminal (/dev/tty, so it works inside a pipe: ls | sift pick | xargs ...). \
            Type to narrow the list (fuzzy by default: the letters in order, not necessarily \
            together; best matches first); Enter prints the selected line on standard output.

            Keys: type to search, Backspace, Ctrl-U (clear), Ctrl-W (delete a word); \
            Up/Down, Ctrl-P/Ctrl-N, PageUp/PageDown, Home/End move; Enter picks; with --multi, \
            Tab marks and moves down (Shift-Tab up), and Enter prints the marked lines in the \
            order they were marked (the selected line when none is marked); Esc, Ctrl-C, Ctrl-G \
            or Ctrl-Q quits without printing.

            With --filter TEXT nothing is drawn: every line that matches TEXT is printed, best \
            first, as fzf --filter does.

            Lines are printed exactly as read. A line that is not valid UTF-8 is matched and \
            shown with each invalid sequence replaced by U+FFFD.

            Exit status: 0 a line was printed; 1 no line matched (--filter) or Enter found no \
            match; 130 quit with Esc or Ctrl-C; 2 bad usage or an error (no terminal, an \
            unreadable file).

            Examples:
              ls | sift pick
              git branch --format='%(refname:short)' | sift pick --query main
              find . -name '*.swift' | sift pick --multi
              cut -f2 Data/cities.tsv | sift pick --header --filter zurich
            """
    )

    @Argument(help: "A file of lines. Default: standard input.")
    var file: String?

    @Option(help: ArgumentHelp("Start with this search text.", valueName: "text"))
    var query: String = ""

    @Option(
        help: ArgumentHelp(
            "Draw nothing: print every line that matches TEXT, best first, and exit (1 when none matches).",
            valueName: "text"
        )
    )
    var filter: String?

    @Flag(help: "Tab marks lines; Enter prints every marked line.")
    var multi = false

    @Option(help: "Where the text must occur: fuzzy (the letters in order), contains, words or prefix.")
    var mode: MatchMode = .fuzzy

    @Option(help: "Order of the matches: ranked (best first), original (input order) or sorted (by collation).")
    var order: ResultOrder = .ranked

    @Option(
        help: ArgumentHelp(
            "Typo tolerance in words and prefix modes: auto, off or at most N edits.",
            valueName: "auto|off|N"
        )
    )
    var typos: TypoTolerance = .off

    @Option(help: "ICU locale of matching and sorting: root, en, es, de, da, sv, ...")
    var locale: String = "root"

    @Flag(
        inversion: .prefixedNo,
        help: "The first line is a header: shown above the list, never searched or printed."
    )
    var header = false

    func validate() throws {
        if typos != .off && mode != .words && mode != .prefix {
            throw ValidationError("--typos works in words and prefix modes, not in \(mode.rawValue) mode")
        }
    }

    func run() throws {
        do {
            try pick()
        } catch let error as ToolError {
            Self.fail(error.description)
        }
    }

    /// Reports an error on standard error and exits with status 2, as fzf does.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("sift: \(message)\n".utf8))
        Glibc.exit(2)
    }

    private func pick() throws {
        // The terminal first: an interactive pick that cannot draw fails before reading anything.
        var terminal: TerminalMode? = nil
        if filter == nil {
            let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard tty >= 0 else {
                throw ToolError(
                    "cannot open the terminal (/dev/tty) to draw on; give --filter TEXT to pick without one"
                )
            }
            terminal = TerminalMode(input: tty, output: tty)
        }
        var lines = PickLines(bytes: try readInput())
        let header = self.header ? lines.removeHeader() : nil
        let index = try lines.makeIndex(collation: Collation(locale: locale))
        let settings = Picker.Settings(mode: mode, order: order, typos: typos, multi: multi, header: header)
        let picker = Picker(index: index, lines: lines, settings: settings)
        guard let terminal else {
            let chosen = try picker.filter(filter ?? "")
            Self.print(chosen, of: lines)
            Glibc.exit(chosen.isEmpty ? 1 : 0)
        }
        let outcome = try picker.run(on: terminal, query: query)
        switch outcome {
        case .chosen(let chosen):
            Self.print(chosen, of: lines)
            Glibc.exit(0)
        case .noMatch:
            Glibc.exit(1)
        case .interrupted:
            Glibc.exit(130)
        }
    }

    /// Every byte of FILE or standard input.
    private func readInput() throws -> [UInt8] {
        let fd: Int32
        let name: String
        if let file {
            fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ToolError("\(file): \(String(cString: strerror(errno)))") }
            name = file
        } else {
            guard isatty(STDIN_FILENO) == 0 else {
                throw ToolError("standard input is the terminal: pipe lines in (ls | sift pick) or give a FILE")
            }
            fd = STDIN_FILENO
            name = "standard input"
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ToolError("\(name): \(String(cString: strerror(errno)))")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes the lines, each with a line feed, to standard output, as they were read.
    private static func print(_ chosen: [Int], of lines: PickLines) {
        var output: [UInt8] = []
        for line in chosen {
            output += lines.bytes(ofLine: line)
            output.append(0x0A)
        }
        FileHandle.standardOutput.write(Data(output))
    }
}
