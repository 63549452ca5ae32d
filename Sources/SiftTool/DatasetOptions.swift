import ArgumentParser
import Foundation
import Sift
import SiftDataset

/// Options shared by the commands that open a data file: what to search and how.
struct DatasetOptions: ParsableArguments {
    @Argument(help: "A TSV, CSV or JSON Lines file with a header (or keys), or an index snapshot from 'sift index'.")
    var file: String

    @Option(name: .customLong("field"), help: "A field to search (repeatable). Default: every text column.")
    var fields: [String] = []

    @Option(
        help: ArgumentHelp(
            "Restrict the search: FIELD[,FIELD][:CATEGORY=VALUE[|VALUE]], optionally NAME= first.",
            valueName: "scope"))
    var scope: String?

    @Option(help: "ICU locale: root (the default), en, es, de, da, sv, es@collation=traditional, ...")
    var locale: String?

    @Option(help: "primary (the default: ignore case and accents), secondary (ignore case), tertiary, quaternary or identical.")
    var strength: Collation.Strength?

    @Option(help: "non-ignorable (the default), or shifted (ignore spaces and punctuation).")
    var alternate: Collation.Alternate?

    @Option(help: "contains, prefix or words.")
    var mode: MatchMode = .contains

    @Option(help: "Sort results in collation order of this field.")
    var sort: String?

    @Flag(help: "Rank results: prefix matches, then word starts, then inner matches.")
    var ranked = false

    @Option(help: "The field holding record ids. Default: the 1-based data row.")
    var id: String?

    var collation: Collation {
        Collation(locale: locale ?? "root", strength: strength ?? .primary, alternate: alternate ?? .nonIgnorable)
    }

    /// Options that configure an index, which a snapshot already fixes.
    var configuringOptions: [String] {
        var given: [String] = []
        if !fields.isEmpty { given.append("--field") }
        if locale != nil { given.append("--locale") }
        if strength != nil { given.append("--strength") }
        if alternate != nil { given.append("--alternate") }
        if id != nil { given.append("--id") }
        if sort != nil { given.append("--sort") }
        return given
    }

    var order: ResultOrder { ranked ? .ranked : sort != nil ? .sorted : .original }
}

extension Collation.Strength: ExpressibleByArgument {}
extension Collation.Alternate: ExpressibleByArgument {}
extension MatchMode: ExpressibleByArgument {}

/// A data file loaded into an index, with the row numbers needed to report results.
struct LoadedDataset {
    /// The file the records came from (for a snapshot: the file it was built from).
    let source: String
    let index: SearchIndex
    let searchFields: [String]
    /// Scope name the query runs in.
    let scopeName: String
    /// Data row number (1-based) per record id.
    let rowOfID: [String: Int]
    /// Whether ids come from a field (`--id`) rather than from row numbers.
    var hasIDField: Bool

    /// Metadata keys `sift index` stores in snapshots.
    enum MetadataKey {
        static let source = "sift.source"
        static let idField = "sift.idField"
    }

    init(_ options: DatasetOptions) throws {
        if SnapshotDetection.isSnapshot(options.file) {
            try self.init(snapshot: options)
        } else {
            try self.init(dataFile: options)
        }
    }

    /// Loads a data file and builds its index.
    private init(dataFile options: DatasetOptions) throws {
        let table = try DatasetFile.loadTable(options.file)
        source = table.source
        hasIDField = options.id != nil
        let file = options.file
        for field in options.fields { try DatasetFile.requireColumn(field, role: "field", in: table, file: file) }
        if let id = options.id { try DatasetFile.requireColumn(id, role: "id field", in: table, file: file) }
        if let sort = options.sort { try DatasetFile.requireColumn(sort, role: "sort field", in: table, file: file) }

        let searchFields = try DatasetFile.searchFields(options.fields, table: table, idField: options.id, file: file)
        self.searchFields = searchFields

        var scope = Scope(name: "All")
        if let spec = options.scope {
            scope = try ScopeSpecification.parse(spec, file: file, columns: table.columns, searchFields: searchFields)
        }
        scopeName = scope.name

        let (records, rowOfID) = try DatasetFile.records(of: table, idField: options.id, file: file)
        self.rowOfID = rowOfID
        do {
            index = try SearchIndex(
                configuration: IndexConfiguration(
                    searchFields: searchFields, collation: options.collation, scopes: [scope],
                    sortField: options.sort),
                records: records)
        } catch {
            throw ToolError(error.description)
        }
        index.metadata = [MetadataKey.source: options.file, MetadataKey.idField: options.id ?? ""]
    }

    /// Opens an index snapshot. Its configuration is fixed, so options that would change it are
    /// refused; `--scope NAME` selects one of its scopes.
    private init(snapshot options: DatasetOptions) throws {
        let given = options.configuringOptions
        guard given.isEmpty else {
            throw ToolError(
                "\(options.file): \(given.joined(separator: ", ")) cannot change an index snapshot (rebuild it with 'sift index')")
        }
        do {
            index = try SearchIndex.load(from: options.file)
        } catch {
            throw ToolError("\(error)")
        }
        source = index.metadata[MetadataKey.source] ?? options.file
        hasIDField = !(index.metadata[MetadataKey.idField] ?? "").isEmpty
        searchFields = index.configuration.searchFields
        if let name = options.scope {
            guard index.scopes.contains(where: { $0.name == name }) else {
                throw ToolError(
                    "\(options.file): unknown scope '\(name)' (scopes: \(index.scopes.map(\.name).joined(separator: ", ")))")
            }
            scopeName = name
        } else {
            scopeName = index.scopes[0].name
        }
        // Records are stored in original order: the data row of a record is its position + 1.
        var rows: [String: Int] = [:]
        for (position, handle) in index.handles().enumerated() { rows[try index.id(of: handle)] = position + 1 }
        rowOfID = rows
    }
}

/// Reading a data file into records, with errors that name the file, line and field; shared by
/// `sift query`, `sift index` and the REPL.
enum DatasetFile {
    static func loadTable(_ file: String) throws -> DataTable {
        do {
            return try DataLoader.load(path: file)
        } catch {
            throw ToolError(error.description)
        }
    }

    static func requireColumn(_ name: String, role: String, in table: DataTable, file: String) throws {
        guard table.column(named: name) != nil else {
            throw ToolError("\(file): unknown \(role) '\(name)' (columns: \(table.columns.joined(separator: ", ")))")
        }
    }

    /// The fields to search: those given, or else every text column (or every column, when none
    /// is text), the id column included when it holds text.
    static func searchFields(_ given: [String], table: DataTable, idField: String?, file: String) throws -> [String] {
        guard given.isEmpty else { return given }
        let fields = table.defaultSearchFields
        if fields.isEmpty { throw ToolError("\(file): no column to search") }
        return fields
    }

    /// The table's records, in file order, with ids from `idField` (or the 1-based data row),
    /// checked so that an error can name the line; and the data row of each id.
    static func records(of table: DataTable, idField: String?, file: String) throws -> ([Record], [String: Int]) {
        let records: [Record]
        do {
            records = try table.records(idField: idField)
        } catch {
            throw ToolError(error.description)
        }
        var rowOfID: [String: Int] = [:]
        rowOfID.reserveCapacity(records.count)
        for (record, row) in zip(records, table.rows) { rowOfID[record.id] = row.number }
        return (records, rowOfID)
    }
}

/// Whether a file is an index snapshot (by its first bytes, whatever its name).
enum SnapshotDetection {
    static func isSnapshot(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 8)) ?? Data()
        return magic == Data("SIFTSNAP".utf8)
    }
}

/// Parses `--scope` values: `[NAME=]FIELD[,FIELD][:CATEGORY=VALUE[|VALUE]]`.
enum ScopeSpecification {
    static func parse(_ spec: String, file: String, columns: [String], searchFields: [String]) throws -> Scope {
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
        for field in fields where !searchFields.contains(field) {
            throw ToolError(
                columns.contains(field)
                    ? "--scope '\(spec)': field '\(field)' is not searched (add --field \(field))"
                    : "\(file): unknown field '\(field)' in --scope '\(spec)'")
        }
        return Scope(name: name ?? (fields.isEmpty ? "All" : fields.joined(separator: ",")),
                     fields: fields.isEmpty ? nil : fields, filter: filter)
    }
}
