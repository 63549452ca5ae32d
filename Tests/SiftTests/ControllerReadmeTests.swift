import Clocks
import Testing

@testable import Sift

// The README's controller example, verbatim from here to the end marker.

/// The model of a searchable list screen: the search bar and the table view talk to it.
@MainActor final class CityList {
    let controller: SearchController
    private(set) var tables: SearchTables?
    private(set) var isSearching = false
    private(set) var hint = ""
    private(set) var badges: [String] = []

    init(cities: [Record], clock: any Clock<Duration> = ContinuousClock()) throws {
        controller = try SearchController(
            configuration: IndexConfiguration(
                searchFields: ["name"],
                collation: Collation(locale: "es"),
                scopes: [Scope(name: "All"), Scope(name: "Europe", filter: .init(field: "continent", values: ["EU"]))]
            ),
            records: cities,
            options: .init(
                debounce: .milliseconds(150),  // query after a typing pause
                originalTable: TableLayout(order: .sorted, isSectioned: true),  // sections … N, Ñ, … P, S …
                resultsTable: TableLayout(order: .ranked)
            ),  // prefix matches first
            clock: clock
        )
    }

    func start() async {
        await controller.deliverUpdatesOnMainActor { [weak self] update in self?.apply(update) }
    }

    // Search bar and table view actions.
    func searchTextChanged(_ text: String) { controller.setText(text) }
    func scopeTapped(_ name: String) throws { try controller.selectScope(name) }
    func searchTapped() { controller.submit() }
    func cancelTapped() { controller.cancel() }
    func deleteSwiped(at path: TableIndexPath) async throws {
        guard let row = visibleTable?.row(at: path) else { return }
        try await controller.deleteRecord(id: row.id)  // by id: safe even if an update is on its way
    }

    /// What the table view shows: every record in alphabetic sections, or the current matches.
    var visibleTable: RecordTable? { isSearching ? tables?.results : tables?.original }

    private func apply(_ update: SearchUpdate) {
        isSearching = update.state != .inactive
        tables = update.tables
        // A UITableView animates from the previous tables to these: in performBatchUpdates, delete
        // and insert update.resultsChanges' sections and rows, reload its reloadedRows and move
        // its movedRows (update.originalChanges for the original table).
        switch update.state {
        case .tooShort(let needed): hint = "Type at least \(needed) letters"
        case .searching: hint = "Searching…"
        case .failed(let message): hint = message
        default: hint = ""
        }
        badges = update.scopes.map { "\($0.name) \($0.count.map(String.init) ?? "")" }
    }
}

// End of the README example.

@Suite("Controller README example", .timeLimit(.minutes(30)))
struct ControllerReadmeTests {
    /// Waits for the list to reach a condition: first for the controller to settle after the
    /// latest input (suspended, not polling), then for its updates to reach the list, which
    /// they do through jobs already queued on the main actor, so the yields are few.
    @MainActor func waitFor(_ list: CityList, _ condition: () -> Bool) async throws {
        _ = try await list.controller.settledUpdate(for: list.controller.latestGeneration)
        while !condition() {
            try Task.checkCancellation()
            await Task.yield()
        }
    }

    @Test @MainActor func theExampleRunsAsDescribed() async throws {
        let list = try CityList(
            cities: [
                Record(id: "1", fields: ["name": "São Paulo", "continent": "SA"]),
                Record(id: "2", fields: ["name": "Paris", "continent": "EU"]),
                Record(id: "3", fields: ["name": "Ñuñoa", "continent": "SA"]),
                Record(id: "4", fields: ["name": "Nuuk", "continent": "NA"]),
                Record(id: "5", fields: ["name": "Lapa", "continent": "SA"]),
            ],
            clock: ImmediateClock()
        )  // no real waiting for the debounce in a test
        await list.start()
        try await waitFor(list) { list.tables != nil }
        #expect(list.visibleTable?.everySection.map(\.title) == ["L", "N", "Ñ", "P", "S"])
        list.searchTextChanged("pa")
        try await waitFor(list) { list.visibleTable?.rowCount == 3 && list.hint.isEmpty }
        #expect(list.visibleTable?.everyRow.map(\.title) == ["Paris", "São Paulo", "Lapa"])
        #expect(list.badges == ["All 3", "Europe 1"])
        try await list.deleteSwiped(at: TableIndexPath(section: 0, row: 0))
        try await waitFor(list) { list.visibleTable?.rowCount == 2 }
        try list.scopeTapped("Europe")
        try await waitFor(list) { list.badges == ["All 2", "Europe 0"] }
        list.cancelTapped()
        try await waitFor(list) { !list.isSearching }
        #expect(list.visibleTable?.everySection.map(\.title) == ["L", "N", "Ñ", "S"])
    }
}
