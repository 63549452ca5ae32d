internal import Sift
internal import SiftStorage

/// A problem found while scanning TSV/CSV bytes; converted to a ``DataFileError`` by the parser,
/// which knows the column names.
enum DelimitedScanIssue: Error {
    /// Bytes that are not UTF-8 at 1-based `byte` of the field's contents.
    case invalidUTF8(line: Int, fieldIndex: Int, byte: Int)
    /// A quoted field opened on `line` that is never closed.
    case unterminatedQuote(line: Int, fieldIndex: Int)
    /// Something other than a delimiter, line break or end of file after a closing quote.
    case textAfterClosingQuote(line: Int, fieldIndex: Int)
}

/// A value of a TSV/CSV file: its bytes in the file, or, for a quoted value with doubled quotes,
/// its unescaped bytes in its chunk's `unescaped` buffer.
struct CellRange: Sendable {
    /// The first byte in the file when ≥ 0; else `~start` is the first byte in `unescaped`.
    var start: Int
    /// One past the last byte, in the same buffer as `start` (`~end` in `unescaped`).
    var end: Int
}

/// The first problem in a chunk, at a line counted from the chunk's first byte (0-based).
enum DelimitedChunkIssue: Sendable {
    /// Bad UTF-8 or quoting (the row is not read).
    case scan(DelimitedScanIssue)
    /// A data row with the wrong number of fields, starting on `line`.
    case fieldCount(line: Int, count: Int)
    /// A blank line (the first of a run, on `line`) followed by a data row.
    case blankInside(line: Int)
}

/// The rows of one stretch of a TSV/CSV file, parsed on their own: those that start at or after
/// `start` and before `limit`.
///
/// A chunk is parsed as if a row started at `start`. That holds for the first chunk, and for a
/// later one exactly when the chunk before it ended there (`end`); otherwise (a quoted field with
/// a line break ran over the boundary) the stitch parses it again from where the previous chunk
/// really ended, so a chunk boundary never changes what is read.
struct DelimitedChunk: Sendable {
    enum FirstEvent: Sendable {
        /// Only blank rows (or none), and no problem.
        case none
        /// A non-blank row scanned without a problem (whatever its number of fields).
        case row
        /// A row whose scan failed.
        case scanIssue
    }

    /// Where the parse started.
    var start: Int
    /// Rows start before this.
    var limit: Int
    /// Where the last row read ended (the next row's start).
    var end: Int
    /// Line breaks between `start` and `end`.
    var lineBreaks = 0
    /// The line of each row read, counted from `start` (0-based).
    var rowLines: [Int] = []
    /// The values of the rows read, row after row (as many per row as the header has columns).
    var cells: [CellRange] = []
    /// The unescaped bytes of quoted values with doubled quotes.
    var unescaped: [UInt8] = []
    /// What comes first after any blank rows: what the stitch needs when a blank line before the
    /// chunk is still waiting for a row.
    var firstEvent = FirstEvent.none
    /// The first blank line of the blank rows at the end of the chunk (counted from `start`).
    var trailingBlankLine: Int?
    /// The chunk's first problem, as if no blank line came before it; the chunk stops there.
    var issue: DelimitedChunkIssue?

    // Set by the stitch.
    /// The 1-based line of the byte at `start`.
    var firstLine = 0
    /// The 0-based data row number of the chunk's first row.
    var firstRow = 0

    init(start: Int, limit: Int) {
        self.start = start
        self.limit = limit
        self.end = start
    }

    var rowCount: Int { rowLines.count }
}

/// Parses the rows of a TSV/CSV file, one chunk at a time: a single pass over the bytes that
/// validates UTF-8, follows the quoting rules, counts lines and records where each value is.
///
/// The rules are those of `DelimitedScanner` with CSV.swift's `CSVReader` (`ReferenceDelimitedParser`, now in the tests):
/// a field that starts with a quote is quoted, runs to a quote that is not doubled, and keeps
/// delimiters and line breaks as written; any other field runs to a delimiter or a line break
/// (LF, CRLF or a lone CR), and a quote inside it is a literal character.
struct DelimitedChunkParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let delimiter: UInt8
    /// The number of fields every data row must have.
    let columnCount: Int
    var chunk: DelimitedChunk
    /// The line of the byte being read, counted from the chunk's start.
    private var line = 0

    /// The line breaks read so far.
    var linesRead: Int { line }

    init(bytes: UnsafeBufferPointer<UInt8>, delimiter: UInt8, columnCount: Int, start: Int, limit: Int) {
        self.bytes = bytes
        self.delimiter = delimiter
        self.columnCount = columnCount
        chunk = DelimitedChunk(start: start, limit: limit)
    }

    /// Reads the rows that start before the chunk's limit, stopping at the first problem.
    mutating func parse() -> DelimitedChunk {
        var position = chunk.start
        var pendingBlankLine: Int? = nil
        var sawEvent = false
        let expectedCells = max(0, (chunk.limit - chunk.start) / 16)
        chunk.cells.reserveCapacity(min(expectedCells, 1 << 22))
        while position < chunk.limit {
            let rowLine = line
            let cellCount = chunk.cells.count
            let scanned: (end: Int, fieldCount: Int, isBlank: Bool)
            do {
                scanned = try scanRow(from: position)
            } catch {
                if !sawEvent { chunk.firstEvent = .scanIssue }
                chunk.issue = .scan(error)
                chunk.cells.removeSubrange(cellCount...)
                break
            }
            position = scanned.end
            if scanned.isBlank {
                chunk.cells.removeSubrange(cellCount...)
                if pendingBlankLine == nil { pendingBlankLine = rowLine }
                continue
            }
            if !sawEvent {
                sawEvent = true
                chunk.firstEvent = .row
            }
            if let blankLine = pendingBlankLine {
                chunk.issue = .blankInside(line: blankLine)
                chunk.cells.removeSubrange(cellCount...)
                break
            }
            guard scanned.fieldCount == columnCount else {
                chunk.issue = .fieldCount(line: rowLine, count: scanned.fieldCount)
                chunk.cells.removeSubrange(cellCount...)
                break
            }
            chunk.rowLines.append(rowLine)
        }
        chunk.end = position
        chunk.lineBreaks = line
        chunk.trailingBlankLine = chunk.issue == nil ? pendingBlankLine : nil
        return chunk
    }

    /// Scans one row from `start` (a row starts there), appending one cell per field, and moves
    /// past its line break.
    ///
    /// - Returns: where the next row starts, the number of fields, and whether the row is an
    ///   empty line.
    mutating func scanRow(from start: Int) throws(DelimitedScanIssue) -> (end: Int, fieldCount: Int, isBlank: Bool) {
        let end = bytes.count
        let isBlank = bytes[start] == ASCII.lf || bytes[start] == ASCII.cr
        let delimiter = self.delimiter
        var fieldIndex = 0
        var i = start

        fieldLoop: while true {
            if i < end && bytes[i] == ASCII.quote {
                // Quoted field: runs to a quote that is not doubled.
                let openingLine = line
                i += 1
                let contentStart = i
                var doubled = false
                while true {
                    guard i < end else { throw .unterminatedQuote(line: openingLine, fieldIndex: fieldIndex) }
                    let byte = bytes[i]
                    if byte == ASCII.quote {
                        if i + 1 < end && bytes[i + 1] == ASCII.quote {
                            doubled = true
                            i += 2
                            continue
                        }
                        appendQuoted(contentStart..<i, doubled: doubled)
                        i += 1
                        guard i < end else { break fieldLoop }
                        let next = bytes[i]
                        if next == delimiter {
                            i += 1
                            fieldIndex += 1
                            continue fieldLoop
                        }
                        if next == ASCII.lf || next == ASCII.cr {
                            i = skipLineBreak(at: i)
                            break fieldLoop
                        }
                        throw .textAfterClosingQuote(line: line, fieldIndex: fieldIndex)
                    } else if byte == ASCII.lf || byte == ASCII.cr {
                        i = skipLineBreak(at: i)
                    } else if byte < 0x80 {
                        i += 1
                    } else if let length = utf8SequenceLength(bytes, at: i, end: end) {
                        i += length
                    } else {
                        throw .invalidUTF8(line: line, fieldIndex: fieldIndex, byte: i - contentStart + 1)
                    }
                }
            } else {
                // Unquoted field: runs to a delimiter, a line break or the end of the input.
                let contentStart = i
                while true {
                    guard i < end else {
                        chunk.cells.append(CellRange(start: contentStart, end: i))
                        break fieldLoop
                    }
                    let byte = bytes[i]
                    if byte >= 0x80 {
                        guard let length = utf8SequenceLength(bytes, at: i, end: end) else {
                            throw .invalidUTF8(line: line, fieldIndex: fieldIndex, byte: i - contentStart + 1)
                        }
                        i += length
                    } else if byte > ASCII.cr && byte != delimiter {
                        i += 1
                    } else if byte == delimiter {
                        chunk.cells.append(CellRange(start: contentStart, end: i))
                        i += 1
                        fieldIndex += 1
                        continue fieldLoop
                    } else if byte == ASCII.lf || byte == ASCII.cr {
                        chunk.cells.append(CellRange(start: contentStart, end: i))
                        i = skipLineBreak(at: i)
                        break fieldLoop
                    } else {
                        i += 1
                    }
                }
            }
        }
        return (i, fieldIndex + 1, isBlank)
    }

    /// Records a quoted value: its bytes in place, or unescaped when it has doubled quotes.
    private mutating func appendQuoted(_ content: Range<Int>, doubled: Bool) {
        guard doubled else {
            chunk.cells.append(CellRange(start: content.lowerBound, end: content.upperBound))
            return
        }
        let first = chunk.unescaped.count
        var i = content.lowerBound
        while i < content.upperBound {
            let byte = bytes[i]
            chunk.unescaped.append(byte)
            i += byte == ASCII.quote ? 2 : 1
        }
        chunk.cells.append(CellRange(start: ~first, end: ~chunk.unescaped.count))
    }

    /// Counts the line break (LF, CRLF or a lone CR) at `index` and returns the index after it.
    @inline(__always)
    private mutating func skipLineBreak(at index: Int) -> Int {
        line += 1
        if bytes[index] == ASCII.cr && index + 1 < bytes.count && bytes[index + 1] == ASCII.lf {
            return index + 2
        }
        return index + 1
    }
}

/// Parses TSV/CSV: the header, then the data rows in chunks on every core (see
/// ``DelimitedChunk``), then a stitch in file order that checks the chunks' boundaries and
/// reports the first problem of the file, as a serial parse would.
struct DelimitedParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let source: String
    let delimiter: UInt8
    /// The nominal size of a chunk of data rows.
    var chunkBytes = 1 << 20
    /// Called from any thread with the number of bytes parsed so far.
    var progress: (@Sendable (Int) -> Void)? = nil

    /// The header names, once read.
    private var header: [String] = []

    init(bytes: UnsafeBufferPointer<UInt8>, source: String, delimiter: UInt8) {
        self.bytes = bytes
        self.source = source
        self.delimiter = delimiter
    }

    /// The header and the data rows' chunks, stitched: each chunk's `firstLine` and `firstRow`
    /// set, every chunk's rows valid.
    mutating func parse() throws(DataFileError) -> (columns: [String], chunks: [DelimitedChunk]) {
        let start = byteOrderMarkLength(bytes)
        guard bytes[start...].contains(where: { $0 != ASCII.lf && $0 != ASCII.cr }) else {
            throw DataFileError(file: source, message: "empty file (no header)")
        }

        // Header.
        var headerParser = DelimitedChunkParser(
            bytes: bytes,
            delimiter: delimiter,
            columnCount: 0,
            start: start,
            limit: start + 1
        )
        let scanned: (end: Int, fieldCount: Int, isBlank: Bool)
        do {
            scanned = try headerParser.scanRow(from: start)
        } catch {
            throw dataFileError(error, lineBase: 1, isHeader: true)
        }
        if scanned.isBlank {
            throw DataFileError(file: source, line: 1, message: "the header line is blank")
        }
        header = headerParser.chunk.cells.map { value($0, in: headerParser.chunk) }
        try checkHeader(line: 1)
        let dataStart = scanned.end
        let dataLine = 1 + headerParser.linesRead

        // Data rows: chunks on every core, then stitched in order.
        let bounds = chunkBounds(dataStart..<bytes.count)
        var chunks = [DelimitedChunk](repeating: DelimitedChunk(start: 0, limit: 0), count: bounds.count)
        let bytes = self.bytes
        let delimiter = self.delimiter
        let columnCount = header.count
        let progress = self.progress
        let parsed = ProgressCounter(report: progress, initial: dataStart)
        chunks.withUnsafeMutableBufferPointer { chunks in
            let results = UnsafeSendable(chunks)
            parallelFor(bounds.count) { k in
                var parser = DelimitedChunkParser(
                    bytes: bytes,
                    delimiter: delimiter,
                    columnCount: columnCount,
                    start: bounds[k].lowerBound,
                    limit: bounds[k].upperBound
                )
                results.value[k] = parser.parse()
                parsed.add(bounds[k].count)
            }
        }
        var expectedStart = dataStart
        var line = dataLine
        var row = 0
        var pendingBlankLine: Int? = nil
        for k in chunks.indices {
            if chunks[k].start != expectedStart {
                // The previous chunk's last row ran past this chunk's start: read it again from there.
                let limit = max(expectedStart, chunks[k].limit)
                var parser = DelimitedChunkParser(
                    bytes: bytes,
                    delimiter: delimiter,
                    columnCount: columnCount,
                    start: expectedStart,
                    limit: limit
                )
                chunks[k] = parser.parse()
            }
            chunks[k].firstLine = line
            chunks[k].firstRow = row
            let chunk = chunks[k]
            if let blankLine = pendingBlankLine {
                switch chunk.firstEvent {
                case .row: throw blankLineError(blankLine)
                case .scanIssue: break  // the issue below
                case .none: break  // only blank rows: still waiting
                }
            }
            if let issue = chunk.issue {
                switch issue {
                case .scan(let issue): throw dataFileError(issue, lineBase: line, isHeader: false)
                case .blankInside(let blankLine): throw blankLineError(line + blankLine)
                case .fieldCount(let rowLine, let count):
                    throw DataFileError(
                        file: source,
                        line: line + rowLine,
                        message: "row has \(counted(count, "field")), the header has \(header.count)"
                    )
                }
            }
            if pendingBlankLine == nil, let blankLine = chunk.trailingBlankLine { pendingBlankLine = line + blankLine }
            expectedStart = chunk.end
            line += chunk.lineBreaks
            row += chunk.rowCount
        }
        progress?(bytes.count)
        return (header, chunks)
    }

    /// The byte ranges of the data rows' chunks: about `chunkBytes` each, every one after the
    /// first starting right after a line feed.
    private func chunkBounds(_ data: Range<Int>) -> [Range<Int>] {
        guard !data.isEmpty else { return [data] }
        var bounds: [Range<Int>] = []
        var start = data.lowerBound
        while start < data.upperBound {
            var end = data.upperBound
            if data.upperBound - start > chunkBytes + chunkBytes / 2 {
                var i = start + chunkBytes
                while i < data.upperBound && bytes[i] != ASCII.lf { i += 1 }
                end = min(data.upperBound, i + 1)
            }
            bounds.append(start..<end)
            start = end
        }
        return bounds
    }

    /// The string of a cell (the file's bytes are valid UTF-8 where a cell was read).
    func value(_ cell: CellRange, in chunk: DelimitedChunk) -> String {
        cellString(cell, bytes: bytes, unescaped: chunk.unescaped)
    }

    private func blankLineError(_ line: Int) -> DataFileError {
        DataFileError(
            file: source,
            line: line,
            message: "blank line inside the data (only blank lines at the end of the file are ignored)"
        )
    }

    /// A scan issue as a ``DataFileError``, its line counted from `lineBase`.
    private func dataFileError(_ issue: DelimitedScanIssue, lineBase: Int, isHeader: Bool) -> DataFileError {
        func fieldName(_ index: Int) -> String? { !isHeader && index < header.count ? header[index] : nil }
        switch issue {
        case .invalidUTF8(let line, let fieldIndex, let byte):
            if isHeader {
                return DataFileError(
                    file: source,
                    line: lineBase + line,
                    message: "invalid UTF-8 at byte \(byte) of header field \(fieldIndex + 1)"
                )
            }
            if fieldIndex < header.count {
                return DataFileError(
                    file: source,
                    line: lineBase + line,
                    field: header[fieldIndex],
                    message: "invalid UTF-8 at byte \(byte) of the field"
                )
            }
            return DataFileError(
                file: source,
                line: lineBase + line,
                message: "invalid UTF-8 at byte \(byte) of field \(fieldIndex + 1) (the header has \(header.count))"
            )
        case .unterminatedQuote(let line, let fieldIndex):
            return DataFileError(
                file: source,
                line: lineBase + line,
                field: fieldName(fieldIndex),
                message: "quoted field is never closed (missing closing quote)"
            )
        case .textAfterClosingQuote(let line, let fieldIndex):
            return DataFileError(
                file: source,
                line: lineBase + line,
                field: fieldName(fieldIndex),
                message: "unexpected text after the closing quote (a quote inside a quoted field must be doubled)"
            )
        }
    }

    /// Rejects empty and duplicate header names.
    private func checkHeader(line: Int) throws(DataFileError) {
        let empty = header.indices.filter { header[$0].isEmpty }.map { String($0 + 1) }
        if !empty.isEmpty {
            throw DataFileError(
                file: source,
                line: line,
                message:
                    "empty column name in the header (column\(empty.count == 1 ? "" : "s") \(empty.joined(separator: ", ")))"
            )
        }
        // First positions in a compact table (a million columns); the full lists only for repeats.
        let firsts = NamePositions(header)
        guard header.indices.contains(where: { firsts.position(of: header[$0], in: header) != $0 }) else { return }
        var positions: [String: [Int]] = [:]
        var order: [String] = []
        for (index, name) in header.enumerated() {
            if positions[name] == nil { order.append(name) }
            positions[name, default: []].append(index + 1)
        }
        let duplicates = order.compactMap { name -> String? in
            guard let columns = positions[name], columns.count > 1 else { return nil }
            let list = columns.map(String.init)
            let where_ = list.dropLast().joined(separator: ", ") + " and " + (list.last ?? "")
            return "'\(name)' (columns \(where_))"
        }
        if !duplicates.isEmpty {
            throw DataFileError(
                file: source,
                line: line,
                message: "duplicate column name\(duplicates.count == 1 ? "" : "s") in the header: "
                    + duplicates.joined(separator: ", ")
            )
        }
    }
}

/// The string of a cell of a chunk: from the file's bytes, or from the chunk's unescaped bytes.
@inline(__always)
func cellString(_ cell: CellRange, bytes: UnsafeBufferPointer<UInt8>, unescaped: [UInt8]) -> String {
    if cell.start >= 0 {
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[cell.start..<cell.end]), as: UTF8.self)
    }
    return unescaped.withUnsafeBufferPointer { buffer in
        String(decoding: UnsafeBufferPointer(rebasing: buffer[(~cell.start)..<(~cell.end)]), as: UTF8.self)
    }
}
