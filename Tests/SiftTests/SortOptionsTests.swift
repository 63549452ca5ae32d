import Foundation
import Sift
import Testing
import _SiftTestSupport

/// `SortOptions`: numbers by value (ICU numeric collation), spaces and punctuation ignored when
/// sorting, sections that look past leading punctuation, and snapshots that keep the options.
@Suite("Sort options")
struct SortOptionsTests {
    static let populations = [
        Record(id: "a", fields: ["name": "Paris", "population": "2138551"]),
        Record(id: "b", fields: ["name": "Aalen", "population": "15114"]),
        Record(id: "c", fields: ["name": "Aachen", "population": "136455"]),
        Record(id: "d", fields: ["name": "Route 10", "population": "9"]),
    ]

    static func sortedIDs(_ index: SearchIndex) throws -> [String] {
        try index.handles(in: .sorted).map { try index.id(of: $0) }
    }

    @Test func numericSortingComparesNumbersByValue() throws {
        let text = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], sortField: "population"),
            records: Self.populations
        )
        #expect(try Self.sortedIDs(text) == ["c", "b", "a", "d"])  // "136455" < "15114" < "2138551" < "9"
        let numeric = try SearchIndex(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                sortField: "population",
                sortOptions: SortOptions(numeric: true)
            ),
            records: Self.populations
        )
        #expect(try Self.sortedIDs(numeric) == ["d", "b", "c", "a"])  // 9 < 15114 < 136455 < 2138551
        #expect(
            try numeric.search(Query("", order: .sorted)).rows.map { try numeric.id(of: $0) } == ["d", "b", "c", "a"]
        )
        // Edits keep the order.
        try numeric.insert(Record(id: "e", fields: ["name": "Lyon", "population": "522250"]))
        #expect(try Self.sortedIDs(numeric) == ["d", "b", "c", "e", "a"])
    }

    @Test func numericSortingLeavesMatchingAlone() throws {
        let records = ["Route 9", "Route 10", "Route 150", "Route 15"].enumerated().map {
            Record(id: String($0.offset), fields: ["name": $0.element])
        }
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], sortOptions: SortOptions(numeric: true)),
            records: records
        )
        #expect(try Self.sortedIDs(index) == ["0", "1", "3", "2"])  // 9, 10, 15, 150
        // "15" is still found inside "150", and "1" inside "10", as text.
        let fifteen = try index.search(Query("15", order: .sorted))
        #expect(try fifteen.rows.map { try index.id(of: $0) } == ["3", "2"])
        #expect(try index.search(Query("1")).rows.count == 3)
    }

    static let punctuated = [
        Record(id: "1", fields: ["name": "'Ākra"]),
        Record(id: "2", fields: ["name": "‘Abasān"]),
        Record(id: "3", fields: ["name": "Aachen"]),
        Record(id: "4", fields: ["name": "'s-Gravenzande"]),
        Record(id: "5", fields: ["name": "Zürich"]),
    ]

    @Test func shiftedSortingIgnoresSpacesAndPunctuation() throws {
        let shifted = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], sortOptions: SortOptions(alternate: .shifted)),
            records: Self.punctuated
        )
        #expect(try Self.sortedIDs(shifted) == ["3", "2", "1", "4", "5"])  // Aachen, Abasān, Ākra, sGravenzande, Zürich
        // Counted (the default), punctuation sorts before letters.
        let counted = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"]),
            records: Self.punctuated
        )
        let order = try Self.sortedIDs(counted)
        #expect(try #require(order.firstIndex(of: "1")) < #require(order.firstIndex(of: "2")))
        #expect(try #require(order.firstIndex(of: "2")) < #require(order.firstIndex(of: "3")))
        // Matching follows the collation's own alternate, not the sort's.
        #expect(try shifted.search(Query("sgrav")).rows.isEmpty)
    }

    @Test func sectionsLookPastLeadingPunctuation() throws {
        for options in [SortOptions(), SortOptions(alternate: .shifted)] {
            let index = try SearchIndex(
                configuration: IndexConfiguration(searchFields: ["name"], sortOptions: options),
                records: Self.punctuated
            )
            let titles = try ["1", "2", "3", "4", "5"].map { id in
                index.sectionTitles[try index.section(of: try #require(index.handle(forID: id)))]
            }
            #expect(titles == ["A", "A", "A", "S", "Z"], "\(options)")
        }
        // The locales' labels are unchanged.
        let spanish = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "es"))
        )
        #expect(spanish.sectionTitles.contains("Ñ"))
    }

    @Test func optionsAreCompared() {
        let plain = IndexConfiguration(searchFields: ["name"], sortField: "population")
        var numeric = plain
        numeric.sortOptions.numeric = true
        #expect(plain != numeric)
        // The collation an index configuration hands out compares as the one it was given.
        #expect(numeric.collation == Collation())
        // The initializer without sort options still compiles and means the defaults.
        let old = IndexConfiguration(
            searchFields: ["name"],
            collation: Collation(),
            scopes: [Scope(name: "All")],
            sortField: nil,
            cacheCapacity: 64
        )
        #expect(old.sortOptions == SortOptions())
    }

    @Test func snapshotsKeepTheSortOptions() throws {
        let directory = testScratch
        for options in [SortOptions(), SortOptions(numeric: true), SortOptions(numeric: true, alternate: .shifted)] {
            let index = try SearchIndex(
                configuration: IndexConfiguration(
                    searchFields: ["name"],
                    sortField: "population",
                    sortOptions: options
                ),
                records: Self.populations + Self.punctuated
            )
            let path = directory.appendingPathComponent("sift-sort-\(UUID().uuidString).siftidx").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try index.save(to: path)
            let loaded = try SearchIndex.load(from: path)
            #expect(loaded.configuration.sortOptions == options)
            #expect(loaded.configuration == index.configuration)
            #expect(try Self.sortedIDs(loaded) == Self.sortedIDs(index))
        }
    }
}
