import ArgumentParser
import Foundation
import Sift
import SiftDataset

/// What an index is built from: the options `sift query`, `sift repl` and `sift index` share,
/// with one syntax and the same defaults. Every one of them may also come from the dataset's
/// description file (`NAME.sift.json` beside the data file); the command line wins.
struct IndexOptions: ParsableArguments {
    @Option(
        name: .customLong("field"),
        help:
            "A field to search (repeatable, or a,b). Default: the description's fields, else every text column but those that look like categories (few values, each used often), whose values become scopes."
    )
    var fields: [String] = []

    @Option(
        name: .customLong("scope"),
        help: ArgumentHelp(
            "A scope (repeatable): [NAME=]FIELD[,FIELD][:CATEGORY=VALUE[|VALUE]]. An All scope comes first; they replace the description's scopes.",
            valueName: "scope"
        )
    )
    var scopes: [String] = []

    @Option(help: "ICU locale: root (the default), en, es, de, da, sv, es@collation=traditional, ...")
    var locale: String?

    @Option(help: "Which differences count: primary (the default) ignores case and accents, secondary ignores case.")
    var strength: Collation.Strength?

    @Option(help: "Matching: shifted ignores spaces and punctuation (default: non-ignorable).")
    var alternate: Collation.Alternate?

    @Option(help: "Minimum query length of every scope. Default: the description's, else 1.")
    var minLength: Int?

    @Option(help: "Sort field: sorted results (and the REPL's original table) follow its collation order.")
    var sort: String?

    @Flag(exclusivity: .chooseLast, help: "Direction of the sort (default: ascending).")
    var direction: SortDirection?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Sort runs of digits by their value (ICU numeric collation: 15114 before 136455), or not (the default: as text)."
    )
    var numeric: Bool?

    @Option(help: "Sorting: shifted ignores spaces and punctuation (default: non-ignorable, they sort first).")
    var sortAlternate: Collation.Alternate?

    @Option(
        name: .customLong("tie-break"),
        help: ArgumentHelp(
            "Ranked order's last rule before file order: FIELD[:numeric][,desc]. numeric reads the field as a number (records without one last), desc puts the largest first; as text it must be the sort field (--sort, else the first field).",
            valueName: "field[:numeric][,desc]"
        )
    )
    var tieBreak: RankingTieBreak?

    @Option(help: "The field holding record ids. Default: the description's, else the 1-based data row.")
    var id: String?

    @Option(help: "The data file's format, for a file whose extension does not tell.")
    var inputFormat: InputFormat?

    @Option(name: .customLong("description"), help: "A description file to read instead of NAME.sift.json beside FILE.")
    var descriptionFile: String?

    @Flag(help: "Read no description file.")
    var noDescription = false

    func validate() throws {
        if let minLength, minLength < 1 { throw ValidationError("--min-length must be at least 1") }
        if descriptionFile != nil && noDescription {
            throw ValidationError("--description and --no-description exclude each other")
        }
    }
}

/// How a search runs and what it shows: the options `sift query` and `sift repl` share.
struct SearchOptions: ParsableArguments {
    @Option(
        help:
            "Where the text must occur: words (the default: each word starts a word of the record, as a search box expects), prefix, contains or fuzzy."
    )
    var mode: MatchMode?

    @Option(
        help:
            "Order of the results (default: sorted with a sort field, else original); ranked: prefix matches, then word starts, then inner matches (fuzzy: by score)."
    )
    var order: ResultOrder?

    @Option(
        help: ArgumentHelp(
            "How words mode reads -word (exclude), \"two words\" (contiguous) and a | b (either): operators (default) or literal.",
            valueName: "operators|literal"
        )
    )
    var syntax: QuerySyntax?

    @Option(
        help: ArgumentHelp(
            "Typo tolerance in words and prefix modes: auto (1 edit for words of 5-8 letters, 2 from 9), off (the default), or at most N edits.",
            valueName: "auto|off|N"
        )
    )
    var typos: TypoTolerance?

    @Option(
        help: ArgumentHelp(
            "Refuse a query longer than this many UTF-8 bytes (default 4096).",
            valueName: "bytes"
        )
    )
    var maxQueryLength: Int?

    @Option(
        help: ArgumentHelp(
            "Refuse a query of more distinct terms (words and phrases; a repeated one counts once) (default 256).",
            valueName: "N"
        )
    )
    var maxQueryTerms: Int?

    @Option(
        help: ArgumentHelp(
            "With --typos, refuse a query of more distinct words long enough for an edit (default 32).",
            valueName: "N"
        )
    )
    var maxTypoWords: Int?

    @Flag(help: "Deprecated: use --order ranked.")
    var ranked = false

    @Option(
        name: .customLong("show"),
        help: "A column to show (repeatable, or a,b). Default: the description's columns, else the searched fields."
    )
    var show: [String] = []

    func validate() throws {
        for (name, value) in [
            ("--max-query-length", maxQueryLength), ("--max-query-terms", maxQueryTerms),
            ("--max-typo-words", maxTypoWords),
        ] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1") }
        }
        if ranked, let order, order != .ranked {
            throw ValidationError("--ranked and --order \(order.rawValue) exclude each other")
        }
    }

    /// The library's `QueryLimits`, with the `--max-…` options given.
    var queryLimits: QueryLimits {
        var limits = QueryLimits()
        if let maxQueryLength { limits.maximumLength = maxQueryLength }
        if let maxQueryTerms { limits.maximumTerms = maxQueryTerms }
        if let maxTypoWords { limits.maximumTypoWords = maxTypoWords }
        return limits
    }

    /// `--order`, or `--ranked`.
    var resultOrder: ResultOrder? { order ?? (ranked ? .ranked : nil) }
}

/// `--ascending` or `--descending`.
enum SortDirection: String, EnumerableFlag {
    case ascending, descending

    static func help(for value: SortDirection) -> ArgumentHelp? {
        value == .ascending ? "Sort ascending (the default)." : "Sort descending: Z to A, largest number first."
    }
}

/// `--input-format`: the data file's format when its extension does not tell.
enum InputFormat: String, ExpressibleByArgument, CaseIterable {
    case tsv, csv, jsonl

    var dataFormat: DataFormat {
        switch self {
        case .tsv: .tsv
        case .csv: .csv
        case .jsonl: .jsonLines
        }
    }
}

extension Collation.Strength: ExpressibleByArgument {}
extension Collation.Alternate: ExpressibleByArgument {}
extension MatchMode: ExpressibleByArgument {}
extension ResultOrder: ExpressibleByArgument {}
extension QuerySyntax: ExpressibleByArgument {}
extension TypoTolerance: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}
extension RankingTieBreak: ExpressibleByArgument {
    /// `FIELD`, `FIELD:numeric`, `FIELD:desc`, `FIELD:numeric,desc` (options in any order; also
    /// `text` and `asc`, the defaults). Nil for an empty field or an unknown option.
    public init?(argument: String) {
        var field = Substring(argument)
        var options: [Substring] = []
        if let colon = argument.lastIndex(of: ":") {
            field = argument[..<colon]
            options = argument[argument.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false)
        }
        guard !field.isEmpty else { return nil }
        self.init(field: String(field))
        for option in options {
            switch option {
            case "numeric": numeric = true
            case "text": numeric = false
            case "desc", "descending": descending = true
            case "asc", "ascending": descending = false
            default: return nil
            }
        }
    }
}

/// A command's dataset options as plain values (an `IndexOptions` or `SearchOptions` that was not
/// parsed cannot be read): what `DatasetLoader` opens.
struct DatasetRequest {
    var file: String
    var fields: [String] = []
    var scopes: [String] = []
    var locale: String?
    var strength: Collation.Strength?
    var alternate: Collation.Alternate?
    var minLength: Int?
    var sort: String?
    var descending: Bool?
    var numeric: Bool?
    var sortAlternate: Collation.Alternate?
    var tieBreak: RankingTieBreak?
    var id: String?
    var inputFormat: InputFormat?
    /// An explicit description file; nil: the one beside the data file, if any.
    var description: String?
    var readsDescription = true

    var mode: MatchMode?
    var syntax: QuerySyntax?
    var typos: TypoTolerance?
    var order: ResultOrder?
    var show: [String] = []
    var trigger: SearchTrigger?
    /// `--max-query-length`, `--max-query-terms`, `--max-typo-words`.
    var queryLimits = QueryLimits()

    /// The scope a query runs in (`sift query --in`).
    var selectedScope: String?
    /// Whether the dataset keeps its records (the REPL's mirror of its index); `sift query` and
    /// `sift index` read what they print from the index, so a data file's records are made and
    /// indexed a batch at a time, never all held at once.
    var keepsRecords = true
    /// Whether `--scope NAME` selects a snapshot's scope (what `sift query` has always done)
    /// rather than being refused as a change to the snapshot.
    var scopeSelectsInSnapshot = false
    /// The rows, already read (a PostgreSQL table as CSV, with `inputFormat`): parsed as a data
    /// file's bytes are; `file` then only names them in messages, and no description file is
    /// looked for beside it.
    var bytes: [UInt8]? = nil

    init(file: String) { self.file = file }

    init(file: String, index: IndexOptions) {
        self.file = file
        fields = index.fields
        scopes = index.scopes
        locale = index.locale
        strength = index.strength
        alternate = index.alternate
        minLength = index.minLength
        sort = index.sort
        descending = index.direction.map { $0 == .descending }
        numeric = index.numeric
        sortAlternate = index.sortAlternate
        tieBreak = index.tieBreak
        id = index.id
        inputFormat = index.inputFormat
        description = index.descriptionFile
        readsDescription = !index.noDescription
    }

    init(file: String, index: IndexOptions, search: SearchOptions) {
        self.init(file: file, index: index)
        mode = search.mode
        syntax = search.syntax
        typos = search.typos
        order = search.resultOrder
        show = search.show
        queryLimits = search.queryLimits
    }

    /// Options that configure an index, which a snapshot already fixes.
    var configuringOptions: [String] {
        var given: [String] = []
        if !fields.isEmpty { given.append("--field") }
        if !scopes.isEmpty && !scopeSelectsInSnapshot { given.append("--scope") }
        if locale != nil { given.append("--locale") }
        if strength != nil { given.append("--strength") }
        if alternate != nil { given.append("--alternate") }
        if minLength != nil { given.append("--min-length") }
        if id != nil { given.append("--id") }
        if sort != nil { given.append("--sort") }
        if numeric != nil { given.append(numeric! ? "--numeric" : "--no-numeric") }
        if sortAlternate != nil { given.append("--sort-alternate") }
        if tieBreak != nil { given.append("--tie-break") }
        if inputFormat != nil { given.append("--input-format") }
        if description != nil { given.append("--description") }
        return given
    }
}

/// Reading a data file into records, with errors that name the file, line and field; shared by
/// `sift query`, `sift index` and the REPL.
enum DatasetFile {
    /// Reads and parses a data file (on every core), in the phases `reading` and `parsing`.
    ///
    /// - Parameter bytes: the input, when it was read already (a pipe or standard input, which
    ///   can be read only once; see `InputFile`).
    static func load(
        _ file: String,
        format: InputFormat?,
        bytes bytesGiven: [UInt8]? = nil,
        phases: LoadPhases
    ) throws -> DataFile {
        let dataFormat = format?.dataFormat ?? DataFormat.detect(path: file)
        guard let dataFormat else { throw ToolError("\(file): " + unknownFormat(file)) }
        do {
            let bytes: [UInt8]
            if let given = bytesGiven {
                bytes = given
            } else {
                phases.begin("reading")
                bytes = try DataLoader.readBytes(
                    path: file,
                    maximumBytes: InputFile.maximumBytes,
                    format: dataFormat,
                    progress: phases.progress
                )
            }
            phases.begin("parsing", total: bytes.count)
            return try DataFile(bytes: bytes, source: file, format: dataFormat, progress: phases.progress)
        } catch {
            throw ToolError(error.description)
        }
    }

    /// Why a file of no known extension and no `--input-format` is not read.
    static func unknownFormat(_ file: String) -> String {
        let name = (file as NSString).lastPathComponent
        let hasExtension = name.dropFirst().contains(".") && !name.hasSuffix(".")
        let ext = hasExtension ? "'.\((name as NSString).pathExtension)'" : "none"
        return "cannot tell the data format from the file extension (\(ext)); "
            + "name it .tsv, .csv or .jsonl, or give --input-format tsv|csv|jsonl"
    }

    static func requireColumn(_ name: String, role: String, in table: DataFile, file: String) throws {
        guard table.column(named: name) != nil else {
            throw ToolError("\(file): unknown \(role) '\(shownName(name))' (columns: \(shownNames(table.columns)))")
        }
    }

    /// The fields to search: those given, or else every text column (or every column, when none
    /// is text), the id column included when it holds text.
    static func searchFields(_ given: [String], table: DataFile, file: String) throws -> [String] {
        guard given.isEmpty else { return given }
        let fields = table.defaultSearchFields
        if fields.isEmpty { throw ToolError("\(file): no column to search") }
        return fields
    }

    /// The table's records, in file order (made on every core), with ids from `idField` (or the
    /// 1-based data row), checked so that an error can name the line; in the phase `records`.
    static func records(of table: DataFile, idField: String?, phases: LoadPhases) throws -> [Record] {
        phases.begin("records", label: "making records", total: table.rowCount)
        do {
            return try table.records(idField: idField, progress: phases.progress)
        } catch {
            throw ToolError(error.description)
        }
    }
}

/// Whether a file is an index snapshot (by its first bytes, whatever its name).
enum SnapshotDetection {
    static let magic = Array("SIFTSNAP".utf8)

    /// Whether a regular file starts as a snapshot. Anything else (standard input, a pipe, a
    /// device) is never opened here: its bytes could be read only once (see `InputFile`).
    static func isSnapshot(_ path: String) -> Bool { signature(path) == .snapshot }

    /// Whether a regular file is a snapshot, a snapshot with damaged first bytes, or neither (by
    /// its 32-byte header and its size; see `SnapshotSignature`).
    static func signature(_ path: String) -> SnapshotSignature {
        guard InputFile.isRegularFile(path), let handle = FileHandle(forReadingAtPath: path) else { return .other }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 32)) ?? Data()
        let size = (try? handle.seekToEnd()).map { Int($0) } ?? header.count
        return SnapshotSignature.classify(header: header, fileSize: size)
    }
}

/// Parses `--scope` values: `[NAME=]FIELD[,FIELD][:CATEGORY=VALUE[|VALUE]]`.
enum ScopeSpecification {
    /// - Parameter described: the description file's scope names, for a hint when a value names
    ///   one of them rather than fields.
    static func parse(
        _ spec: String,
        file: String,
        columns: [String],
        searchFields: [String],
        described: [String] = []
    ) throws -> Scope {
        var rest = Substring(spec)
        var name: String? = nil
        // An '=' before any ':' ends the scope's name; an '=' after ':' belongs to the category.
        if let equals = rest.firstIndex(of: "="), rest.firstIndex(of: ":").map({ equals < $0 }) ?? true {
            name = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            if name!.isEmpty { throw ToolError("--scope '\(spec)': empty scope name before '='") }
        }
        var filter: Scope.Filter? = nil
        if let colon = rest.firstIndex(of: ":") {
            let category = rest[rest.index(after: colon)...]
            rest = rest[..<colon]
            guard let equals = category.firstIndex(of: "=") else {
                throw ToolError("--scope '\(spec)': expected CATEGORY=VALUE after ':'")
            }
            let field = String(category[..<equals])
            guard columns.contains(field) else {
                throw ToolError("\(file): unknown category field '\(field)' in --scope '\(spec)'")
            }
            let values = category[category.index(after: equals)...].split(separator: "|").map(String.init)
            filter = Scope.Filter(field: field, values: Set(values))
        }
        let fields = rest.split(separator: ",").map(String.init)
        let searched = Set(searchFields)
        for field in fields where !searched.contains(field) {
            if columns.contains(field) {
                throw ToolError("--scope '\(spec)': field '\(field)' is not searched (add --field \(field))")
            }
            var message = "\(file): unknown field '\(field)' in --scope '\(spec)'"
            if name == nil && filter == nil && described.contains(spec) {
                message += " (to search the description's scope '\(spec)', use --in \(spec))"
            }
            throw ToolError(message)
        }
        return Scope(
            name: name ?? (fields.isEmpty ? "All" : fields.joined(separator: ",")),
            fields: fields.isEmpty ? nil : fields,
            filter: filter
        )
    }
}
