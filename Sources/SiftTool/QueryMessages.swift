import Sift

/// How messages show a query: quoted, control characters made visible, and a long one shortened
/// so that a megabyte of query text does not become a megabyte of message.
enum QueryMessages {
    /// The most characters of a query a message shows.
    static let shownCharacters = 60

    /// `text` in quotes, cut after `shownCharacters` characters with "… (N characters)".
    static func quoted(_ text: String) -> String {
        let shown = Cells.sanitize(String(text.prefix(shownCharacters)), .allControls)
        guard text.count > shownCharacters else { return "\"\(shown)\"" }
        return "\"\(shown)…\" (\(text.count) characters)"
    }

    /// A one-line hint when the query uses words mode's operators (`-word`, `"a phrase"`,
    /// `a | b`) in a search that reads them as plain text, or nil.
    static func operatorHint(_ text: String, mode: MatchMode, syntax: QuerySyntax) -> String? {
        guard mode != .words || syntax == .literal, usesOperators(text) else { return nil }
        let reason = mode == .words ? "--syntax literal reads them as text" : "this search is in \(mode.rawValue) mode"
        let fix = mode == .words ? "--syntax operators" : "--mode words"
        return "hint: -word, \"a phrase\" and a | b are operators in words mode only, and \(reason): "
            + "they were matched as text (\(fix) reads them as operators)"
    }

    /// Whether the text has what words mode would read as an operator: a word starting with `-`,
    /// a closed pair of quotes, or `|` with text on both sides.
    static func usesOperators(_ text: String) -> Bool {
        let words = text.split(whereSeparator: \.isWhitespace)
        if words.contains(where: { $0.count > 1 && $0.first == "-" }) { return true }
        if text.filter({ $0 == "\"" }).count >= 2 { return true }
        if let bar = words.firstIndex(of: "|"), bar > words.startIndex, bar < words.index(before: words.endIndex) {
            return true
        }
        return words.contains { $0.count > 1 && $0.contains("|") && $0.first != "|" && $0.last != "|" }
    }
}
