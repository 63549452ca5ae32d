/// A problem with a data file, located as precisely as possible.
///
/// ``description`` is a single line such as
/// `cities.tsv:17: field 'name': invalid UTF-8 at byte 5 of the field`,
/// `x.csv:4: row has 3 fields, the header has 5`, `x.jsonl:2: not a JSON object` or
/// `missing.tsv: cannot read file (No such file or directory)`.
public struct DataFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file path as it was given to ``DataLoader``.
    public var file: String
    /// The 1-based line of the problem, if it is tied to one.
    public var line: Int?
    /// The column (TSV/CSV header name) or key (JSON Lines) of the offending value, when known.
    public var field: String?
    /// What is wrong, without the file/line/field prefix.
    public var message: String

    /// Creates an error from its parts.
    public init(file: String, line: Int? = nil, field: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    /// `file[:line][: field 'name']: message`, always on one line (control characters in the
    /// field name and message are shown as escapes).
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let field { text += ": field '\(shownName(field))'" }
        return text + ": " + oneLine(message)
    }
}

/// Whether `scalar` would break a one-line message or be invisible in it.
private func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator: true
    default: false
    }
}

/// `text` with control characters (newline, tab, NUL, ...) and line/paragraph separators replaced
/// by visible escapes, so that it can be embedded in a one-line message.
func oneLine(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        default:
            if needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u{" + hex + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result
}

/// `count` followed by `noun`, pluralised with an "s" unless `count` is 1.
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// The most characters of a name a message shows.
let shownNameLength = 64

/// A column or field name as a one-line message shows it: control characters escaped, and at
/// most 64 characters, cut with `…` and the name's length (a header of one 10 MB name, such as
/// a file of NUL bytes has, is not echoed whole).
package func shownName(_ name: String) -> String {
    let line = oneLine(name)
    guard line.count > shownNameLength else { return line }
    return String(line.prefix(shownNameLength)) + "… (\(name.utf8.count) bytes)"
}

/// Names as a one-line message lists them: the first ten (each as ``shownName(_:)``), then how
/// many more (a header of a million columns is not listed whole).
package func shownNames(_ names: [String], separator: String = ", ") -> String {
    let shown = names.prefix(10).map(shownName).joined(separator: separator)
    return names.count > 10 ? shown + "\(separator)… (\(names.count) in all)" : shown
}
