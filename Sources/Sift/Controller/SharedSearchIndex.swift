import SiftStorage
internal import Synchronization

/// One index that many search controllers show at once: a session per person over shared
/// records, as a server needs.
///
/// Every controller made with `makeController(options:source:clock:)` runs on this actor's
/// executor, so the controllers and the index never run at the same time and share the
/// index's caches (a prefix one session typed narrows another's next keystroke). Each controller
/// keeps its own text, scope, options, generations and tables.
///
/// An edit — through any of the controllers, or through this actor's own `insert(_:)`,
/// `update(_:)`, `remove(id:)` — changes the index once; every live controller then patches its
/// tables and publishes an update with reason `.edit` and the change sets of its own tables.
///
/// ```swift
/// let shared = SharedSearchIndex(try SearchIndex(configuration: configuration, records: cities))
/// let alice = try await shared.makeController()
/// let bob = try await shared.makeController()
/// alice.setText("zur")
/// bob.setText("gen")
/// try await shared.update(Record(id: "2657896", fields: ["name": "Zürich"]))   // both see it
/// ```
public actor SharedSearchIndex {
    /// The records. Only code running on this actor's executor touches them: this actor's own
    /// methods and those of the controllers that share its executor.
    nonisolated(unsafe) let index: SearchIndex
    /// The controllers that show the index, weakly: a controller that goes away leaves. Under a
    /// lock, so that a controller's (nonisolated) initializer can register.
    private let controllers = Mutex<[ObjectIdentifier: WeakController]>([:])

    /// Shares an index.
    ///
    /// - Parameter index: the records; the shared index owns them from now on.
    /// - Complexity: O(1).
    public init(_ index: sending SearchIndex) {
        self.index = index
    }

    /// Runs `body` with the index, on this actor: for reading it (searching, highlights, records).
    ///
    /// Edits must go through `insert(_:)`, `update(_:)`, `remove(id:)` or a controller, so that
    /// every controller's tables follow them.
    ///
    /// - Complexity: that of `body`.
    public func read<T: Sendable>(_ body: (SearchIndex) throws -> T) rethrows -> T {
        try body(index)
    }

    /// The number of controllers that show the index now.
    ///
    /// - Complexity: O(*c*) in the controllers ever registered and not yet pruned.
    public var controllerCount: Int { liveControllers().count }

    // MARK: - Editing

    /// Inserts a record at the end of the original order (or at `position`).
    ///
    /// - Throws: what `SearchIndex.insert(_:at:)` throws.
    /// - Complexity: that of the index's insert, plus, per controller, that of
    ///   `SearchController.insert(_:atOriginalPosition:)`'s table patching.
    public func insert(_ record: Record, at position: Int? = nil) throws {
        renumberSlotsIfWorthwhile()
        try edit(replacing: nil) { index in try index.insert(record, at: position) }
    }

    /// Replaces the record with `record.id`, keeping its position.
    ///
    /// - Throws: `SiftError.unknownRecord`, or what `SearchIndex.update(_:)` throws.
    /// - Complexity: as `insert(_:at:)`.
    public func update(_ record: Record) throws {
        renumberSlotsIfWorthwhile()
        guard let handle = index.handle(forID: record.id) else { throw SiftError.unknownRecord(id: record.id) }
        try edit(replacing: handle) { index in try index.update(record) }
    }

    /// Deletes the record with this id.
    ///
    /// - Throws: `SiftError.unknownRecord`.
    /// - Complexity: as `insert(_:at:)`.
    public func remove(id: String) throws {
        renumberSlotsIfWorthwhile()
        guard let handle = index.handle(forID: id) else { throw SiftError.unknownRecord(id: id) }
        try edit(replacing: handle) { index in
            try index.remove(handle)
            return nil
        }
    }

    // MARK: - Controllers

    /// A new controller over the shared index, running on this actor's executor.
    ///
    /// - Parameters:
    ///   - options: trigger, debounce, threshold policy, mode and table layouts.
    ///   - source: where answers come from; the index itself by default.
    ///   - clock: the clock for debouncing and timing.
    /// - Throws: `SiftError.invalidConfiguration` for a `.ranked` original table.
    /// - Complexity: that of `SearchController.init(index:options:source:clock:)`.
    public func makeController(
        options: SearchController.Options = SearchController.Options(),
        source: any SearchSource = LocalIndexSource(),
        clock: any Clock<Duration> = ContinuousClock()
    ) throws(SiftError) -> SearchController {
        try SearchController(host: self, options: options, source: source, clock: clock)
    }

    /// Adds a controller that runs on this actor's executor.
    nonisolated func register(_ controller: SearchController) {
        controllers.withSanitizerVisibleLock {
            $0[ObjectIdentifier(controller)] = WeakController(controller: controller)
        }
    }

    /// The controllers alive now, in no particular order.
    private func liveControllers() -> [SearchController] {
        controllers.withSanitizerVisibleLock { controllers in
            var live: [SearchController] = []
            for (key, entry) in controllers {
                if let controller = entry.controller { live.append(controller) } else { controllers[key] = nil }
            }
            return live
        }
    }

    /// Lets the index renumber its slots when that is worthwhile; every controller then gives its
    /// tables the rows' new handles.
    ///
    /// - Complexity: O(1) when the index does not renumber; else that of the renumbering, plus
    ///   each controller's table rebuilding.
    func renumberSlotsIfWorthwhile() {
        guard index.renumberSlotsIfWorthwhile() else { return }
        for controller in liveControllers() {
            controller.assumeIsolated { $0.retableAfterRenumbering() }
        }
    }

    /// Applies one edit of one record to the index and has every controller patch its tables.
    ///
    /// - Parameters:
    ///   - oldHandle: the record's handle before the edit (nil when inserting).
    ///   - change: the index edit; returns the record's handle after it (nil when deleting).
    func edit(replacing oldHandle: RecordHandle?, _ change: (SearchIndex) throws -> RecordHandle?) throws {
        let controllers = liveControllers()
        // Where each controller shows the record, found while every row is live in the index.
        let pending = try controllers.map { controller in
            try controller.assumeIsolated { controller in try controller.prepareEdit(replacing: oldHandle) }
        }
        let newHandle = try change(index)
        for (controller, before) in zip(controllers, pending) {
            try controller.assumeIsolated { controller in try controller.finishEdit(before, newHandle: newHandle) }
        }
    }
}

/// A controller, held weakly.
private struct WeakController: Sendable {
    weak var controller: SearchController?
}
