import Foundation

/// One top-level `"key": value` member of a JSON object, located in the line's bytes.
struct JSONMember {
    /// The decoded key.
    var key: String
    /// The key token, quotes included.
    var keyRange: Range<Int>
    /// The value token (quotes included for strings, brackets for nested values).
    var valueRange: Range<Int>
}

/// A lone UTF-16 surrogate written as a `\uXXXX` escape.
struct LoneSurrogate {
    /// The key whose value holds the escape; `nil` if the escape is inside a key.
    var key: String?
    /// The escape as written, e.g. `\ud800`.
    var escape: String
}

/// A tolerant structural scan of one JSON Lines line.
///
/// Foundation's `JSONSerialization` validates the JSON and decodes strings, but it forgets the
/// order of keys, silently keeps only the last of repeated keys, rewrites numbers (`1.0` → `1`)
/// and rejects lone surrogate escapes with a message that does not say where they are. This scan
/// finds the top-level members in order with their byte ranges, so that values can be taken as
/// written, errors can name the key, and lone surrogates can be reported precisely. It never
/// fails: on malformed input it stops and keeps what it found (then `JSONSerialization` reports
/// the syntax error). Hot loops work on local copies of the position to stay fast in debug builds.
struct JSONLineScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The index of the next byte to look at.
    private var i = 0
    /// The members found so far, in order.
    private(set) var members: [JSONMember] = []
    /// The first lone surrogate escape found, if any.
    private(set) var loneSurrogate: LoneSurrogate?

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private static let openBrace = UInt8(ascii: "{")
    private static let closeBrace = UInt8(ascii: "}")
    private static let openBracket = UInt8(ascii: "[")
    private static let closeBracket = UInt8(ascii: "]")
    private static let comma = UInt8(ascii: ",")
    private static let colon = UInt8(ascii: ":")

    /// The byte at `i`, or `nil` at the end of the line.
    private func byte() -> UInt8? {
        i < bytes.count ? bytes[i] : nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == ASCII.space || byte == ASCII.tab || byte == ASCII.cr || byte == ASCII.lf
    }

    private mutating func skipWhitespace() {
        var j = i
        while j < bytes.count && Self.isWhitespace(bytes[j]) { j += 1 }
        i = j
    }

    /// Scans the line; returns whether it was a complete object.
    mutating func scan() -> Bool {
        skipWhitespace()
        guard byte() == Self.openBrace else { return false }
        i += 1
        skipWhitespace()
        if byte() == Self.closeBrace {
            i += 1
            return true
        }
        while true {
            skipWhitespace()
            guard byte() == ASCII.quote else { return false }
            let keyStart = i
            guard scanString(key: nil) else { return false }
            let keyRange = keyStart..<i
            let key = decodeKey(keyRange)
            skipWhitespace()
            guard byte() == Self.colon else { return false }
            i += 1
            skipWhitespace()
            let valueStart = i
            let complete = skipValue(key: key)
            members.append(JSONMember(key: key, keyRange: keyRange, valueRange: valueStart..<i))
            guard complete else { return false }
            skipWhitespace()
            switch byte() {
            case Self.comma:
                i += 1
            case Self.closeBrace:
                i += 1
                return true
            default:
                return false
            }
        }
    }

    /// Skips one value of any kind (the value of `key`); returns `false` if the line ends first.
    private mutating func skipValue(key: String) -> Bool {
        guard let first = byte() else { return false }
        switch first {
        case ASCII.quote:
            return scanString(key: key)
        case Self.openBrace, Self.openBracket:
            var depth = 0
            while i < bytes.count {
                switch bytes[i] {
                case ASCII.quote:
                    guard scanString(key: key) else { return false }
                    continue
                case Self.openBrace, Self.openBracket:
                    depth += 1
                case Self.closeBrace, Self.closeBracket:
                    depth -= 1
                    if depth == 0 {
                        i += 1
                        return true
                    }
                default:
                    break
                }
                i += 1
            }
            return false
        default:
            // A number or literal: runs to the next structural character or whitespace.
            var j = i
            while j < bytes.count {
                let byte = bytes[j]
                if byte == Self.comma || byte == Self.closeBrace || byte == Self.closeBracket || Self.isWhitespace(byte)
                {
                    break
                }
                j += 1
            }
            defer { i = j }
            return j > i
        }
    }

    /// Skips a string token starting at the opening quote, noting lone surrogate escapes (in the
    /// value of `key`, or in a key if `key` is `nil`); returns `false` if the line ends first.
    private mutating func scanString(key: String?) -> Bool {
        var j = i + 1
        let end = bytes.count
        defer { i = j }
        while j < end {
            let byte = bytes[j]
            if byte == ASCII.quote {
                j += 1
                return true
            }
            guard byte == ASCII.backslash else {
                j += 1
                continue
            }
            guard let unit = hexEscape(at: j) else {
                j += 2
                continue
            }
            if (0xD800...0xDBFF).contains(unit), let low = hexEscape(at: j + 6), (0xDC00...0xDFFF).contains(low) {
                j += 12
                continue
            }
            if (0xD800...0xDFFF).contains(unit), loneSurrogate == nil {
                loneSurrogate = LoneSurrogate(key: key, escape: string(bytes, j..<(j + 6)))
            }
            j += 6
        }
        j = end
        return false
    }

    /// The code unit of a `\uXXXX` escape at `index`, or `nil` if there is none.
    private func hexEscape(at index: Int) -> UInt16? {
        guard index + 6 <= bytes.count, bytes[index] == ASCII.backslash, bytes[index + 1] == UInt8(ascii: "u") else {
            return nil
        }
        var value: UInt16 = 0
        for position in (index + 2)..<(index + 6) {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// The text of a key token; escapes are decoded when the token is valid JSON.
    private func decodeKey(_ range: Range<Int>) -> String {
        let inner = (range.lowerBound + 1)..<max(range.lowerBound + 1, range.upperBound - 1)
        var hasEscape = false
        for index in inner where bytes[index] == ASCII.backslash {
            hasEscape = true
            break
        }
        guard hasEscape else { return string(bytes, inner) }
        let token = Data(buffer: UnsafeBufferPointer(rebasing: bytes[range]))
        if let decoded = try? JSONSerialization.jsonObject(with: token, options: [.fragmentsAllowed]) as? String {
            return decoded
        }
        return string(bytes, inner)
    }
}

/// Parses JSON Lines: one JSON object per non-blank line.
struct JSONLinesParser {
    /// One value of a record: the column it belongs to and its text.
    struct Cell {
        var column: Int
        var value: String
    }

    /// One parsed object, before the full set of columns is known.
    struct Record {
        var line: Int
        var cells: [Cell]
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let source: String

    private var columns: [String] = []
    private var columnIndex: [String: Int] = [:]

    init(bytes: UnsafeBufferPointer<UInt8>, source: String) {
        self.bytes = bytes
        self.source = source
    }

    mutating func parse() throws(DataFileError) -> DataTable {
        var records: [Record] = []
        var lineStart = byteOrderMarkLength(bytes)
        var lineNumber = 1
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != ASCII.lf { lineEnd += 1 }
            let next = lineEnd + 1
            if lineEnd > lineStart && bytes[lineEnd - 1] == ASCII.cr { lineEnd -= 1 }
            let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            if line.contains(where: { $0 != ASCII.space && $0 != ASCII.tab && $0 != ASCII.cr }) {
                records.append(Record(line: lineNumber, cells: try parseLine(line, lineNumber: lineNumber)))
            }
            lineStart = next
            lineNumber += 1
        }
        guard !records.isEmpty else {
            throw DataFileError(file: source, message: "empty file (no records)")
        }
        var rows: [DataRow] = []
        rows.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            var values = [String](repeating: "", count: columns.count)
            for cell in record.cells { values[cell.column] = cell.value }
            rows.append(DataRow(line: record.line, number: index + 1, values: values))
        }
        return DataTable(source: source, format: .jsonLines, columns: columns, rows: rows)
    }

    /// Parses one non-blank line into (column, value) pairs, adding new keys to the columns.
    private mutating func parseLine(
        _ line: UnsafeBufferPointer<UInt8>,
        lineNumber: Int
    ) throws(DataFileError) -> [Cell] {
        func failure(_ message: String, key: String? = nil) -> DataFileError {
            DataFileError(file: source, line: lineNumber, field: key, message: message)
        }
        var scanner = JSONLineScanner(bytes: line)
        let isCompleteObject = scanner.scan()

        if let bad = firstInvalidUTF8(line, in: 0..<line.count) {
            if let member = scanner.members.first(where: { $0.valueRange.contains(bad) }) {
                let contentStart =
                    line[member.valueRange.lowerBound] == ASCII.quote
                    ? member.valueRange.lowerBound + 1 : member.valueRange.lowerBound
                throw failure("invalid UTF-8 at byte \(bad - contentStart + 1) of the value", key: member.key)
            }
            if scanner.members.contains(where: { $0.keyRange.contains(bad) }) {
                throw failure("invalid UTF-8 in a key, at byte \(bad + 1) of the line")
            }
            throw failure("invalid UTF-8 at byte \(bad + 1) of the line")
        }
        if let lone = scanner.loneSurrogate {
            let what = "lone surrogate escape \(lone.escape) (not a Unicode character)"
            if let key = lone.key { throw failure(what, key: key) }
            throw failure(what + " in a key")
        }

        // Numbers are kept as written, but Foundation refuses one beyond a Double's range; say
        // which key holds it.
        for member in scanner.members where isCompleteObject && !member.valueRange.isEmpty {
            let first = line[member.valueRange.lowerBound]
            guard first == UInt8(ascii: "-") || first &- UInt8(ascii: "0") < 10 else { continue }
            let text = string(line, member.valueRange)
            if let number = Double(text), !number.isFinite {
                throw failure(
                    "number \(text) is out of range (beyond ±1.8e308, a 64-bit float's limit; quote it to keep it as text)",
                    key: member.key
                )
            }
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(buffer: line), options: [.fragmentsAllowed])
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw failure("invalid JSON" + (reason.map { " (\($0))" } ?? ""))
        }
        guard let dictionary = object as? [String: Any] else { throw failure("not a JSON object") }
        guard isCompleteObject else {
            // Foundation accepts some non-standard syntax (such as a trailing comma); this loader does not.
            throw failure("invalid JSON (not standard JSON syntax, e.g. a trailing comma)")
        }
        var seen = Set<String>()
        for member in scanner.members {
            guard !member.key.isEmpty else { throw failure("empty key name") }
            guard seen.insert(member.key).inserted else { throw failure("duplicate key", key: member.key) }
        }
        guard scanner.members.count == dictionary.count else {
            throw failure("internal error: could not locate the keys of this JSON object")
        }

        var cells: [Cell] = []
        cells.reserveCapacity(scanner.members.count)
        for member in scanner.members {
            let key = member.key
            let first = line[member.valueRange.lowerBound]
            let value: String
            switch first {
            case ASCII.quote:
                guard let text = dictionary[key] as? String else {
                    throw failure("internal error: could not decode the string value", key: key)
                }
                value = text
            case UInt8(ascii: "["):
                throw failure(
                    "nested array is not supported (values must be strings, numbers, true, false or null)",
                    key: key
                )
            case UInt8(ascii: "{"):
                throw failure(
                    "nested object is not supported (values must be strings, numbers, true, false or null)",
                    key: key
                )
            case UInt8(ascii: "n"):
                value = ""
            default:
                // Numbers exactly as written, and the literals true/false.
                value = string(line, member.valueRange)
            }
            cells.append(Cell(column: column(for: key), value: value))
        }
        return cells
    }

    /// The column index for `key`, adding a new column when the key is first seen.
    private mutating func column(for key: String) -> Int {
        if let index = columnIndex[key] { return index }
        columns.append(key)
        columnIndex[key] = columns.count - 1
        return columns.count - 1
    }
}
