import Foundation
import Sift
import SiftDataset

/// Everything the REPL is configured with, after the description file and the command line have
/// been merged and checked against the data: what to index, how the controller searches, and
/// what the tables show.
struct ReplSettings: Equatable {
    // MARK: The index (changing these re-indexes)
    var searchFields: [String]
    var scopes: [Scope]
    var collation: Collation
    /// The sort field: the original table is in its collation order, in alphabetic sections;
    /// nil: the original table is in file order, one section.
    var sort: String?

    // MARK: The controller (changing these builds a new controller, and so re-indexes too)
    var mode: MatchMode
    /// The results table's order.
    var order: ResultOrder
    var trigger: SearchTrigger

    // MARK: Display
    /// Columns the tables show.
    var show: [String]

    var configuration: IndexConfiguration {
        IndexConfiguration(searchFields: searchFields, collation: collation, scopes: scopes, sortField: sort)
    }

    var controllerOptions: SearchController.Options {
        SearchController.Options(
            trigger: trigger, mode: mode,
            originalTable: sort == nil ? TableLayout() : TableLayout(order: .sorted, isSectioned: true),
            resultsTable: TableLayout(order: order))
    }
}

/// The REPL's data: the records in original order (a mirror of the controller's index, kept by
/// applying the same edits, from which a changed configuration re-indexes), the columns, and
/// where they came from.
struct ReplDataset {
    /// The file given (data file or snapshot).
    var file: String
    /// Where the records came from (for a snapshot, the data file it was built from).
    var source: String
    var columns: [String]
    var idField: String?
    /// Every record, in original order.
    var records: [Record]
}

/// Options of `sift repl` that shape the dataset, as given on the command line.
struct ReplOptionValues {
    var file: String
    var fields: [String] = []
    var scopes: [String] = []
    var locale: String?
    var strength: Collation.Strength?
    var alternate: Collation.Alternate?
    var mode: MatchMode?
    var minLength: Int?
    var sort: String?
    var order: ResultOrder?
    var id: String?
    var show: [String] = []
    var trigger: SearchTrigger?
    /// An explicit description file; nil: the one beside the data file, if any.
    var description: String?
    var readsDescription = true

    /// Options that configure an index, which a snapshot already fixes.
    var configuringOptions: [String] {
        var given: [String] = []
        if !fields.isEmpty { given.append("--field") }
        if !scopes.isEmpty { given.append("--scope") }
        if locale != nil { given.append("--locale") }
        if strength != nil { given.append("--strength") }
        if alternate != nil { given.append("--alternate") }
        if minLength != nil { given.append("--min-length") }
        if id != nil { given.append("--id") }
        if sort != nil { given.append("--sort") }
        return given
    }
}

/// Opens a dataset for the REPL: a data file (with its description file) or a snapshot.
enum ReplLoader {
    /// The dataset, its settings and its controller.
    struct Opened {
        var dataset: ReplDataset
        var settings: ReplSettings
        var controller: SearchController
        /// How long indexing (or loading the snapshot) took.
        var indexDuration: Duration
        var descriptionFile: String?
    }

    static func open(_ options: ReplOptionValues) throws -> Opened {
        if SnapshotDetection.isSnapshot(options.file) { return try openSnapshot(options) }
        let file = options.file
        var descriptionFile: String? = nil
        var description = DatasetDescription()
        if let path = options.description {
            descriptionFile = path
        } else if options.readsDescription {
            let besides = DatasetDescription.path(besides: file)
            if FileManager.default.fileExists(atPath: besides) { descriptionFile = besides }
        }
        if let descriptionFile { description = try DatasetDescription.load(descriptionFile) }

        let table = try DatasetFile.loadTable(file)
        let settings = try resolve(options, description: description, descriptionFile: descriptionFile, table: table)
        let idField = options.id ?? description.id
        let (records, _) = try DatasetFile.records(of: table, idField: idField, file: file)
        let dataset = ReplDataset(file: file, source: table.source, columns: table.columns, idField: idField, records: records)
        let clock = ContinuousClock()
        let start = clock.now
        let controller: SearchController
        do {
            controller = try SearchController(
                configuration: settings.configuration, records: records, options: settings.controllerOptions)
        } catch {
            throw ToolError("\(error)")
        }
        return Opened(
            dataset: dataset, settings: settings, controller: controller, indexDuration: start.duration(to: clock.now),
            descriptionFile: descriptionFile)
    }

    /// Merges the command line (first) and the description file, and checks every name against
    /// the data file's columns.
    static func resolve(
        _ options: ReplOptionValues, description: DatasetDescription, descriptionFile: String?, table: DataTable
    ) throws -> ReplSettings {
        let file = options.file
        let described = descriptionFile ?? file
        /// An error about a key of the description file.
        func keyError(_ key: String, _ message: String) -> ToolError { ToolError("\(described): key '\(key)': \(message)") }
        func requireDescribed(_ name: String, key: String) throws {
            guard table.column(named: name) != nil else {
                throw keyError(key, "unknown column '\(name)' (columns: \(table.columns.joined(separator: ", ")))")
            }
        }

        // The id, fields and sort field.
        if let id = options.id {
            try DatasetFile.requireColumn(id, role: "id field", in: table, file: file)
        } else if let id = description.id {
            try requireDescribed(id, key: "id")
        }
        let idField = options.id ?? description.id
        for field in options.fields { try DatasetFile.requireColumn(field, role: "field", in: table, file: file) }
        if options.fields.isEmpty, let fields = description.fields {
            for (i, field) in fields.enumerated() { try requireDescribed(field, key: "fields[\(i)]") }
            if fields.isEmpty { throw keyError("fields", "expected at least one field") }
        }
        let givenFields = options.fields.isEmpty ? description.fields ?? [] : options.fields
        let searchFields = try DatasetFile.searchFields(uniqued(givenFields), table: table, idField: idField, file: file)
        if let sort = options.sort {
            try DatasetFile.requireColumn(sort, role: "sort field", in: table, file: file)
        } else if let sort = description.sort {
            try requireDescribed(sort, key: "sort")
        }

        // Scopes: from the command line (after an "All" scope, unless one is given), else from the
        // description (unless --field changed the fields it was written for), else "All".
        var scopes: [Scope] = []
        if !options.scopes.isEmpty {
            for spec in options.scopes {
                let scope = try ScopeSpecification.parse(spec, file: file, columns: table.columns, searchFields: searchFields)
                guard !scopes.contains(where: { $0.name == scope.name }) else {
                    throw ToolError("--scope '\(spec)': a scope named '\(scope.name)' is given twice")
                }
                scopes.append(scope)
            }
            if !scopes.contains(where: { $0.name == "All" }) { scopes.insert(Scope(name: "All"), at: 0) }
        } else if options.fields.isEmpty, let entries = description.scopes {
            for entry in entries {
                for (i, field) in (entry.fields ?? []).enumerated() {
                    let key = "\(entry.path).fields[\(i)]"
                    try requireDescribed(field, key: key)
                    guard searchFields.contains(field) else { throw keyError(key, "field '\(field)' is not searched") }
                }
                if entry.fields?.isEmpty == true { throw keyError("\(entry.path).fields", "expected at least one field") }
                var filter: Scope.Filter? = nil
                if let category = entry.category {
                    try requireDescribed(category.field, key: "\(entry.path).category.field")
                    filter = Scope.Filter(field: category.field, values: Set(category.values))
                }
                scopes.append(
                    Scope(
                        name: entry.name, fields: entry.fields, filter: filter,
                        minimumLength: entry.minLength ?? description.minLength ?? 1))
            }
        } else {
            scopes = [Scope(name: "All", minimumLength: description.minLength ?? 1)]
        }
        if let minimum = options.minLength {
            for i in scopes.indices { scopes[i].minimumLength = minimum }
        }

        // Columns to show: given, described, else the search fields.
        for field in options.show { try DatasetFile.requireColumn(field, role: "column to show", in: table, file: file) }
        if options.show.isEmpty, let show = description.show {
            for (i, field) in show.enumerated() { try requireDescribed(field, key: "show[\(i)]") }
        }
        var show = options.show.isEmpty ? description.show ?? [] : options.show
        if show.isEmpty { show = searchFields }

        // A described locale is checked here (an empty index is cheap), so that the error names the key.
        if options.locale == nil, let locale = description.locale {
            do {
                _ = try SearchIndex(configuration: IndexConfiguration(searchFields: ["_"], collation: Collation(locale: locale)))
            } catch {
                throw keyError("locale", "\(error)")
            }
        }

        let sort = options.sort ?? description.sort
        return ReplSettings(
            searchFields: searchFields, scopes: scopes,
            collation: Collation(
                locale: options.locale ?? description.locale ?? "root",
                strength: options.strength ?? description.strength ?? .primary,
                alternate: options.alternate ?? description.alternate ?? .nonIgnorable),
            sort: sort,
            mode: options.mode ?? description.mode ?? .contains,
            order: options.order ?? description.order ?? (sort == nil ? .original : .sorted),
            trigger: options.trigger ?? description.trigger ?? .asYouType,
            show: uniqued(show))
    }

    /// Opens a snapshot from `sift index`: its configuration is fixed (options that would change
    /// it are refused, as for `sift query`), and it is read without a description file.
    private static func openSnapshot(_ options: ReplOptionValues) throws -> Opened {
        let given = options.configuringOptions + (options.description == nil ? [] : ["--description"])
        guard given.isEmpty else {
            throw ToolError(
                "\(options.file): \(given.joined(separator: ", ")) cannot change an index snapshot (rebuild it with 'sift index')")
        }
        let clock = ContinuousClock()
        let start = clock.now
        let index: SearchIndex
        do {
            index = try SearchIndex.load(from: options.file)
        } catch {
            throw ToolError("\(error)")
        }
        var records: [Record] = []
        records.reserveCapacity(index.count)
        var columns = index.configuration.searchFields
        var known = Set(columns)
        var others = Set<String>()
        do {
            for handle in index.handles() {
                let record = try index.record(handle)
                records.append(record)
                for field in record.fields.keys where !known.contains(field) { others.insert(field) }
            }
        } catch {
            throw ToolError("\(options.file): \(error)")
        }
        columns += others.sorted()
        known.formUnion(others)
        for field in options.show where !known.contains(field) {
            throw ToolError("\(options.file): unknown column to show '\(field)' (columns: \(columns.joined(separator: ", ")))")
        }
        let idField = index.metadata[LoadedDataset.MetadataKey.idField].flatMap { $0.isEmpty ? nil : $0 }
        let configuration = index.configuration
        let sort = configuration.sortField
        let settings = ReplSettings(
            searchFields: configuration.searchFields, scopes: configuration.scopes, collation: configuration.collation,
            sort: sort, mode: options.mode ?? .contains, order: options.order ?? (sort == nil ? .original : .sorted),
            trigger: options.trigger ?? .asYouType,
            show: options.show.isEmpty ? configuration.searchFields : uniqued(options.show))
        let dataset = ReplDataset(
            file: options.file, source: index.metadata[LoadedDataset.MetadataKey.source] ?? options.file,
            columns: columns, idField: idField, records: records)
        let controller: SearchController
        do {
            controller = try SearchController(index: index, options: settings.controllerOptions)
        } catch {
            throw ToolError("\(error)")
        }
        return Opened(
            dataset: dataset, settings: settings, controller: controller, indexDuration: start.duration(to: clock.now),
            descriptionFile: nil)
    }

    private static func uniqued(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
