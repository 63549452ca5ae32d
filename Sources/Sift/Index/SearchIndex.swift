internal import SiftStorage
internal import Synchronization

/// Indexes made so far in this process: each takes the next handle tag.
private let indexCount = Atomic<UInt32>(0)

/// An incremental search index over records, with ICU collation semantics.
///
/// Each search field of each record is folded once, at insert time, into the collation elements
/// that ICU string search compares; queries then scan those compact codes (and, as the user
/// types, only the previous candidates), and never run the collator over records again.
///
/// ```swift
/// let index = try SearchIndex(
///     configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: "de")),
///     records: [Record(id: "1", fields: ["name": "Straße"]), Record(id: "2", fields: ["name": "Strand"])])
/// let result = try index.search(Query("strasse"))
/// result.rows.map { try index.id(of: $0) }        // ["1"]
/// try index.matchRanges(of: result.rows[0], for: Query("strasse"))  // ["name": [0..<6]]
/// ```
///
/// `SearchIndex` is a reference type without internal locking: use it from one task at a time
/// (for example inside an actor). Edits and queries may interleave freely.
public final class SearchIndex {
    /// The configuration the index was created with.
    public let configuration: IndexConfiguration

    // The index is a facade over its parts; the extensions (`SearchIndex+*.swift`) work on them.
    /// The records, by slot, and how handles and ids find them.
    var records: RecordStore
    /// The original and sorted orders, sections, categories and ranking keys.
    var orders: DerivedOrders
    /// The search fields folded for matching, and the scopes' plans over them.
    package var folded: FoldedFields
    /// What one query keeps for the next.
    var caches: QueryCaches
    /// The sizes at which the index changes strategy (tests set them).
    package var knobs = TuningKnobs() {
        didSet {
            guard knobs.poolColumnsFromFields != oldValue.poolColumnsFromFields else { return }
            records.values.poolingMinimum = knobs.poolColumnsFromFields
            for folding in folded.foldings { folding.columns.poolingMinimum = knobs.poolColumnsFromFields }
        }
    }

    /// Application data saved with snapshots and restored by `load(from:)` (e.g. where the
    /// records came from).
    public var metadata: [String: String] = [:]

    /// The most one query may ask of the index: its length, its distinct terms, its words that
    /// tolerate typos (see `QueryLimits`). A query past a limit is refused with
    /// `SiftError.queryTooLarge` before any work.
    public var queryLimits = QueryLimits()

    /// Incremented by every edit.
    public internal(set) var revision: UInt64 = 0

    /// All field names, by position.
    var fieldNames: [String] { records.fieldPositions.names }
    /// True while the original order is ascending slot order (every insert and move so far put
    /// its record where ascending slot order puts it, as appends of new slots do): then results
    /// come straight off a bitset in order.
    var orderFollowsSlots: Bool { orders.order.isAscending }
    /// Members up to which a field result is kept as a list (see
    /// `TuningKnobs.sparseSlotLimitOverride`): a 256th of the slots unless set.
    var sparseSlotLimit: Int { knobs.sparseSlotLimitOverride ?? slotCapacity >> 8 }

    /// From how many records the initializer and ``insert(contentsOf:)`` check the
    /// ``MemoryBudget`` first (below, a batch takes a few megabytes at most).
    public static let memoryCheckMinimumRecords = 8192

    /// Creates an index and inserts `records` in order.
    ///
    /// With many records (``memoryCheckMinimumRecords`` or more), it first estimates the memory
    /// the index will take (``estimatedMemory(of:configuration:)``) and throws
    /// ``SiftError/capacityExceeded(_:)`` naming the need and the limit when the process's
    /// ``MemoryBudget`` cannot give it, rather than aborting on an allocation halfway through.
    ///
    /// - Throws: `SiftError` for an unknown locale, a scope naming an unknown field, duplicate
    ///   scope names or record ids, a ranking tie-break without a field name or on text other than
    ///   the sort field's; ``SiftError/capacityExceeded(_:)`` when the index would not fit in memory.
    /// - Complexity: O(*n*) in the total size of the records' search fields.
    public init(configuration: IndexConfiguration, records: [Record] = []) throws(SiftError) {
        self.configuration = configuration
        guard !configuration.searchFields.isEmpty else {
            throw .invalidConfiguration("at least one search field is needed")
        }
        var fieldPositions = FieldTable(configuration.searchFields)
        guard fieldPositions.hasUniqueNames else { throw .invalidConfiguration("search fields are listed twice") }
        guard !configuration.scopes.isEmpty else { throw .invalidConfiguration("at least one scope is needed") }
        guard Set(configuration.scopes.map(\.name)).count == configuration.scopes.count else {
            throw .invalidConfiguration("two scopes have the same name")
        }
        let sortField = configuration.sortField ?? configuration.searchFields[0]
        let rankingPlan = try RankingPlan.validated(configuration.rankingRules).get()
        if let tieBreak = configuration.rankingTieBreak {
            guard !tieBreak.field.isEmpty else { throw .invalidConfiguration("the ranking tie-break names no field") }
            guard tieBreak.numeric || tieBreak.field == sortField else {
                throw .invalidConfiguration(
                    "a text ranking tie-break follows the sorted order, so it must be the sort field '\(sortField)', not '\(tieBreak.field)' (or make it numeric)"
                )
            }
        }
        caches = QueryCaches(capacity: max(1, configuration.cacheCapacity))
        let sortFieldPosition = fieldPositions.append(sortField)
        var tieBreakFieldPosition: Int? = nil
        if let tieBreak = configuration.rankingTieBreak {
            tieBreakFieldPosition = fieldPositions.append(tieBreak.field)
        }
        orders = DerivedOrders(
            sortFolder: try ICUFolder(ICUObjectCache.collator(configuration.collation.sortingCollation)),
            sortFieldPosition: sortFieldPosition,
            alphabeticIndex: try ICUObjectCache.alphabeticIndex(locale: configuration.collation.locale),
            tieBreakFieldPosition: tieBreakFieldPosition,
            rankingPlan: rankingPlan
        )
        var foldings = [try Folding(configuration.collation, fieldCount: configuration.searchFields.count)]
        var scopePlans: [ScopePlan] = []
        for scope in configuration.scopes {
            // Positions by dictionary lookup: a scope over every one of a million columns stays linear.
            var positions = Array(configuration.searchFields.indices)
            if let fields = scope.fields {
                guard !fields.isEmpty else { throw .invalidConfiguration("scope '\(scope.name)' searches no field") }
                positions = []
                positions.reserveCapacity(fields.count)
                for field in fields {
                    guard let position = fieldPositions[field], position < configuration.searchFields.count else {
                        throw .unknownField(field)
                    }
                    positions.append(position)
                }
            }
            let collation = scope.collation ?? configuration.collation
            var folding = foldings.firstIndex { $0.collation == collation }
            if folding == nil {
                foldings.append(try Folding(collation, fieldCount: configuration.searchFields.count))
                folding = foldings.count - 1
            }
            var filterField: Int? = nil
            if let filter = scope.filter { filterField = fieldPositions.append(filter.field) }
            scopePlans.append(ScopePlan(scope: scope, folding: folding!, fields: positions, filterField: filterField))
        }
        folded = FoldedFields(foldings: foldings, scopePlans: scopePlans)
        self.records = RecordStore(fieldPositions: fieldPositions, handleTag: Self.nextHandleTag())
        try insert(contentsOf: records)
        // The ranking keys now rather than on the first ranked keystroke (35 ms at 1M records).
        if !records.isEmpty { _ = rankingKeys }
    }

    // MARK: - Reading

    /// Number of records.
    public var count: Int { orders.order.count }

    /// The scopes, in button order.
    public var scopes: [Scope] { configuration.scopes }

    /// Section titles of the sorted list: ICU AlphabeticIndex labels for the collation's locale
    /// (Spanish has `N Ñ O`, Swedish ends `Z Å Ä Ö`), including the leading and trailing
    /// "…" buckets for names before the first and after the last letter.
    public var sectionTitles: [String] { orders.alphabeticIndex.labels }

    /// The record behind a handle.
    ///
    /// - Complexity: O(*f*) for *f* fields.
    public func record(_ handle: RecordHandle) throws(SiftError) -> Record {
        let slot = try resolve(handle)
        var fields: [String: String] = [:]
        for position in records.values.indices {
            let value = value(at: position, slot: slot)
            if !value.isEmpty { fields[fieldNames[position]] = value }
        }
        return Record(id: records.ids.string(slot), fields: fields)
    }

    /// The id of the record behind a handle.
    ///
    /// - Complexity: O(1).
    public func id(of handle: RecordHandle) throws(SiftError) -> String { records.ids.string(try resolve(handle)) }

    /// One field of the record behind a handle ("" when the record has no such field).
    ///
    /// - Complexity: O(1).
    public func value(of field: String, for handle: RecordHandle) throws(SiftError) -> String {
        let slot = try resolve(handle)
        guard let position = records.fieldPositions[field] else { return "" }
        return value(at: position, slot: slot)
    }

    /// The handle of the record with this id (the same Unicode scalars, see `Record.id`), or nil.
    ///
    /// - Complexity: O(1) expected.
    public func handle(forID id: String) -> RecordHandle? {
        guard let slot = records.slotOfID.slot(of: id, ids: records.ids) else { return nil }
        return handle(ofSlot: slot)
    }

    /// The record at a position of the original list.
    ///
    /// - Complexity: O(log *b*) for *b* blocks of 512–1024 records (of 512 slots while the
    ///   original order follows slot order).
    public func handle(at position: Int) throws(SiftError) -> RecordHandle {
        guard position >= 0, position < orders.order.count else {
            throw .positionOutOfRange(position, count: orders.order.count)
        }
        return handle(ofSlot: orders.order[position])
    }

    /// Position of a record in the original list.
    ///
    /// - Complexity: O(*k*) for blocks of *k* ≤ 1024 records, independent of the list's length;
    ///   O(log *n*) while the original order follows slot order.
    public func position(of handle: RecordHandle) throws(SiftError) -> Int {
        orders.order.position(of: try resolve(handle))
    }

    /// Every record, in original or collation order (`.ranked` gives original order).
    ///
    /// - Complexity: O(*n*); the first call in collation order sorts the index, O(*n* log *n*).
    public func handles(in order: ResultOrder = .original) -> [RecordHandle] {
        let slots = order == .sorted ? sorted.array : self.orders.order.array
        return slots.map { handle(ofSlot: $0) }
    }

    /// Every record in `order` (`.ranked` is original order), as the rows of a table that shows
    /// them all, read in place from the index's order: a table shares the order's storage (and
    /// the generations, once counted) instead of holding a handle per record. While it does, the
    /// index's next edit of that order copies the blocks it writes, and its next reuse or update
    /// of a slot copies the generations (four bytes a slot).
    ///
    /// - Complexity: O(1) (the first `.sorted` call sorts the index).
    func rowsInOrder(_ order: ResultOrder) -> ResultRows {
        ResultRows(
            order: (order == .sorted ? sorted : self.orders.order).slotsInOrder,
            generations: records.generations.isMaterialized ? records.generations : nil,
            tag: records.handleTag
        )
    }

    /// The section (index into `sectionTitles`) of a record, from its sort field.
    ///
    /// - Complexity: O(1); the first call sorts the index, O(*n* log *n*).
    public func section(of handle: RecordHandle) throws(SiftError) -> Int {
        let slot = try resolve(handle)
        _ = sorted
        return Int(orders.sectionOfSlot[Int(slot)])
    }

    /// Position of a record in collation order of the sort field.
    ///
    /// - Complexity: O(*k*) for blocks of *k* ≤ 1024 records; the first call sorts the index.
    public func sortedPosition(of handle: RecordHandle) throws(SiftError) -> Int {
        let slot = try resolve(handle)
        return sorted.position(of: slot)
    }

    // MARK: - Internals shared by the extensions

    /// The next of the 256 handle tags, in the bits above `SlotGenerations.mask`.
    static func nextHandleTag() -> UInt32 {
        (indexCount.wrappingAdd(1, ordering: .relaxed).newValue & 0xFF) << UInt32(SlotGenerations.bits)
    }

    func resolve(_ handle: RecordHandle) throws(SiftError) -> Int32 {
        var slot = handle.slot
        if handle.generation & ~SlotGenerations.mask != records.handleTag {
            slot = try slotAfterRenumberings(of: handle)
        }
        guard slot >= 0, Int(slot) < records.generations.count,
            records.generations[slot] == handle.generation & SlotGenerations.mask,
            records.live.contains(slot)
        else { throw .staleHandle }
        return slot
    }

    /// The universe of result bitsets: every slot ever allocated, plus headroom so that the
    /// next inserts do not make every cached bitset grow at once.
    var slotCapacity: Int { records.generations.count + max(1024, records.generations.count / 16) }

    /// The slots each field's ranking-key lengths hold room for: a sixteenth more than the slots
    /// (at least 16), not `slotCapacity`'s 1,024 more, since there is an array per search field
    /// and folding, and a wide file has a million fields of a record or two.
    var rankingLengthCapacity: Int { records.generations.count + max(16, records.generations.count / 16) }

    func handle(ofSlot slot: Int32) -> RecordHandle {
        RecordHandle(slot: slot, generation: records.handleTag | records.generations[slot])
    }

    func value(at position: Int, slot: Int32) -> String {
        guard position < records.values.count else { return "" }
        return records.values[position].string(slot)
    }

    /// Live slots in collation order of the sort field, sorted on first use.
    ///
    /// - Complexity: O(1) once built; the first use costs O(*n* log *n*), its collation work
    ///   (a sort key and a section per record) divided among the cores (see `sortedOrder()`).
    var sorted: SlotSequence {
        if let sorted = orders.sortedStorage { return sorted }
        let (slots, sections) = sortedOrder()
        orders.sectionOfSlot = sections
        let built = SlotSequence(slots)
        orders.sortedStorage = built
        return built
    }

    /// Heap bytes of what sorting and categories built on first use: the sorted order and the
    /// sections (per-slot tables), and the category member sets (caches).
    ///
    /// - Complexity: O(*b* + *c*) for *b* blocks of the sorted order and *c* category values.
    var lazyMemoryParts: (tables: Int, caches: Int) {
        let categories = orders.categoryMembers.values.reduce(0) { total, members in
            members.values.reduce(total) { $0 + $1.memoryFootprint }
        }
        return ((orders.sortedStorage?.memoryFootprint ?? 0) + 2 * orders.sectionOfSlot.capacity, categories)
    }

    func position(ofFieldNamed name: String) -> Int {
        records.fieldPositions.append(name)
    }

    /// Members of a scope's category filter (all live records when it has none).
    func filterMembers(_ plan: ScopePlan) -> Bitset {
        guard let filter = plan.scope.filter, let field = plan.filterField else { return records.live }
        if orders.categoryMembers[field] == nil {
            var members: [String: Bitset] = [:]
            records.live.forEachMember { slot in
                members[value(at: field, slot: slot), default: Bitset(capacity: records.generations.count)].insert(slot)
            }
            orders.categoryMembers[field] = members
        }
        var result = Bitset(capacity: records.generations.count)
        for value in filter.values { if let bits = orders.categoryMembers[field]?[value] { result.formUnion(bits) } }
        return result
    }
}
