/// A line of key hints that fits the terminal: hints are dropped from the end, whole, until the
/// rest fits, so that no hint is ever cut in the middle of a word.
enum KeyHints {
    static let separator = " · "

    /// The hints that fit `width` columns, joined by `separator`.
    static func fit(_ hints: [String], width: Int) -> String {
        var shown = hints
        while !shown.isEmpty && DisplayWidth.of(shown.joined(separator: separator)) > width {
            shown.removeLast()
        }
        return shown.joined(separator: separator)
    }
}
