import Foundation
import Testing

@testable import Sift

/// Cells: what a row shows (display fields, highlights, snippets), read synchronously from an
/// update's tables, checked against the index's own record, highlight and snippet APIs.
@Suite("Table cells", .timeLimit(.minutes(30)))
struct TableCellTests {
    /// A sample of the bundled cities: every 40th row (about 850 records), with the fields a
    /// description file would search.
    static let cities: [Record] = {
        guard let table = try? readTSV("cities.tsv") else { return [] }
        let column = Dictionary(uniqueKeysWithValues: table.header.enumerated().map { ($1, $0) })
        return stride(from: 0, to: table.rows.count, by: 40).map { i in
            let row = table.rows[i]
            var fields: [String: String] = [:]
            for name in ["name", "ascii_name", "country_name", "country_code", "continent_code", "population"] {
                fields[name] = row[column[name]!]
            }
            return Record(id: row[column["geonameid"]!], fields: fields)
        }
    }()

    static let configuration = IndexConfiguration(
        searchFields: ["name", "ascii_name", "country_name"],
        collation: Collation(locale: "root", strength: .primary),
        scopes: [
            Scope(name: "All"), Scope(name: "Name", fields: ["name", "ascii_name"]),
            Scope(name: "Europe", filter: .init(field: "continent_code", values: ["EU"])),
        ]
    )

    /// The UTF-16 offsets of ranges of `text`.
    static func offsets(_ ranges: [Range<String.Index>], in text: String) -> [Range<Int>] {
        ranges.map { range in
            text.utf16.distance(
                from: text.utf16.startIndex,
                to: range.lowerBound
            )..<text.utf16.distance(from: text.utf16.startIndex, to: range.upperBound)
        }
    }

    // MARK: - Values and highlights against the index

    /// Every row of both tables: the cell's values are the record's (`controller.record(row)`),
    /// and its highlights those of `controller.highlights(of:)` and the index's `matchRanges`,
    /// over queries of every mode, with and without typos, in every scope.
    @Test func cellsMatchRecordsAndHighlights() async throws {
        let records = Self.cities
        #expect(records.count > 500)
        let oracle = try SearchIndex(configuration: Self.configuration, records: records)
        let controller = try SearchController(
            configuration: Self.configuration,
            records: records,
            options: .init(
                originalTable: TableLayout(order: .sorted, isSectioned: true),
                resultsTable: TableLayout(order: .ranked),
                displayFields: ["name", "country_name", "population", "not_a_field"]
            )
        )
        let initial = await controller.currentUpdate
        #expect(initial.tables.original.displayFields == ["name", "country_name", "population", "not_a_field"])
        // The original table: values only.
        for number in stride(from: 0, to: initial.tables.original.rowCount, by: 7) {
            let path = try #require(initial.tables.original.indexPath(forRowNumber: number))
            let cell = try #require(initial.cell(at: path, in: .original))
            let record = try await controller.record(cell.row)
            #expect(cell.fields.map(\.name) == ["name", "country_name", "population", "not_a_field"])
            #expect(
                cell.fields.map(\.text) == ["name", "country_name", "population", "not_a_field"].map { record[$0] }
            )
            #expect(cell.fields.allSatisfy { $0.highlights.isEmpty })
            #expect(cell.row == initial.tables.original[path])
        }
        let cases: [(String, MatchMode, TypoTolerance, String)] = [
            ("san", .contains, .off, "All"), ("zur", .contains, .off, "All"), ("sao p", .words, .off, "All"),
            ("de la", .words, .off, "All"), ("st", .prefix, .off, "Name"), ("grmny", .fuzzy, .off, "All"),
            ("frnce", .fuzzy, .off, "Europe"), ("germnay", .words, .auto, "All"), ("lodnon", .prefix, .auto, "All"),
            ("a", .contains, .off, "Europe"), ("\"san j\" | paris -jose", .words, .off, "All"),
            ("untied", .prefix, .auto, "All"), ("saint", .words, .auto, "Name"),
        ]
        for (text, mode, typos, scope) in cases {
            controller.setQueryOptions(mode: mode, typos: typos)
            try controller.selectScope(scope)
            let update = try await controller.settledUpdate(for: controller.setText(text))
            let query = try #require(update.resultsQuery)
            #expect(query.text == text && query.mode == mode && query.scope == scope)
            let results = update.tables.results
            #expect(results.rowCount > 0, "\(text) \(mode) finds something")
            for number in 0..<min(results.rowCount, 60) {
                let path = try #require(results.indexPath(forRowNumber: number))
                let cell = try #require(update.cell(at: path))
                #expect(cell.query == query)
                let record = try await controller.record(cell.row)
                let highlights = try await controller.highlights(of: cell.row)
                let handle = try #require(oracle.handle(forID: cell.row.id))
                let ranges = try oracle.matchRanges(of: handle, for: query)
                for field in cell.fields {
                    #expect(field.text == record[field.name])
                    let expected = ranges[field.name] ?? []
                    #expect(field.utf16Highlights == expected, "\(text) \(mode) \(field.name) \(field.text)")
                    #expect(Self.offsets(field.highlights, in: field.text) == expected)
                    let fromController = highlights[field.name].map { Self.offsets($0, in: field.text) } ?? []
                    #expect(fromController == expected)
                    #expect(field.segments.map { String($0.text) }.joined() == field.text)
                }
                // A field the query's scope searches has highlights exactly when the index has them.
                let shownAndMatched = Set(cell.fields.filter { !$0.highlights.isEmpty }.map(\.name))
                #expect(shownAndMatched == Set(ranges.keys).intersection(cell.fields.map(\.name)))
            }
        }
    }

    /// Cells made on several threads at once (they share the one-record index of their
    /// configuration, on its queue) are those made one after another, in any order.
    @Test func cellsMadeConcurrentlyAreTheSame() async throws {
        let controller = try SearchController(
            configuration: Self.configuration,
            records: Self.cities,
            options: .init(displayFields: Self.configuration.searchFields)
        )
        let update = try await controller.settledUpdate(for: controller.setText("an"))
        let table = update.tables.results
        let query = update.resultsQuery
        #expect(table.rowCount > 100)
        let serial = table.cells(numbered: 0..<table.rowCount, highlighting: query)
        let reversed = (0..<table.rowCount).reversed().map {
            table.cells(numbered: $0..<($0 + 1), highlighting: query)[0]
        }
        #expect(Array(reversed.reversed()) == serial)
        let concurrent = await withTaskGroup(of: (Int, [TableCell]).self) { group in
            for part in 0..<4 {
                group.addTask {
                    let numbers = Array(stride(from: part, to: table.rowCount, by: 4))
                    return (part, numbers.map { table.cells(numbered: $0..<($0 + 1), highlighting: query)[0] })
                }
            }
            var cells = [TableCell?](repeating: nil, count: table.rowCount)
            for await (part, made) in group {
                for (k, cell) in made.enumerated() { cells[part + 4 * k] = cell }
            }
            return cells
        }
        #expect(concurrent == serial.map { Optional($0) })
        #expect(serial.contains { cell in cell.fields.contains { !$0.highlights.isEmpty } })
    }

    /// Snippets of a cell's fields are those of `SearchIndex.snippets(of:for:length:)`.
    @Test func snippetsMatchTheIndex() async throws {
        let long =
            "A long description of a city that lies on a river, with an old town, a cathedral, "
            + "and the Straßenbahn running through the Großen Straße down to the harbour."
        let records = [
            Record(id: "1", fields: ["name": "Hamburg", "notes": long]),
            Record(id: "2", fields: ["name": "Straßburg", "notes": "Strasbourg, on the Rhine"]),
            Record(id: "3", fields: ["name": "Bern", "notes": "no match here"]),
        ]
        let configuration = IndexConfiguration(searchFields: ["name", "notes"], collation: Collation(locale: "de"))
        let oracle = try SearchIndex(configuration: configuration, records: records)
        let controller = try SearchController(
            configuration: configuration,
            records: records,
            options: .init(displayFields: ["name", "notes"])
        )
        let update = try await controller.settledUpdate(for: controller.setText("strass"))
        #expect(update.tables.results.rowCount == 2)
        for number in 0..<update.tables.results.rowCount {
            let cell = try #require(
                update.tables.results.cells(numbered: number..<(number + 1), highlighting: update.resultsQuery).first
            )
            let handle = try #require(oracle.handle(forID: cell.row.id))
            for length in [5, 20, 40, 400] {
                let expected = try oracle.snippets(of: handle, for: try #require(update.resultsQuery), length: length)
                for field in cell.fields where !field.highlights.isEmpty {
                    #expect(field.snippet(length: length) == expected[field.name])
                    let snippet = field.snippet(length: length)
                    #expect(snippet.segments.map { String($0.text) }.joined() == snippet.text)
                    #expect(snippet.segments.contains { $0.isHighlighted })
                }
            }
        }
        let bern = try #require(update.tables.original.cell(at: TableIndexPath(section: 0, row: 2)))
        #expect(bern[field: "notes"]?.snippet(length: 5).text == "no ma")
        #expect(bern[field: "notes"]?.snippet(length: 5).isCutAtEnd == true)
    }

    /// The default display field: the sort field (the titles, which tables keep anyway).
    @Test func defaultDisplayFields() async throws {
        let controller = try SearchController(
            configuration: IndexConfiguration(searchFields: ["name", "code"], sortField: "code"),
            records: ControllerFixtures.records
        )
        let update = try await controller.settledUpdate(for: controller.setText("pa"))
        #expect(update.tables.results.displayFields == ["code"])
        let cell = try #require(update.cell(at: TableIndexPath(section: 0, row: 0)))
        #expect(cell.fields.map(\.name) == ["code"])
        #expect(cell.fields[0].text == cell.row.title)
        #expect(update.cell(at: TableIndexPath(section: 0, row: update.tables.results.rowCount)) == nil)
        #expect(update.cell(at: TableIndexPath(section: 1, row: 0)) == nil)
    }

    // MARK: - Old updates keep their values

    /// An update's cells show the values of its version of the index: later updates, deletes and
    /// inserts change what new updates show, never what an update already delivered shows.
    @Test func oldUpdatesKeepTheirValuesAcrossEdits() async throws {
        let controller = try SearchController(
            configuration: ControllerFixtures.indexConfiguration(),
            records: ControllerFixtures.records,
            options: .init(displayFields: ["name", "continent", "code"])
        )
        let before = try await controller.settledUpdate(for: controller.setText("pa"))
        func snapshot(_ update: SearchUpdate) -> [[String]] {
            update.tables.results.cells(numbered: 0..<update.tables.results.rowCount, highlighting: update.resultsQuery)
                .map { cell in
                    [cell.row.id]
                        + cell.fields.map { field in
                            field.segments.map { $0.isHighlighted ? "[\($0.text)]" : String($0.text) }.joined()
                        }
                }
        }
        let shown = snapshot(before)
        #expect(shown.contains(["c1", "[Pa]ris", "EU", "[PA]"]))
        var generator = SeededGenerator(seed: 29)
        for step in 0..<40 {
            let ids = ControllerFixtures.records.map(\.id)
            let id = ids.randomElement(using: &generator)!
            switch step % 3 {
            case 0:
                try? await controller.update(
                    Record(id: id, fields: ["name": "Pampa \(step)", "continent": "XX", "code": "ZZ"])
                )
            case 1:
                try? await controller.deleteRecord(id: id)
            default:
                try? await controller.insert(
                    Record(id: "n\(step)", fields: ["name": "Paso \(step)", "continent": "SA"])
                )
            }
            #expect(snapshot(before) == shown, "after edit \(step)")
        }
        let after = await controller.currentUpdate
        #expect(snapshot(after) != shown)
        // The newest update shows the records as they are now.
        for cell in after.tables.results.cells(numbered: 0..<after.tables.results.rowCount) {
            let record = try await controller.record(cell.row)
            #expect(cell.fields.map(\.text) == ["name", "continent", "code"].map { record[$0] })
        }
    }

    // MARK: - Segments

    /// Segments concatenate back to the text, alternate, are never empty, cut only between
    /// characters, and highlight exactly the characters some range overlaps (a brute-force
    /// oracle over the characters), for random texts with combining marks, emoji sequences and
    /// surrogate pairs, and random UTF-16 ranges (inside characters, overlapping, empty, past the end).
    @Test func segmentsAreWholeCharactersAndConcatenateToTheText() {
        let pieces = [
            "a", "b", "Z", " ", "ü", "u\u{308}", "e\u{301}\u{327}", "👍🏽", "👨‍👩‍👧", "🇨🇭", "𝒳", "ß", "ﬁ", "\r\n",
            "ก", "ำ", "한", "\u{1100}\u{1161}\u{11A8}",
        ]
        var generator = SeededGenerator(seed: 2929)
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }
            .joined()
            let length = text.utf16.count
            let ranges: [Range<Int>] = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                let a = Int.random(in: 0...(length + 2), using: &generator)
                let b = Int.random(in: a...(length + 3), using: &generator)
                return a..<b
            }
            let segments = HighlightSegment.segments(of: text, highlightingUTF16: ranges)
            #expect(segments.map { String($0.text) }.joined() == text)
            #expect(segments.allSatisfy { !$0.text.isEmpty })
            #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.isHighlighted != $1.isHighlighted })
            // The oracle: per character, whether a range overlaps its UTF-16 span.
            var expected: [Bool] = []
            var offset = 0
            for character in text {
                let span = offset..<(offset + character.utf16.count)
                expected.append(ranges.contains { !$0.isEmpty && $0.overlaps(span) && $0.lowerBound < length })
                offset = span.upperBound
            }
            let actual = segments.flatMap { segment in
                Array(repeating: segment.isHighlighted, count: segment.text.count)
            }
            #expect(actual == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) }) \(ranges)")
            #expect(segments.allSatisfy { $0.text.startIndex.samePosition(in: text) != nil })
        }
        #expect(HighlightSegment.segments(of: "", highlighting: []).isEmpty)
        let text = "Zürich (Kreis 11)"
        let ranges = [text.startIndex..<text.index(text.startIndex, offsetBy: 3)]
        var printed = ""
        for segment in HighlightSegment.segments(of: text, highlighting: ranges) {
            printed += segment.isHighlighted ? "[\(segment.text)]" : String(segment.text)
        }
        #expect(printed == "[Zür]ich (Kreis 11)")
    }

    /// A match inside a character highlights the whole character: "u" matched in "u" + U+0308.
    @Test func aMatchInsideACharacterHighlightsTheCharacter() {
        let text = "Zu\u{308}rich"
        let segments = HighlightSegment.segments(of: text, highlightingUTF16: [1..<2])
        #expect(segments.map { String($0.text) } == ["Z", "u\u{308}", "rich"])
        #expect(segments.map(\.isHighlighted) == [false, true, false])
    }
}
