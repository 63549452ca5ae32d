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
    /// book's element for each), word starts and flags. `storages[f][c]` is folding `f`'s column
    /// `c` as stored (checked by `FoldedColumn.Storage.checkSaved`); the index holds the records
    /// and the code books. Folds on every core for many records.
    ///
    /// - Throws: which record, field and collation disagree.
    /// - Complexity: O(*n*) for *n* records, plus the folding of `records`.
    func verifyFoldedColumns(_ storages: [[FoldedColumn.Storage]], records: [Int32]) throws(SnapshotFormatError) {
        let fields = configuration.searchFields
        let positions = fields.map { self.records.fieldPositions[$0] ?? self.records.values.count }
        let emptyText = TextColumn()
        func text(_ column: Int) -> TextColumn {
            positions[column] < self.records.values.count ? self.records.values[positions[column]] : emptyText
        }
        for (f, columns) in storages.enumerated() {
            for (c, storage) in columns.enumerated() {
                let texts = text(c)
                for record in 0..<Int32(self.records.ids.slotCount) where texts.withUTF8(record, { $0.isEmpty }) {
                    let (start, end) = storage.bounds(ofSegment: Int(record))
                    guard start == end else { throw disagreement(record: record, field: c, folding: f) }
                }
            }
        }
        let workers = records.count >= 4096 ? ParallelWork.cores : 1
        // Worker 0 uses the foldings' own folders; the others clone theirs, and a chunk whose
        // worker could not is done afterwards with worker 0's.
        let folders: [[ICUFolder]?] = (0..<workers).map { worker in
            worker == 0
                ? folded.foldings.map(\.folder)
                : try? folded.foldings.map { (folding) throws(SiftError) in
                    try ICUFolder(folding.folder.collator)
                }
        }
        let codeBooks = folded.foldings.map(\.codeBook)
        let chunk = (records.count + workers - 1) / workers
        let results = WorkerResults<Result<(record: Int32, field: Int, folding: Int)?, SiftError>>(count: workers)
        let work = UncheckedWork { worker in
            let folders = folders[worker] ?? folders[0]!
            var batch = FoldedBatch()
            for position in min(records.count, worker * chunk)..<min(records.count, (worker + 1) * chunk) {
                let record = records[position]
                for (f, folder) in folders.enumerated() {
                    for c in 0..<fields.count {
                        batch.removeAll()
                        do throws(SiftError) {
                            try folder.fold(text(c).string(record), into: &batch)
                        } catch {
                            results.set(worker, .failure(error))
                            return
                        }
                        let matches = batch.withView { view in
                            storages[f][c].segment(Int(record), matches: view[0], codeBook: codeBooks[f])
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
        for result in results.values {
            switch result {
            case .success(let found?):
                throw disagreement(record: found.record, field: found.field, folding: found.folding)
            case .failure(let error): throw .init("a record cannot be folded: \(error)")
            case .success(nil), nil: continue
            }
        }
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
