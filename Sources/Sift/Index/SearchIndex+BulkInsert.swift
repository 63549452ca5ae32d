internal import Dispatch
internal import SiftStorage

extension SearchIndex {
    /// Appends many records in order (the large-batch path of `insert(contentsOf:)`), leaving the
    /// index exactly as inserting them one by one would, with the same errors.
    ///
    /// First the ids are hashed and the field names checked on all cores; the ids are checked
    /// for duplicates in bulk while the first batch folds. Then per batch (`bulkBatchSize`
    /// records): workers fold and encode runs of records into their columns' final form
    /// (`BulkPiece`); the code books give the batch's new elements their codes (in order of
    /// first appearance); then, on all cores at once, every column, the ids, the values, the id
    /// table and the original order take their share of the batch (each is independent), while
    /// the next batch folds.
    ///
    /// - Parameter trim: Whether to drop spare capacity at the end (as `trimCapacity()` does).
    /// - Throws: on the first record that cannot be inserted (a duplicate id, an ICU failure); the
    ///   records before it stay inserted.
    /// - Complexity: O(*s*) in the total size of the records, the work divided among `workers`
    ///   threads.
    func bulkInsert(_ records: [Record], workers: Int, trim: Bool) throws(SiftError) {
        orders.rankingKeysStorage = nil  // built again on first use: cheaper than record by record here
        let piecesPerBatch = workers == 1 ? 1 : 4 * workers
        let folders = try workerFolders(piecesPerBatch)
        let (hashes, known, unknownField) = hashIDs(records, pieces: piecesPerBatch)
        if let unknownField { registerFields(of: records[unknownField...]) }
        var pieces = [[BulkPiece]](repeating: [BulkPiece](repeating: BulkPiece(), count: piecesPerBatch), count: 2)
        var repeated: Int? = nil
        // The first batch folds while the ids are checked; every later one while the previous
        // one is committed.
        var first = BulkPlan(records: records, hashes: hashes, fold: batchRange(0, records.count))
        first.findRepeats = 0..<(known ?? records.count)
        runBulkStep(first, folders: folders, into: &pieces[0], repeated: &repeated)
        let duplicate = [known, repeated].compactMap { $0 }.min()
        var batchStart = 0
        var current = 0
        while batchStart < records.count {
            let batchEnd = min(records.count, batchStart + knobs.bulkBatchSize)
            var limit = batchEnd
            var error: SiftError? = nil
            for piece in pieces[current] {
                if let failure = piece.failure {
                    limit = piece.records.lowerBound + piece.foldedCount
                    error = failure
                    break
                }
            }
            if let duplicate, duplicate < limit {
                limit = duplicate
                error = .duplicateID(records[duplicate].id)
            }
            let committing = pieces[current]
            assignCodes(committing, before: limit)
            let slots = allocateSlots(limit - batchStart)
            if !slots.isEmpty && self.records.values.count < fieldNames.count {
                self.records.values.append(
                    contentsOf: repeatElement(TextColumn(), count: fieldNames.count - self.records.values.count)
                )
            }
            self.records.slotOfID.prepareToInsert(slots.count, ids: self.records.ids)
            // Without sorted order, category members or cached results, what is left of a commit
            // (liveness and the original order) is one more independent task.
            let appendOrder = !sortedIsBuilt && !categoryMembersAreBuilt && caches.matches.count == 0
            var plan = BulkPlan(records: records, hashes: hashes, fold: nil)
            if error == nil && batchEnd < records.count { plan.fold = batchRange(batchEnd, records.count) }
            plan.commit = batchStart..<limit
            plan.committing = committing
            plan.slots = slots
            plan.appendOrder = appendOrder
            plan.trim = trim && error == nil && batchEnd == records.count
            runBulkStep(plan, folders: folders, into: &pieces[1 - current], repeated: &repeated)
            if appendOrder {
                for slot in slots { folded.postings.noteEdit(slot: slot) }
                revision &+= UInt64(slots.count)
            } else {
                for slot in slots {
                    self.records.live.insert(slot)
                    finishCommit(slot)
                    insertIntoOrder(slot, at: count)
                }
            }
            if plan.trim { self.records.generations.trimCapacity() }
            if let error { throw error }
            batchStart = batchEnd
            current = 1 - current
        }
    }

    /// The batch that starts at `start`.
    private func batchRange(_ start: Int, _ count: Int) -> Range<Int> {
        start..<min(count, start + knobs.bulkBatchSize)
    }

    /// Hashes every id on all cores; finds the first record whose id is already in the index, and
    /// the first with a field name the index has not seen.
    private func hashIDs(_ records: [Record], pieces: Int) -> (hashes: [Int], known: Int?, unknownField: Int?) {
        var hashes = [Int](repeating: 0, count: records.count)
        var firsts = [(known: Int?, unknownField: Int?)](repeating: (nil, nil), count: pieces)
        hashes.withUnsafeMutableBufferPointer { hashes in
            firsts.withUnsafeMutableBufferPointer { firsts in
                let work = BulkHashing(
                    records: records,
                    table: self.records.slotOfID,
                    ids: self.records.ids,
                    fieldPositions: self.records.fieldPositions,
                    fieldNames: fieldNames,
                    hashes: hashes,
                    firsts: firsts
                )
                DispatchQueue.concurrentPerform(iterations: pieces) { piece in work.run(piece: piece) }
            }
        }
        return (hashes, firsts.compactMap(\.known).min(), firsts.compactMap(\.unknownField).min())
    }

    /// Gives the elements new in a batch's pieces their codes, in order of first appearance,
    /// for the records before `limit`.
    private func assignCodes(_ pieces: [BulkPiece], before limit: Int) {
        for (number, folding) in folded.foldings.enumerated() {
            for piece in pieces {
                for (element, record) in piece.newElements[number] {
                    if record >= limit { break }
                    _ = folding.codeBook.code(for: element)
                }
            }
        }
    }

    /// Takes `count` slots for new records, as `commit` does: freed ones first.
    private func allocateSlots(_ count: Int) -> [Int32] {
        if records.freeSlots.isEmpty {
            let first = records.generations.count
            records.generations.append(zeros: count)
            return (0..<count).map { Int32(first + $0) }
        }
        var slots = [Int32]()
        slots.reserveCapacity(count)
        for _ in 0..<count {
            if let free = records.freeSlots.popLast() {
                records.generations.bump(free)
                clearValues(slot: free)
                slots.append(free)
            } else {
                slots.append(Int32(records.generations.count))
                records.generations.append(zeros: 1)
            }
        }
        return slots
    }

    /// Runs one parallel step of a bulk insert (see `BulkPlan`), folding into `pieces`.
    private func runBulkStep(
        _ plan: BulkPlan,
        folders: [[ICUFolder]],
        into pieces: inout [BulkPiece],
        repeated: inout Int?
    ) {
        // Move what the step changes out of the index, so that each task holds the only
        // reference to its target.
        var columns: [FoldedColumn] = []
        var textColumns: [TextColumn] = []
        var table = IDTable()
        var order = SlotSequence()
        var live = Bitset()
        if plan.commit != nil {
            for folding in folded.foldings {
                columns.append(contentsOf: folding.columns)
                folding.columns = FoldedColumns(count: 0, poolingMinimum: knobs.poolColumnsFromFields)
            }
            textColumns = [records.ids] + records.values
            records.ids = TextColumn()
            records.values = TextColumns(count: 0, poolingMinimum: knobs.poolColumnsFromFields)
            swap(&table, &records.slotOfID)
            if plan.appendOrder {
                swap(&order, &self.orders.order)
                swap(&live, &self.records.live)
            }
        }
        withCodeBookViews { codeBooks in
            pieces.withUnsafeMutableBufferPointer { pieces in
                columns.withUnsafeMutableBufferPointer { columns in
                    textColumns.withUnsafeMutableBufferPointer { textColumns in
                        withUnsafeMutablePointer(to: &table) { table in
                            withUnsafeMutablePointer(to: &order) { order in
                                withUnsafeMutablePointer(to: &live) { live in
                                    withUnsafeMutablePointer(to: &repeated) { repeated in
                                        BulkStep(
                                            plan: plan,
                                            folders: folders,
                                            codeBooks: codeBooks,
                                            searchFields: configuration.searchFields,
                                            fieldNames: fieldNames,
                                            pieces: pieces,
                                            columns: columns,
                                            textColumns: textColumns,
                                            table: table,
                                            order: order,
                                            live: live,
                                            repeated: repeated
                                        ).run()
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if plan.commit != nil {
            let fields = configuration.searchFields.count
            for (number, folding) in folded.foldings.enumerated() {
                folding.columns = FoldedColumns(
                    columns[(number * fields)..<((number + 1) * fields)],
                    poolingMinimum: knobs.poolColumnsFromFields
                )
            }
            columns = []
            records.ids = textColumns[0]
            records.values = TextColumns(textColumns.dropFirst(), poolingMinimum: knobs.poolColumnsFromFields)
            textColumns = []
            swap(&table, &records.slotOfID)
            if plan.appendOrder {
                swap(&order, &self.orders.order)
                swap(&live, &self.records.live)
            }
        }
    }

    /// Calls `body` with a read-only view of every folding's code book.
    private func withCodeBookViews<R>(_ views: [CodeBookView] = [], _ body: ([CodeBookView]) -> R) -> R {
        if views.count == folded.foldings.count { return body(views) }
        return folded.foldings[views.count].codeBook.withView { view in withCodeBookViews(views + [view], body) }
    }
}

/// What one parallel step of a bulk insert does: fold a batch, commit the previous one, check
/// the ids for repeats.
private struct BulkPlan {
    let records: [Record]
    let hashes: [Int]
    /// Records to fold.
    var fold: Range<Int>?
    /// Records to commit (their folded pieces: `committing`; their slots: `slots`).
    var commit: Range<Int>?
    var committing: [BulkPiece] = []
    var slots: [Int32] = []
    /// Whether the committed slots go to the original order and the live set in this step.
    var appendOrder = false
    /// Whether the committed columns drop their spare capacity (the last batch).
    var trim = false
    /// Records whose ids to check for repeats.
    var findRepeats: Range<Int>?

    init(records: [Record], hashes: [Int], fold: Range<Int>?) {
        self.records = records
        self.hashes = hashes
        self.fold = fold
    }
}

/// What the workers of the bulk insert's id hashing share.
///
/// `@unchecked Sendable` is sound here: workers read the records, the id table, the ids and the
/// field positions without changing them, each writes only the hashes of its own records and its
/// own `firsts` entry, and `DispatchQueue.concurrentPerform` returns only after every worker has
/// finished.
private struct BulkHashing: @unchecked Sendable {
    let records: [Record]
    let table: IDTable
    let ids: TextColumn
    let fieldPositions: FieldTable
    let fieldNames: [String]
    let hashes: UnsafeMutableBufferPointer<Int>
    let firsts: UnsafeMutableBufferPointer<(known: Int?, unknownField: Int?)>

    /// Whether the index has a field of this name: with few fields, by comparing names (short
    /// strings compare without hashing).
    private func isKnown(_ name: String) -> Bool {
        fieldNames.count <= 8 ? fieldNames.contains(name) : fieldPositions[name] != nil
    }

    func run(piece: Int) {
        let pieces = firsts.count
        let start = records.count * piece / pieces
        let end = records.count * (piece + 1) / pieces
        let checkKnown = table.count > 0
        var known: Int? = nil
        var unknownField: Int? = nil
        records.withUnsafeBufferPointer { records in
            for index in start..<end {
                let hash = IDTable.hash(records[index].id)
                hashes[index] = hash
                if checkKnown && known == nil && table.slot(of: records[index].id, hash: hash, ids: ids) != nil {
                    known = index
                }
                if unknownField == nil && records[index].fields.keys.contains(where: { !isKnown($0) }) {
                    unknownField = index
                }
            }
        }
        firsts[piece] = (known, unknownField)
    }
}

/// The workers of one step of a bulk insert: one task per piece of the batch to fold, per folded
/// column, per text column (ids, values), for the id table, for the original order, and for
/// the id repeats check.
///
/// `@unchecked Sendable` is sound here: each task changes only its own target (`pieces[i]`,
/// `columns[i]`, `textColumns[i]`, `table`, `order` with `live`, or
/// `repeated`), moved out of the index so that nothing else refers to it; everything else
/// (records, code books, the committed pieces, slots, hashes) is only read, and the code books
/// do not change during the step; `DispatchQueue.concurrentPerform` returns only after every
/// task has finished.
private struct BulkStep: @unchecked Sendable {
    let plan: BulkPlan
    let folders: [[ICUFolder]]
    let codeBooks: [CodeBookView]
    let searchFields: [String]
    let fieldNames: [String]
    let pieces: UnsafeMutableBufferPointer<BulkPiece>
    let columns: UnsafeMutableBufferPointer<FoldedColumn>
    let textColumns: UnsafeMutableBufferPointer<TextColumn>
    let table: UnsafeMutablePointer<IDTable>
    let order: UnsafeMutablePointer<SlotSequence>
    let live: UnsafeMutablePointer<Bitset>
    let repeated: UnsafeMutablePointer<Int?>

    private enum Task {
        case repeats
        case fold(Int)
        case column(Int)
        case texts(Int)
        case table, order
    }

    private var tasks: [Task] {
        var tasks: [Task] = []
        if plan.findRepeats != nil { tasks.append(.repeats) }
        if plan.commit != nil {
            tasks += columns.indices.map { .column($0) }
            tasks += textColumns.indices.map { .texts($0) }
            tasks.append(.table)
            if plan.appendOrder { tasks.append(.order) }
        }
        if plan.fold != nil { tasks += pieces.indices.map { .fold($0) } }
        return tasks
    }

    func run() {
        let tasks = self.tasks
        if tasks.count == 1 {
            run(tasks[0])
        } else if tasks.count > 1 {
            DispatchQueue.concurrentPerform(iterations: tasks.count) { task in run(tasks[task]) }
        }
    }

    private func run(_ task: Task) {
        switch task {
        case .repeats: findRepeats()
        case .fold(let piece): fold(piece)
        case .column(let number): commitColumn(number)
        case .texts(let number): commitTexts(number)
        case .table:
            let commit = plan.commit!
            plan.slots.withUnsafeBufferPointer { slots in
                plan.hashes.withUnsafeBufferPointer { hashes in
                    table.pointee.insert(slots: slots, hashes: UnsafeBufferPointer(rebasing: hashes[commit]))
                }
            }
        case .order: appendOrder()
        }
    }

    private func findRepeats() {
        let records = plan.records
        repeated.pointee = plan.hashes.withUnsafeBufferPointer { hashes in
            IDTable.firstRepeat(hashes: UnsafeBufferPointer(rebasing: hashes[plan.findRepeats!])) { a, b in
                records[a].id.utf8.elementsEqual(records[b].id.utf8)
            }
        }
    }

    private func fold(_ piece: Int) {
        let fold = plan.fold!
        let start = fold.lowerBound + fold.count * piece / pieces.count
        let end = fold.lowerBound + fold.count * (piece + 1) / pieces.count
        pieces[piece].fold(
            start..<end,
            of: plan.records,
            searchFields: searchFields,
            folders: folders[piece],
            codeBooks: codeBooks
        )
    }

    /// The committed records of each piece, with their slots.
    private func forEachCommitted(_ body: (BulkPiece, _ count: Int, _ slots: UnsafeBufferPointer<Int32>) -> Void) {
        let commit = plan.commit!
        plan.slots.withUnsafeBufferPointer { slots in
            for piece in plan.committing {
                let first = piece.records.lowerBound
                let count = min(piece.foldedCount, max(0, commit.upperBound - first))
                guard count > 0 else { continue }
                body(piece, count, UnsafeBufferPointer(rebasing: slots[(first - commit.lowerBound)...]))
            }
        }
    }

    /// Appends the committed records' segments to folded column `number`, encoding the deferred
    /// ones now that the code book has their elements.
    private func commitColumn(_ number: Int) {
        let codeBook = codeBooks[number / searchFields.count]
        var single = EncodedSegments()
        forEachCommitted { piece, count, owners in
            let encoded = piece.columns[number]
            var segment = 0
            var deferred = 0
            while segment < count {
                if encoded.isDeferred(segment) {
                    single.removeAll()
                    let text = Int(encoded.deferredTexts[deferred])
                    let encodedNow = piece.deferred.withView { view in single.append(view[text], codeBook: codeBook) }
                    precondition(encodedNow, "the code book lacks an element of a committed text")
                    columns[number].append(
                        single,
                        segments: 0..<1,
                        owners: UnsafeBufferPointer(rebasing: owners[segment...segment])
                    )
                    deferred += 1
                    segment += 1
                } else {
                    var end = segment + 1
                    while end < count && !encoded.isDeferred(end) { end += 1 }
                    columns[number].append(
                        encoded,
                        segments: segment..<end,
                        owners: UnsafeBufferPointer(rebasing: owners[segment..<end])
                    )
                    segment = end
                }
            }
        }
        if plan.trim { columns[number].trimCapacity() }
    }

    /// Sets the committed records' ids (text column 0) or values of one field (column `number`,
    /// field `fieldNames[number - 1]`).
    private func commitTexts(_ number: Int) {
        let commit = plan.commit!
        let column = textColumns.baseAddress! + number
        plan.records.withUnsafeBufferPointer { records in
            plan.slots.withUnsafeBufferPointer { slots in
                if number == 0 {
                    for offset in 0..<commit.count {
                        column.pointee.set(slots[offset], records[commit.lowerBound + offset].id)
                    }
                } else {
                    let name = [fieldNames[number - 1]]
                    var value = [""]
                    for offset in 0..<commit.count {
                        records[commit.lowerBound + offset].values(of: name, into: &value)
                        if !value[0].isEmpty { column.pointee.set(slots[offset], value[0]) }
                    }
                }
            }
        }
        if plan.trim { column.pointee.trimCapacity() }
    }

    /// Appends the committed slots to the original order and the live set, as `insertIntoOrder`
    /// does.
    private func appendOrder() {
        for slot in plan.slots {
            live.pointee.insert(slot)
            order.pointee.insert(slot, at: order.pointee.count)
        }
    }
}
