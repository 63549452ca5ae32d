internal import Dispatch
internal import SiftStorage

extension SearchIndex {
    /// A snapshot of at most this many records has every record folded again on load.
    static let snapshotFullVerificationLimit = 16_384
    /// Past `snapshotFullVerificationLimit`, one record in this many is folded again at random.
    static let snapshotSampleRate = 64

    /// The records a snapshot load folds again (ascending): all of them for `everyRecord` or a
    /// small snapshot; else `firstUses` (the first record holding each code in use) and a random
    /// one in `snapshotSampleRate`, drawn from the system's generator so that a file cannot be
    /// made to avoid them.
    ///
    /// - Complexity: O(*n*) for *n* records.
    static func recordsToVerify(
        count: Int,
        firstUses: [Int32],
        verification: SnapshotVerification
    ) -> [Int32] {
        if verification == .everyRecord || count <= snapshotFullVerificationLimit { return Array(0..<Int32(count)) }
        var chosen = Bitset(capacity: count)
        for record in firstUses { chosen.insert(record) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<(count / snapshotSampleRate) {
            chosen.insert(Int32.random(in: 0..<Int32(count), using: &generator))
        }
        var records: [Int32] = []
        chosen.forEachMember { records.append($0) }
        return records
    }

    /// Checks a loaded snapshot's folded columns against the records' texts: a record with an
    /// empty field has an empty segment (every record), and each of `records` folds, in each
    /// folding and search field, to exactly its stored segment: the same codes (so the code
    /// book's element for each), word starts and flags. The columns are read as loaded, written
    /// out per column (`FoldedColumn.storage`) while it is checked: a snapshot of a million
    /// columns does not hold every column's tables twice. Folds on every core: the work is one
    /// task per column and range of records (columns split among the cores when there are many,
    /// records when there are few).
    ///
    /// - Throws: which record, field and collation disagree.
    /// - Complexity: O(*n* · *f*) for *n* records and *f* search fields, plus the folding of
    ///   `records`.
    func verifyFoldedColumns(records: [Int32]) throws(SnapshotFormatError) {
        let fields = configuration.searchFields
        let positions = fields.map { self.records.fieldPositions[$0] ?? self.records.values.count }
        let values = self.records.values
        func text(_ column: Int) -> TextColumn {
            positions[column] < values.count ? values[positions[column]] : TextColumn.empty
        }
        let slotCount = Int32(self.records.ids.slotCount)
        let workers = records.count * fields.count >= 4096 ? ParallelWork.cores : 1
        // Tasks: each column's records in `perColumn` ranges, so that there are about 4 tasks a
        // worker whatever the shape.
        let perColumn = max(1, min(records.count, 4 * workers / max(1, fields.count)))
        let chunk = (records.count + perColumn - 1) / max(1, perColumn)
        let taskCount = fields.count * perColumn
        // Worker 0 uses the foldings' own folders; the others clone theirs, and the tasks of a
        // worker that could not are done afterwards with worker 0's.
        let folders: [[ICUFolder]?] = (0..<workers).map { worker in
            worker == 0
                ? folded.foldings.map(\.folder)
                : try? folded.foldings.map { (folding) throws(SiftError) in
                    try ICUFolder(folding.folder.collator)
                }
        }
        let foldings = folded.foldings
        let codeBooks = foldings.map(\.codeBook)
        let results = WorkerResults<Result<(record: Int32, field: Int, folding: Int)?, SiftError>>(count: workers)
        let work = UncheckedWork { worker in
            let folders = folders[worker] ?? folders[0]!
            var batch = FoldedBatch()
            for task in stride(from: worker, to: taskCount, by: workers) {
                let c = task / perColumn
                let part = task % perColumn
                let texts = text(c)
                for (f, folder) in folders.enumerated() {
                    let storage = foldings[f].columns[c].storage
                    if part == 0 {
                        for record in 0..<slotCount where texts.withUTF8(record, { $0.isEmpty }) {
                            let (start, end) = storage.bounds(ofSegment: Int(record))
                            guard start == end else {
                                results.set(worker, .success((record, c, f)))
                                return
                            }
                        }
                    }
                    for position in min(records.count, part * chunk)..<min(records.count, (part + 1) * chunk) {
                        let record = records[position]
                        batch.removeAll()
                        do throws(SiftError) {
                            try folder.fold(texts.string(record), into: &batch)
                        } catch {
                            results.set(worker, .failure(error))
                            return
                        }
                        let matches = batch.withView { view in
                            storage.segment(Int(record), matches: view[0], codeBook: codeBooks[f])
                        }
                        if !matches {
                            results.set(worker, .success((record, c, f)))
                            return
                        }
                    }
                }
            }
            results.set(worker, .success(nil))
        }
        let parallel = (1..<workers).filter { folders[$0] != nil }
        if parallel.isEmpty {
            work.run(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: parallel.count + 1) { i in
                work.run(i == 0 ? 0 : parallel[i - 1])
            }
        }
        for worker in 1..<workers where folders[worker] == nil { work.run(worker) }
        var first: (record: Int32, field: Int, folding: Int)? = nil
        for result in results.values {
            switch result {
            case .success(let found?):
                if first.map({ (found.record, found.field) < ($0.record, $0.field) }) ?? true { first = found }
            case .failure(let error): throw .init("a record cannot be folded: \(error)")
            case .success(nil), nil: continue
            }
        }
        if let first { throw disagreement(record: first.record, field: first.field, folding: first.folding) }
    }

    /// The error for a record whose folded field does not match its text.
    private func disagreement(record: Int32, field: Int, folding: Int) -> SnapshotFormatError {
        .init(
            "the folded \(configuration.searchFields[field]) of record \(record) (id \"\(records.ids.string(record))\") "
                + "under collation \(folded.foldings[folding].collation.locale) does not match its text: "
                + "the file was altered or damaged; rebuild the snapshot from the data"
        )
    }
}

extension FoldedColumn.Storage {
    /// Whether segment `segment` holds exactly the encoding of `folded`: each element's code
    /// (which `codeBook` has), a word start at each lead byte exactly where the element starts a
    /// word, and flag entries, with the segment flagged exactly when some element cannot both
    /// start and end a match. Call it on a storage that passed `checkSaved`.
    ///
    /// - Complexity: O(*n*) in the segment's length.
    func segment(_ segment: Int, matches folded: FoldedSlice, codeBook: CodeBook) -> Bool {
        let boundary = FoldFlags.startOK | FoldFlags.endOK
        let (start, end) = bounds(ofSegment: segment)
        let flagStart = segmentFlags[segment]
        let flagged = flagStart != FoldedColumn.simple
        var simple = true
        var p = start
        return codes.withUnsafeBufferPointer { codes in
            for i in 0..<folded.elements.count {
                guard p < end, let code = codeBook.existingCode(for: folded.elements[i]),
                    let (stored, length) = Self.decode(codes, at: p, end: end), stored == code
                else { return false }
                let flag = folded.flags[i]
                let word = p >> 6
                let wordStart = word < wordStarts.count && wordStarts[word] & (1 << UInt64(p & 63)) != 0
                guard wordStart == (flag & FoldFlags.wordStart != 0) else { return false }
                if flag & boundary != boundary { simple = false }
                if flagged {
                    let entry = Int(flagStart) + p - start
                    guard (flags[entry >> 2] >> UInt8((entry & 3) << 1)) & 3 == flag & boundary else { return false }
                }
                p += length
            }
            return p == end && simple != flagged
        }
    }
}
