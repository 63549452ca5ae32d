import ArgumentParser
import Foundation
import Sift

/// `sift repl [FILE]` (and `sift` alone): explore a list the way a search bar does.
struct ReplCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "Search a list interactively: type, watch it narrow, switch scopes, edit rows.",
        discussion: """
            On a terminal, every keystroke searches (live mode). Otherwise, or with --line, lines are read from standard input (line mode, for scripts): a plain line searches, and a line starting with ':' is a command (:help lists them).

            Without FILE, the bundled GeoNames cities (Data/cities.tsv) open. A description file beside FILE (NAME.sift.json for NAME.tsv) may set the fields, scopes, locale, sort field and columns to show; options given here override it.
            """)

    @Argument(help: "A TSV, CSV or JSON Lines file, or a snapshot from 'sift index'. Default: Data/cities.tsv.")
    var file: String?

    @Option(name: .customLong("field"), help: "A field to search (repeatable). Default: every text column.")
    var fields: [String] = []

    @Option(
        name: .customLong("scope"),
        help: ArgumentHelp(
            "A scope button (repeatable): NAME=FIELD[,FIELD][:CATEGORY=VALUE[|VALUE]]; an All scope comes first.",
            valueName: "scope"))
    var scopes: [String] = []

    @Option(help: "ICU locale: root (the default), en, es, de, da, sv, ...")
    var locale: String?

    @Option(help: "primary (the default: ignore case and accents), secondary, tertiary, quaternary or identical.")
    var strength: Collation.Strength?

    @Option(help: "non-ignorable (the default), or shifted (ignore spaces and punctuation).")
    var alternate: Collation.Alternate?

    @Option(help: "contains (the default), prefix or words.")
    var mode: MatchMode?

    @Option(help: "Minimum query length of every scope.")
    var minLength: Int?

    @Option(help: "Sort field: the original table is in its collation order, with alphabetic sections.")
    var sort: String?

    @Option(help: "Order of the results table: original, sorted or ranked.")
    var order: ResultOrder?

    @Option(help: "The field holding record ids. Default: the 1-based data row.")
    var id: String?

    @Option(name: .customLong("show"), help: "A column to show in the tables (repeatable). Default: the searched fields.")
    var show: [String] = []

    @Flag(help: "Search only on Enter (:submit in line mode), not on every keystroke.")
    var onSubmit = false

    @Option(name: .customLong("description"), help: "A description file to use instead of the one beside FILE.")
    var descriptionFile: String?

    @Flag(help: "Ignore the description file beside FILE.")
    var noDescription = false

    @Flag(help: "Line mode even on a terminal.")
    var line = false

    @Option(help: "Rows per page in line mode.")
    var pageSize: Int = 20

    @Option(help: "Line mode highlights with terminal colours: auto (on a terminal), always or never.")
    var color: QueryCommand.Color = .auto

    func validate() throws {
        if let minLength, minLength < 1 { throw ValidationError("--min-length must be at least 1") }
        if pageSize < 1 { throw ValidationError("--page-size must be at least 1") }
        if descriptionFile != nil && noDescription { throw ValidationError("--description and --no-description exclude each other") }
    }

    func run() async throws {
        let file = try file ?? DefaultDataset.locate()
        let options = ReplOptionValues(
            file: file, fields: fields, scopes: scopes, locale: locale, strength: strength, alternate: alternate,
            mode: mode, minLength: minLength, sort: sort, order: order, id: id, show: show,
            trigger: onSubmit ? .onSubmit : nil, description: descriptionFile, readsDescription: !noDescription)
        let opened = try ReplLoader.open(options)
        let inputIsTerminal = isatty(STDIN_FILENO) == 1
        let live = !line && inputIsTerminal && isatty(STDOUT_FILENO) == 1
        let session = await ReplSession(opened, buffering: live ? .newest(1) : .all)
        if live {
            try await LiveMode(session: session, terminal: TerminalMode()).run()
        } else {
            let useColor = color == .always || (color == .auto && isatty(STDOUT_FILENO) == 1)
            await LineMode(session: session, color: useColor, pageSize: pageSize, interactive: inputIsTerminal).run()
        }
    }
}

extension ResultOrder: ExpressibleByArgument {}

/// Finds the bundled dataset, `Data/cities.tsv`: in the current directory (`swift run sift`
/// from the package root), else beside the build directory of the executable
/// (`.build/<config>/sift` → `../../Data`, `.build/<triple>/<config>/sift` → `../../../Data`).
enum DefaultDataset {
    static let relativePath = "Data/cities.tsv"

    static func candidates() -> [String] {
        var paths = [FileManager.default.currentDirectoryPath + "/" + relativePath]
        var executables: [URL] = []
        if let real = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            executables.append(URL(fileURLWithPath: real))
        }
        let invoked = CommandLine.arguments[0]
        if invoked.contains("/") {
            executables.append(URL(fileURLWithPath: invoked, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)))
        }
        for executable in executables {
            var directory = executable.deletingLastPathComponent()
            for _ in 0..<3 {
                directory = directory.deletingLastPathComponent()
                paths.append(directory.appendingPathComponent(relativePath).standardizedFileURL.path)
            }
        }
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    static func locate() throws -> String {
        let paths = candidates()
        if let found = paths.first(where: { FileManager.default.isReadableFile(atPath: $0) }) { return found }
        throw ToolError(
            "cannot find the bundled dataset \(relativePath) (in the current directory or beside the sift executable);"
                + " give a file: sift repl FILE")
    }
}
