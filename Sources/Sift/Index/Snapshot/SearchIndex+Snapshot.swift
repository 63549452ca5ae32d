internal import CSiftKernels
internal import SiftStorage

/// The snapshot file format (version 4):
///
/// ```
/// offset 0   "SIFTSNAP"          magic
///        8   UInt32 version      format version (3)
///       12   UInt32 0x01020304   byte-order mark (little-endian files only)
///       16   UInt64 length       payload length in bytes
///       24   UInt64 checksum     `sift_checksum` of the payload
///       32   payload             ICU version, configuration, metadata, field names, ids and
///                                values (records in original order), then per collation its
///                                collator version, fingerprint, code book and folded columns,
///                                then optionally the sort options (below)
/// ```
///
/// Ids and each field's values are one byte array each: the `TextColumn` layout of the records
/// in original order (a length prefix before each value, no dead bytes), so that loading only
/// checks it. Version 1 stored them as text plus a `UInt32` start and length per value; version 2
/// also stored each folded segment's UTF-16 offsets and a slot-to-segment table, which the index no
/// longer keeps (offsets are folded again for the rows shown; slots follow from owners).
/// Version 4 added each folding's `FoldingFingerprint`, which binds the stored settings to the
/// folded data: version 3 files are refused (rebuild them from the data).
///
/// A configuration whose `SortOptions` are not the defaults ends the payload with them: the tag
/// "SORT", then numeric as a bool and the alternate as a string. Without the tag
/// the file is byte for byte what Sift wrote before sort options existed, so older snapshots load
/// (with the default options) and snapshots without sort options still open in older Sift; a
/// Sift that predates the options refuses a snapshot that has them ("unexpected data after the
/// last column") rather than sorting it another way. A configuration with a
/// `RankingTieBreak` then adds the tag "TIEB", the field as a string, numeric and descending as
/// bools (the sort options are written before it even when they are the defaults); older Sift
/// refuses such a file the same way.
enum SnapshotFile {
    static let magic: [UInt8] = Array("SIFTSNAP".utf8)
    static let version: UInt32 = 4
    static let byteOrderMark: UInt32 = 0x0102_0304
    static let headerSize = 32
    static let checksumSeed: UInt64 = 0x5349_4654_534E_4150
    /// Starts the optional sort options at the end of the payload.
    static let sortOptionsTag: [UInt8] = Array("SORT".utf8)
    /// Starts the optional ranking tie-break, after the sort options.
    static let tieBreakTag: [UInt8] = Array("TIEB".utf8)
    /// Starts the optional ranking rules, after the sort options and the tie-break (if any):
    /// written only where they are not the defaults with the tie-break after them.
    static let rankingRulesTag: [UInt8] = Array("RANK".utf8)

    /// The payload checksum.
    static func checksum(_ payload: UnsafeRawBufferPointer, seed: UInt64 = checksumSeed) -> UInt64 {
        guard let base = payload.baseAddress else { return sift_checksum([UInt8](), 0, seed) }
        return sift_checksum(base, payload.count, seed)
    }
}

extension SearchIndex {
    /// Saves the index to a file, atomically: a crash while saving leaves either the previous
    /// file or the new one, never a corrupt one (temporary file, `fsync`, `rename`, `fsync` of
    /// the directory). The temporary file is unnamed while it is written (Linux `O_TMPFILE`), so
    /// a killed save leaves none behind; where the file system refuses that, it is named
    /// `NAME.tmp-PID-RANDOM` and a later save to the same path removes it once its process is
    /// gone.
    ///
    /// The snapshot holds the configuration, `metadata`, the records in original order and every
    /// folded column, so `load(from:)` needs no collation work beyond opening the collators. Ids,
    /// positions and query results after loading are those before saving; record handles are not
    /// (load numbers records afresh).
    ///
    /// - Throws: `SiftError.snapshot` when the file cannot be written.
    /// - Complexity: O(*n*) in the size of the index.
    public func save(to path: String) throws(SiftError) {
        try addDeferredWordStarts()
        var fingerprints: [String] = []
        for folding in folded.foldings { fingerprints.append(try FoldingFingerprint(of: folding).text) }
        // The payload is streamed to the file as it is encoded (never held whole), then the
        // header, which holds its length and checksum, is written over the room left for it.
        let headerSize = Self.header(payloadLength: 0, checksum: 0).count
        try FileIO.writeAtomically(to: path) { output in
            if let failure = [UInt8](repeating: 0, count: headerSize).withUnsafeBytes({ output($0) }) {
                return ([], failure)
            }
            // The writer lives only inside this call, and `output` with it.
            return withoutActuallyEscaping(output) { output in
                var writer = SnapshotWriter(seed: SnapshotFile.checksumSeed, output: output)
                encodePayload(into: &writer, fingerprints: fingerprints)
                let (length, checksum) = writer.finish()
                return (Self.header(payloadLength: length, checksum: checksum), writer.failure)
            }
        }
    }

    /// The snapshot header for a payload.
    private static func header(payloadLength: Int, checksum: UInt64) -> [UInt8] {
        var header = SnapshotWriter()
        for byte in SnapshotFile.magic { header.write(byte) }
        header.write(SnapshotFile.version)
        header.write(SnapshotFile.byteOrderMark)
        header.write(UInt64(payloadLength))
        header.write(checksum)
        return header.bytes
    }

    /// Writes the snapshot payload (see `SnapshotFile`). Columns are written as they are when
    /// they are in the order of the records (a fresh build's are), else renumbered first.
    private func encodePayload(into writer: inout SnapshotWriter, fingerprints: [String]) {
        writer.write(icuVersion)
        Self.encode(configuration, into: &writer)
        let keys = metadata.keys.sorted()
        writer.write(keys)
        writer.write(keys.map { metadata[$0]! })
        writer.write(fieldNames)
        let slots = orders.order.array
        writer.write(UInt64(slots.count))
        records.ids.writeRenumbered(slots, to: &writer)
        let unused = TextColumn()
        for position in fieldNames.indices {
            (position < records.values.count ? records.values[position] : unused).writeRenumbered(slots, to: &writer)
        }
        writer.write(UInt32(folded.foldings.count))
        for (folding, fingerprint) in zip(folded.foldings, fingerprints) {
            Self.encode(folding.collation, into: &writer)
            writer.write(folding.folder.collator.version)
            writer.write(fingerprint)
            writer.write(array: folding.codeBook.elementsInCodeOrder)
            writer.write(UInt32(folding.columns.count))
            for column in folding.columns {
                let s = column.isRenumbered(slots) ? column.storage : column.renumbered(slots).storage
                writer.write(array: s.codes)
                writer.write(array: s.wordStarts)
                writer.write(array: s.segmentStarts)
                writer.write(array: s.segmentOwners)
                writer.write(array: s.segmentFlags)
                writer.write(array: s.flags)
            }
        }
        var plainRules = RankingRule.defaults
        if let tieBreak = configuration.rankingTieBreak { plainRules.append(.custom(tieBreak)) }
        let writesRules = configuration.rankingRules != plainRules
        if configuration.sortOptions != SortOptions() || configuration.rankingTieBreak != nil || writesRules {
            for byte in SnapshotFile.sortOptionsTag { writer.write(byte) }
            writer.write(configuration.sortOptions.numeric)
            writer.write(configuration.sortOptions.alternate.rawValue)
        }
        if let tieBreak = configuration.rankingTieBreak {
            for byte in SnapshotFile.tieBreakTag { writer.write(byte) }
            writer.write(tieBreak.field)
            writer.write(tieBreak.numeric)
            writer.write(tieBreak.descending)
        }
        if writesRules {
            for byte in SnapshotFile.rankingRulesTag { writer.write(byte) }
            // Each rule's name; a custom rule's is "custom" (its field is the tie-break's).
            writer.write(configuration.rankingRules.map { if case .custom = $0 { "custom" } else { $0.name } })
        }
    }

    /// Loads an index saved by `save(to:)`, checking its folded data against a sample of its
    /// records (`load(from:verifying:)` with `SnapshotVerification.sampled`: every record of a
    /// snapshot of up to 16,384).
    ///
    /// - Throws: `SiftError.snapshot(path:reason:)`, naming what is wrong.
    /// - Complexity: O(*n*) in the size of the file, plus folding the sample again.
    public static func load(from path: String) throws(SiftError) -> SearchIndex {
        try load(from: path, verifying: .sampled)
    }

    /// Loads an index saved by `save(to:)`.
    ///
    /// Every way a file can be wrong is detected and reported, never trusted: not a snapshot, a
    /// snapshot with damaged first bytes (`SnapshotSignature`), truncated, corrupted (checksum, or
    /// any inconsistency in the data), another format version, a different ICU collation version
    /// (folded elements would not compare equal; rebuild the snapshot from the data), or stored
    /// collation settings that do not match the folded data (each folding's fingerprint, see
    /// `FoldingFingerprint`). The checksum and the fingerprints are integrity checks, not
    /// signatures: a file edited consistently (its checksum recomputed) passes them, so the folded
    /// data is checked against the records' texts as well, in full for its structure and by
    /// folding records again (`verification` says which; see `SnapshotVerification`). The records'
    /// texts are the truth: everything derived from them either is computed on load or must agree
    /// with them.
    ///
    /// - Parameters:
    ///   - path: The snapshot file.
    ///   - verification: which records are folded again: `.sampled` (what `load(from:)` does)
    ///     every record of a small snapshot and a sample of a large one, `.everyRecord` all of them.
    /// - Throws: `SiftError.snapshot(path:reason:)`, naming what disagrees.
    /// - Complexity: O(*n*) in the size of the file, plus folding the records `verification` picks.
    public static func load(
        from path: String,
        verifying verification: SnapshotVerification
    ) throws(SiftError) -> SearchIndex {
        // Read in order a window at a time: twice, once for the checksum, once to decode.
        let input = try SnapshotFileInput(path: path)
        func fail(_ reason: String) -> SiftError { .snapshot(path: path, reason: reason) }
        let start: ArraySlice<UInt8>
        do throws(SnapshotFormatError) {
            start = try input.peek(min(SnapshotFile.headerSize, input.size)) ?? []
        } catch {
            throw fail(error.what)
        }
        switch SnapshotSignature.classify(header: start, fileSize: input.size) {
        case .snapshot: break
        case .damagedSnapshot:
            throw fail(
                "looks like a damaged Sift index snapshot (its first bytes are not \"SIFTSNAP\"): "
                    + "rebuild it from the data"
            )
        case .other: throw fail("not a Sift index snapshot")
        }
        guard input.size >= SnapshotFile.headerSize else {
            throw fail("truncated: \(input.size) bytes, shorter than the \(SnapshotFile.headerSize)-byte header")
        }
        input.restart(at: 8, seed: 0)
        var header = SnapshotReader(input)
        var checksum: UInt64 = 0
        do throws(SnapshotFormatError) {
            let version = try header.read(UInt32.self, "version")
            guard version == SnapshotFile.version else {
                throw .init(
                    "format version \(version); this Sift reads version \(SnapshotFile.version)"
                        + (version < SnapshotFile.version ? ": rebuild the snapshot from the data" : "")
                )
            }
            guard try header.read(UInt32.self, "byte order") == SnapshotFile.byteOrderMark else {
                throw .init("written with another byte order")
            }
            let length = try header.read(UInt64.self, "length")
            checksum = try header.read(UInt64.self, "checksum")
            let actual = UInt64(input.size - SnapshotFile.headerSize)
            guard actual >= length else { throw .init("truncated: payload of \(actual) bytes, \(length) expected") }
            guard actual == length else {
                throw .init("corrupted: \(actual - length) unexpected bytes after the payload")
            }
            input.restart(at: SnapshotFile.headerSize, seed: SnapshotFile.checksumSeed)
            try input.readToEnd("payload")
            guard input.checksumOfRead == checksum else { throw .init("corrupted: checksum mismatch") }
        } catch {
            throw fail(error.what)
        }
        input.restart(at: SnapshotFile.headerSize, seed: SnapshotFile.checksumSeed)
        var reader = SnapshotReader(input)
        do throws(SnapshotFormatError) {
            let storedICU = try reader.readString("ICU version")
            var configuration = try decodeConfiguration(&reader)
            let keys = try reader.readStrings("metadata keys")
            let metadataValues = try reader.readStrings("metadata values")
            guard keys.count == metadataValues.count else { throw .init("metadata") }
            var fieldNames = try reader.readStrings("field names")
            // One list, not two, when they are the same (a header of a million columns).
            if fieldNames == configuration.searchFields { fieldNames = configuration.searchFields }
            let recordCount = try reader.read(UInt64.self, "record count")
            guard recordCount < UInt64(Int32.max) else { throw .init("record count") }
            let ids = try TextColumn(bytes: reader.readArray(UInt8.self, "text"), slotCount: Int(recordCount))
            // Without records every value column is empty, and an index keeps none for them; with
            // few records and many fields, the columns are pooled as they come (`PooledColumns`).
            var values = TextColumns(count: recordCount > 0 ? fieldNames.count : 0)
            for position in 0..<fieldNames.count {
                let column = try TextColumn(bytes: reader.readArray(UInt8.self, "text"), slotCount: Int(recordCount))
                if recordCount > 0 && !column.isUnused { values[position] = column }
            }
            // The foldings as stored; the index is opened once the sort options at the end are read.
            let foldingCount = try reader.read(UInt32.self, "collations")
            guard foldingCount <= UInt32(configuration.scopes.count + 1) else { throw .init("collations") }
            var stored:
                [(
                    collation: Collation, version: String, fingerprint: FoldingFingerprint, codeBook: CodeBook,
                    columns: FoldedColumns
                )] = []
            // The first record holding each code, in any folding: folded again whatever the sample.
            var firstUses: [Int32] = []
            for _ in 0..<foldingCount {
                let collation = try decodeCollation(&reader)
                let version = try reader.readString("collator version")
                let fingerprint = FoldingFingerprint(text: try reader.readString("fingerprint"))
                let codeBook = try CodeBook(elementsInCodeOrder: reader.readArray(Int64.self, "code book"))
                let columnCount = try reader.read(UInt32.self, "columns")
                guard Int(columnCount) == configuration.searchFields.count else { throw .init("columns") }
                var columns = FoldedColumns(count: configuration.searchFields.count)
                var firstUse = [Int32](repeating: Int32.max, count: codeBook.count + 1)
                for (position, field) in configuration.searchFields.enumerated() {
                    let storage = FoldedColumn.Storage(
                        codes: try reader.readArray(UInt8.self, "codes"),
                        wordStarts: try reader.readArray(UInt64.self, "word starts"),
                        segmentStarts: try reader.readArray(UInt32.self, "segment starts"),
                        segmentOwners: try reader.readArray(Int32.self, "segment owners"),
                        segmentFlags: try reader.readArray(UInt32.self, "segment flags"),
                        flags: try reader.readArray(UInt8.self, "flags")
                    )
                    let column: FoldedColumn
                    do throws(SnapshotFormatError) {
                        column = try FoldedColumn(storage: storage, slotCount: Int(recordCount))
                        // An unused column is dropped here, before the next is read (a header of a
                        // million fields and no records holds no million columns at once), and the
                        // columns of a wide index of a few records are pooled as they come.
                        if !column.isUnused { columns[position] = column }
                        try storage.checkSaved(
                            recordCount: Int(recordCount),
                            codeCount: codeBook.count,
                            firstUses: &firstUse
                        )
                    } catch {
                        throw .init("the folded \(field) under collation \(collation.locale): \(error.what)")
                    }
                }
                firstUses.append(contentsOf: firstUse.lazy.filter { $0 != Int32.max })
                stored.append((collation, version, fingerprint, codeBook, columns))
            }
            if !reader.isAtEnd { configuration.sortOptions = try decodeSortOptions(&reader) }
            if !reader.isAtEnd, try !reader.startsWith(SnapshotFile.rankingRulesTag) {
                configuration.rankingTieBreak = try decodeTieBreak(&reader)
            }
            if !reader.isAtEnd {
                configuration.rankingRules = try decodeRankingRules(&reader, tieBreak: configuration.rankingTieBreak)
            }
            guard reader.isAtEnd else { throw .init("unexpected data after the last column") }
            // What was decoded is what was checked (the file did not change in between).
            guard input.checksumOfRead == checksum else { throw .init("changed while it was read: checksum mismatch") }
            let index: SearchIndex
            do {
                index = try SearchIndex(configuration: configuration)
            } catch {
                throw .init("configuration cannot be opened: \(error)")
            }
            guard stored.count == index.folded.foldings.count else { throw .init("collations") }
            for (folding, stored) in zip(index.folded.foldings, stored) {
                guard stored.collation == folding.collation else { throw .init("collations") }
                let currentVersion = folding.folder.collator.version
                let otherICU = SnapshotFormatError(
                    "built with ICU \(storedICU) (collator \(stored.version)); this is ICU \(icuVersion) "
                        + "(collator \(currentVersion)): rebuild the snapshot from the data"
                )
                // Another ICU explains another collator version; with the same ICU, the settings
                // must be the data's (the fingerprint says which differ).
                guard stored.version == currentVersion || storedICU == icuVersion else { throw otherICU }
                let current: FoldingFingerprint
                do {
                    current = try FoldingFingerprint(of: folding)
                } catch {
                    throw .init("collation \(folding.collation) cannot fold: \(error)")
                }
                guard current == stored.fingerprint else {
                    throw .init(
                        "the stored settings of collation \(folding.collation) do not match its folded data ("
                            + current.differences(from: stored.fingerprint)
                            + "): the file was altered or damaged; rebuild the snapshot from the data"
                    )
                }
                guard stored.version == currentVersion else { throw otherICU }
                folding.codeBook = stored.codeBook
                folding.columns = stored.columns
            }
            try index.restore(fieldNames: fieldNames, ids: ids, values: values)
            try index.verifyFoldedColumns(
                records: recordsToVerify(count: Int(recordCount), firstUses: firstUses, verification: verification)
            )
            index.metadata = Dictionary(uniqueKeysWithValues: zip(keys, metadataValues))
            // The ranking keys now rather than on the first ranked keystroke; for pooled columns
            // (a wide index of few records, where they take a table per field) on first use.
            index.orders.rankingKeysStorage = nil
            if !index.folded.foldings.contains(where: \.columns.isPooled) { _ = index.rankingKeys }
            // Postings are not stored: built from the verified columns, they cannot disagree with them.
            index.buildMissingPostings()
            index.checkAfterMutation()
            return index
        } catch {
            throw fail("corrupted: \(error.what)")
        }
    }

    /// Fills a freshly configured index with records 0..<n in original order.
    private func restore(fieldNames: [String], ids: TextColumn, values: TextColumns) throws(SnapshotFormatError) {
        let table = FieldTable(fieldNames)
        guard fieldNames.count >= self.fieldNames.count,
            fieldNames.prefix(self.fieldNames.count).elementsEqual(self.fieldNames),
            table.hasUniqueNames
        else { throw .init("field names") }
        records.fieldPositions = table
        self.records.values = values
        self.records.ids = ids
        let count = ids.slotCount
        records.generations = SlotGenerations(count: count)
        records.live = Bitset.all(count)
        guard let table = IDTable.bulk(count: count, ids: ids) else { throw .init("duplicate id") }
        records.slotOfID = table
        orders.order = SlotSequence(0..<Int32(count))
        for folding in folded.foldings {
            for column in folding.columns
            where (0..<Int32(count)).contains(where: { column.segment(ofSlot: $0) == nil }) {
                throw .init("a record without a segment")
            }
        }
    }

    // MARK: - Configuration coding

    private static func encode(_ collation: Collation, into writer: inout SnapshotWriter) {
        writer.write(collation.locale)
        writer.write(collation.strength.rawValue)
        writer.write(collation.alternate.rawValue)
        writer.write(collation.normalization)
        writer.write(collation.caseLevel)
        writer.write(collation.rules)
    }

    /// The optional ranking tie-break after the sort options (see `SnapshotFile`).
    private static func decodeTieBreak(_ reader: inout SnapshotReader) throws(SnapshotFormatError) -> RankingTieBreak {
        for byte in SnapshotFile.tieBreakTag {
            guard try reader.read(UInt8.self, "ranking tie-break") == byte else {
                throw .init("unexpected data after the sort options")
            }
        }
        let field = try reader.readString("tie-break field")
        let numeric = try reader.readBool("tie-break numeric")
        let descending = try reader.readBool("tie-break descending")
        return RankingTieBreak(field: field, numeric: numeric, descending: descending)
    }

    /// The optional ranking rules after the tie-break (see `SnapshotFile`).
    private static func decodeRankingRules(
        _ reader: inout SnapshotReader,
        tieBreak: RankingTieBreak?
    ) throws(SnapshotFormatError) -> [RankingRule] {
        for byte in SnapshotFile.rankingRulesTag {
            guard try reader.read(UInt8.self, "ranking rules") == byte else {
                throw .init("unexpected data after the ranking tie-break")
            }
        }
        var rules: [RankingRule] = []
        for name in try reader.readStrings("ranking rules") {
            switch name {
            case "typo": rules.append(.typo)
            case "exactness": rules.append(.exactness)
            case "attribute": rules.append(.attribute)
            case "length": rules.append(.length)
            case "custom":
                guard let tieBreak else { throw .init("a custom ranking rule without its field") }
                rules.append(.custom(tieBreak))
            default: throw .init("unknown ranking rule '\(name)'")
            }
        }
        return rules
    }

    /// The optional sort options at the end of the payload (see `SnapshotFile`).
    private static func decodeSortOptions(_ reader: inout SnapshotReader) throws(SnapshotFormatError) -> SortOptions {
        for byte in SnapshotFile.sortOptionsTag {
            guard try reader.read(UInt8.self, "sort options") == byte else {
                throw .init("unexpected data after the last column")
            }
        }
        var options = SortOptions()
        options.numeric = try reader.readBool("sort numeric")
        guard let alternate = Collation.Alternate(rawValue: try reader.readString("sort alternate")) else {
            throw .init("sort options")
        }
        options.alternate = alternate
        return options
    }

    private static func decodeCollation(_ reader: inout SnapshotReader) throws(SnapshotFormatError) -> Collation {
        let locale = try reader.readString("locale")
        guard let strength = Collation.Strength(rawValue: try reader.readString("strength")),
            let alternate = Collation.Alternate(rawValue: try reader.readString("alternate"))
        else { throw .init("collation") }
        return Collation(
            locale: locale,
            strength: strength,
            alternate: alternate,
            normalization: try reader.readBool("normalization"),
            caseLevel: try reader.readBool("case level"),
            rules: try reader.readOptionalString("rules")
        )
    }

    private static func encode(_ configuration: IndexConfiguration, into writer: inout SnapshotWriter) {
        writer.write(configuration.searchFields)
        encode(configuration.collation, into: &writer)
        writer.write(UInt32(configuration.scopes.count))
        for scope in configuration.scopes {
            writer.write(scope.name)
            writer.write(scope.fields != nil)
            if let fields = scope.fields { writer.write(fields) }
            writer.write(scope.filter != nil)
            if let filter = scope.filter {
                writer.write(filter.field)
                writer.write(filter.values.sorted())
            }
            writer.write(scope.collation != nil)
            if let collation = scope.collation { encode(collation, into: &writer) }
            writer.write(UInt32(clamping: scope.minimumLength))
        }
        writer.write(configuration.sortField)
        writer.write(UInt32(clamping: configuration.cacheCapacity))
    }

    private static func decodeConfiguration(
        _ reader: inout SnapshotReader
    ) throws(SnapshotFormatError)
        -> IndexConfiguration
    {
        let searchFields = try reader.readStrings("search fields")
        let collation = try decodeCollation(&reader)
        let scopeCount = try reader.read(UInt32.self, "scopes")
        guard scopeCount < 10_000 else { throw .init("scopes") }
        var scopes: [Scope] = []
        for _ in 0..<scopeCount {
            let name = try reader.readString("scope name")
            let fields = try reader.readBool("scope fields") ? try reader.readStrings("scope fields") : nil
            var filter: Scope.Filter? = nil
            if try reader.readBool("scope filter") {
                filter = Scope.Filter(
                    field: try reader.readString("filter field"),
                    values: Set(try reader.readStrings("filter values"))
                )
            }
            let scopeCollation = try reader.readBool("scope collation") ? try decodeCollation(&reader) : nil
            let minimumLength = Int(try reader.read(UInt32.self, "minimum length"))
            scopes.append(
                Scope(
                    name: name,
                    fields: fields,
                    filter: filter,
                    collation: scopeCollation,
                    minimumLength: minimumLength
                )
            )
        }
        let sortField = try reader.readOptionalString("sort field")
        let cacheCapacity = Int(try reader.read(UInt32.self, "cache capacity"))
        return IndexConfiguration(
            searchFields: searchFields,
            collation: collation,
            scopes: scopes,
            sortField: sortField,
            cacheCapacity: cacheCapacity
        )
    }
}
