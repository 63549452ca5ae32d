import Foundation
import Sift
import Testing
import _SiftTestSupport

// The code examples of the DocC catalog (Sources/Sift/Sift.docc), run here and checked against
// what the articles say they print. Each example is copied verbatim into a test below (only
// public API: this file imports Sift without @testable); `everyCatalogExampleIsTestedHere`
// fails when an article's Swift code is not found in this file, whitespace aside. In each test,
// a local `print` records the printed lines instead of writing them out.

/// The lines an example prints.
private final class PrintedLines {
    private(set) var lines: [String] = []

    /// Records one printed line, as `Swift.print` would write it.
    func print(_ items: [Any], separator: String = " ") {
        lines.append(items.map { "\($0)" }.joined(separator: separator))
    }
}

/// The Swift code blocks of the Markdown files in a DocC catalog, by file name, without their
/// `import` lines (they are at the top of this file). A block whose first line is
/// `// Package.swift` is a package manifest excerpt, not code of the library: it is left out.
private func swiftCodeBlocks(inCatalog catalog: URL) throws -> [(file: String, code: String, imports: [String])] {
    var blocks: [(file: String, code: String, imports: [String])] = []
    let files = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
    for file in files.sorted() {
        let text = try String(contentsOf: catalog.appendingPathComponent(file), encoding: .utf8)
        var current: [String]? = nil
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil {
                if trimmed == "```swift" { current = [] }
            } else if trimmed == "```" {
                let lines = current!
                current = nil
                if lines.first?.trimmingCharacters(in: .whitespaces) == "// Package.swift" { continue }
                let imports = lines.filter { $0.hasPrefix("import ") }
                let code = lines.filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
                blocks.append((file, code, imports))
            } else {
                current!.append(line)
            }
        }
    }
    return blocks
}

/// `text` without any whitespace: examples compare equal however they are indented and wrapped.
private func withoutWhitespace(_ text: String) -> String {
    String(text.unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init))
}

// MARK: - Types the articles define

// Driving a list: a screen model that shows the controller's updates.

@MainActor final class SearchScreen {
    let controller: SearchController
    private(set) var tables: SearchTables?
    private(set) var isSearching = false
    private(set) var status = ""

    init(controller: SearchController) { self.controller = controller }

    func start() async {
        await controller.deliverUpdatesOnMainActor { [weak self] update in self?.show(update) }
    }

    // The search bar's actions.
    func searchTextChanged(_ text: String) { controller.setText(text) }
    func cancelTapped() { controller.cancel() }

    /// The table the table view shows: the results while searching, else every record.
    var visibleTable: RecordTable? { isSearching ? tables?.results : tables?.original }

    private func show(_ update: SearchUpdate) {
        tables = update.tables  // a table view animates update.resultsChanges and originalChanges here
        isSearching = update.state != .inactive
        switch update.state {
        case .inactive: status = ""
        case .tooShort(let needed): status = "Type at least \(needed) letters"
        case .awaitingSubmit: status = "Press Search"
        case .searching: status = "Searching…"
        case .results: status = "\(update.tables.results.rowCount) results"
        case .failed(let message): status = message
        }
    }
}

// Driving a list: a source that asks a service instead of the local index.

/// A search service (a server, say): it answers a text with the ids of the matching records.
protocol CitySearchService: Sendable {
    func cityIDs(matching text: String, scope: String) async throws -> [String]
}

/// A source whose answers come from a service, late.
struct ServiceSource: SearchSource {
    let service: any CitySearchService

    func search(
        _ request: SearchRequest,
        in index: SearchIndex,
        isolation: isolated any Actor
    ) async throws
        -> SearchAnswer
    {
        let ids = try await service.cityIDs(matching: request.query.text, scope: request.query.scope)
        try request.checkCancellation()  // a newer keystroke came while the service was answering
        return SearchAnswer(ids: ids, in: index)
    }
}

/// The service of the tests: it answers every text with the same ids.
struct FixedCitySearchService: CitySearchService {
    let ids: [String]
    func cityIDs(matching text: String, scope: String) async throws -> [String] { ids }
}

@Suite("Documentation examples (Sift.docc)", .timeLimit(.minutes(30)))
struct DocumentationExampleTests {
    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Sift/Sift.docc")

    @Test func everyCatalogExampleIsTestedHere() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let tested = withoutWhitespace(source)
        let blocks = try swiftCodeBlocks(inCatalog: Self.catalog)
        #expect(blocks.count >= 10)
        for block in blocks {
            let isTested = tested.contains(withoutWhitespace(block.code))
            #expect(isTested, "an example of \(block.file) is not tested here:\n\(block.code)")
            for line in block.imports {
                #expect(source.contains("\n\(line)\n"), "\(block.file) imports what this file does not: \(line)")
            }
        }
    }

    // MARK: - Sift.md

    @Test func theOverview() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es")),
            records: [Record(id: "1", fields: ["name": "Niño"]), Record(id: "2", fields: ["name": "Nino"])]
        )
        let result = try index.search(Query("nino"))  // 1. search on every keystroke
        print(try result.rows.map { try index.id(of: $0) })  // 2. ["2"]: in Spanish, ñ is a letter of its own
        print(try index.matchRanges(of: result.rows[0], for: Query("nino")))  // 3. ["name": [Range(0..<4)]]: highlight
        try index.insert(Record(id: "3", fields: ["name": "Ninón"]))  // 4. edit at any time

        #expect(console.lines == [#"["2"]"#, #"["name": [Range(0..<4)]]"#])
        #expect(index.count == 3)
    }

    // MARK: - GettingStarted.md

    @Test func gettingStarted() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let cities = [
            Record(id: "1", fields: ["name": "São José dos Campos", "country": "Brasil", "region": "Americas"]),
            Record(id: "2", fields: ["name": "San José", "country": "Costa Rica", "region": "Americas"]),
            Record(id: "3", fields: ["name": "Zürich", "country": "Schweiz", "region": "Europe"]),
            Record(id: "4", fields: ["name": "Großenhain", "country": "Deutschland", "region": "Europe"]),
            Record(id: "5", fields: ["name": "Jönköping", "country": "Sverige", "region": "Europe"]),
        ]
        let index = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name", "country"],
                collation: Collation(locale: "root"),  // primary strength: case and accents do not count
                scopes: [
                    Scope(name: "All"),
                    Scope(name: "Name", fields: ["name"], minimumLength: 2),
                    Scope(name: "Europe", filter: .init(field: "region", values: ["Europe"])),
                ],
                sortField: "name"
            ),
            records: cities
        )

        let result = try index.search(Query("jose"))
        print(result.state)  // matches
        print(try result.rows.map { try index.value(of: "name", for: $0) })  // ["São José dos Campos", "San José"]
        print(result.scopeCounts.map { "\($0.scope) \($0.count ?? 0)" })  // ["All 2", "Name 2", "Europe 0"]

        print(try index.search(Query("grossen")).rows.map { try index.id(of: $0) })  // ["4"]: ß is ss
        print(try index.search(Query("z", scope: "Name")).state)  // tooShort(needed: 2)
        print(try index.search(Query("", scope: "Europe")).rows.count)  // 3: the empty query lists the scope

        let first = result.rows[0]
        let name = try index.value(of: "name", for: first)
        let ranges = try index.highlights(of: first, for: Query("jose"))["name"] ?? []
        print(ranges.map { name[$0] })  // ["José"]
        print(try index.matchRanges(of: first, for: Query("jose")))  // ["name": [Range(4..<8)]]: UTF-16 offsets

        print(try index.search(Query("jo", mode: .words)).rows.map { try index.id(of: $0) })  // ["1", "2", "5"]
        print(try index.search(Query("s", mode: .prefix)).rows.map { try index.id(of: $0) })  // ["1", "2", "3", "5"]

        let josefov = try index.insert(
            Record(id: "6", fields: ["name": "Josefov", "country": "Česko", "region": "Europe"]),
            at: 0
        )
        let sanJose = index.handle(forID: "2")!
        try index.update(
            Record(id: "2", fields: ["name": "San José de Costa Rica", "country": "Costa Rica", "region": "Americas"])
        )
        try index.move(from: 0, to: 5)  // Josefov goes to the end of the original list
        try index.remove(id: "4")
        print(try index.handles().map { try index.id(of: $0) })  // ["1", "2", "3", "5", "6"]
        print(try index.search(Query("jose")).rows.map { try index.id(of: $0) })  // ["1", "2", "6"]
        do {
            _ = try index.record(sanJose)  // a handle from before the update
        } catch {
            print(error)  // the record handle is stale (the record was deleted or updated)
        }

        print(try index.handles(in: .sorted).map { try index.value(of: "name", for: $0) })
        // ["Jönköping", "Josefov", "San José de Costa Rica", "São José dos Campos", "Zürich"]
        print(index.sectionTitles[try index.section(of: josefov)])  // J

        #expect(
            console.lines == [
                "matches",
                #"["São José dos Campos", "San José"]"#,
                #"["All 2", "Name 2", "Europe 0"]"#,
                #"["4"]"#,
                "tooShort(needed: 2)",
                "3",
                #"["José"]"#,
                #"["name": [Range(4..<8)]]"#,
                #"["1", "2", "5"]"#,
                #"["1", "2", "3", "5"]"#,
                #"["1", "2", "3", "5", "6"]"#,
                #"["1", "2", "6"]"#,
                "the record handle is stale (the record was deleted or updated)",
                #"["Jönköping", "Josefov", "San José de Costa Rica", "São José dos Campos", "Zürich"]"#,
                "J",
            ]
        )
    }

    // MARK: - DrivingAList.md

    static let cities = [
        Record(id: "1", fields: ["name": "Paris", "continent": "EU"]),
        Record(id: "2", fields: ["name": "São Paulo", "continent": "SA"]),
        Record(id: "3", fields: ["name": "Parma", "continent": "EU"]),
        Record(id: "4", fields: ["name": "Lapa", "continent": "SA"]),
        Record(id: "5", fields: ["name": "Ñuñoa", "continent": "SA"]),
        Record(id: "6", fields: ["name": "Nuuk", "continent": "NA"]),
    ]

    @Test func drivingAList() async throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }
        let cities = Self.cities

        let controller = try SearchController(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                collation: Collation(locale: "es"),
                scopes: [Scope(name: "All"), Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"]))]
            ),
            records: cities,
            options: .init(
                originalTable: TableLayout(order: .sorted, isSectioned: true),  // alphabetic sections
                resultsTable: TableLayout(order: .ranked)  // matches at the start of a name first
            )
        )

        let initial = await controller.currentUpdate
        print(initial.state)  // inactive
        let original = initial.tables.original
        for section in 0..<original.numberOfSections {
            print(original.title(ofSection: section) ?? "", original.rows(inSection: section).map(\.title))
        }
        // L ["Lapa"]
        // N ["Nuuk"]
        // Ñ ["Ñuñoa"]
        // P ["Paris", "Parma"]
        // S ["São Paulo"]

        let update = try await controller.settledUpdate(for: controller.setText("pa"))
        print(update.state)  // results
        print(update.tables.results.rows(inSection: 0).map(\.title))  // ["Paris", "Parma", "São Paulo", "Lapa"]
        print(update.scopes.map { "\($0.name) \($0.count ?? 0)" })  // ["All 4", "Europe 2"]

        let narrowed = try await controller.settledUpdate(for: controller.setText("par"))
        print(narrowed.tables.results.rows(inSection: 0).map(\.title))  // ["Paris", "Parma"]
        print(narrowed.resultsChanges.deletedRows)  // [[0, 2], [0, 3]]

        let row = narrowed.tables.results[TableIndexPath(section: 0, row: 1)]
        let record = try await controller.record(row)
        let ranges = try await controller.highlights(of: row)["name"] ?? []
        print(record.id, ranges.map { row.title[$0] })  // 3 ["Par"]

        let cancelled = try await controller.settledUpdate(for: controller.cancel())
        print(cancelled.state, cancelled.tables.results.rowCount)  // inactive 0

        #expect(
            console.lines == [
                "inactive",
                #"L ["Lapa"]"#,
                #"N ["Nuuk"]"#,
                #"Ñ ["Ñuñoa"]"#,
                #"P ["Paris", "Parma"]"#,
                #"S ["São Paulo"]"#,
                "results",
                #"["Paris", "Parma", "São Paulo", "Lapa"]"#,
                #"["All 4", "Europe 2"]"#,
                #"["Paris", "Parma"]"#,
                "[[0, 2], [0, 3]]",
                #"3 ["Par"]"#,
                "inactive 0",
            ]
        )
    }

    @Test func drivingAListEdits() async throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }
        let controller = try SearchController(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                collation: Collation(locale: "es"),
                scopes: [Scope(name: "All"), Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"]))]
            ),
            records: Self.cities,
            options: .init(
                originalTable: TableLayout(order: .sorted, isSectioned: true),
                resultsTable: TableLayout(order: .ranked)
            )
        )

        let before = try await controller.settledUpdate(for: controller.setText("pa"))
        try await controller.insert(Record(id: "7", fields: ["name": "Pamplona", "continent": "EU"]))
        let edited = await controller.currentUpdate
        print(edited.reason)  // edit
        // prints ["Paris", "Parma", "Pamplona", "São Paulo", "Lapa"]
        print(edited.tables.results.rows(inSection: 0).map(\.title))
        print(edited.resultsChanges.insertedRows, edited.originalChanges.insertedRows)  // [[0, 2]] [[3, 0]]
        print(edited.scopes.map { "\($0.name) \($0.count ?? 0)" })  // ["All 5", "Europe 3"]

        let replayed = try edited.resultsChanges.apply(to: before.tables.results, dataSource: edited.tables.results)
        print(replayed == edited.tables.results)  // true

        try await controller.deleteRow(at: TableIndexPath(section: 0, row: 0), in: .results)  // Paris
        try await controller.update(Record(id: "2", fields: ["name": "São Paulo de Olivença", "continent": "SA"]))
        let latest = await controller.currentUpdate
        // prints ["Parma", "Pamplona", "São Paulo de Olivença", "Lapa"]
        print(latest.tables.results.rows(inSection: 0).map(\.title))
        print(latest.resultsChanges.reloadedRows)  // [[0, 2]]

        #expect(
            console.lines == [
                "edit",
                #"["Paris", "Parma", "Pamplona", "São Paulo", "Lapa"]"#,
                "[[0, 2]] [[3, 0]]",
                #"["All 5", "Europe 3"]"#,
                "true",
                #"["Parma", "Pamplona", "São Paulo de Olivença", "Lapa"]"#,
                "[[0, 2]]",
            ]
        )
    }

    @Test func drivingAListOptions() async throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }
        let cities = Self.cities

        let typing = SearchController.Options(
            debounce: .milliseconds(150),  // query after a pause in typing
            belowThreshold: .empty,  // show no rows while the text is too short
            mode: .prefix
        )
        print(typing.trigger, typing.resultsTable.order)  // asYouType original

        let short = try SearchController(
            configuration: IndexConfiguration(searchFields: ["name"], scopes: [Scope(name: "All", minimumLength: 3)]),
            records: cities
        )
        let tooShort = try await short.settledUpdate(for: short.setText("pa"))
        print(tooShort.state, tooShort.tables.results.rowCount)  // tooShort(needed: 3) 6

        let onSubmit = try SearchController(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: cities,
            options: .init(trigger: .onSubmit)
        )
        print(try await onSubmit.settledUpdate(for: onSubmit.setText("pa")).state)  // awaitingSubmit
        let submitted = try await onSubmit.settledUpdate(for: onSubmit.submit())
        print(submitted.tables.results.rows(inSection: 0).map(\.title))  // ["Paris", "São Paulo", "Parma", "Lapa"]

        #expect(
            console.lines == [
                "asYouType original",
                "tooShort(needed: 3) 6",
                "awaitingSubmit",
                #"["Paris", "São Paulo", "Parma", "Lapa"]"#,
            ]
        )
        #expect(typing.debounce == .milliseconds(150) && typing.belowThreshold == .empty && typing.mode == .prefix)
    }

    @Test func drivingAListFromAServiceSource() async throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }
        let cities = Self.cities
        let service = FixedCitySearchService(ids: ["3", "1", "99"])

        let controller = try SearchController(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: cities,
            source: ServiceSource(service: service)
        )
        let update = try await controller.settledUpdate(for: controller.setText("par"))
        // prints ["Parma", "Paris"]: the service's order, unknown ids left out
        print(update.tables.results.rows(inSection: 0).map(\.title))
        do {
            try await controller.deleteRecord(id: "1")
        } catch {
            print(error)  // invalid configuration: the search source is read-only: ...
        }

        #expect(console.lines.count == 2)
        #expect(console.lines.first == #"["Parma", "Paris"]"#)
        #expect(console.lines.last?.hasPrefix("invalid configuration: the search source is read-only: ") == true)
    }

    @Test func drivingAListCells() async throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let controller = try SearchController(
            configuration: IndexConfiguration(searchFields: ["name", "notes"], collation: Collation(locale: "de")),
            records: [
                Record(id: "1", fields: ["name": "Straßburg", "population": "291313", "notes": "On the Rhine"]),
                Record(
                    id: "2",
                    fields: ["name": "Hamburg", "population": "1841179", "notes": "Its old town has a Große Straße"]
                ),
            ],
            options: .init(displayFields: ["name", "population", "notes"])
        )
        let update = try await controller.settledUpdate(for: controller.setText("strass"))
        func styled(_ segments: [HighlightSegment]) -> String {
            segments.map { $0.isHighlighted ? "[\($0.text)]" : String($0.text) }.joined()
        }
        for number in 0..<update.tables.results.rowCount {
            let cell = update.cell(at: update.tables.results.indexPath(forRowNumber: number)!)!
            let notes = cell[field: "notes"]!.snippet(length: 20)  // a window around the first match
            let name = styled(cell[field: "name"]!.segments)
            print(name, cell[field: "population"]!.text, notes.isCutAtStart ? "…" : "", styled(notes.segments))
        }
        // [Straß]burg 291313  On the Rhine
        // Hamburg 1841179 … has a Große [Straß]e

        #expect(console.lines == ["[Straß]burg 291313  On the Rhine", "Hamburg 1841179 … has a Große [Straß]e"])
    }

    @Test @MainActor func drivingAListOnTheMainActor() async throws {
        let controller = try SearchController(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es")),
            records: Self.cities
        )

        let screen = SearchScreen(controller: controller)
        await screen.start()
        screen.searchTextChanged("pa")

        // The updates reach the screen through jobs the delivering task queues on the main actor:
        // once the controller has settled, a few yields let them run (no clock, no deadline).
        _ = try await controller.settledUpdate(for: controller.latestGeneration)
        while screen.status != "4 results" {
            try Task.checkCancellation()
            await Task.yield()
        }
        #expect(screen.visibleTable?.rows(inSection: 0).map(\.title) == ["Paris", "São Paulo", "Parma", "Lapa"])
        screen.cancelTapped()
        _ = try await controller.settledUpdate(for: controller.latestGeneration)
        while screen.isSearching {
            try Task.checkCancellation()
            await Task.yield()
        }
        #expect(screen.visibleTable?.rowCount == 6)
    }

    // MARK: - HowMatchingWorks.md

    @Test func howMatchingWorks() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let german = try ReferenceSearch(collation: Collation(locale: "de"))
        print(try german.matches(of: "strasse", in: "Große Straße"))  // [Range(6..<12)]

        let streets = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "de")),
            records: [Record(id: "1", fields: ["name": "Große Straße"])]
        )
        let street = streets.handle(forID: "1")!
        print(try streets.matchRanges(of: street, for: Query("strasse")))  // ["name": [Range(6..<12)]]

        for locale in ["es", "en"] {
            let index = try SearchIndex(
                configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: locale)),
                records: [Record(id: "1", fields: ["name": "Niño"]), Record(id: "2", fields: ["name": "Nino"])]
            )
            print(locale, try index.search(Query("nino")).rows.map { try index.id(of: $0) })
        }
        // es ["2"]
        // en ["1", "2"]

        let danish = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "da")),
            records: [Record(id: "1", fields: ["name": "Aalborg"])]
        )
        print(try danish.search(Query("aa")).rows.count, try danish.search(Query("a")).rows.count)  // 1 0

        #expect(
            console.lines == [
                "[Range(6..<12)]",
                #"["name": [Range(6..<12)]]"#,
                #"es ["2"]"#,
                #"en ["1", "2"]"#,
                "1 0",
            ]
        )
    }

    @Test func howMatchingWorksNarrowing() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["street"], collation: Collation(locale: "de")),
            records: [
                Record(id: "1", fields: ["street": "Hauptstraße"]),
                Record(id: "2", fields: ["street": "Strandweg"]),
            ]
        )
        for text in ["s", "st", "str", "stra", "stras", "strass"] {
            let result = try index.search(Query(text))
            let work = result.statistics
            print(text, result.rows.count, work.fullScans, work.narrowedScans, work.cacheHits)
        }
        // s 2 1 0 0
        // st 2 0 1 0
        // str 2 0 1 0
        // stra 2 0 1 0
        // stras 0 0 1 0
        // strass 1 0 1 0
        print(try index.search(Query("stras")).statistics.cacheHits)  // 1: a backspace, answered from the cache

        #expect(
            console.lines == [
                "s 2 1 0 0",
                "st 2 0 1 0",
                "str 2 0 1 0",
                "stra 2 0 1 0",
                "stras 0 0 1 0",
                "strass 1 0 1 0",
                "1",
            ]
        )
    }

    @Test func howMatchingWorksTypos() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let tools = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: [
                Record(id: "1", fields: ["name": "ripgrep"]),
                Record(id: "2", fields: ["name": "ripgrep-all"]),
                Record(id: "3", fields: ["name": "ripgrpe"]),
                Record(id: "4", fields: ["name": "grep"]),
            ]
        )
        let typo = try tools.search(Query("ripgrpe", mode: .words, order: .ranked, typos: .auto))
        print(try typo.rows.map { try tools.id(of: $0) })  // ["3", "1", "2"]: the exact match first
        let strict = try tools.search(Query("ripgrpe", mode: .words, typos: .off))
        print(try strict.rows.map { try tools.id(of: $0) })  // ["3"]

        #expect(console.lines == [#"["3", "1", "2"]"#, #"["3"]"#])
    }

    @Test func howMatchingWorksRankingRules() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let cities = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                rankingRules: [
                    .typo, .exactness, .attribute,
                    .custom(RankingTieBreak(field: "population", numeric: true, descending: true)), .length,
                ]
            ),
            records: [
                Record(id: "1", fields: ["name": "Zuru", "population": "24000"]),
                Record(id: "2", fields: ["name": "Zürich", "population": "415367"]),
                Record(id: "3", fields: ["name": "Zur", "population": "100"]),
            ]
        )
        let zur = try cities.search(Query("zur", order: .ranked))
        print(try zur.rows.map { try cities.id(of: $0) })  // ["3", "2", "1"]: whole name, then by population

        #expect(console.lines == [#"["3", "2", "1"]"#])
    }

    @Test func howMatchingWorksModes() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let places = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: [
                Record(id: "1", fields: ["name": "San José"]),
                Record(id: "2", fields: ["name": "José Bonifácio"]),
                Record(id: "3", fields: ["name": "Josefstadt"]),
                Record(id: "4", fields: ["name": "Ajose"]),
            ]
        )
        for mode in MatchMode.allCases {
            print(mode, try places.search(Query("jose", mode: mode)).rows.map { try places.id(of: $0) })
        }
        // contains ["1", "2", "3", "4"]
        // prefix ["2", "3"]
        // words ["1", "2", "3"]
        // fuzzy ["1", "2", "3", "4"]
        print(try places.search(Query("jose san", mode: .words)).rows.map { try places.id(of: $0) })  // ["1"]
        let ranked = try places.search(Query("jose", order: .ranked))
        print(try ranked.rows.map { try places.id(of: $0) })  // ["3", "2", "1", "4"]: shorter first
        let fuzzy = try places.search(Query("jsf", mode: .fuzzy, order: .ranked))
        print(try fuzzy.rows.map { try places.id(of: $0) })  // ["3", "2"]

        #expect(
            console.lines == [
                #"contains ["1", "2", "3", "4"]"#,
                #"prefix ["2", "3"]"#,
                #"words ["1", "2", "3"]"#,
                #"fuzzy ["1", "2", "3", "4"]"#,
                #"["1"]"#,
                #"["3", "2", "1", "4"]"#,
                #"["3", "2"]"#,
            ]
        )
    }

    @Test func operatorsAndSnippets() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let editors = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name", "about"]),
            records: [
                Record(id: "vim", fields: ["name": "Vim", "about": "modal text editor"]),
                Record(id: "neovim", fields: ["name": "Neovim", "about": "vim fork, modal text editor"]),
                Record(id: "emacs", fields: ["name": "GNU Emacs", "about": "extensible text editor"]),
                Record(id: "nano", fields: ["name": "nano", "about": "small editor, text mode"]),
            ]
        )
        func ids(_ text: String, syntax: QuerySyntax = .operators) throws -> [String] {
            try editors.search(Query(text, mode: .words, syntax: syntax)).rows.map { try editors.id(of: $0) }
        }
        print(try ids("vim|emacs"))  // ["vim", "neovim", "emacs"]: either word
        print(try ids("vim -neovim"))  // ["vim"]: not neovim
        print(try ids("\"text editor\" -vim"))  // ["emacs"]: a phrase, contiguous
        print(try ids("vim|emacs", syntax: .literal))  // []: both words must match
        let emacs = editors.handle(forID: "emacs")!
        let snippet = try editors.snippets(of: emacs, for: Query("editor"), length: 10)["about"]!
        print(snippet.text, snippet.isCutAtStart, snippet.isCutAtEnd)  // ext editor true false
        print(snippet.ranges.map { snippet.text[$0] })  // ["editor"]

        #expect(
            console.lines == [
                #"["vim", "neovim", "emacs"]"#, #"["vim"]"#, #"["emacs"]"#, "[]", "ext editor true false",
                #"["editor"]"#,
            ]
        )
    }

    @Test func howMatchingWorksEdgeCases() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(alternate: .shifted)),
            records: [
                Record(id: "1", fields: ["name": "Rock'n'Roll"]),
                Record(id: "2", fields: ["name": "Rock Hill"]),
                Record(id: "3", fields: [:]),
            ]
        )
        print(try index.search(Query("rock n roll")).rows.map { try index.id(of: $0) })  // ["1"]: punctuation ignored
        print(try index.search(Query("")).state)  // all
        print(try index.search(Query("-")).rows.count)  // 3: no collation elements, every record matches
        print(try index.search(Query("r")).rows.count)  // 2: an empty field never matches
        do {
            _ = try index.search(Query("rock", scope: "Europe"))
        } catch {
            print(error)  // unknown scope 'Europe'
        }

        #expect(console.lines == [#"["1"]"#, "all", "3", "2", "unknown scope 'Europe'"])
    }

    // MARK: - Snapshots.md

    @Test func snapshots() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }
        let directory = testScratch.appendingPathComponent("sift-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cities.siftidx").path
        let notASnapshot = directory.appendingPathComponent("cities.tsv").path
        try Data("geonameid\tname\n".utf8).write(to: URL(fileURLWithPath: notASnapshot))

        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "de")),
            records: [
                Record(id: "1", fields: ["name": "Großenhain"]),
                Record(id: "2", fields: ["name": "Hauptstraße"]),
                Record(id: "3", fields: ["name": "Zürich"]),
            ]
        )
        index.metadata["source"] = "cities.tsv"
        try index.save(to: path)  // atomic: a temporary file, fsync, rename

        let reopened = try SearchIndex.load(from: path)  // no collation work but a check
        print(reopened.count, reopened.metadata["source"] ?? "")  // 3 cities.tsv
        print(try reopened.search(Query("strasse")).rows.map { try reopened.id(of: $0) })  // ["2"]

        do {
            _ = try SearchIndex.load(from: notASnapshot)
        } catch {
            if case .snapshot(_, let reason) = error { print(reason) }  // not a Sift index snapshot
        }

        let controller = try SearchController(index: try SearchIndex.load(from: path))
        print(controller.scopes.map(\.name))  // ["All"]

        #expect(console.lines == ["3 cities.tsv", #"["2"]"#, "not a Sift index snapshot", #"["All"]"#])
    }

    // MARK: - Performance.md

    @Test func performance() throws {
        let console = PrintedLines()
        func print(_ items: Any...) { console.print(items) }

        let records = (1...10_000).map { Record(id: "\($0)", fields: ["name": "Item \($0)"]) }
        let index = try SearchIndex(configuration: IndexConfiguration(searchFields: ["name"]))
        try index.insert(contentsOf: records)  // 8,192 records or more: folded and encoded on every core
        for text in ["item", "item 1", "item 12", "item 123", "item 12"] {
            let result = try index.search(Query(text))
            let work = result.statistics
            print("\(text):", result.rows.count, work.fullScans, work.narrowedScans, work.cacheHits)
        }
        // item: 10000 1 0 0
        // item 1: 1112 1 0 0
        // item 12: 111 1 0 0
        // item 123: 11 0 1 0
        // item 12: 111 0 0 1
        index.discardCachedResults()  // the next keystroke scans in full (to time a cold one, say)
        print(try index.search(Query("item 12")).statistics.fullScans)  // 1
        print(index.memoryUsage)  // total 0.5 MB: folded codes 0.1 MB, ... (capacities vary a little)

        #expect(
            console.lines.dropLast() == [
                "item: 10000 1 0 0",
                "item 1: 1112 1 0 0",
                "item 12: 111 1 0 0",
                "item 123: 11 0 1 0",
                "item 12: 111 0 0 1",
                "1",
            ]
        )
        // The figures depend on how buffers grew (the bulk insert's workers share the records as the
        // cores allow): the line's parts, and a total of well under a megabyte, are what holds.
        let usage = try #require(console.lines.last)
        #expect(usage.hasPrefix("total 0.") && usage.contains(" MB: folded codes "), "\(usage)")
    }
}
