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

    // MARK: Records, by slot
    /// All field names: the search fields first, then others in order of first appearance.
    private(set) var fieldNames: [String]
    private var fieldPositions: [String: Int]
    /// Field values per slot, aligned with `fieldNames` (shorter arrays read as "").
    private var values: [[String]] = []
    private var ids: [String] = []
    private var generations: [UInt32] = []
    private(set) var live = Bitset()
    private var freeSlots: [Int32] = []
    private var slotOfID: [String: Int32] = [:]

    // MARK: Original order
    /// Live slots in original order.
    private(set) var order: [Int32] = []
    /// Position of each slot in `order`; valid for the first `validRanks` entries of `order`.
    private var ranks: [Int32] = []
    private var validRanks = 0

    // MARK: Folding
    /// One folding per distinct collation; `foldings[0]` uses the index's collation.
    private(set) var foldings: [Folding] = []
    /// Per scope: its folding and the positions (in `searchFields`) of its fields.
    private(set) var scopePlans: [ScopePlan] = []

    // MARK: Sorting and sections
    private let sortFolder: ICUFolder
    private let sortFieldPosition: Int
    private var sortKeys: [[UInt8]] = []
    /// Live slots in collation order of the sort field, ties by id.
    private(set) var sortedOrder: [Int32] = []
    private var sortedRanks: [Int32] = []
    private var validSortedRanks = 0
    private let alphabeticIndex: ICUAlphabeticIndex
    private var sectionOfSlot: [Int32] = []

    // MARK: Categories and cache
    /// Members per category value, built on first use and kept current by edits.
    private var categoryMembers: [Int: [String: Bitset]] = [:]
    var cache: MatchCache

    /// Incremented by every edit.
    public private(set) var revision: UInt64 = 0

    /// Creates an index and inserts `records` in order.
    ///
    /// - Throws: `SiftError` for an unknown locale, a scope naming an unknown field, duplicate
    ///   scope names or record ids.
    /// - Complexity: O(*n*) in the total size of the records' search fields.
    public init(configuration: IndexConfiguration, records: [Record] = []) throws(SiftError) {
        self.configuration = configuration
        guard !configuration.searchFields.isEmpty else {
            throw .invalidConfiguration("at least one search field is needed")
        }
        guard Set(configuration.searchFields).count == configuration.searchFields.count else {
            throw .invalidConfiguration("search fields are listed twice")
        }
        guard !configuration.scopes.isEmpty else { throw .invalidConfiguration("at least one scope is needed") }
        guard Set(configuration.scopes.map(\.name)).count == configuration.scopes.count else {
            throw .invalidConfiguration("two scopes have the same name")
        }
        fieldNames = configuration.searchFields
        fieldPositions = Dictionary(uniqueKeysWithValues: configuration.searchFields.enumerated().map { ($1, $0) })
        cache = MatchCache(capacity: max(1, configuration.cacheCapacity))

        let sortField = configuration.sortField ?? configuration.searchFields[0]
        sortFolder = try ICUFolder(ICUCollator(configuration.collation.sortingCollation))
        alphabeticIndex = try ICUAlphabeticIndex(locale: configuration.collation.locale)
        foldings = [try Folding(configuration.collation, fieldCount: configuration.searchFields.count)]
        if fieldPositions[sortField] == nil {
            fieldPositions[sortField] = fieldNames.count
            fieldNames.append(sortField)
        }
        sortFieldPosition = fieldPositions[sortField]!

        for scope in configuration.scopes {
            let fields = scope.fields ?? configuration.searchFields
            guard !fields.isEmpty else { throw .invalidConfiguration("scope '\(scope.name)' searches no field") }
            var positions: [Int] = []
            for field in fields {
                guard let position = configuration.searchFields.firstIndex(of: field) else {
                    throw .unknownField(field)
                }
                positions.append(position)
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
        for (position, value) in values[Int(slot)].enumerated() where !value.isEmpty {
            fields[fieldNames[position]] = value
        }
        return Record(id: ids[Int(slot)], fields: fields)
    }

    /// The id of the record behind a handle.
    ///
    /// - Complexity: O(1).
    public func id(of handle: RecordHandle) throws(SiftError) -> String { ids[Int(try resolve(handle))] }

    /// One field of the record behind a handle ("" when the record has no such field).
    ///
    /// - Complexity: O(1).
    public func value(of field: String, for handle: RecordHandle) throws(SiftError) -> String {
        let slot = try resolve(handle)
        guard let position = fieldPositions[field] else { return "" }
        return value(at: position, slot: slot)
    }

    /// The handle of the record with this id, or nil.
    ///
    /// - Complexity: O(1) expected.
    public func handle(forID id: String) -> RecordHandle? {
        guard let slot = slotOfID[id] else { return nil }
        return RecordHandle(slot: slot, generation: generations[Int(slot)])
    }

    /// The record at a position of the original list.
    ///
    /// - Complexity: O(1).
    public func handle(at position: Int) throws(SiftError) -> RecordHandle {
        guard position >= 0, position < order.count else { throw .positionOutOfRange(position, count: order.count) }
        let slot = order[position]
        return RecordHandle(slot: slot, generation: generations[Int(slot)])
    }

    /// Position of a record in the original list.
    ///
    /// - Complexity: O(1), after edits in the middle of the list O(*n*) once.
    public func position(of handle: RecordHandle) throws(SiftError) -> Int {
        let slot = try resolve(handle)
        ensureRanks()
        return Int(ranks[Int(slot)])
    }

    /// Every record, in original or collation order (`.ranked` gives original order).
    ///
    /// - Complexity: O(*n*).
    public func handles(in order: ResultOrder = .original) -> [RecordHandle] {
        let slots = order == .sorted ? sortedOrder : self.order
        return slots.map { RecordHandle(slot: $0, generation: generations[Int($0)]) }
    }

    /// The section (index into `sectionTitles`) of a record, from its sort field.
    ///
    /// - Complexity: O(1).
    public func section(of handle: RecordHandle) throws(SiftError) -> Int {
        Int(sectionOfSlot[Int(try resolve(handle))])
    }

    /// Position of a record in collation order of the sort field.
    ///
    /// - Complexity: O(1), after edits O(*n*) once.
    public func sortedPosition(of handle: RecordHandle) throws(SiftError) -> Int {
        let slot = try resolve(handle)
        ensureSortedRanks()
        return Int(sortedRanks[Int(slot)])
    }

    // MARK: - Internals shared by the extensions

    func resolve(_ handle: RecordHandle) throws(SiftError) -> Int32 {
        let slot = handle.slot
        guard slot >= 0, Int(slot) < generations.count, generations[Int(slot)] == handle.generation,
            live.contains(slot)
        else { throw .staleHandle }
        return slot
    }

    func handle(ofSlot slot: Int32) -> RecordHandle { RecordHandle(slot: slot, generation: generations[Int(slot)]) }

    func value(at position: Int, slot: Int32) -> String {
        let row = values[Int(slot)]
        return position < row.count ? row[position] : ""
    }

    func rank(ofSlot slot: Int32) -> Int32 {
        ensureRanks()
        return ranks[Int(slot)]
    }

    func sortedRank(ofSlot slot: Int32) -> Int32 {
        ensureSortedRanks()
        return sortedRanks[Int(slot)]
    }

    private func position(ofFieldNamed name: String) -> Int {
        if let position = fieldPositions[name] { return position }
        fieldPositions[name] = fieldNames.count
        fieldNames.append(name)
        return fieldNames.count - 1
    }

    private func ensureRanks() {
        guard validRanks < order.count else { return }
        if ranks.count < generations.count { ranks.append(contentsOf: repeatElement(-1, count: generations.count - ranks.count)) }
        for position in validRanks..<order.count { ranks[Int(order[position])] = Int32(position) }
        validRanks = order.count
    }

    private func ensureSortedRanks() {
        guard validSortedRanks < sortedOrder.count else { return }
        if sortedRanks.count < generations.count {
            sortedRanks.append(contentsOf: repeatElement(-1, count: generations.count - sortedRanks.count))
        }
        for position in validSortedRanks..<sortedOrder.count { sortedRanks[Int(sortedOrder[position])] = Int32(position) }
        validSortedRanks = sortedOrder.count
    }

    /// Members of a scope's category filter (all live records when it has none).
    func filterMembers(_ plan: ScopePlan) -> Bitset {
        guard let filter = plan.scope.filter, let field = plan.filterField else { return live }
        if categoryMembers[field] == nil {
            var members: [String: Bitset] = [:]
            live.forEach { slot in members[value(at: field, slot: slot), default: Bitset(capacity: generations.count)].insert(slot) }
            categoryMembers[field] = members
        }
        var result = Bitset(capacity: generations.count)
        for value in filter.values { if let bits = categoryMembers[field]?[value] { result.formUnion(bits) } }
        return result
    }

    // MARK: - Editing primitives (see SearchIndex+Editing.swift)

    /// Stores a record in a free slot, folds it and indexes it everywhere but in the original order.
    func store(_ record: Record) throws(SiftError) -> Int32 {
        guard slotOfID[record.id] == nil else { throw .duplicateID(record.id) }
        var row = [String](repeating: "", count: configuration.searchFields.count)
        for (name, value) in record.fields {
            let position = position(ofFieldNamed: name)
            if position >= row.count { row.append(contentsOf: repeatElement("", count: position + 1 - row.count)) }
            row[position] = value
        }
        // Fold first: an ICU failure must leave the index unchanged.
        var folded: [[FoldedText]] = []
        for folding in foldings {
            var perField: [FoldedText] = []
            for position in 0..<configuration.searchFields.count { perField.append(try folding.folder.fold(row[position])) }
            folded.append(perField)
        }
        let sortValue = sortFieldPosition < row.count ? row[sortFieldPosition] : ""
        let key = sortFolder.sortKey(sortValue)

        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            values[Int(slot)] = row
            ids[Int(slot)] = record.id
            generations[Int(slot)] &+= 1
            sortKeys[Int(slot)] = key
            sectionOfSlot[Int(slot)] = Int32(alphabeticIndex.bucket(of: sortValue))
        } else {
            slot = Int32(generations.count)
            values.append(row)
            ids.append(record.id)
            generations.append(0)
            sortKeys.append(key)
            sectionOfSlot.append(Int32(alphabeticIndex.bucket(of: sortValue)))
        }
        slotOfID[record.id] = slot
        live.insert(slot)
        for (f, folding) in foldings.enumerated() {
            for position in 0..<configuration.searchFields.count {
                folding.columns[position].set(slot: slot, folded: folded[f][position], codeBook: &folding.codeBook)
            }
        }
        insertSorted(slot)
        for (field, var members) in categoryMembers {
            members[value(at: field, slot: slot), default: Bitset(capacity: generations.count)].insert(slot)
            categoryMembers[field] = members
        }
        updateCache(slot: slot)
        revision &+= 1
        return slot
    }

    /// Removes a slot from everything but the original order.
    func discard(_ slot: Int32) {
        for folding in foldings {
            for position in 0..<configuration.searchFields.count {
                folding.columns[position].remove(slot: slot)
                folding.columns[position].compactIfWorthwhile()
            }
        }
        removeSorted(slot)
        for (field, var members) in categoryMembers {
            members[value(at: field, slot: slot)]?.remove(slot)
            categoryMembers[field] = members
        }
        live.remove(slot)
        cache.remove(slot: slot)
        slotOfID[ids[Int(slot)]] = nil
        ids[Int(slot)] = ""
        values[Int(slot)] = []
        sortKeys[Int(slot)] = []
        freeSlots.append(slot)
        revision &+= 1
    }

    func insertIntoOrder(_ slot: Int32, at position: Int) {
        order.insert(slot, at: position)
        validRanks = min(validRanks, position)
    }

    func removeFromOrder(at position: Int) -> Int32 {
        let slot = order.remove(at: position)
        validRanks = min(validRanks, position)
        return slot
    }

    private func sortsBefore(_ a: Int32, _ b: Int32) -> Bool {
        let ka = sortKeys[Int(a)], kb = sortKeys[Int(b)]
        if ka != kb { return ka.lexicographicallyPrecedes(kb) }
        return ids[Int(a)].utf8.lexicographicallyPrecedes(ids[Int(b)].utf8)
    }

    private func insertSorted(_ slot: Int32) {
        var low = 0, high = sortedOrder.count
        if let last = sortedOrder.last, sortsBefore(last, slot) { low = high }
        while low < high {
            let mid = (low + high) / 2
            if sortsBefore(sortedOrder[mid], slot) { low = mid + 1 } else { high = mid }
        }
        sortedOrder.insert(slot, at: low)
        validSortedRanks = min(validSortedRanks, low)
    }

    private func removeSorted(_ slot: Int32) {
        let position = Int(sortedRank(ofSlot: slot))
        sortedOrder.remove(at: position)
        validSortedRanks = min(validSortedRanks, position)
    }

    func bumpRevision() { revision &+= 1 }

    /// Brings every cached field result up to date for one slot (inserted, updated or freed).
    private func updateCache(slot: Int32) {
        cache.update(slot: slot) { key in evaluate(key, slot: slot) }
    }
}

/// One collation's folded view of the search fields.
final class Folding {
    let collation: Collation
    let folder: ICUFolder
    var codeBook = CodeBook()
    /// One column per search field.
    var columns: [FoldedColumn]

    init(_ collation: Collation, fieldCount: Int) throws(SiftError) {
        self.collation = collation
        folder = try ICUFolder(ICUCollator(collation))
        columns = [FoldedColumn](repeating: FoldedColumn(), count: fieldCount)
    }
}

/// A scope resolved against the index: its folding and field positions.
struct ScopePlan {
    let scope: Scope
    let folding: Int
    let fields: [Int]
    let filterField: Int?
}
