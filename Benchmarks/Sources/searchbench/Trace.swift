import Foundation
import RecordGenerator
import Sift

/// One keystroke of a trace: the text in the search box and the selected scope after it.
struct Keystroke: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
        case typed, backspace, scope
    }
    var text: String
    /// Index into `Trace.scopes`.
    var scope: Int
    var kind: Kind

    /// User-perceived characters, as Sift counts them for minimum lengths.
    var length: Int { text.count }
    /// 1–2 characters (the keystrokes where FTS5 trigram cannot use its index).
    var isShort: Bool { length <= 2 }
}

/// A keystroke trace: queries typed one character at a time, with backspaces and scope switches.
///
/// Trace file syntax, one instruction per line:
/// - `text`: clear the box, then type `text` one character at a time (`⌫` or `\b` is a backspace);
/// - `+text`: go on typing after the current text (`+⌫⌫` deletes two characters);
/// - `@scope NAME`: tap a scope button (`All`, a field name, or `#1` for the first field); the
///   current text is searched again in that scope;
/// - `# ...` and blank lines are ignored.
/// An empty box is never measured (it lists every record; no search runs).
struct Trace {
    /// Scope names: "All" and the first search field (when there are several fields).
    var scopes: [String]
    var keystrokes: [Keystroke]
    var lines: [String]

    static let defaultLines = [
        "alg",
        "nino",
        "niño",
        "mulr⌫ler",  // a typo fixed with a backspace
        "müller",
        "cafe⌫é",
        "san jose",
        "@scope #1",  // a scope switch: the same text, first field only
        "+⌫⌫⌫⌫⌫",  // backspaces in that scope
        "@scope All",
        "strasse",
    ]

    /// Words typed from an empty box, as a user starts a search: every keystroke a new query
    /// (no two words share a first letter), so no cache of an earlier keystroke answers one.
    /// `--trace words`; `--controller` types it after the default trace, on fresh controllers.
    static let wordsFromEmptyLines = [
        "garcia",
        "berlin",
        "tokyo",
        "paris",
        "new york",
    ]

    init(lines: [String], scopes: [String]) throws {
        self.scopes = scopes
        self.lines = lines
        keystrokes = []
        var text: [Character] = []
        var scope = 0
        for (number, raw) in lines.enumerated() {
            var line = raw
            if line.hasSuffix("\r") { line.removeLast() }
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("@scope") {
                let name = line.dropFirst("@scope".count).trimmingCharacters(in: .whitespaces)
                let target: Int?
                if name == "#1" {
                    target = scopes.count > 1 ? 1 : 0
                } else {
                    target = scopes.firstIndex(of: name)
                }
                guard let target else {
                    throw CorpusError.message(
                        "trace line \(number + 1): unknown scope '\(name)' (scopes: \(scopes.joined(separator: ", ")), #1)"
                    )
                }
                scope = target
                if !text.isEmpty { keystrokes.append(Keystroke(text: String(text), scope: scope, kind: .scope)) }
                continue
            }
            if line.hasPrefix("@") {
                throw CorpusError.message("trace line \(number + 1): unknown instruction '\(line)'")
            }
            var body = Substring(line)
            if body.hasPrefix("+") { body = body.dropFirst() } else { text = [] }
            let typed = body.replacingOccurrences(of: "\\b", with: "⌫")
            for character in typed {
                if character == "⌫" {
                    if !text.isEmpty { text.removeLast() }
                    if !text.isEmpty {
                        keystrokes.append(Keystroke(text: String(text), scope: scope, kind: .backspace))
                    }
                } else {
                    text.append(character)
                    keystrokes.append(Keystroke(text: String(text), scope: scope, kind: .typed))
                }
            }
        }
        guard !keystrokes.isEmpty else { throw CorpusError.message("the trace has no keystroke") }
    }

    static func load(path: String, scopes: [String]) throws -> Trace {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CorpusError.message("\(path): cannot read the trace")
        }
        return try Trace(lines: text.components(separatedBy: "\n"), scopes: scopes)
    }

    /// Each query typed from an empty box.
    static func queries(_ list: [String], scopes: [String]) throws -> Trace {
        try Trace(lines: list, scopes: scopes)
    }

    /// `count` keystroke indices spread evenly over the trace, half of them among the 1–2
    /// character keystrokes and half among the longer ones (all of them when `count` is 0 or
    /// covers the trace).
    func sample(_ count: Int) -> [Int] {
        guard count > 0, count < keystrokes.count else { return Array(keystrokes.indices) }
        let short = keystrokes.indices.filter { keystrokes[$0].isShort }
        let long = keystrokes.indices.filter { !keystrokes[$0].isShort }
        func spread(_ list: [Int], _ n: Int) -> [Int] {
            guard n > 0, !list.isEmpty else { return [] }
            if n >= list.count { return list }
            return (0..<n).map { list[($0 * list.count + list.count / (2 * n)) / n] }
        }
        var shortCount = min(short.count, count / 2)
        let longCount = min(long.count, count - shortCount)
        shortCount = min(short.count, count - longCount)
        return (spread(short, shortCount) + spread(long, longCount)).sorted()
    }
}

extension Trace {
    /// The index the trace runs on: `fields` searched under `collation`, with the trace's scopes
    /// (the first over every field, the others over the first field alone).
    func indexConfiguration(fields: [String], collation: Collation, sortField: String? = nil) -> IndexConfiguration {
        IndexConfiguration(
            searchFields: fields,
            collation: collation,
            scopes: scopes.indices.map { i in
                i == 0 ? Scope(name: scopes[0]) : Scope(name: scopes[i], fields: [fields[0]])
            },
            sortField: sortField
        )
    }
}
