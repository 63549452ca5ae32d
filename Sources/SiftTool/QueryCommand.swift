import ArgumentParser
import Foundation
import Sift

/// `sift query FILE QUERY`: one search, printed as a table or as JSON Lines.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Search a data file once and print the matching records.",
        discussion: """
            JSON output (--format json) is one object per matching record, in result order:
              {"row": 17, "id": "2950159", "matches": {"name": [[0, 6]], "ascii_name": []}}
            where row is the 1-based data row in FILE and each match is [start, length] in
            UTF-16 code units of that field (as ICU and NSRange count), for every searched field.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }
    enum Color: String, ExpressibleByArgument, CaseIterable { case auto, always, never }

    @OptionGroup var dataset: DatasetOptions

    @Argument(help: "The search text.")
    var query: String

    @Option(help: "text (a table with the matches highlighted) or json (one object per line).")
    var format: Format = .text

    @Option(help: "Print at most this many records (0: all). Default: 50 for text, all for json.")
    var limit: Int?

    @Option(help: "Highlight with terminal colours: auto (when standard output is a terminal), always or never.")
    var color: Color = .auto

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        let loaded = try LoadedDataset(dataset)
        let query = Query(query, scope: loaded.scopeName, mode: dataset.mode, order: dataset.order)
        let result: SearchResult
        do {
            result = try loaded.index.search(query)
        } catch {
            throw ToolError("\(error)")
        }
        let limit = self.limit ?? (format == .json ? 0 : 50)
        let rows = limit == 0 ? result.rows[...] : result.rows.prefix(limit)
        var output = ""
        switch format {
        case .json:
            for row in rows { output += try jsonLine(row, loaded: loaded, query: query) + "\n" }
        case .text:
            let useColor = color == .always || (color == .auto && isatty(STDOUT_FILENO) == 1)
            output = try TextReport(loaded: loaded, query: query, result: result, rows: Array(rows), color: useColor)
                .render(width: terminalWidth())
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    private func jsonLine(_ row: RecordHandle, loaded: LoadedDataset, query: Query) throws -> String {
        let id = try loaded.index.id(of: row)
        let ranges = try loaded.index.matchRanges(of: row, for: query)
        let scopeFields = loaded.index.scopes.first { $0.name == query.scope }?.fields ?? loaded.searchFields
        let matches = scopeFields.map { field in
            let pairs = (ranges[field] ?? []).map { "[\($0.lowerBound), \($0.count)]" }.joined(separator: ", ")
            return "\(JSON.string(field)): [\(pairs)]"
        }
        return "{\"row\": \(loaded.rowOfID[id] ?? 0), \"id\": \(JSON.string(id)), \"matches\": {\(matches.joined(separator: ", "))}}"
    }

    private func terminalWidth() -> Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 20 { return columns }
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 {
            return Int(size.ws_col)
        }
        return 120
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
                out += "\\u" + String(repeating: "0", count: 4 - String(c.value, radix: 16).count) + String(c.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
