internal import Sift

/// The properties the controller fuzzer checks, shared by the libFuzzer target
/// (`Fuzz/Sources/SiftControllerFuzzer`) and the corpus replay test. Underscored: not public API.
///
/// An input drives a `SearchController` the way a search bar and a table view do, without
/// waiting for answers, and then checks what it published:
///
/// - four bytes of options: the collation (as `_SiftFuzzing`'s), then trigger, threshold policy
///   and source; the layouts of the two tables and the ranking tie-break; the match mode and
///   change limit;
/// - UTF-8 text (decoded leniently): records, one a line, as `name⇥code⇥continent` (the code and
///   continent may be left out), then U+0001, then a script, one Unicode scalar a step:
///
/// | scalar | step |
/// |---|---|
/// | U+0002 | backspace |
/// | U+0003 | the next scope |
/// | U+0004, U+0005 | submit; cancel |
/// | U+0006 *p* *line* | insert a record *line* at original position *p* |
/// | U+0007 *p*, U+0008 *p* *line* | delete, update the record at original position *p* (by id) |
/// | U+000E *p* *q* | move the record at original position *p* to *q* (by id) |
/// | U+000F *p* *q* [*line*] | settle, then edit through a table, by index path: *p* picks the table and the edit (insert, delete, update, move), *q* the row |
/// | U+0010 | settle, and compare the tables with a fresh index |
/// | U+0011 *p* | yield *p* times, so that some answers arrive |
/// | another control character | nothing |
/// | anything else | type it |
///
/// Positions and rows are taken modulo the count; a *line* runs to the next line feed. Inputs
/// (keystrokes, scope changes, submit, cancel) return at once; edits by id are awaited but race
/// the answers in flight. After a settle, and at the end:
///
/// - the original and results tables, the badges and what the results show equal what a fresh
///   index of the same records gives for the search bar as it is; in `contains` mode every
///   result is checked against ICU `usearch` over the scope's fields too (a brute-force oracle);
/// - over every update published: sequence numbers without gaps, generations that never
///   decrease, each update's query the search bar's at its generation (so an older query's
///   answer never replaces a newer one), and each update's change sets, applied to the previous
///   update's tables, give exactly its tables;
/// - over the updates a subscriber with the default buffering (`.all`) receives when it reads
///   only after each settle (so that the updates it missed are merged): the same, with sequence
///   numbers that only grow and change sets that lead from the tables it received last.
public enum _SiftControllerFuzzing {
    /// Checks one input; returns a description of the first problem, or nil.
    public static func check(_ data: [UInt8]) async -> String? {
        guard data.count >= 4 else { return nil }
        do {
            var session = try Session(data)
            return try await session.run()
        } catch {
            return "unexpected error: \(error)"
        }
    }

    /// At most this many records are read, and this many script steps run.
    static let recordLimit = 64
    static let stepLimit = 400

    /// The index: two searched fields, a category, and four scopes (every field; one field from
    /// two characters on; a filter; one field under a tertiary collation of its own).
    static func configuration(_ collation: Collation) -> IndexConfiguration {
        IndexConfiguration(
            searchFields: ["name", "code"],
            collation: collation,
            scopes: [
                Scope(name: "All"),
                Scope(name: "Name", fields: ["name"], minimumLength: 2),
                Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"])),
                Scope(
                    name: "Exact",
                    fields: ["name"],
                    collation: Collation(locale: collation.locale, strength: .tertiary)
                ),
            ],
            sortField: "name",
            cacheCapacity: 6
        )
    }

    /// A record from a line `name⇥code⇥continent`.
    static func record(id: String, line: Substring, number: Int) -> Record {
        let parts = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        var fields: [String: String] = [:]
        fields["name"] = String(parts[0].prefix(200))
        if parts.count > 1 { fields["code"] = String(parts[1].prefix(20)) }
        fields["continent"] = parts.count > 2 ? String(parts[2].prefix(20)) : ["EU", "SA", "AS"][number % 3]
        return Record(id: id, fields: fields.filter { !$0.value.isEmpty })
    }

    /// A table as its sections' titles and row ids (handles differ between indexes).
    struct Shape: Equatable, CustomStringConvertible {
        var sections: [Section]

        struct Section: Equatable {
            var title: String?
            var ids: [String]
        }

        init(_ table: RecordTable) {
            sections = (0..<table.numberOfSections).map { section in
                Section(title: table.title(ofSection: section), ids: table.rows(inSection: section).map(\.id))
            }
        }

        var description: String {
            sections.map { "\($0.title ?? "-"): \($0.ids.joined(separator: ","))" }.joined(separator: " | ")
        }
    }

    /// One input's controller, the records it should hold, and the search bar at every generation.
    struct Session {
        let configuration: IndexConfiguration
        let options: SearchController.Options
        let controller: SearchController
        var script: [Unicode.Scalar]
        var next = 0
        /// The records in original order, as the edits so far leave them.
        var model: [Record]
        var insertedCount = 0
        /// The search bar: text, selected scope, and both at each generation.
        var text = ""
        var scope = 0
        var bar: [UInt64: (text: String, scope: String)]
        var latest: UInt64 = 0
        var references: [Collation: ReferenceSearch] = [:]
        /// A subscriber with the default buffering, read only after a settle, and the last update
        /// it received.
        var slowReader: AsyncStream<SearchUpdate>.Iterator?
        var slowReaderLast: SearchUpdate?

        init(_ data: [UInt8]) throws {
            let collation = _SiftFuzzing.collations[Int(data[0]) % _SiftFuzzing.collations.count]
            var configuration = _SiftControllerFuzzing.configuration(collation)
            // Ranked ties: file order, the name descending (text: the sorted order), or the code read
            // as a number (most codes are not numbers: those come last).
            configuration.rankingTieBreak =
                [
                    nil, nil, RankingTieBreak(field: "name", descending: true),
                    RankingTieBreak(field: "code", numeric: true),
                ][Int(data[2] >> 5 & 0x3)]
            self.configuration = configuration
            options = SearchController.Options(
                trigger: data[1] & 0x7 == 0x7 ? .onSubmit : .asYouType,
                belowThreshold: BelowThresholdPolicy.allCases[Int(data[1] >> 3 & 0x3) % 3],
                mode: MatchMode.allCases[Int(data[3] & 0x3) % 3],
                originalTable: TableLayout(
                    order: data[2] & 1 == 0 ? .original : .sorted,
                    isSectioned: data[2] & 2 != 0
                ),
                resultsTable: TableLayout(
                    order: ResultOrder.allCases[Int(data[2] >> 2 & 0x3) % 3],
                    isSectioned: data[2] & 0x10 != 0
                ),
                changeLimit: [nil, 0, 2, 8][Int(data[3] >> 2 & 0x3)]
            )
            let text = String(decoding: data[4...], as: UTF8.self)
            let parts = text.split(separator: "\u{1}", maxSplits: 1, omittingEmptySubsequences: false)
            let lines = parts[0].split(separator: "\n", omittingEmptySubsequences: false)
            model = lines.prefix(recordLimit).enumerated().map { number, line in
                _SiftControllerFuzzing.record(id: "r\(number)", line: line, number: number)
            }
            script = parts.count > 1 ? Array(parts[1].unicodeScalars) : []
            let source: any SearchSource = data[1] & 0x20 != 0 ? OvertakableSource() : LocalIndexSource()
            let index = try SearchIndex(configuration: configuration, records: model)
            // Slots renumbered as soon as half are free for half the inputs (see
            // `SearchIndex.renumberSlots()`), as they are from 256 slots on.
            if data[1] & 0x40 != 0 { index.knobs.minimumSlotsToRenumber = 2 }
            controller = try SearchController(index: index, options: options, source: source)
            bar = [0: ("", configuration.scopes[0].name)]
        }

        // MARK: Reading the script

        mutating func parameter() -> Int {
            guard next < script.count else { return 0 }
            defer { next += 1 }
            return Int(script[next].value)
        }

        mutating func line() -> Substring {
            var line = ""
            while next < script.count, script[next] != "\n" {
                line.unicodeScalars.append(script[next])
                next += 1
            }
            next += 1
            return line[...]
        }

        mutating func newRecord(_ line: Substring) -> Record {
            insertedCount += 1
            return _SiftControllerFuzzing.record(id: "n\(insertedCount)", line: line, number: insertedCount)
        }

        /// Where the record with `id` is in the model; a record the controller shows but the model
        /// lacks means the two have parted.
        func position(of id: String) throws(Divergence) -> Int {
            guard let position = model.firstIndex(where: { $0.id == id }) else {
                throw Divergence(description: "the controller shows record \(id), which the edits so far removed")
            }
            return position
        }

        mutating func input(_ generation: UInt64) {
            bar[generation] = (text, configuration.scopes[scope].name)
            latest = generation
        }

        // MARK: Running

        mutating func run() async throws -> String? {
            let updates = await controller.updates(buffering: .newest(.max))
            slowReader = await controller.updates().makeAsyncIterator()
            var steps = 0
            while next < script.count, steps < stepLimit {
                steps += 1
                let scalar = script[next]
                next += 1
                if let problem = try await step(scalar) { return "step \(steps): \(problem)" }
            }
            try await settle()
            if let problem = try await compareWithFreshIndex() { return "at the end: \(problem)" }
            if let problem = await readSlowly() { return "at the end: \(problem)" }
            return try await checkHistory(updates)
        }

        mutating func step(_ scalar: Unicode.Scalar) async throws -> String? {
            switch scalar.value {
            case 0x2:
                if !text.isEmpty { text.removeLast() }
                input(controller.setText(text))
            case 0x3:
                scope = (scope + 1) % configuration.scopes.count
                input(try controller.selectScope(configuration.scopes[scope].name))
            case 0x4: input(controller.submit())
            case 0x5:
                text = ""
                input(controller.cancel())
            case 0x6:
                let at = parameter() % (model.count + 1)
                let record = newRecord(line())
                try await controller.insert(record, atOriginalPosition: at)
                model.insert(record, at: at)
            case 0x7 where !model.isEmpty:
                let at = parameter() % model.count
                try await controller.deleteRecord(id: model[at].id)
                model.remove(at: at)
            case 0x8 where !model.isEmpty:
                let at = parameter() % model.count
                let record = _SiftControllerFuzzing.record(id: model[at].id, line: line(), number: at)
                try await controller.update(record)
                model[at] = record
            case 0xE where !model.isEmpty:
                let from = parameter() % model.count
                let to = parameter() % model.count
                try await controller.moveRecord(id: model[from].id, toOriginalPosition: to)
                model.insert(model.remove(at: from), at: to)
            case 0xF:
                try await settle()
                if let problem = try await editThroughATable() { return problem }
                if let problem = try await compareWithFreshIndex() { return problem }
                return await readSlowly()
            case 0x10:
                try await settle()
                if let problem = try await compareWithFreshIndex() { return problem }
                return await readSlowly()
            case 0x11:
                for _ in 0..<(parameter() % 16) { await Task.yield() }
            case 0..<0x20: break
            default:
                text.unicodeScalars.append(scalar)
                input(controller.setText(text))
            }
            return nil
        }

        /// Waits until the latest input has settled (its answer, or its "too short" or "awaiting
        /// submit" state): no query runs after this until the next input.
        func settle() async throws { _ = try await controller.settledUpdate(for: latest) }

        /// An insert, delete, update or move through the original or the results table, by index
        /// path in the current tables (valid because nothing is in flight after a settle).
        mutating func editThroughATable() async throws -> String? {
            let choice = parameter()
            let row = parameter()
            let kind: TableKind = choice % 2 == 0 ? .original : .results
            let table = await controller.currentUpdate.tables[kind]
            let count = table.rowCount
            switch choice / 2 % 4 {
            case 0:
                let record = newRecord(line())
                let number = row % (count + 1)
                let path: TableIndexPath
                let at: Int
                if number < count {
                    path = table.indexPath(forRowNumber: number)!
                    at = try position(of: table[path].id)
                } else if count > 0 {
                    let last = table.indexPath(forRowNumber: count - 1)!
                    path = TableIndexPath(section: last.section, row: last.row + 1)
                    at = try position(of: table[last].id) + 1
                } else {
                    path = TableIndexPath(section: 0, row: 0)
                    at = model.count
                }
                try await controller.insert(record, at: path, in: kind)
                model.insert(record, at: at)
            case 1 where count > 0:
                let path = table.indexPath(forRowNumber: row % count)!
                let deleted = try await controller.deleteRow(at: path, in: kind)
                guard deleted.id == table[path].id else {
                    return "deleting \(kind) row \(path) deleted \(deleted.id), not \(table[path].id)"
                }
                model.remove(at: try position(of: deleted.id))
            case 2 where count > 0:
                let path = table.indexPath(forRowNumber: row % count)!
                let id = table[path].id
                let record = _SiftControllerFuzzing.record(id: id, line: line(), number: row)
                try await controller.updateRow(at: path, in: kind, fields: record.fields)
                model[try position(of: id)] = record
            case 3 where count > 0:
                let from = table.indexPath(forRowNumber: row % count)!
                let to = table.indexPath(forRowNumber: parameter() % count)!
                let target = try position(of: table[to].id)
                try await controller.moveRow(at: from, to: to, in: kind)
                model.insert(model.remove(at: try position(of: table[from].id)), at: target)
            default: break
            }
            return nil
        }

        // MARK: Checks

        /// The settled display against a fresh index of the same records, and (in `contains`
        /// mode) the results against ICU `usearch`.
        mutating func compareWithFreshIndex() async throws -> String? {
            let update = await controller.currentUpdate
            let content = await controller.content
            guard update.state.isSettled else { return "settled, yet \(update.state)" }
            let query = Query(
                text,
                scope: configuration.scopes[scope].name,
                mode: options.mode,
                order: options.resultsTable.order
            )
            guard update.query == query else { return "the update's query is \(update.query), the bar's \(query)" }
            switch update.state {
            case .inactive:
                guard content == .empty else { return "inactive, showing \(content)" }
            case .results:
                guard content == .matches(query) else { return "the results of \(content) for \(query)" }
            case .tooShort:
                switch options.belowThreshold {
                case .originalList: guard content == .allRecords else { return "too short, showing \(content)" }
                case .empty: guard content == .empty else { return "too short, showing \(content)" }
                case .keepPrevious: break
                }
            case .awaitingSubmit: break
            case .searching, .failed: return "state \(update.state)"
            }
            guard update.resultsQuery == content.query else {
                return "resultsQuery \(String(describing: update.resultsQuery)) for \(content)"
            }

            let fresh = try SearchIndex(configuration: configuration, records: model)
            func expected(_ handles: [RecordHandle], _ layout: TableLayout) throws -> Shape {
                Shape(
                    RecordTable(
                        rows: try handles.map { try fresh.tableRow(for: $0) },
                        layout: layout,
                        sectionTitles: fresh.sectionTitles
                    )
                )
            }
            let original = try expected(fresh.handles(in: options.originalTable.order), options.originalTable)
            guard Shape(update.tables.original) == original else {
                return "original table \(Shape(update.tables.original)), a fresh index's \(original)"
            }
            let handles: [RecordHandle]
            switch content {
            case .empty: handles = []
            case .allRecords: handles = fresh.handles(in: options.resultsTable.order == .sorted ? .sorted : .original)
            case .matches(let shown): handles = try fresh.search(shown).rows
            }
            let results = try expected(handles, options.resultsTable)
            guard Shape(update.tables.results) == results else {
                return "results table \(Shape(update.tables.results)) for \(content), a fresh index's \(results)"
            }
            let counts = try content.query.map { try fresh.search($0).scopeCounts.map(\.count) }
            guard update.scopes.map(\.count) == counts ?? update.scopes.map({ _ in nil }) else {
                return "badges \(update.scopes.map(\.count)), a fresh index's \(String(describing: counts))"
            }
            if case .matches(let shown) = content, shown.mode == .contains {
                return try compareWithUsearch(shown, results: update.tables.results, fresh: fresh)
            }
            return nil
        }

        /// Brute force: the records whose scope fields ICU usearch finds the query in, in original
        /// order, are the results (a query with no collation elements is left to the fresh index).
        mutating func compareWithUsearch(_ query: Query, results: RecordTable, fresh: SearchIndex) throws -> String? {
            let scope = configuration.scopes.first { $0.name == query.scope }!
            let collation = scope.collation ?? configuration.collation
            guard let folding = fresh.folded.foldings.first(where: { $0.collation == collation }),
                try !folding.folder.patternElements(query.text).isEmpty
            else { return nil }
            if references[collation] == nil { references[collation] = try ReferenceSearch(collation: collation) }
            let reference = references[collation]!
            let fields = scope.fields ?? configuration.searchFields
            var expected: Set<String> = []
            for record in model {
                if let filter = scope.filter, !filter.values.contains(record.fields[filter.field] ?? "") { continue }
                for field in fields {
                    if let value = record.fields[field], try reference.contains(query.text, in: value) {
                        expected.insert(record.id)
                        break
                    }
                }
            }
            let shown = Set(results.rows(numbered: 0..<results.rowCount).map(\.id))
            guard shown == expected else {
                return
                    "\(query.text.debugDescription) in \(query.scope): shown \(shown.sorted()), usearch \(expected.sorted())"
            }
            return nil
        }

        /// What the slow subscriber holds, read up to the controller's current update: sequence
        /// numbers that grow, generations that never decrease, the bar's query at each update's
        /// generation, and change sets that lead exactly from the tables it received last.
        mutating func readSlowly() async -> String? {
            let current = await controller.currentUpdate.sequence
            while slowReaderLast.map({ $0.sequence < current }) ?? true {
                guard let update = await slowReader?.next() else { return "the slow subscriber's stream ended" }
                defer { slowReaderLast = update }
                guard let bar = bar[update.generation], update.query.text == bar.text, update.query.scope == bar.scope
                else { return "slow subscriber: update \(update.sequence) shows \(update.query.text.debugDescription)" }
                guard let previous = slowReaderLast else { continue }
                guard update.sequence > previous.sequence, update.generation >= previous.generation else {
                    return "slow subscriber: update \(update.sequence), generation \(update.generation) after "
                        + "\(previous.sequence), generation \(previous.generation)"
                }
                for kind in TableKind.allCases {
                    let changes = kind == .original ? update.originalChanges : update.resultsChanges
                    let applied = try? changes.apply(to: previous.tables[kind], dataSource: update.tables[kind])
                    guard applied == update.tables[kind] else {
                        return "slow subscriber: update \(update.sequence) after \(previous.sequence): its \(kind) "
                            + "change set \(changes) does not give its table"
                    }
                }
            }
            return nil
        }

        /// Every update published, in order: no gaps, generations that never decrease, the bar's
        /// query at each update's generation, and change sets that lead exactly from each update's
        /// tables to the next one's.
        func checkHistory(_ updates: AsyncStream<SearchUpdate>) async throws -> String? {
            let last = await controller.currentUpdate.sequence
            var previous: SearchUpdate? = nil
            for await update in updates {
                guard let bar = bar[update.generation] else {
                    return "update \(update.sequence) has generation \(update.generation), never issued"
                }
                guard update.query.text == bar.text, update.query.scope == bar.scope else {
                    return
                        "update \(update.sequence) (\(update.reason), generation \(update.generation)) shows "
                        + "\(update.query.text.debugDescription) in \(update.query.scope); the bar then said "
                        + "\(bar.text.debugDescription) in \(bar.scope)"
                }
                if update.state == .results, update.resultsQuery != update.query {
                    return "update \(update.sequence) shows results of \(String(describing: update.resultsQuery))"
                }
                if let previous {
                    guard update.sequence == previous.sequence + 1 else {
                        return "update \(update.sequence) follows \(previous.sequence)"
                    }
                    guard update.generation >= previous.generation else {
                        return "update \(update.sequence): generation \(update.generation) after \(previous.generation)"
                    }
                    for kind in TableKind.allCases {
                        let changes = kind == .original ? update.originalChanges : update.resultsChanges
                        let applied = try changes.apply(to: previous.tables[kind], dataSource: update.tables[kind])
                        guard applied == update.tables[kind] else {
                            return
                                "update \(update.sequence): its \(kind) change set \(changes) does not give its table"
                        }
                    }
                } else if update.sequence != 0 {
                    return "the first update is \(update.sequence)"
                }
                previous = update
                if update.sequence >= last { break }
            }
            return nil
        }
    }

    /// The model and the controller disagree about which records exist.
    struct Divergence: Error, CustomStringConvertible {
        var description: String
    }

    /// The local index, answering after a suspension of the controller's actor, so that edits
    /// (and newer inputs) can overtake an answer between its search and its delivery.
    struct OvertakableSource: SearchSource {
        var supportsEditing: Bool { true }

        func search(
            _ request: SearchRequest,
            in index: SearchIndex,
            isolation: isolated any Actor
        ) async throws -> SearchAnswer {
            let result = try index.search(request.query, isCancelled: request.isCancelled)
            await Task.yield()
            return SearchAnswer(result)
        }
    }
}
