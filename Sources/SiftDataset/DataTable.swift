/// A data file loaded into memory: column names and rows of text values.
public struct DataTable: Sendable, Equatable {
    /// The file path as it was given to ``DataLoader`` (used in error messages).
    public var source: String
    /// The format the file was read as.
    public var format: DataFormat
    /// The column names: the header row for TSV/CSV, or every key in first-seen order for JSON Lines.
    public var columns: [String]
    /// The data rows, in file order. Every row has exactly one value per column.
    public var rows: [DataRow]

    /// Creates a table from its parts.
    public init(source: String, format: DataFormat, columns: [String], rows: [DataRow]) {
        self.source = source
        self.format = format
        self.columns = columns
        self.rows = rows
    }

    /// The index of the column called `named`, or `nil` if there is none.
    ///
    /// Names are compared with `String` equality (exact up to Unicode canonical equivalence).
    ///
    /// - Complexity: O(*c*) for *c* columns.
    public func column(named: String) -> Int? {
        columns.firstIndex(of: named)
    }

    /// The columns whose non-empty values are not all numbers: the "text columns".
    ///
    /// A value counts as a number if it is an integer or decimal written in ASCII, with an optional
    /// leading `+` or `-` and an optional exponent: `42`, `-7`, `3.25`, `.5`, `1e6`, `-1.5E-3`.
    /// Anything else (including surrounding spaces, `NaN`, `inf`, `1,000`) is text.
    /// A column whose values are all empty (or a table without rows) has no text, so it is
    /// not a text column. Computed on each access.
    ///
    /// - Complexity: O(*n*) in the size of the table.
    public var textColumns: [String] {
        columns.indices.compactMap { column in
            let hasText = rows.contains { row in
                guard column < row.values.count else { return false }
                let value = row.values[column]
                return !value.isEmpty && !isNumberText(value)
            }
            return hasText ? columns[column] : nil
        }
    }
}

/// One data row of a ``DataTable``.
public struct DataRow: Sendable, Equatable {
    /// The 1-based line of the file on which this row starts. A row with a quoted field that spans
    /// several lines reports its first line; rows after it keep their real line numbers.
    public var line: Int
    /// The 1-based data row number: the first row after the header (or the first JSON object) is 1.
    public var number: Int
    /// One value per column of the table.
    ///
    /// TSV/CSV: the field text with quoting removed. JSON Lines: a missing key is `""`; strings are
    /// decoded; numbers are kept exactly as written in the file (`1.0` stays `1.0`, `1e3` stays
    /// `1e3`); `true`/`false` are `"true"`/`"false"`; `null` is `""`.
    public var values: [String]

    /// Creates a row from its parts.
    public init(line: Int, number: Int, values: [String]) {
        self.line = line
        self.number = number
        self.values = values
    }
}

/// Whether `text` is an ASCII integer or decimal number: `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`.
func isNumberText(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { isNumberBytes($0) }
}

/// Whether UTF-8 `bytes` are an ASCII integer or decimal number (see ``isNumberText(_:)``).
func isNumberBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    let n = bytes.count
    if i < n, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
    var digits = 0
    while i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
        i += 1
        digits += 1
    }
    if i < n, bytes[i] == UInt8(ascii: ".") {
        i += 1
        while i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
            i += 1
            digits += 1
        }
    }
    guard digits > 0 else { return false }
    if i < n, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
        i += 1
        if i < n, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        var exponentDigits = 0
        while i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
            i += 1
            exponentDigits += 1
        }
        guard exponentDigits > 0 else { return false }
    }
    return i == n
}
