import CSV

@testable import SiftDataset

/// Where one TSV/CSV row sits in the file, as found by ``DelimitedScanner``.
struct DelimitedRowInfo {
    /// The 1-based line on which the row starts.
    var line: Int
    /// The number of fields in the row (delimiters outside quotes + 1).
    var fieldCount: Int
    /// Whether the row is an empty line.
    var isBlank: Bool
}

/// A byte-level pre-scan of TSV/CSV text that follows the same quoting rules as `CSVReader`.
///
/// `CSVReader` cannot say on which line a row starts, does not check UTF-8 (it is given a
/// `String`), and silently accepts an unclosed quote or text after a closing quote (dropping a
/// character). This scan validates UTF-8, counts lines, records where each row starts and how many
/// fields it has, and rejects the quoting mistakes, so that the reader only ever sees input that it
/// parses faithfully. It does not build any values; that is the reader's job.
struct DelimitedScanner {
    /// The whole file.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The field delimiter (tab or comma).
    let delimiter: UInt8
    /// The index of the next byte to scan (the start of the next row).
    private(set) var position: Int
    /// The 1-based line of the byte at ``position``.
    private(set) var line = 1

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int, delimiter: UInt8) {
        self.bytes = bytes
        self.position = start
        self.delimiter = delimiter
    }

    /// Scans one row and moves past its line break; `nil` at the end of the input.
    mutating func nextRow() throws(DelimitedScanIssue) -> DelimitedRowInfo? {
        let end = bytes.count
        guard position < end else { return nil }
        let rowLine = line
        let isBlank = bytes[position] == ASCII.lf || bytes[position] == ASCII.cr
        var fieldIndex = 0
        var i = position
        defer { position = i }

        fieldLoop: while true {
            if i < end && bytes[i] == ASCII.quote {
                // Quoted field: runs to a quote that is not doubled.
                let openingLine = line
                i += 1
                let contentStart = i
                while true {
                    guard i < end else { throw .unterminatedQuote(line: openingLine, fieldIndex: fieldIndex) }
                    let byte = bytes[i]
                    if byte == ASCII.quote {
                        if i + 1 < end && bytes[i + 1] == ASCII.quote {
                            i += 2
                            continue
                        }
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
                    guard i < end else { break fieldLoop }
                    let byte = bytes[i]
                    if byte == delimiter {
                        i += 1
                        fieldIndex += 1
                        continue fieldLoop
                    } else if byte == ASCII.lf || byte == ASCII.cr {
                        i = skipLineBreak(at: i)
                        break fieldLoop
                    } else if byte < 0x80 {
                        i += 1
                    } else if let length = utf8SequenceLength(bytes, at: i, end: end) {
                        i += length
                    } else {
                        throw .invalidUTF8(line: line, fieldIndex: fieldIndex, byte: i - contentStart + 1)
                    }
                }
            }
        }
        return DelimitedRowInfo(line: rowLine, fieldCount: fieldIndex + 1, isBlank: isBlank)
    }

    /// Counts the line break (LF, CRLF or a lone CR) at `index` and returns the index after it.
    private mutating func skipLineBreak(at index: Int) -> Int {
        line += 1
        if bytes[index] == ASCII.cr && index + 1 < bytes.count && bytes[index + 1] == ASCII.lf {
            return index + 2
        }
        return index + 1
    }
}

/// The serial TSV/CSV parse that ``DelimitedParser`` replaced: a pre-scan with
/// ``DelimitedScanner``, then the values read with `CSVReader` (`yaslab/CSV.swift`). It is kept
/// as the reference the tests hold the parallel parser to: the same table and the same first
/// error, on any input.
struct ReferenceDelimitedParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let source: String
    let format: DataFormat
    let delimiter: UInt8

    /// The header names, once read.
    private var header: [String] = []

    init(bytes: UnsafeBufferPointer<UInt8>, source: String, format: DataFormat, delimiter: UInt8) {
        self.bytes = bytes
        self.source = source
        self.format = format
        self.delimiter = delimiter
    }

    mutating func parse() throws(DataFileError) -> DataTable {
        let start = byteOrderMarkLength(bytes)
        guard bytes[start...].contains(where: { $0 != ASCII.lf && $0 != ASCII.cr }) else {
            throw DataFileError(file: source, message: "empty file (no header)")
        }
        var scanner = DelimitedScanner(bytes: bytes, start: start, delimiter: delimiter)

        // Header.
        guard let headerInfo = try scan(&scanner) else {
            throw DataFileError(file: source, message: "empty file (no header)")
        }
        if headerInfo.isBlank {
            throw DataFileError(file: source, line: headerInfo.line, message: "the header line is blank")
        }
        let dataStart = scanner.position
        let headerRows = try readRows(start..<dataStart, expecting: [headerInfo])
        header = headerRows.first ?? []
        try checkHeader(line: headerInfo.line)

        // Data rows: pre-scan all of them (errors come out in file order).
        var infos: [DelimitedRowInfo] = []
        var firstPendingBlankLine: Int?
        while let info = try scan(&scanner) {
            if info.isBlank {
                if firstPendingBlankLine == nil { firstPendingBlankLine = info.line }
                continue
            }
            if let blankLine = firstPendingBlankLine {
                throw DataFileError(
                    file: source,
                    line: blankLine,
                    message: "blank line inside the data (only blank lines at the end of the file are ignored)"
                )
            }
            guard info.fieldCount == header.count else {
                throw DataFileError(
                    file: source,
                    line: info.line,
                    message: "row has \(counted(info.fieldCount, "field")), the header has \(header.count)"
                )
            }
            infos.append(info)
        }

        // Values: the reader sees only rows the scan accepted (trailing blank lines are cut off).
        let dataEnd = infos.isEmpty ? dataStart : scanner.position
        let values = try readRows(dataStart..<dataEnd, expecting: infos)
        var rows: [DataRow] = []
        rows.reserveCapacity(infos.count)
        for (index, info) in infos.enumerated() {
            rows.append(DataRow(line: info.line, number: index + 1, values: values[index]))
        }
        return DataTable(source: source, format: format, columns: header, rows: rows)
    }

    /// Runs the scanner one row, turning a scan issue into a ``DataFileError``.
    private func scan(_ scanner: inout DelimitedScanner) throws(DataFileError) -> DelimitedRowInfo? {
        let isHeader = scanner.position == byteOrderMarkLength(bytes)
        do {
            return try scanner.nextRow()
        } catch {
            switch error {
            case .invalidUTF8(let line, let fieldIndex, let byte):
                if isHeader {
                    throw DataFileError(
                        file: source,
                        line: line,
                        message: "invalid UTF-8 at byte \(byte) of header field \(fieldIndex + 1)"
                    )
                }
                if fieldIndex < header.count {
                    throw DataFileError(
                        file: source,
                        line: line,
                        field: header[fieldIndex],
                        message: "invalid UTF-8 at byte \(byte) of the field"
                    )
                }
                throw DataFileError(
                    file: source,
                    line: line,
                    message: "invalid UTF-8 at byte \(byte) of field \(fieldIndex + 1) (the header has \(header.count))"
                )
            case .unterminatedQuote(let line, let fieldIndex):
                throw DataFileError(
                    file: source,
                    line: line,
                    field: fieldName(fieldIndex, isHeader: isHeader),
                    message: "quoted field is never closed (missing closing quote)"
                )
            case .textAfterClosingQuote(let line, let fieldIndex):
                throw DataFileError(
                    file: source,
                    line: line,
                    field: fieldName(fieldIndex, isHeader: isHeader),
                    message: "unexpected text after the closing quote (a quote inside a quoted field must be doubled)"
                )
            }
        }
    }

    private func fieldName(_ index: Int, isHeader: Bool) -> String? {
        !isHeader && index < header.count ? header[index] : nil
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

    /// Reads `range` (already validated by the scan) with `CSVReader`, checking that it agrees with
    /// the scan about the number of rows and fields.
    private func readRows(_ range: Range<Int>, expecting infos: [DelimitedRowInfo]) throws(DataFileError) -> [[String]]
    {
        let text = string(bytes, range)
        let reader: CSVReader
        do {
            reader = try CSVReader(
                string: text,
                hasHeaderRow: false,
                trimFields: false,
                delimiter: UnicodeScalar(delimiter)
            )
        } catch {
            throw DataFileError(file: source, line: infos.first?.line, message: "CSV reader failed: \(error)")
        }
        var rows: [[String]] = []
        rows.reserveCapacity(infos.count)
        for info in infos {
            guard let fields = reader.next(), fields.count == info.fieldCount else {
                throw DataFileError(
                    file: source,
                    line: info.line,
                    message: "internal error: the CSV reader and the pre-scan disagree about this row"
                )
            }
            rows.append(fields)
        }
        return rows
    }
}
