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

            Live mode keys: Ctrl-C or Ctrl-D quit; Tab and Shift-Tab switch scope; Up, Down, PgUp, PgDn, Home and End move; Enter shows the record; Esc ends the search (erasing the whole text does too, in a scope without a category); Ctrl-U clears the text; Ctrl-E switches the mode (contains, prefix, words, fuzzy); Ctrl-Y switches typos (off, auto); Ctrl-R switches the results order (original, sorted, ranked); Ctrl-T shows both tables; Del deletes the selected record (in memory). ':' in an empty search field types a command, run by Enter: :mode MODE, :typos auto|off|N, :order ORDER. The status line shows the mode, order and typos.

            Without FILE, the bundled GeoNames cities (Data/cities.tsv) open. A description file beside FILE (NAME.sift.json for NAME.tsv) may set the fields, scopes, locale, sort and columns to show; 'sift query' and 'sift index' read it too, and options given here override it.
            """
    )

    @Argument(help: "A TSV, CSV or JSON Lines file, or a snapshot from 'sift index'. Default: Data/cities.tsv.")
    var file: String?

    @OptionGroup(title: "Index options (shared with 'sift query' and 'sift index')")
    var index: IndexOptions

    @OptionGroup(title: "Search options (shared with 'sift query')")
    var search: SearchOptions

    @Flag(help: "Search only on Enter (:submit in line mode), not on every keystroke.")
    var onSubmit = false

    @Flag(help: "Line mode even on a terminal.")
    var line = false

    @Option(help: "Rows per page in line mode.")
    var pageSize: Int = 20

    @Option(help: "Line mode highlights with terminal colours: auto (on a terminal), always or never.")
    var color: QueryCommand.Color = .auto

    func validate() throws {
        if pageSize < 1 { throw ValidationError("--page-size must be at least 1") }
    }

    func run() async throws {
        let file = try file ?? DefaultDataset.locate()
        var request = DatasetRequest(file: file, index: index, search: search)
        if onSubmit { request.trigger = .onSubmit }
        let opened = try ReplLoader.open(request)
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

/// Opens a dataset for the REPL: its records, settings and search controller, with a progress
/// bar on standard error (a terminal) when that takes more than a second.
enum ReplLoader {
    struct Opened {
        var dataset: Dataset
        var settings: DatasetSettings
        var controller: SearchController
        /// How long indexing (or loading the snapshot) took, the tables included.
        var indexDuration: Duration
        /// Each phase of the load and how long it took (reading, parsing, records, indexing,
        /// tables).
        var phases: [(phase: String, duration: Duration)]
        var descriptionFile: String?
        /// The query limits of the command line (`--max-query-length` and the like), which a
        /// re-index keeps.
        var queryLimits = QueryLimits()
    }

    static func open(_ request: DatasetRequest) throws -> Opened {
        let bar = ProgressBar.standardError(title: "Loading \((request.file as NSString).lastPathComponent)")
        let phases = LoadPhases(bar: bar)
        defer { phases.finish() }
        let clock = ContinuousClock()
        let start = clock.now
        let opened = try DatasetLoader.open(request, phases: phases)
        let (dataset, settings, descriptionFile) = (opened.dataset, opened.settings, opened.descriptionFile)
        // A snapshot's load counts as its indexing.
        let indexStart = opened.snapshot == nil ? clock.now : start
        let controller: SearchController
        if let snapshot = opened.snapshot {
            // `opened` is not read again: its index goes to the controller's actor.
            phases.begin("tables")
            snapshot.queryLimits = request.queryLimits
            do {
                controller = try SearchController(index: snapshot, options: settings.controllerOptions)
            } catch {
                throw ToolError("\(error)")
            }
        } else {
            controller = try makeController(
                settings: settings,
                records: dataset.records,
                queryLimits: request.queryLimits,
                phases: phases
            )
        }
        let duration = indexStart.duration(to: clock.now)
        phases.end()
        return Opened(
            dataset: dataset,
            settings: settings,
            controller: controller,
            indexDuration: duration,
            phases: phases.durations,
            descriptionFile: descriptionFile,
            queryLimits: request.queryLimits
        )
    }

    /// A controller over a new index of `records`, in the phases `indexing` and `tables` (the
    /// original table; a sorted or sectioned one sorts the index).
    static func makeController(
        settings: DatasetSettings,
        records: [Record],
        queryLimits: QueryLimits,
        phases: LoadPhases
    ) throws -> SearchController {
        do {
            phases.begin("indexing", label: "indexing \(grouped(records.count)) records")
            let index = try SearchIndex(configuration: settings.configuration, records: records)
            index.queryLimits = queryLimits
            let layout = settings.controllerOptions.originalTable
            let sorts = layout.order == .sorted || layout.isSectioned
            phases.begin("tables", label: sorts ? "sorting by \(settings.sort ?? settings.searchFields[0])" : "tables")
            return try SearchController(index: index, options: settings.controllerOptions)
        } catch {
            throw ToolError("\(error)")
        }
    }
}

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
            executables.append(
                URL(
                    fileURLWithPath: invoked,
                    relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                )
            )
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
                + " give a file: sift repl FILE"
        )
    }
}
