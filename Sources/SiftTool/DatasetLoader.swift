import Foundation
import Sift
import SiftDataset

/// Everything a dataset is opened with, after the description file and the command line have
/// been merged and checked against the data: what to index, how to search, what to show. The
/// same for `sift query`, `sift index` and the REPL, so that they search the same fields.
struct DatasetSettings: Equatable {
    // MARK: The index (changing these re-indexes)
    var searchFields: [String]
    var scopes: [Scope]
    var collation: Collation
    /// The sort field: sorted results and the REPL's original table follow its collation order;
    /// nil: the original table is in file order, one section.
    var sort: String?
    /// How the sort field compares (numbers, punctuation).
    var sortOptions = SortOptions()
    /// What breaks ties in ranked order (`--tie-break`), if anything.
    var tieBreak: RankingTieBreak? = nil
    /// The ranking rules; the custom rule among them is `tieBreak`'s (nil: the defaults).
    var rankingRules: [RankingRule]? = nil

    // MARK: Reading and display
    /// Whether sorted tables and results are read backwards (largest first).
    var descending = false
    var mode: MatchMode
    /// How words mode reads `-word`, `"phrase"` and `a | b`.
    var syntax: QuerySyntax = .operators
    /// How many typos words and prefix queries forgive.
    var typos: TypoTolerance = .off
    /// The results table's order.
    var order: ResultOrder
    var trigger: SearchTrigger
    /// Columns the tables show.
    var show: [String]
    /// Whether `show` was given (command line or description) rather than the searched fields:
    /// JSON output then carries only those values, else every column's.
    var showIsGiven = false

    var configuration: IndexConfiguration {
        var configuration = IndexConfiguration(
            searchFields: searchFields,
            collation: collation,
            scopes: scopes,
            sortField: sort,
            sortOptions: sortOptions,
            rankingRules: rankingRules ?? RankingRule.defaults
        )
        configuration.rankingTieBreak = tieBreak
        return configuration
    }

    /// Drops a text tie-break that is no longer on the sort field (a text tie-break follows the
    /// sorted order, see `RankingTieBreak`): after `:sort` changed the sort field.
    mutating func dropTextTieBreakOffTheSortField() {
        if let tieBreak, !tieBreak.numeric, tieBreak.field != (sort ?? searchFields[0]) { self.tieBreak = nil }
    }

    /// Whether the original table is in alphabetic sections: when it is sorted as text. (Numbers
    /// would all fall in the "…" section before A.)
    var isSectioned: Bool { sort != nil && !sortOptions.numeric }

    var controllerOptions: SearchController.Options {
        SearchController.Options(
            trigger: trigger,
            mode: mode,
            syntax: syntax,
            originalTable: sort == nil ? TableLayout() : TableLayout(order: .sorted, isSectioned: isSectioned),
            resultsTable: TableLayout(order: order),
            typos: typos
        )
    }

    /// `name, numeric, descending` for messages.
    var sortDescription: String {
        guard let sort else { return "none" }
        var parts = [sort]
        if sortOptions.numeric { parts.append("numeric") }
        if sortOptions.alternate == .shifted { parts.append("ignoring punctuation") }
        if descending { parts.append("descending") }
        return parts.joined(separator: ", ")
    }
}

/// A dataset's records and columns: the records in original order (for the REPL, a mirror of
/// the controller's index, kept by applying the same edits, from which a changed configuration
/// re-indexes), and where they came from.
struct Dataset {
    /// The file given (data file or snapshot).
    var file: String
    /// Where the records came from (for a snapshot, the data file it was built from).
    var source: String
    /// The columns, in file order.
    var columns: [String]
    var idField: String?
    /// Every record, in original order (the data row of a record, as loaded, is its position + 1).
    var records: [Record]
}

/// A data file whose records are still to be made, held until the one taker that frees it as it
/// makes them (`DataFile.consumeBatchesOfRecords`): a class, so that the copies of
/// `DatasetLoader.Opened` share one hold on it.
final class UnmadeRecords {
    private var file: DataFile?

    init(_ file: DataFile) { self.file = file }

    /// The file, once; nil after.
    func take() -> DataFile? {
        defer { file = nil }
        return file
    }
}

/// Opens a dataset (a data file with its description file, or a snapshot from `sift index`) for
/// `sift query`, `sift index` and the REPL alike.
enum DatasetLoader {
    /// Metadata keys `sift index` stores in snapshots: where the records came from and what the
    /// description file (or the command line) said beyond the index configuration.
    enum MetadataKey {
        static let source = "sift.source"
        static let idField = "sift.idField"
        /// The data file's columns in file order, as a JSON list.
        static let columns = "sift.columns"
        /// Columns to show, as a JSON list; only when given.
        static let show = "sift.show"
        static let mode = "sift.mode"
        static let order = "sift.order"
        static let trigger = "sift.trigger"
        static let descending = "sift.descending"
    }

    struct Opened {
        var dataset: Dataset
        var settings: DatasetSettings
        var descriptionFile: String?
        /// A snapshot's index, ready; nil for a data file (index `settings.configuration` over
        /// `dataset.records`).
        var snapshot: SearchIndex?
        /// The scope a query runs in.
        var selectedScope: String
        /// The data file, when its records were not made (`DatasetRequest.keepsRecords` false):
        /// ``makeIndex(phases:)`` takes it, and makes and indexes them a batch at a time.
        var unmadeRecords: UnmadeRecords? = nil

        /// The index: the snapshot's, or a new one over the records (in the phase `indexing`).
        func makeIndex(phases: LoadPhases = LoadPhases()) throws -> SearchIndex {
            if let snapshot { return snapshot }
            if let file = unmadeRecords?.take() { return try indexInBatches(file, phases: phases) }
            phases.begin("indexing", label: "indexing \(grouped(dataset.records.count)) records")
            defer { phases.end() }
            do {
                return try SearchIndex(configuration: settings.configuration, records: dataset.records)
            } catch {
                throw ToolError(error.description)
            }
        }

        /// Records per batch of ``indexInBatches(_:phases:)``: one fewer than the bulk inserts
        /// that trim their buffers (each batch keeps the spare capacity for the next; the index is
        /// trimmed once, at the end).
        static let recordsPerBatch = 65_535

        /// Makes the data file's records a batch at a time and inserts each into a new index, so
        /// that at most one batch of records exists at once. Before the first batch the memory
        /// the index will take is estimated (from the first batch, scaled to every row) and
        /// refused, in one line naming the need and the limit, if the process cannot have it.
        private func indexInBatches(_ file: consuming DataFile, phases: LoadPhases) throws -> SearchIndex {
            let total = file.rowCount
            let source = file.source
            phases.begin("indexing", label: "indexing \(grouped(total)) records", total: total)
            defer { phases.end() }
            do {
                let index = try SearchIndex(configuration: settings.configuration)
                var indexed = 0
                try file.consumeBatchesOfRecords(idField: dataset.idField, batchSize: Self.recordsPerBatch) { batch in
                    if indexed == 0 && batch.count < total {
                        let sample = SearchIndex.estimatedMemory(of: batch, configuration: settings.configuration)
                        let need = Int((Double(sample) * Double(total) / Double(batch.count)).rounded(.up))
                        let budget = MemoryBudget.current()
                        guard need <= budget.available else {
                            throw ToolError(
                                "\(source): " + budget.refusal(need, for: "indexing \(grouped(total)) records")
                            )
                        }
                    }
                    try index.insert(contentsOf: batch)
                    indexed += batch.count
                    phases.progress(DataLoadProgress(phase: .records, completed: indexed, total: total))
                }
                // One batch is one insert, which keeps its capacity as a direct build would.
                if total > Self.recordsPerBatch { index.trimCapacity() }
                return index
            } catch let error as ToolError {
                throw error
            } catch {
                throw ToolError("\(source): \(error)")
            }
        }
    }

    /// Opens a data file or a snapshot, timing its phases in `phases` (reading, parsing, records;
    /// snapshot, records).
    static func open(_ request: DatasetRequest, phases: LoadPhases = LoadPhases()) throws -> Opened {
        // A snapshot, or one with damaged first bytes (which the snapshot loader reports as such).
        if request.bytes == nil, SnapshotDetection.signature(request.file) != .other {
            return try openSnapshot(request, phases: phases)
        }
        // Standard input, a pipe or a device: read once, whole, before anything looks at it.
        let input =
            try request.bytes ?? InputFile.readOnceIfNeeded(request.file, format: request.inputFormat, phases: phases)
        if request.bytes == nil, let input, InputFile.isSnapshot(input) {
            let copy = try InputFile.temporaryCopy(of: input)
            defer { unlink(copy) }
            var fromCopy = request
            fromCopy.file = copy
            do {
                return try openSnapshot(fromCopy, phases: phases)
            } catch let error as ToolError {
                // Errors name the input as it was given, not the temporary copy.
                throw ToolError(error.description.replacingOccurrences(of: copy, with: request.file))
            }
        }
        let file = request.file
        var descriptionFile: String? = nil
        var description = DatasetDescription()
        if let path = request.description {
            descriptionFile = path
        } else if request.readsDescription && input == nil {  // no file lies beside a pipe
            let beside = DatasetDescription.path(besides: file)
            if FileManager.default.fileExists(atPath: beside) { descriptionFile = beside }
        }
        if let descriptionFile { description = try DatasetDescription.load(descriptionFile) }

        let table = try DatasetFile.load(file, format: request.inputFormat, bytes: input, phases: phases)
        let (settings, firstGiven) = try resolve(
            request,
            description: description,
            descriptionFile: descriptionFile,
            table: table
        )
        let idField = request.id ?? description.id
        let records = request.keepsRecords ? try DatasetFile.records(of: table, idField: idField, phases: phases) : []
        phases.end()
        let dataset = Dataset(
            file: file,
            source: table.source,
            columns: table.columns,
            idField: idField,
            records: records
        )
        let selected = try selectedScope(request, scopes: settings.scopes, firstGiven: firstGiven, file: file)
        return Opened(
            dataset: dataset,
            settings: settings,
            descriptionFile: descriptionFile,
            snapshot: nil,
            selectedScope: selected,
            unmadeRecords: request.keepsRecords ? nil : UnmadeRecords(table)
        )
    }

    /// The scope a query runs in: `--in NAME`, else the first scope `--scope` gave
    /// (`firstGiven`), else the first scope.
    private static func selectedScope(
        _ request: DatasetRequest,
        scopes: [Scope],
        firstGiven: String?,
        file: String
    ) throws -> String {
        if let name = request.selectedScope {
            guard scopes.contains(where: { $0.name == name }) else {
                throw ToolError(
                    "\(file): unknown scope '\(name)' (scopes: \(shownNames(scopes.map(\.name))))"
                )
            }
            return name
        }
        return firstGiven ?? scopes[0].name
    }

    /// Merges the command line (first) and the description file, and checks every name against
    /// the data file's columns; also returns the name of the first scope `--scope` gave.
    static func resolve(
        _ request: DatasetRequest,
        description: DatasetDescription,
        descriptionFile: String?,
        table: DataFile
    ) throws -> (DatasetSettings, firstScopeGiven: String?) {
        let file = request.file
        let described = descriptionFile ?? file
        /// An error about a key of the description file.
        func keyError(_ key: String, _ message: String) -> ToolError {
            ToolError("\(described): key '\(key)': \(message)")
        }
        func requireDescribed(_ name: String, key: String) throws {
            guard table.column(named: name) != nil else {
                throw keyError(key, "unknown column '\(shownName(name))' (columns: \(shownNames(table.columns)))")
            }
        }

        // `--field a,b` and `--show a,b` name several columns (unless a column has that name).
        var request = request
        request.fields = expandedColumnList(request.fields) { table.column(named: $0) != nil }
        request.show = expandedColumnList(request.show) { table.column(named: $0) != nil }

        // The id, fields and sort field.
        if let id = request.id {
            try DatasetFile.requireColumn(id, role: "id field", in: table, file: file)
        } else if let id = description.id {
            try requireDescribed(id, key: "id")
        }
        for field in request.fields { try DatasetFile.requireColumn(field, role: "field", in: table, file: file) }
        if request.fields.isEmpty, let fields = description.fields {
            for (i, field) in fields.enumerated() { try requireDescribed(field, key: "fields[\(i)]") }
            if fields.isEmpty { throw keyError("fields", "expected at least one field") }
        }
        let givenFields = request.fields.isEmpty ? description.fields ?? [] : request.fields
        var searchFields = try DatasetFile.searchFields(uniqued(givenFields), table: table, file: file)
        // Columns that look like categories are not searched unless named, but offered as scopes.
        var categories: [(column: String, values: [String])] = []
        if givenFields.isEmpty {
            // Copies of the names only when something is left out (a million columns).
            let id = request.id ?? description.id
            categories = table.categoryColumns(
                among: searchFields.contains { $0 == id } ? searchFields.filter { $0 != id } : searchFields
            )
            if !categories.isEmpty {
                let categoryNames = Set(categories.map(\.column))
                let others = searchFields.filter { !categoryNames.contains($0) }
                if others.isEmpty { categories = [] } else { searchFields = others }
            }
        }
        if let sort = request.sort {
            try DatasetFile.requireColumn(sort, role: "sort field", in: table, file: file)
        } else if let sort = description.sort {
            try requireDescribed(sort, key: "sort")
        }
        let sort = request.sort ?? description.sort

        // How the sort compares: each needs a sort field, or it would silently do nothing.
        if sort == nil {
            let given = [
                request.descending == true ? "--descending" : nil, request.numeric == true ? "--numeric" : nil,
                request.sortAlternate != nil ? "--sort-alternate" : nil,
            ].compactMap { $0 }
            if let option = given.first { throw ToolError("\(option) needs a sort field (--sort FIELD)") }
            for (key, isSet) in [
                ("descending", description.descending == true), ("numeric", description.numeric == true),
                ("sortAlternate", description.sortAlternate != nil),
            ] where isSet {
                throw keyError(key, "needs a sort field (key 'sort', or --sort FIELD)")
            }
        }
        // The description's sort options were written for its sort field: another --sort drops them.
        let describedSort = request.sort == nil || request.sort == description.sort
        let sortOptions = SortOptions(
            numeric: request.numeric ?? (describedSort ? description.numeric : nil) ?? false,
            alternate: request.sortAlternate ?? (describedSort ? description.sortAlternate : nil) ?? .nonIgnorable
        )
        let descending = request.descending ?? (describedSort ? description.descending : nil) ?? false

        // Scopes: from the command line (after an "All" scope, unless one is given), else from the
        // description (unless --field changed the fields it was written for), else "All".
        var scopes: [Scope] = []
        var givenScopes: [String] = []
        if !request.scopes.isEmpty {
            let describedNames = description.scopes?.map(\.name) ?? []
            for spec in request.scopes {
                let scope = try ScopeSpecification.parse(
                    spec,
                    file: file,
                    columns: table.columns,
                    searchFields: searchFields,
                    described: describedNames
                )
                guard !scopes.contains(where: { $0.name == scope.name }) else {
                    throw ToolError("--scope '\(spec)': a scope named '\(scope.name)' is given twice")
                }
                scopes.append(
                    Scope(
                        name: scope.name,
                        fields: scope.fields,
                        filter: scope.filter,
                        minimumLength: description.minLength ?? 1
                    )
                )
                givenScopes.append(scope.name)
            }
            if !scopes.contains(where: { $0.name == "All" }) {
                scopes.insert(Scope(name: "All", minimumLength: description.minLength ?? 1), at: 0)
            }
        } else if request.fields.isEmpty, let entries = description.scopes {
            let searched = Set(searchFields)
            for entry in entries {
                for (i, field) in (entry.fields ?? []).enumerated() {
                    let key = "\(entry.path).fields[\(i)]"
                    try requireDescribed(field, key: key)
                    guard searched.contains(field) else { throw keyError(key, "field '\(field)' is not searched") }
                }
                if entry.fields?.isEmpty == true {
                    throw keyError("\(entry.path).fields", "expected at least one field")
                }
                var filter: Scope.Filter? = nil
                if let category = entry.category {
                    try requireDescribed(category.field, key: "\(entry.path).category.field")
                    filter = Scope.Filter(field: category.field, values: Set(category.values))
                }
                scopes.append(
                    Scope(
                        name: entry.name,
                        fields: entry.fields,
                        filter: filter,
                        minimumLength: entry.minLength ?? description.minLength ?? 1
                    )
                )
            }
        } else {
            scopes = [Scope(name: "All", minimumLength: description.minLength ?? 1)]
            if description.scopes == nil {
                scopes += categoryScopes(categories, minimumLength: description.minLength ?? 1)
            }
        }
        // `--in COLUMN=VALUE` (when no scope has that name): the records whose COLUMN is VALUE,
        // searched in the first scope's fields, so that any category can be picked.
        if let name = request.selectedScope, !scopes.contains(where: { $0.name == name }),
            let equals = name.firstIndex(of: "="), table.column(named: String(name[..<equals])) != nil
        {
            scopes.append(
                Scope(
                    name: name,
                    fields: scopes.first?.fields,
                    filter: Scope.Filter(
                        field: String(name[..<equals]),
                        values: [String(name[name.index(after: equals)...])]
                    ),
                    minimumLength: scopes.first?.minimumLength ?? 1
                )
            )
        }
        if let minimum = request.minLength {
            for i in scopes.indices { scopes[i].minimumLength = minimum }
        }

        // Columns to show: given, described, else the search fields.
        for field in request.show {
            try DatasetFile.requireColumn(field, role: "column to show", in: table, file: file)
        }
        if request.show.isEmpty, let show = description.show {
            for (i, field) in show.enumerated() { try requireDescribed(field, key: "show[\(i)]") }
        }
        let givenShow = request.show.isEmpty ? description.show ?? [] : request.show

        // A described locale is checked here (an empty index is cheap), so that the error names the key.
        if request.locale == nil, let locale = description.locale {
            do {
                _ = try SearchIndex(
                    configuration: IndexConfiguration(searchFields: ["_"], collation: Collation(locale: locale))
                )
            } catch {
                throw keyError("locale", "\(error)")
            }
        }

        var settings = DatasetSettings(
            searchFields: searchFields,
            scopes: scopes,
            collation: Collation(
                locale: request.locale ?? description.locale ?? "root",
                strength: request.strength ?? description.strength ?? .primary,
                alternate: request.alternate ?? description.alternate ?? .nonIgnorable
            ),
            sort: sort,
            sortOptions: sortOptions,
            descending: descending,
            mode: request.mode ?? description.mode ?? .words,
            // A sort field given on the command line sorts the results too, unless --order says otherwise.
            order: request.order
                ?? (request.sort != nil ? .sorted : description.order ?? (sort == nil ? .original : .sorted)),
            trigger: request.trigger ?? description.trigger ?? .asYouType,
            show: givenShow.isEmpty ? searchFields : uniqued(givenShow),
            showIsGiven: !givenShow.isEmpty
        )
        settings.syntax = request.syntax ?? description.syntax ?? .operators
        settings.typos = request.typos ?? .off
        try requireTypoMode(settings)
        let sortField = sort ?? searchFields[0]
        settings.rankingRules = description.ranking
        if let tieBreak = request.tieBreak {
            try DatasetFile.requireColumn(tieBreak.field, role: "tie-break field", in: table, file: file)
            guard tieBreak.numeric || tieBreak.field == sortField else {
                throw ToolError(
                    "--tie-break \(tieBreak.field): a text tie-break follows the sorted order, so it must be the sort field '\(sortField)' (use --sort \(tieBreak.field), or \(tieBreak.field):numeric)"
                )
            }
            settings.tieBreak = tieBreak
        } else if let tieBreak = description.tieBreak {
            try requireDescribed(tieBreak.field, key: "tieBreak")
            // A text tie-break was written for the described sort field (else the described first
            // field): --sort or --field naming another drops it.
            if tieBreak.numeric || tieBreak.field == sortField {
                settings.tieBreak = tieBreak
            } else if request.sort == nil && request.fields.isEmpty {
                throw keyError(
                    "tieBreak",
                    "a text tie-break follows the sorted order, so it must be the sort field '\(sortField)' (or \(tieBreak.field):numeric)"
                )
            }
        }
        return (settings, request.scopes.isEmpty ? nil : givenScopes.first)
    }

    /// The metadata `sift index` stores with a snapshot: where the records came from, their
    /// columns, and the settings beyond the index configuration (so that the REPL and
    /// `sift query` open the snapshot as they would open the data file).
    static func metadata(_ opened: Opened) -> [String: String] {
        let settings = opened.settings
        var metadata = [
            MetadataKey.source: opened.dataset.file, MetadataKey.idField: opened.dataset.idField ?? "",
            MetadataKey.columns: jsonList(opened.dataset.columns),
            MetadataKey.mode: settings.mode.rawValue, MetadataKey.order: settings.order.rawValue,
            MetadataKey.trigger: settings.trigger.argument,
        ]
        if settings.showIsGiven { metadata[MetadataKey.show] = jsonList(settings.show) }
        if settings.descending { metadata[MetadataKey.descending] = "true" }
        return metadata
    }

    /// Opens a snapshot from `sift index`: its configuration is fixed (options that would change
    /// it are refused), and it is read without a description file: what the description said is
    /// in the snapshot.
    private static func openSnapshot(_ request: DatasetRequest, phases: LoadPhases) throws -> Opened {
        let given = request.configuringOptions
        guard given.isEmpty else {
            throw ToolError(
                "\(request.file): \(given.joined(separator: ", ")) cannot change an index snapshot (rebuild it with 'sift index')"
            )
        }
        let index: SearchIndex
        phases.begin("snapshot", label: "reading the snapshot")
        do {
            index = try SearchIndex.load(from: request.file)
        } catch {
            throw ToolError("\(error)")
        }
        var records: [Record] = []
        let configuration = index.configuration
        let storedColumns = index.metadata[MetadataKey.columns].flatMap(jsonList)
        var stored = storedColumns ?? configuration.searchFields
        // One list, not two, when the columns are the fields searched (a million of them).
        if stored == configuration.searchFields { stored = configuration.searchFields }
        var others = Set<String>()
        // `sift query` reads what it prints from the index: the records are made only to find
        // the columns of a snapshot that does not list them (one the library saved).
        let makesRecords = request.keepsRecords || storedColumns == nil
        // A set of the names only where names are looked up (a million columns take 30 MB).
        var known = makesRecords || !request.show.isEmpty ? Set(stored) : []
        if makesRecords {
            phases.begin("records", label: "reading records", total: index.count)
            records.reserveCapacity(index.count)
        }
        do {
            // Records are stored in original order: the data row of a record is its position + 1.
            let progress = phases.progress
            for handle in makesRecords ? index.handles() : [] {
                let record = try index.record(handle)
                records.append(record)
                for field in record.fields.keys where !known.contains(field) { others.insert(field) }
                if records.count % 65_536 == 0 {
                    progress(DataLoadProgress(phase: .records, completed: records.count, total: index.count))
                }
            }
        } catch {
            throw ToolError("\(request.file): \(error)")
        }
        phases.end()
        stored += others.sorted()
        known.formUnion(others)
        let columns = stored
        var request = request
        request.show = expandedColumnList(request.show) { known.contains($0) }
        for field in request.show where !known.contains(field) {
            throw ToolError(
                "\(request.file): unknown column to show '\(shownName(field))' (columns: \(shownNames(columns)))"
            )
        }

        // `sift query SNAPSHOT --scope NAME` selects one of its scopes (as --in does).
        if request.scopeSelectsInSnapshot, let name = request.scopes.last {
            if request.selectedScope == nil { request.selectedScope = name }
            request.scopes = []
        }
        let scopes = configuration.scopes
        let selected = try selectedScope(request, scopes: scopes, firstGiven: nil, file: request.file)

        let metadata = index.metadata
        let storedShow = metadata[MetadataKey.show].flatMap(jsonList)
        let show = request.show.isEmpty ? storedShow ?? configuration.searchFields : uniqued(request.show)
        let sort = configuration.sortField
        var settings = DatasetSettings(
            searchFields: configuration.searchFields,
            scopes: scopes,
            collation: configuration.collation,
            sort: sort,
            sortOptions: configuration.sortOptions,
            descending: request.descending ?? (metadata[MetadataKey.descending] == "true"),
            mode: request.mode ?? metadata[MetadataKey.mode].flatMap(MatchMode.init(rawValue:)) ?? .words,
            order: request.order ?? metadata[MetadataKey.order].flatMap(ResultOrder.init(rawValue:))
                ?? (sort == nil ? .original : .sorted),
            trigger: request.trigger ?? metadata[MetadataKey.trigger].flatMap(SearchTrigger.init(argument:))
                ?? .asYouType,
            show: show,
            showIsGiven: !request.show.isEmpty || storedShow != nil
        )
        settings.syntax = request.syntax ?? .operators
        settings.typos = request.typos ?? .off
        try requireTypoMode(settings)
        settings.tieBreak = configuration.rankingTieBreak
        settings.rankingRules = configuration.rankingRules
        let idField = metadata[MetadataKey.idField].flatMap { $0.isEmpty ? nil : $0 }
        let dataset = Dataset(
            file: request.file,
            source: metadata[MetadataKey.source] ?? request.file,
            columns: columns,
            idField: idField,
            records: records
        )
        return Opened(
            dataset: dataset,
            settings: settings,
            descriptionFile: nil,
            snapshot: index,
            selectedScope: selected
        )
    }

    private static func jsonList(_ names: [String]) -> String {
        "[" + names.map(JSON.string).joined(separator: ", ") + "]"
    }

    private static func jsonList(_ text: String) -> [String]? {
        // Decoded straight into Swift strings (`JSONSerialization` made an object per name: 80
        // bytes a column of a million-column snapshot).
        try? JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    /// Typo tolerance is defined in words and prefix modes only: asked for in another mode, it
    /// would silently do nothing.
    static func requireTypoMode(_ settings: DatasetSettings) throws {
        guard settings.typos != .off, settings.mode != .words, settings.mode != .prefix else { return }
        throw ToolError(
            "--typos \(settings.typos) works in words and prefix modes only, and this search is in \(settings.mode.rawValue) mode (add --mode words)"
        )
    }

    /// The scopes a data file's category columns offer (`DataFile.categoryColumns`): one per value
    /// of each column with at most 16 values, named by the value (`column=value` when another
    /// scope has that name), at most 32 in all.
    static func categoryScopes(_ categories: [(column: String, values: [String])], minimumLength: Int) -> [Scope] {
        var scopes: [Scope] = []
        var names: Set<String> = ["All"]
        for (column, values) in categories where values.count <= 16 {
            guard scopes.count + values.count <= 32 else { break }
            for value in values {
                let name = names.contains(value) ? "\(column)=\(value)" : value
                names.insert(name)
                scopes.append(
                    Scope(
                        name: name,
                        filter: Scope.Filter(field: column, values: [value]),
                        minimumLength: minimumLength
                    )
                )
            }
        }
        return scopes
    }

    /// Values of a repeatable column option, each split at commas unless it names a column.
    static func expandedColumnList(_ values: [String], isColumn: (String) -> Bool) -> [String] {
        values.flatMap { value -> [String] in
            guard value.contains(","), !isColumn(value) else { return [value] }
            return value.split(separator: ",").map { String($0) }
        }
    }

    static func uniqued(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
