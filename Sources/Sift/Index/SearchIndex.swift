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

    // MARK: Records, by slot (internal, not private: snapshots restore them)
    /// All field names: the search fields first, then others in order of first appearance,
    /// with their positions by name.
    var fieldPositions: FieldTable
    /// All field names, by position.
    var fieldNames: [String] { fieldPositions.names }
    /// Field values by field position, then slot (column-major: no array per record; a missing
    /// value reads as "").
    var values: [TextColumn] = []
    var ids = TextColumn()
    var generations = SlotGenerations()
    var live = Bitset()
    var freeSlots: [Int32] = []
    var slotOfID = IDTable()

    // MARK: Original order
    /// Live slots in original order.
    var order = SlotSequence()
    /// True while the original order is ascending slot order (every insert and move so far put
    /// its record where ascending slot order puts it, as appends of new slots do): then results
    /// come straight off a bitset in order.
    var orderFollowsSlots: Bool { order.isAscending }

    // MARK: Folding
    /// One folding per distinct collation; `foldings[0]` uses the index's collation.
    package var foldings: [Folding] = []
    /// Per scope: its folding and the positions (in `searchFields`) of its fields.
    private(set) var scopePlans: [ScopePlan] = []
    /// Slots whose folded texts still lack the word starts of dictionary-segmented text (left
    /// out by single-record edits, see `ICUFolder.foldDeferringDictionaryWords`); every read of
    /// the columns calls `addDeferredWordStarts()` first.
    var slotsAwaitingWordStarts: [Int32] = []
    /// The column whose rebuild edits are advancing, if any (see `advanceCompaction()`).
    var rebuilding: RebuildingColumn?
    /// Rebuilds finished so far (tests read it).
    var rebuildsFinished = 0

    // MARK: Sorting and sections (built on first use, then kept current by edits)
    let sortFolder: ICUFolder
    let sortFieldPosition: Int
    /// Live slots in collation order of the sort field, ties by id; nil until first needed.
    var sortedStorage: SlotSequence?
    let alphabeticIndex: ICUAlphabeticIndex
    /// Section of each slot; valid while `sortedStorage` exists. Two bytes a slot: ICU's
    /// AlphabeticIndex has at most its maximum label count (99 by default) plus three buckets.
    var sectionOfSlot: [UInt16] = []

    // MARK: Categories and cache
    /// Members per category value, built on first use and kept current by edits.
    var categoryMembers: [Int: [String: Bitset]] = [:]
    var cache: MatchCache
    /// Whole-field matches of ranked queries' patterns (see `rowsInRankingGroups`), valid while
    /// `revision` stays `wholeFieldRevision`: typing on and erasing a query reads them again.
    var wholeFieldMatches: [MatchKey: Bitset] = [:]
    var wholeFieldRevision: UInt64 = 0
    /// The last few ranked and sorted answers (see `cachedOrderedRows`), most recent last.
    var keptRows: [KeptRows] = []
    /// Scores of recent fuzzy field results (see `fuzzyFieldScores`), most recent last.
    var keptFuzzyScores: [FuzzyFieldScores] = []
    /// Set while a ranked fuzzy query runs: its narrowed fuzzy scans score each match as they find
    /// it (`fuzzyScoringNarrowedScan`).
    var scoresFuzzyMatches = false
    /// Per-slot keys of the ranking rules after the groups (field lengths, numeric tie-break
    /// values): nil until a ranked query first needs them, then kept current by every commit
    /// (see `SearchIndex+RankingKeys.swift`); a bulk insert drops them.
    var rankingKeysStorage: RankingKeys?
    /// The position of `IndexConfiguration.rankingTieBreak`'s field, if there is one.
    private(set) var tieBreakFieldPosition: Int? = nil
    /// How `IndexConfiguration.rankingRules` apply.
    private(set) var rankingPlan = RankingPlan.defaults

    /// Application data saved with snapshots and restored by `load(from:)` (e.g. where the
    /// records came from).
    public var metadata: [String: String] = [:]

    /// Records from which a fuzzy keystroke whose narrowing base holds more than a quarter of them
    /// sweeps the column instead (`narrowingCandidates`). Internal: tests set it to 0 so that small
    /// indexes take that path too.
    package var fuzzySweepMinimumRecords = 4096

    /// Bytes of a column a full scan covers between two cancellation checks. Internal: tests set
    /// it small so that scans cross many chunk boundaries.
    var scanChunkBytes = 1 << 20

    /// Bytes of a column one edit copies into a column's rebuild (see `advanceCompaction()`).
    /// Internal: tests set it small so that rebuilds span many edits and queries.
    var rebuildStepBytes = 2048

    /// Segments a column needs before a full scan splits it among the machine's cores (each
    /// worker takes at least this many). Internal: tests set it small so that small indexes scan
    /// in parallel.
    var parallelScanSegments = 1 << 16

    /// Texts folded a piece at a time straight into their columns so far (`writePending`): how
    /// tests see that a long text took that road. Internal.
    var streamedTextCount = 0

    /// Members up to which a field result is kept as a list (a sparse `Bitset`), and candidates up
    /// to which a narrowed scan reads them as one: a 256th of the slots (about 3,900 at a million
    /// records, a list of an eighth of a bitset's bytes at most) unless set. Past that, passes
    /// over bitsets' words (SIMD, sequential) beat member-by-member work on lists. Internal:
    /// tests set `Int.max` and 0 to check both ways.
    package var sparseSlotLimitOverride: Int? = nil
    var sparseSlotLimit: Int { sparseSlotLimitOverride ?? slotCapacity >> 8 }

    /// Members of a ranking group per thread that orders it by field length
    /// (`RankedRowGroups`): below about a million, starting a thread costs more than it
    /// saves. Internal: tests set a few, so that small groups split too.
    var membersPerLengthOrderingThread = 1 << 20

    /// Rows from which a broad answer in an order held in blocks is kept as its positions in
    /// that order (`OrderSubsetRows`) instead of a list of handles. Both cost a pass over the
    /// order; below about a million rows the list is about a millisecond and reads faster (a
    /// select per row read otherwise). Internal: tests set 0, so that small answers take it too.
    var orderSubsetMinimumRows = 1 << 20

    /// Slots of an order in blocks from which a dense answer's pass over it (writing its rows in
    /// sorted or moved order) runs on two threads (`SlotSequence.handles(of:...)`). Internal:
    /// tests set a few, so that small orders split too.
    var entriesPerOrderSelectionThread = 1 << 18

    /// Workers a full scan may use: the machine's cores (at most 8). Internal: tests set more, so
    /// that scans run split even on one core.
    var scanWorkers = ParallelWork.cores

    /// The most one query may ask of the index: its length, its distinct terms, its words that
    /// tolerate typos (see `QueryLimits`). A query past a limit is refused with
    /// `SiftError.queryTooLarge` before any work.
    public var queryLimits = QueryLimits()

    /// The last query folded (see `FoldedQueryMemo`): rows of one answer shown one by one fold
    /// its query once.
    var foldedQueryMemo: FoldedQueryMemo?

    /// Records per batch of a bulk insert (`insert(contentsOf:)` with 8,192 records or more).
    /// Internal: tests set it small so that a bulk insert crosses many batches.
    var bulkBatchSize = 65_536

    /// Incremented by every edit.
    public internal(set) var revision: UInt64 = 0

    /// This index's tag, in the bits of every handle's generation above `SlotGenerations.mask`:
    /// one of 256 values, taken in turn by the indexes a process makes (and by each renumbering,
    /// see `renumberSlots()`), so that a handle of another index (any of the 255 tags taken
    /// before or after it) is refused, not resolved.
    var handleTag: UInt32
    /// The numberings before the current one, oldest first: how handles made before a
    /// renumbering find their records (see `renumberSlots()`).
    var formerNumberings: [FormerNumbering] = []
    /// Slots from which a renumbering may run (below, slot tables are a few kilobytes); internal:
    /// tests set a few.
    package var minimumSlotsToRenumber = 256

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
        handleTag = Self.nextHandleTag()
        guard !configuration.searchFields.isEmpty else {
            throw .invalidConfiguration("at least one search field is needed")
        }
        fieldPositions = FieldTable(configuration.searchFields)
        guard fieldPositions.hasUniqueNames else { throw .invalidConfiguration("search fields are listed twice") }
        guard !configuration.scopes.isEmpty else { throw .invalidConfiguration("at least one scope is needed") }
        guard Set(configuration.scopes.map(\.name)).count == configuration.scopes.count else {
            throw .invalidConfiguration("two scopes have the same name")
        }
        let sortField = configuration.sortField ?? configuration.searchFields[0]
        rankingPlan = try RankingPlan.validated(configuration.rankingRules).get()
        if let tieBreak = configuration.rankingTieBreak {
            guard !tieBreak.field.isEmpty else { throw .invalidConfiguration("the ranking tie-break names no field") }
            guard tieBreak.numeric || tieBreak.field == sortField else {
                throw .invalidConfiguration(
                    "a text ranking tie-break follows the sorted order, so it must be the sort field '\(sortField)', not '\(tieBreak.field)' (or make it numeric)"
                )
            }
        }
        cache = MatchCache(capacity: max(1, configuration.cacheCapacity))

        sortFolder = try ICUFolder(ICUObjectCache.collator(configuration.collation.sortingCollation))
        alphabeticIndex = try ICUObjectCache.alphabeticIndex(locale: configuration.collation.locale)
        foldings = [try Folding(configuration.collation, fieldCount: configuration.searchFields.count)]
        sortFieldPosition = fieldPositions.append(sortField)
        if let tieBreak = configuration.rankingTieBreak {
            tieBreakFieldPosition = position(ofFieldNamed: tieBreak.field)
        }

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
            if let filter = scope.filter { filterField = position(ofFieldNamed: filter.field) }
            scopePlans.append(ScopePlan(scope: scope, folding: folding!, fields: positions, filterField: filterField))
        }
        try insert(contentsOf: records)
        // The ranking keys now rather than on the first ranked keystroke (35 ms at 1M records).
        if !records.isEmpty { _ = rankingKeys }
    }

    // MARK: - Reading

    /// Number of records.
    public var count: Int { order.count }

    /// The scopes, in button order.
    public var scopes: [Scope] { configuration.scopes }

    /// Section titles of the sorted list: ICU AlphabeticIndex labels for the collation's locale
    /// (Spanish has `N Ñ O`, Swedish ends `Z Å Ä Ö`), including the leading and trailing
    /// "…" buckets for names before the first and after the last letter.
    public var sectionTitles: [String] { alphabeticIndex.labels }

    /// The record behind a handle.
    ///
    /// - Complexity: O(*f*) for *f* fields.
    public func record(_ handle: RecordHandle) throws(SiftError) -> Record {
        let slot = try resolve(handle)
        var fields: [String: String] = [:]
        for position in values.indices {
            let value = value(at: position, slot: slot)
            if !value.isEmpty { fields[fieldNames[position]] = value }
        }
        return Record(id: ids.string(slot), fields: fields)
    }

    /// The id of the record behind a handle.
    ///
    /// - Complexity: O(1).
    public func id(of handle: RecordHandle) throws(SiftError) -> String { ids.string(try resolve(handle)) }

    /// One field of the record behind a handle ("" when the record has no such field).
    ///
    /// - Complexity: O(1).
    public func value(of field: String, for handle: RecordHandle) throws(SiftError) -> String {
        let slot = try resolve(handle)
        guard let position = fieldPositions[field] else { return "" }
        return value(at: position, slot: slot)
    }

    /// The handle of the record with this id (the same Unicode scalars, see `Record.id`), or nil.
    ///
    /// - Complexity: O(1) expected.
    public func handle(forID id: String) -> RecordHandle? {
        guard let slot = slotOfID.slot(of: id, ids: ids) else { return nil }
        return handle(ofSlot: slot)
    }

    /// The record at a position of the original list.
    ///
    /// - Complexity: O(log *b*) for *b* blocks of 512–1024 records (of 512 slots while the
    ///   original order follows slot order).
    public func handle(at position: Int) throws(SiftError) -> RecordHandle {
        guard position >= 0, position < order.count else { throw .positionOutOfRange(position, count: order.count) }
        return handle(ofSlot: order[position])
    }

    /// Position of a record in the original list.
    ///
    /// - Complexity: O(*k*) for blocks of *k* ≤ 1024 records, independent of the list's length;
    ///   O(log *n*) while the original order follows slot order.
    public func position(of handle: RecordHandle) throws(SiftError) -> Int {
        order.position(of: try resolve(handle))
    }

    /// Every record, in original or collation order (`.ranked` gives original order).
    ///
    /// - Complexity: O(*n*); the first call in collation order sorts the index, O(*n* log *n*).
    public func handles(in order: ResultOrder = .original) -> [RecordHandle] {
        let slots = order == .sorted ? sorted.array : self.order.array
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
            order: (order == .sorted ? sorted : self.order).slotsInOrder,
            generations: generations.isMaterialized ? generations : nil,
            tag: handleTag
        )
    }

    /// The section (index into `sectionTitles`) of a record, from its sort field.
    ///
    /// - Complexity: O(1); the first call sorts the index, O(*n* log *n*).
    public func section(of handle: RecordHandle) throws(SiftError) -> Int {
        let slot = try resolve(handle)
        _ = sorted
        return Int(sectionOfSlot[Int(slot)])
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
        if handle.generation & ~SlotGenerations.mask != handleTag {
            slot = try slotAfterRenumberings(of: handle)
        }
        guard slot >= 0, Int(slot) < generations.count, generations[slot] == handle.generation & SlotGenerations.mask,
            live.contains(slot)
        else { throw .staleHandle }
        return slot
    }

    /// The universe of result bitsets: every slot ever allocated, plus headroom so that the
    /// next inserts do not make every cached bitset grow at once.
    var slotCapacity: Int { generations.count + max(1024, generations.count / 16) }

    /// The slots each field's ranking-key lengths hold room for: a sixteenth more than the slots
    /// (at least 16), not `slotCapacity`'s 1,024 more, since there is an array per search field
    /// and folding, and a wide file has a million fields of a record or two.
    var rankingLengthCapacity: Int { generations.count + max(16, generations.count / 16) }

    func handle(ofSlot slot: Int32) -> RecordHandle {
        RecordHandle(slot: slot, generation: handleTag | generations[slot])
    }

    func value(at position: Int, slot: Int32) -> String {
        guard position < values.count else { return "" }
        return values[position].string(slot)
    }

    /// Live slots in collation order of the sort field, sorted on first use.
    ///
    /// - Complexity: O(1) once built; the first use costs O(*n* log *n*), its collation work
    ///   (a sort key and a section per record) divided among the cores (see `sortedOrder()`).
    var sorted: SlotSequence {
        if let sortedStorage { return sortedStorage }
        let (slots, sections) = sortedOrder()
        sectionOfSlot = sections
        let built = SlotSequence(slots)
        sortedStorage = built
        return built
    }

    /// Heap bytes of what sorting and categories built on first use: the sorted order and the
    /// sections (per-slot tables), and the category member sets (caches).
    ///
    /// - Complexity: O(*b* + *c*) for *b* blocks of the sorted order and *c* category values.
    var lazyMemoryParts: (tables: Int, caches: Int) {
        let categories = categoryMembers.values.reduce(0) { total, members in
            members.values.reduce(total) { $0 + $1.memoryFootprint }
        }
        return ((sortedStorage?.memoryFootprint ?? 0) + 2 * sectionOfSlot.capacity, categories)
    }

    func position(ofFieldNamed name: String) -> Int {
        fieldPositions.append(name)
    }

    /// Members of a scope's category filter (all live records when it has none).
    func filterMembers(_ plan: ScopePlan) -> Bitset {
        guard let filter = plan.scope.filter, let field = plan.filterField else { return live }
        if categoryMembers[field] == nil {
            var members: [String: Bitset] = [:]
            live.forEachMember { slot in
                members[value(at: field, slot: slot), default: Bitset(capacity: generations.count)].insert(slot)
            }
            categoryMembers[field] = members
        }
        var result = Bitset(capacity: generations.count)
        for value in filter.values { if let bits = categoryMembers[field]?[value] { result.formUnion(bits) } }
        return result
    }
}
