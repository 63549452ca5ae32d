public import Sift
internal import SiftStorage

/// A data file read and parsed, on every core: its columns, and its rows' values kept where the
/// file's bytes hold them until they are read. The fast road from a file to records.
///
/// ```swift
/// let file = try DataFile(path: "cities.tsv")
/// let fields = file.defaultSearchFields                          // the text columns
/// let records = try file.records(idField: "geonameid", fields: fields)
/// let index = try SearchIndex(configuration: IndexConfiguration(searchFields: fields), records: records)
/// ```
///
/// It reads as ``DataLoader`` does, with the same rules and the same errors (the first problem
/// in the file, naming its line and field), and answers what a ``DataTable`` answers
/// (``columns``, ``textColumns``, ``defaultSearchFields``, ``records(idField:fields:categories:progress:)``)
/// without making a `String` per value first: TSV and CSV rows are parsed in chunks on every
/// core, and records are made on every core too. ``table`` makes the ``DataTable``.
public struct DataFile: Sendable {
    /// The file path as it was given (used in error messages).
    public let source: String
    /// The format the file was read as.
    public let format: DataFormat
    /// The column names: the header row for TSV/CSV, or every key in first-seen order for JSON Lines.
    public let columns: [String]
    /// The number of data rows.
    public let rowCount: Int
    private let storage: Storage
    /// Each column name's index (the first, should a table given repeat a name), so that finding
    /// every one of a million columns stays linear.
    private let columnPositions: NamePositions

    private enum Storage: Sendable {
        /// TSV/CSV: the file's bytes and the chunks of rows parsed from them.
        case delimited(bytes: [UInt8], chunks: [DelimitedChunk])
        /// Rows made already (JSON Lines, or a table given).
        case rows([DataRow])
    }

    /// Reads the file at `path` and parses it.
    ///
    /// - Parameters:
    ///   - path: The file to read; it is also the ``source`` used in messages.
    ///   - format: The format to read; `nil` detects it from the extension (``DataFormat/detect(path:)``).
    ///   - progress: Called, from any thread, as the file is read and parsed.
    /// - Throws: ``DataFileError``, as ``DataLoader/load(path:format:)`` does.
    /// - Complexity: O(*n*) in the size of the file, divided among the cores for TSV and CSV.
    public init(
        path: String,
        format: DataFormat? = nil,
        progress: (@Sendable (DataLoadProgress) -> Void)? = nil
    ) throws(DataFileError) {
        guard let format = format ?? DataFormat.detect(path: path) else {
            let ext = DataFormat.fileExtension(of: path).map { "'.\($0)'" } ?? "none"
            throw DataFileError(
                file: path,
                message: "cannot tell the data format from the file extension (\(ext)); "
                    + "use .tsv, .tab, .csv, .jsonl or .ndjson"
            )
        }
        // Parsing takes about as much again as the bytes (where each value is); see `init(bytes:)`.
        let reading: (Int, Int) -> Void = { read, total in
            progress?(DataLoadProgress(phase: .reading, completed: read, total: total))
        }
        let bytes = try DataLoader.readFile(path, format: format, loadFactor: 3, progress: reading)
        try self.init(bytes: bytes, source: path, format: format, progress: progress)
    }

    /// Parses the contents of a data file.
    ///
    /// - Parameters:
    ///   - bytes: The raw file contents (UTF-8, optionally starting with a byte order mark).
    ///   - source: The name to report in errors and to store in ``source``.
    ///   - format: How to read the bytes.
    ///   - progress: Called, from any thread, as the bytes are parsed.
    /// - Throws: ``DataFileError`` for the first problem in the file, in file order.
    /// - Complexity: O(*n*) in the number of bytes, divided among the cores for TSV and CSV.
    public init(
        bytes: [UInt8],
        source: String,
        format: DataFormat,
        progress: (@Sendable (DataLoadProgress) -> Void)? = nil
    ) throws(DataFileError) {
        try self.init(bytes: bytes, source: source, format: format, chunkBytes: 1 << 20, progress: progress)
    }

    /// Parses with chunks of about `chunkBytes` (tests make them tiny, to put boundaries everywhere).
    init(
        bytes: [UInt8],
        source: String,
        format: DataFormat,
        chunkBytes: Int,
        progress: (@Sendable (DataLoadProgress) -> Void)? = nil
    ) throws(DataFileError) {
        self.source = source
        self.format = format
        guard let delimiter = format.delimiter else {
            // Each line is decoded into Foundation's objects, then into a row of strings: about
            // four times the line, at most, while both exist (measured: 4.3 times a 54 MB file at
            // the peak of a whole `sift query`).
            let need = 4 * bytes.count
            let budget = MemoryBudget.current()
            guard need <= budget.available else {
                throw DataFileError(file: source, message: budget.refusal(need, for: "parsing the file"))
            }
            let table = try bytes.withUnsafeBufferPointer { (buffer) throws(DataFileError) -> DataTable in
                var parser = JSONLinesParser(bytes: buffer, source: source)
                return try parser.parse()
            }
            progress?(DataLoadProgress(phase: .parsing, completed: bytes.count, total: bytes.count))
            columns = table.columns
            columnPositions = Self.positions(of: columns)
            rowCount = table.rows.count
            storage = .rows(table.rows)
            return
        }
        let total = bytes.count
        let need = Self.parsingMemory(bytes, delimiter: delimiter)
        let budget = MemoryBudget.current()
        guard need <= budget.available else {
            throw DataFileError(file: source, message: budget.refusal(need, for: "parsing the file"))
        }
        let (columns, chunks) = try bytes.withUnsafeBufferPointer {
            (buffer) throws(DataFileError) -> ([String], [DelimitedChunk]) in
            var parser = DelimitedParser(bytes: buffer, source: source, delimiter: delimiter)
            parser.chunkBytes = max(1, chunkBytes)
            if let progress {
                parser.progress = { progress(DataLoadProgress(phase: .parsing, completed: $0, total: total)) }
            }
            return try parser.parse()
        }
        self.columns = columns
        columnPositions = Self.positions(of: columns)
        // Chunks without rows are left out.
        let kept = chunks.filter { $0.rowCount > 0 }
        rowCount = kept.last.map { $0.firstRow + $0.rowCount } ?? 0
        storage = .delimited(bytes: bytes, chunks: kept)
    }

    /// What parsing TSV or CSV bytes allocates, at most: where each value is (16 bytes a value,
    /// and a value ends at a delimiter or a line break) and where each row starts (8 bytes a
    /// line), counted on every core before anything is allocated.
    ///
    /// - Complexity: O(*n*) in the number of bytes, divided among the cores.
    static func parsingMemory(_ bytes: [UInt8], delimiter: UInt8) -> Int {
        let stretch = 1 << 24
        let stretches = (bytes.count + stretch - 1) / stretch
        var counts = [(ends: Int, lines: Int)](repeating: (0, 0), count: stretches)
        bytes.withUnsafeBufferPointer { bytes in
            counts.withUnsafeMutableBufferPointer { counts in
                let (input, output) = (UnsafeSendable(bytes), UnsafeSendable(counts))
                parallelFor(stretches) { i in
                    var (ends, lines) = (0, 0)
                    for byte in input.value[(i * stretch)..<min(input.value.count, (i + 1) * stretch)] {
                        ends &+= byte == delimiter || byte == 0x0A || byte == 0x0D ? 1 : 0
                        lines &+= byte == 0x0A ? 1 : 0
                    }
                    output.value[i] = (ends, lines)
                }
            }
        }
        let (ends, lines) = counts.reduce((0, 0)) { ($0.0 + $1.ends, $0.1 + $1.lines) }
        return 16 * (ends + 1) + 8 * (lines + 1)
    }

    /// The file of a table's rows (for its records, made on every core).
    public init(_ table: DataTable) {
        source = table.source
        format = table.format
        columns = table.columns
        columnPositions = Self.positions(of: columns)
        rowCount = table.rows.count
        storage = .rows(table.rows)
    }

    private static func positions(of columns: [String]) -> NamePositions { NamePositions(columns) }

    // MARK: - Rows and values

    /// The 1-based line of the file on which data row `row` (0-based) starts.
    ///
    /// - Precondition: `row` is in `0..<rowCount`.
    /// - Complexity: O(log *k*) for *k* chunks.
    public func line(ofRow row: Int) -> Int {
        switch storage {
        case .rows(let rows): return rows[row].line
        case .delimited(_, let chunks):
            let chunk = chunks[chunkIndex(ofRow: row, in: chunks)]
            return chunk.firstLine + chunk.rowLines[row - chunk.firstRow]
        }
    }

    /// The value of data row `row` (0-based) in `column`.
    ///
    /// - Precondition: `row` is in `0..<rowCount` and `column` in `columns.indices`.
    /// - Complexity: O(log *k*) for *k* chunks, plus the value's length.
    public func value(ofRow row: Int, column: Int) -> String {
        switch storage {
        case .rows(let rows): return rows[row].values[column]
        case .delimited(let bytes, let chunks):
            let chunk = chunks[chunkIndex(ofRow: row, in: chunks)]
            let cell = chunk.cells[(row - chunk.firstRow) * columns.count + column]
            return bytes.withUnsafeBufferPointer { cellString(cell, bytes: $0, unescaped: chunk.unescaped) }
        }
    }

    /// The index of the column called `named`, or `nil` if there is none.
    ///
    /// Names are compared with `String` equality (exact up to Unicode canonical equivalence), as
    /// ``DataTable/column(named:)`` compares them.
    ///
    /// - Complexity: O(1) expected.
    public func column(named: String) -> Int? {
        columnPositions.position(of: named, in: columns)
    }

    /// The table: every row's values as strings.
    ///
    /// - Complexity: O(*n*) in the size of the file, divided among the cores.
    public var table: DataTable {
        if case .rows(let rows) = storage {
            return DataTable(source: source, format: format, columns: columns, rows: rows)
        }
        let columnCount = columns.count
        // Never `unsafeUninitializedCapacity: 0`: it writes the count into the empty array
        // singleton that every thread reads (a data race ThreadSanitizer reports).
        guard rowCount > 0 else { return DataTable(source: source, format: format, columns: columns, rows: []) }
        let rows = withPieces { pieces in
            [DataRow](unsafeUninitializedCapacity: rowCount) { buffer, initialized in
                let rows = UnsafeSendable(buffer)
                parallelFor(pieces.count) { p in
                    let piece = pieces[p]
                    for row in piece.rows {
                        let values = (0..<columnCount).map { piece.string(row: row, column: $0) }
                        (rows.value.baseAddress! + row).initialize(
                            to: DataRow(line: piece.line(ofRow: row), number: row + 1, values: values)
                        )
                    }
                }
                initialized = rowCount
            }
        }
        return DataTable(source: source, format: format, columns: columns, rows: rows)
    }

    /// The columns whose non-empty values are not all numbers, as ``DataTable/textColumns``.
    ///
    /// - Complexity: O(*n*) in the size of the file at worst (a column of numbers is read whole),
    ///   divided among the cores.
    public var textColumns: [String] {
        let columnCount = columns.count
        var hasText = [Bool](repeating: false, count: columnCount)
        withPieces { pieces in
            var found = [[Bool]](repeating: [], count: pieces.count)
            found.withUnsafeMutableBufferPointer { found in
                let results = UnsafeSendable(found)
                parallelFor(pieces.count) { p in
                    let piece = pieces[p]
                    results.value[p] = (0..<columnCount).map { column in
                        piece.rows.contains { row in piece.isText(row: row, column: column) }
                    }
                }
            }
            for flags in found {
                for (column, flag) in flags.enumerated() where flag { hasText[column] = true }
            }
        }
        // Every column (a wide header's usual case): the names themselves, not a copy of them.
        if !hasText.contains(false) { return columns }
        return columns.indices.filter { hasText[$0] }.map { columns[$0] }
    }

    /// The columns to search when none are named, as ``DataTable/defaultSearchFields``: the text
    /// columns, or every column when none holds text.
    ///
    /// - Complexity: as ``textColumns``.
    public var defaultSearchFields: [String] {
        let text = textColumns
        return text.isEmpty ? columns : text
    }

    /// The columns among `names` that look like categories rather than text to search: at
    /// least 100 data rows, at most `maximumValues` distinct non-empty values, and each value
    /// used 20 times on average or more (a `continent` or `section` column, not a `name`), with
    /// their distinct values in ascending order of their Unicode scalars.
    ///
    /// `sift` leaves such columns out of the fields it searches when none are named, and offers
    /// their values as scopes.
    ///
    /// - Complexity: O(*n*) in the size of the columns, divided among the cores; a column stops
    ///   being read once it has more than `maximumValues` distinct values.
    public func categoryColumns(among names: [String], maximumValues: Int = 100) -> [(column: String, values: [String])]
    {
        guard rowCount >= 100 else { return [] }
        let limit = min(maximumValues, rowCount / 20)
        let positions = names.compactMap { column(named: $0) }
        guard limit > 0, !positions.isEmpty else { return [] }
        // Each piece's distinct values per column, nil once a piece alone has too many.
        let found: [[Set<String>?]] = withPieces { pieces in
            var found = [[Set<String>?]](repeating: [], count: pieces.count)
            found.withUnsafeMutableBufferPointer { found in
                let results = UnsafeSendable(found)
                parallelFor(pieces.count) { p in
                    let piece = pieces[p]
                    results.value[p] = positions.map { column in
                        var values = Set<String>()
                        for row in piece.rows where !piece.isEmpty(row: row, column: column) {
                            values.insert(piece.string(row: row, column: column))
                            if values.count > limit { return nil }
                        }
                        return values
                    }
                }
            }
            return found
        }
        var categories: [(column: String, values: [String])] = []
        for (i, position) in positions.enumerated() {
            var values = Set<String>()
            var isCategory = true
            for piece in found {
                guard let pieceValues = piece[i] else {
                    isCategory = false
                    break
                }
                values.formUnion(pieceValues)
                if values.count > limit {
                    isCategory = false
                    break
                }
            }
            if isCategory && !values.isEmpty {
                categories.append(
                    (
                        columns[position],
                        values.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
                    )
                )
            }
        }
        return categories
    }

    // MARK: - Records

    /// The records of the rows, as ``DataTable/records(idField:fields:categories:)`` makes them
    /// (record *i* from data row *i*; only non-empty values; ids from `idField`, else the data row
    /// number), with the same errors, made on every core.
    ///
    /// - Parameters:
    ///   - idField: the column holding record ids; `nil` numbers the records by data row.
    ///   - fields: the columns to keep; `nil` keeps every column.
    ///   - categories: more columns to keep (scope filters, sorting).
    ///   - progress: Called, from any thread, with the number of records made so far.
    /// - Throws: ``DataFileError`` naming the file for an unknown column, and the file, line and
    ///   id column for an empty or duplicate id (the first in file order; ids with the same Unicode
    ///   scalars are duplicates, NFC and NFD forms are not).
    /// - Complexity: O(*n*) in the size of the values kept, divided among the cores; O(*r*)
    ///   hash-table inserts for *r* rows to check the ids when there is an id column.
    public func records(
        idField: String? = nil,
        fields: [String]? = nil,
        categories: [String] = [],
        progress: (@Sendable (DataLoadProgress) -> Void)? = nil
    ) throws(DataFileError) -> [Record] {
        let maker = try recordMaker(idField: idField, fields: fields, categories: categories, progress: progress)
        return withPieces { pieces in maker.records(0..<rowCount, pieces: pieces) }
    }

    /// The records of ``records(idField:fields:categories:progress:)``, made and handed to `body`
    /// a batch of at most `batchSize` rows at a time, in file order: a caller that indexes each
    /// batch as it comes never holds more than one batch of records. The ids are all checked
    /// first, so that a duplicate is reported, naming its line, before any batch.
    ///
    /// - Parameters:
    ///   - idField: the column holding record ids; `nil` numbers the records by data row.
    ///   - fields: the columns to keep; `nil` keeps every column.
    ///   - categories: more columns to keep (scope filters, sorting).
    ///   - batchSize: The most records a batch holds.
    ///   - progress: Called, from any thread, with the number of records made so far.
    ///   - body: Called with each batch; what it throws ends the loop and is thrown on.
    /// - Throws: ``DataFileError`` as ``records(idField:fields:categories:progress:)`` throws it,
    ///   before any batch; what `body` throws.
    /// - Complexity: O(*n*) in the size of the values kept, divided among the cores.
    public func forEachBatchOfRecords(
        idField: String? = nil,
        fields: [String]? = nil,
        categories: [String] = [],
        batchSize: Int,
        progress: (@Sendable (DataLoadProgress) -> Void)? = nil,
        _ body: ([Record]) throws -> Void
    ) throws {
        // A copy shares the file's buffers, so consuming it frees nothing of this one's.
        let file = self
        try file.consumeBatchesOfRecords(
            idField: idField,
            fields: fields,
            categories: categories,
            batchSize: batchSize,
            progress: progress,
            body
        )
    }

    /// ``forEachBatchOfRecords(idField:fields:categories:batchSize:progress:_:)`` for a caller
    /// that has no more use for the file: where each value of a row is (16 bytes a value, about
    /// twice a file of short fields) is freed as soon as the row's record is made, so that a load
    /// that indexes each batch holds the file's bytes, what is left of its values' places and
    /// the index, never all of the places and all of the index at once. (Only what no other
    /// copy of this `DataFile` shares is freed.)
    ///
    /// - Parameters: As ``forEachBatchOfRecords(idField:fields:categories:batchSize:progress:_:)``.
    /// - Throws: As ``forEachBatchOfRecords(idField:fields:categories:batchSize:progress:_:)``.
    /// - Complexity: O(*n*) in the size of the values kept, divided among the cores.
    public consuming func consumeBatchesOfRecords(
        idField: String? = nil,
        fields: [String]? = nil,
        categories: [String] = [],
        batchSize: Int,
        progress: (@Sendable (DataLoadProgress) -> Void)? = nil,
        _ body: ([Record]) throws -> Void
    ) throws {
        let maker = try recordMaker(idField: idField, fields: fields, categories: categories, progress: progress)
        let (rowCount, columnCount) = (self.rowCount, columns.count)
        let size = max(1, batchSize)
        guard case .delimited(var bytes, var chunks) = storage else {
            // Rows made already (JSON Lines, a table): nothing to free as records are made.
            try withPieces { pieces in
                for start in stride(from: 0, to: rowCount, by: size) {
                    try body(maker.records(start..<min(rowCount, start + size), pieces: pieces))
                }
            }
            return
        }
        _ = consume self
        var firstChunk = 0
        for start in stride(from: 0, to: rowCount, by: size) {
            let batch = start..<min(rowCount, start + size)
            let records = bytes.withUnsafeBufferPointer { buffer in
                var pieces: [Piece] = []
                for chunk in chunks[firstChunk...] {
                    let rows = chunk.firstRow..<(chunk.firstRow + chunk.rowCount)
                    guard rows.lowerBound < batch.upperBound else { break }
                    pieces.append(Piece(rows: rows, columnCount: columnCount, bytes: buffer, chunk: chunk))
                }
                return maker.records(batch, pieces: pieces)
            }
            // The chunks whose rows are all made: their places are no longer needed.
            while firstChunk < chunks.count,
                chunks[firstChunk].firstRow + chunks[firstChunk].rowCount <= batch.upperBound
            {
                chunks[firstChunk] = DelimitedChunk(start: 0, limit: 0)
                firstChunk += 1
            }
            // Every record made: the file's bytes are not needed while the last batch is indexed.
            if batch.upperBound == rowCount { bytes = [] }
            try body(records)
        }
    }

    /// What making records needs: the kept columns and the checked ids.
    private func recordMaker(
        idField: String?,
        fields: [String]?,
        categories: [String],
        progress: (@Sendable (DataLoadProgress) -> Void)?
    ) throws(DataFileError) -> RecordMaker {
        let idColumn = try idField.map { name throws(DataFileError) in try requireColumn(name, role: "id field") }
        // Every column, in order, by default: the names are shared, not copied (a million columns).
        var names = columns
        var keptColumns: [Int] = []  // none: every column, in order
        if let fields {
            (names, keptColumns) = ([], [])
            var seen = Set<String>()
            let fieldCount = fields.count
            for (i, name) in (fields + categories).enumerated() where seen.insert(name).inserted {
                // A name seen first among the categories is not among the fields.
                keptColumns.append(try requireColumn(name, role: i < fieldCount ? "field" : "category field"))
                names.append(name)
            }
        } else {
            for name in categories { _ = try requireColumn(name, role: "category field") }
        }
        let total = rowCount
        var report: (@Sendable (Int) -> Void)? = nil
        if let progress { report = { progress(DataLoadProgress(phase: .records, completed: $0, total: total)) } }
        var ids: [String] = []
        if idColumn != nil || !isDelimited {
            // A table's own row numbers are checked too (a file's are 1, 2, 3, ...).
            ids = try withPieces { (pieces) throws(DataFileError) in try checkedIDs(column: idColumn, pieces: pieces) }
        }
        return RecordMaker(
            names: names,
            columns: keptColumns,
            ids: ids,
            made: ProgressCounter(report: report)
        )
    }

    /// Makes the records of rows on every core.
    private struct RecordMaker {
        let names: [String]
        /// The column of each name; empty when the names are every column, in order (no array
        /// of a million positions for a wide file).
        let columns: [Int]
        /// Every row's id; empty: the data row numbers.
        let ids: [String]
        let made: ProgressCounter

        func records(_ rows: Range<Int>, pieces: [Piece]) -> [Record] {
            guard !rows.isEmpty else { return [] }  // see `table`: no empty unsafeUninitializedCapacity
            let first = rows.lowerBound
            return [Record](unsafeUninitializedCapacity: rows.count) { buffer, initialized in
                let records = UnsafeSendable(buffer)
                let overlapping = pieces.filter { $0.rows.overlaps(rows) }
                parallelFor(overlapping.count) { p in
                    let piece = overlapping[p]
                    let pieceRows = piece.rows.clamped(to: rows)
                    for row in pieceRows {
                        var values = [String: String](minimumCapacity: names.count)
                        for (i, name) in names.enumerated() {
                            let column = columns.isEmpty ? i : columns[i]
                            if !piece.isEmpty(row: row, column: column) {
                                values[name] = piece.string(row: row, column: column)
                            }
                        }
                        let id = ids.isEmpty ? String(row + 1) : ids[row]
                        (records.value.baseAddress! + (row - first)).initialize(to: Record(id: id, fields: values))
                    }
                    made.add(pieceRows.count)
                }
                initialized = rows.count
            }
        }
    }

    /// The ids of every row (from `column`, else the data row numbers), read on every core,
    /// checked in file order: the first empty id or the first repeated one, whichever comes
    /// first, is an error.
    private func checkedIDs(column: Int?, pieces: [Piece]) throws(DataFileError) -> [String] {
        var ids = [String](repeating: "", count: rowCount)
        var firstEmpty = [Int?](repeating: nil, count: pieces.count)
        ids.withUnsafeMutableBufferPointer { ids in
            firstEmpty.withUnsafeMutableBufferPointer { firstEmpty in
                let (idBuffer, emptyBuffer) = (UnsafeSendable(ids), UnsafeSendable(firstEmpty))
                parallelFor(pieces.count) { p in
                    let piece = pieces[p]
                    for row in piece.rows {
                        let id = column.map { piece.string(row: row, column: $0) } ?? String(piece.number(ofRow: row))
                        if id.isEmpty && emptyBuffer.value[p] == nil { emptyBuffer.value[p] = row }
                        idBuffer.value[row] = id
                    }
                }
            }
        }
        let empty = firstEmpty.compactMap { $0 }.min()
        // Ids are the same only with the same Unicode scalars, as a SearchIndex compares them:
        // "é" (NFC) and "e\u{301}" (NFD) are two ids (String equality would call them one).
        var rowOfID: [RecordID: Int] = [:]
        rowOfID.reserveCapacity(empty ?? rowCount)
        for row in 0..<(empty ?? rowCount) {
            if let first = rowOfID.updateValue(row, forKey: RecordID(ids[row])) {
                throw DataFileError(
                    file: source,
                    line: line(ofRow: row),
                    field: column.map { columns[$0] } ?? "id",
                    message: "duplicate id '\(ids[row])' (first on line \(line(ofRow: first)))"
                )
            }
        }
        if let empty {
            throw DataFileError(
                file: source,
                line: line(ofRow: empty),
                field: column.map { columns[$0] },
                message: "empty id"
            )
        }
        return ids
    }

    private var isDelimited: Bool {
        if case .delimited = storage { return true }
        return false
    }

    private func requireColumn(_ name: String, role: String) throws(DataFileError) -> Int {
        guard let column = column(named: name) else {
            throw DataFileError(
                file: source,
                message: "unknown \(role) '\(shownName(name))' (columns: \(shownNames(columns)))"
            )
        }
        return column
    }

    // MARK: - Pieces

    /// A run of rows read by one worker: a chunk of a TSV/CSV file, or a run of made rows.
    private struct Piece {
        /// The data rows (0-based, across the file).
        let rows: Range<Int>
        let columnCount: Int
        /// TSV/CSV: the file, and the chunk's values, lines and unescaped bytes.
        let bytes: UnsafeBufferPointer<UInt8>
        let cells: [CellRange]
        let rowLines: [Int]
        let firstLine: Int
        let unescaped: [UInt8]
        /// Otherwise: the rows (all of them).
        let madeRows: [DataRow]?

        init(rows: Range<Int>, columnCount: Int, bytes: UnsafeBufferPointer<UInt8>, chunk: DelimitedChunk) {
            self.rows = rows
            self.columnCount = columnCount
            self.bytes = bytes
            cells = chunk.cells
            rowLines = chunk.rowLines
            firstLine = chunk.firstLine
            unescaped = chunk.unescaped
            madeRows = nil
        }

        init(rows: Range<Int>, columnCount: Int, madeRows: [DataRow]) {
            self.rows = rows
            self.columnCount = columnCount
            bytes = UnsafeBufferPointer(start: nil, count: 0)
            cells = []
            rowLines = []
            firstLine = 0
            unescaped = []
            self.madeRows = madeRows
        }

        @inline(__always)
        private func cell(_ row: Int, _ column: Int) -> CellRange {
            cells[(row - rows.lowerBound) * columnCount + column]
        }

        func number(ofRow row: Int) -> Int { madeRows?[row].number ?? row + 1 }

        func line(ofRow row: Int) -> Int {
            if let madeRows { return madeRows[row].line }
            return firstLine + rowLines[row - rows.lowerBound]
        }

        func string(row: Int, column: Int) -> String {
            if let madeRows { return madeRows[row].values[column] }
            return cellString(cell(row, column), bytes: bytes, unescaped: unescaped)
        }

        func isEmpty(row: Int, column: Int) -> Bool {
            if let madeRows { return madeRows[row].values[column].isEmpty }
            let cell = cell(row, column)
            return cell.start == cell.end
        }

        /// Whether the value is not empty and not a number (see ``DataTable/textColumns``).
        func isText(row: Int, column: Int) -> Bool {
            if let madeRows {
                let value = madeRows[row].values[column]
                return !value.isEmpty && !isNumberText(value)
            }
            let cell = cell(row, column)
            guard cell.start != cell.end else { return false }
            if cell.start >= 0 { return !isNumberBytes(UnsafeBufferPointer(rebasing: bytes[cell.start..<cell.end])) }
            return unescaped.withUnsafeBufferPointer { unescaped in
                !isNumberBytes(UnsafeBufferPointer(rebasing: unescaped[(~cell.start)..<(~cell.end)]))
            }
        }
    }

    /// Calls `body` with the pieces of the rows (for workers), the file's bytes held meanwhile.
    private func withPieces<R, E: Error>(_ body: ([Piece]) throws(E) -> R) throws(E) -> R {
        let columnCount = columns.count
        switch storage {
        case .rows(let rows):
            let size = max(1024, (rows.count + 4 * workerCount - 1) / (4 * workerCount))
            let pieces = stride(from: 0, to: rows.count, by: size).map { start in
                Piece(rows: start..<min(rows.count, start + size), columnCount: columnCount, madeRows: rows)
            }
            return try body(pieces)
        case .delimited(let bytes, let chunks):
            return try bytes.withUnsafeBufferPointer { (buffer) throws(E) -> R in
                let pieces = chunks.map { chunk in
                    Piece(
                        rows: chunk.firstRow..<(chunk.firstRow + chunk.rowCount),
                        columnCount: columnCount,
                        bytes: buffer,
                        chunk: chunk
                    )
                }
                return try body(pieces)
            }
        }
    }

    private func chunkIndex(ofRow row: Int, in chunks: [DelimitedChunk]) -> Int {
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if chunks[middle].firstRow <= row { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

/// How far a ``DataFile`` has got: bytes read or parsed, or records made.
public struct DataLoadProgress: Sendable, Equatable {
    /// What is being done.
    public enum Phase: Sendable, Hashable {
        /// Reading the file (bytes).
        case reading
        /// Parsing it (bytes).
        case parsing
        /// Making records (rows).
        case records
    }

    /// What is being done.
    public var phase: Phase
    /// How much is done: bytes, or records.
    public var completed: Int
    /// How much there is to do.
    public var total: Int

    /// A progress report.
    public init(phase: Phase, completed: Int, total: Int) {
        self.phase = phase
        self.completed = completed
        self.total = total
    }
}
