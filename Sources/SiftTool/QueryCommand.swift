import ArgumentParser
import Foundation
import Sift
import SiftDataset

/// `sift query FILE QUERY`: one search, printed as a table or as JSON Lines.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Search a data file once and print the matching records.",
        discussion: """
            FILE is read as 'sift repl' reads it: with its description file (NAME.sift.json beside \
            NAME.tsv) for the fields, id, collation, scopes, sort and columns to show, so both \
            search the same fields. Options given here override the description.

            --format is the output's format; --input-format is the data file's (for a file whose \
            extension does not tell).

            JSON output (--format json) is one object per matching record, in result order:
              {"row": 17, "id": "2950159", "values": {"name": "Berlin", ...}, "matches": {"name": [[0, 6]], "ascii_name": []}}
            where row is the 1-based data row in FILE; values holds the record's value of every \
            column to show (--show or the description's show), or of every column; and each match \
            is [start, length] in UTF-16 code units of that field (as ICU and NSRange count), for \
            every field the scope searches. No matching record prints nothing on standard output \
            and says so on standard error.

            With --snippet N, each object also has "snippets": for each searched field with a \
            match, a window of at most N characters around its first match:
              "snippets": {"notes": {"text": "…", "start": 120, "matches": [[9, 6]], "cutBefore": true, "cutAfter": true}}
            where start is the window's offset in the field and matches are [start, length] in the \
            window, both in UTF-16 code units; cutBefore and cutAfter say whether the field goes on \
            before and after the window. In text output, --snippet N shows a searched column with a match as \
            its window, with … where it was cut.

            In words mode (--mode words), --syntax operators (the default) reads -word as "not \
            this word", "two words" as a phrase that must occur as typed (the contains rule), and \
            a | b as "either"; a lone -, an unclosed quote or an empty side of | is ordinary text. \
            --syntax literal reads every character as text.

            With --typos auto (words and prefix modes), a query word of 5 to 8 letters (collation \
            elements) also matches a word starting within 1 edit of it, one of 9 or more within 2 \
            (an edit: a letter inserted, deleted, replaced, or two adjacent letters swapped), so \
            ripgrpe finds ripgrep; --typos N allows at most N edits; exact matches rank first. \
            With operators, phrases and -excluded words match exactly.

            A query that starts with - (such as -india in words mode) needs -- before it, or it \
            reads as an option: sift query FILE --mode words -- -india.

            A query longer than --max-query-length bytes (default 4096), of more than \
            --max-query-terms distinct words and phrases (default 256; a repeated one counts \
            once), or with --typos of more than --max-typo-words distinct words long enough for \
            an edit (default 32), is refused with an error naming the limit.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }
    enum Color: String, ExpressibleByArgument, CaseIterable { case auto, always, never }

    @Argument(help: "A TSV, CSV or JSON Lines file with a header (or keys), or an index snapshot from 'sift index'.")
    var file: String

    @Argument(help: "The search text. One that starts with - needs -- before it: sift query FILE -- -word.")
    var query: String

    @OptionGroup(title: "Index options (shared with 'sift repl' and 'sift index')")
    var index: IndexOptions

    @OptionGroup(title: "Search options (shared with 'sift repl')")
    var search: SearchOptions

    @Option(
        name: .customLong("in"),
        help: ArgumentHelp(
            "The scope to search, by name, or COLUMN=VALUE for the records whose COLUMN is VALUE (a data file's column). Default: the first scope --scope gives, else the first scope (All).",
            valueName: "scope"
        )
    )
    var scopeName: String?

    @Option(help: "Output: text (a table with the matches highlighted) or json (one object per line).")
    var format: Format = .text

    @Option(help: "Print at most this many records (0: all). Default: 50 for text, all for json.")
    var limit: Int?

    @Option(help: "Skip this many matching records first (with --limit: pages of results).")
    var offset: Int = 0

    @Option(help: "Highlight with terminal colours: auto (when standard output is a terminal), always or never.")
    var color: Color = .auto

    @Option(
        help: ArgumentHelp(
            "Show a window of at most N characters around each searched field's first match (JSON: \"snippets\").",
            valueName: "N"
        )
    )
    var snippet: Int?

    @Flag(
        help:
            "With --order ranked: show why each printed record ranks where it does (each ranking rule's value; JSON: \"ranking\")."
    )
    var explain = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if offset < 0 { throw ValidationError("--offset must be 0 or more") }
        if let snippet, snippet < 1 { throw ValidationError("--snippet must be at least 1") }
    }

    func run() throws {
        var request = DatasetRequest(file: file, index: index, search: search)
        request.keepsRecords = false
        request.selectedScope = scopeName
        request.scopeSelectsInSnapshot = SnapshotDetection.isSnapshot(file) && !index.scopes.isEmpty
        let opened = try DatasetLoader.open(request)
        let index = try opened.makeIndex()
        index.queryLimits = search.queryLimits
        let settings = opened.settings
        let query = Query(
            query,
            scope: opened.selectedScope,
            mode: settings.mode,
            order: settings.order,
            syntax: settings.syntax,
            typos: settings.typos
        )
        let result: SearchResult
        do {
            result = try index.search(query)
        } catch {
            throw ToolError("\(error)")
        }
        // Sorted results read backwards for --descending.
        var all = result.rows
        if settings.descending && query.order == .sorted { all.reverse() }
        let limit = self.limit ?? (format == .json ? 0 : 50)
        let skipped = all.dropFirst(offset)
        let rows = Array(limit == 0 ? skipped : skipped.prefix(limit))
        let page = QueryPage(
            opened: opened,
            index: index,
            query: query,
            result: result,
            rows: rows,
            offset: offset,
            total: all.count,
            snippetLength: snippet
        )
        if let hint = QueryMessages.operatorHint(query.text, mode: query.mode, syntax: query.syntax) {
            FileHandle.standardError.write(Data("sift: \(hint)\n".utf8))
        }
        switch format {
        case .json:
            var output = ""
            for row in rows {
                var line = try page.jsonLine(row)
                if explain {
                    let why = try index.rankingExplanation(of: row, for: query)
                    line =
                        String(line.dropLast()) + ", \"ranking\": \(why.map { JSON.string($0.description) } ?? "null")}"
                }
                output += line + "\n"
            }
            FileHandle.standardOutput.write(Data(output.utf8))
            if rows.isEmpty {
                // JSON Lines has no summary line: say on standard error why nothing was printed.
                FileHandle.standardError.write(Data("sift: \(page.emptyReason())\n".utf8))
            }
        case .text:
            let useColor = color == .always || (color == .auto && isatty(STDOUT_FILENO) == 1)
            var output = try TextReport(page: page, color: useColor).render(width: terminalWidth())
            if explain { output += try explanation(of: rows, page: page) }
            FileHandle.standardOutput.write(Data(output.utf8))
        }
    }

    /// `--explain`: a line per printed record, its data row, id and each ranking rule's value.
    private func explanation(of rows: [RecordHandle], page: QueryPage) throws -> String {
        guard page.query.order == .ranked else {
            return "ranking: only --order ranked ranks (this is \(page.query.order))\n"
        }
        var output = "ranking (\(page.index.configuration.rankingRules.map(\.name).joined(separator: ", "))):\n"
        for (number, row) in rows.enumerated() {
            let why = try page.index.rankingExplanation(of: row, for: page.query)
            output +=
                "  \(offset + number + 1). row \(page.dataRow(of: row)) (\(try page.index.id(of: row))): "
                + (why?.description ?? "not ranked") + "\n"
        }
        return output
    }

    private func terminalWidth() -> Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 20 {
            return columns
        }
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 {
            return Int(size.ws_col)
        }
        return 120
    }
}

/// The records a query prints, with what the text and JSON forms need to describe them.
struct QueryPage {
    let opened: DatasetLoader.Opened
    let index: SearchIndex
    let query: Query
    let result: SearchResult
    /// The records to print, in result order.
    let rows: [RecordHandle]
    /// How many matching records come before `rows`.
    let offset: Int
    /// How many records the query found (all of them for an empty query).
    let total: Int
    /// `--snippet N`: the longest window shown around a searched field's first match.
    var snippetLength: Int? = nil

    var settings: DatasetSettings { opened.settings }

    /// The fields the query's scope searches.
    var searchedFields: [String] {
        index.scopes.first { $0.name == query.scope }?.fields ?? settings.searchFields
    }

    /// The data row (1-based) of a record: the index is in file order (a snapshot keeps the
    /// order of the file it was built from).
    func dataRow(of row: RecordHandle) -> Int { ((try? index.position(of: row)) ?? -1) + 1 }

    /// A record to print: the dataset's own (whose values the index holds too, position for
    /// position: a data file's rows, or a snapshot's records), so that printing copies no value.
    func record(_ row: RecordHandle) throws -> Record {
        let position = try index.position(of: row)
        let records = opened.dataset.records
        if position < records.count, records[position].id == (try index.id(of: row)) { return records[position] }
        return try index.record(row)
    }

    /// The id of a record and its values in `fields`, without making the whole record when the
    /// dataset does not hold it (a row of a million columns shows a few).
    func values(_ row: RecordHandle, fields: [String]) throws -> (id: String, values: [String]) {
        let position = try index.position(of: row)
        let records = opened.dataset.records
        let id = try index.id(of: row)
        if position < records.count, records[position].id == id {
            return (id, fields.map { records[position].fields[$0] ?? "" })
        }
        return (id, try fields.map { try index.value(of: $0, for: row) })
    }

    /// `{"row": 1, "id": "1", "values": {...}, "matches": {...}}`
    func jsonLine(_ row: RecordHandle) throws -> String {
        let record = try record(row)
        let ranges = try index.matchRanges(of: row, for: query)
        let valueFields = settings.showIsGiven ? settings.show : opened.dataset.columns
        let values = valueFields.map { "\(JSON.string($0)): \(JSON.string(record.fields[$0] ?? ""))" }
        let matches = searchedFields.map { field in
            let pairs = (ranges[field] ?? []).map { "[\($0.lowerBound), \($0.count)]" }.joined(separator: ", ")
            return "\(JSON.string(field)): [\(pairs)]"
        }
        var line =
            "{\"row\": \(dataRow(of: row)), \"id\": \(JSON.string(record.id)), "
            + "\"values\": {\(values.joined(separator: ", "))}, \"matches\": {\(matches.joined(separator: ", "))}"
        if let snippetLength {
            let snippets = try index.snippets(of: row, for: query, length: snippetLength)
            let objects = searchedFields.compactMap { field -> String? in
                guard let snippet = snippets[field] else { return nil }
                let pairs = snippet.utf16Ranges.map { "[\($0.lowerBound), \($0.count)]" }.joined(separator: ", ")
                return
                    "\(JSON.string(field)): {\"text\": \(JSON.string(snippet.text)), \"start\": \(snippet.utf16Offset), "
                    + "\"matches\": [\(pairs)], \"cutBefore\": \(snippet.isCutAtStart), \"cutAfter\": \(snippet.isCutAtEnd)}"
            }
            line += ", \"snippets\": {\(objects.joined(separator: ", "))}"
        }
        return line + "}"
    }

    /// Why no record was printed, in one line naming the file and the searched fields.
    func emptyReason() -> String {
        let searched = "searched \(shownNames(searchedFields))"
        switch result.state {
        case .tooShort(let needed):
            return "query too short in scope \(query.scope) (needs \(needed) characters); nothing printed"
        case .all, .matches:
            if total > 0 {
                return
                    "\(total) \(total == 1 ? "match" : "matches") for \(QueryMessages.quoted(query.text)) in \(opened.dataset.source), "
                    + "none from --offset \(offset)"
            }
            return "no match for \(QueryMessages.quoted(query.text)) in \(opened.dataset.source) (\(searched)"
                + (query.scope == "All" ? "" : " in scope \(query.scope)") + ")"
        }
    }
}

/// Minimal JSON string escaping (RFC 8259), without Foundation's encoder overhead per row.
enum JSON {
    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(c.value, radix: 16).count)
                    + String(c.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
