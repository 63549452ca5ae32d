import ArgumentParser
import Foundation
import Sift

/// The engines Sift is measured against. Each answers with record indices in original order,
/// single-threaded, over the same columns Sift indexed.
enum PeerKind: String, CaseIterable, Codable, ExpressibleByArgument, Sendable {
    /// `range(of:options: [.caseInsensitive, .diacriticInsensitive])` per record per keystroke.
    case naive
    /// ICU `usearch` per record per keystroke (`Sift.ReferenceSearch`).
    case icu
    /// SQLite FTS5: trigram for `contains`/`prefix`, unicode61 (remove_diacritics 2) for `words`.
    case fts5
    /// `fzf --filter` (fuzzy mode only), a process per keystroke: its time includes its start-up
    /// and reading every record.
    case fzf
    /// Tantivy through PyPI's `tantivy` (`prefix` and `words` only), in a helper process that
    /// times each search itself.
    case tantivy

    var title: String {
        switch self {
        case .naive: return "naive Foundation"
        case .icu: return "ICU usearch"
        case .fts5: return "SQLite FTS5"
        case .fzf: return "fzf --filter"
        case .tantivy: return "Tantivy"
        }
    }

    /// Whether the peer has a rule for `mode` (the runner asks it nothing else).
    func supports(_ mode: MatchMode) -> Bool {
        switch self {
        case .naive, .icu: return true
        case .fts5: return mode != .fuzzy
        case .fzf: return mode == .fuzzy
        case .tantivy: return mode == .prefix || mode == .words
        }
    }

    /// Whether the peer runs on every keystroke, or only on `--peer-sample`'s (the slow ones).
    var runsEveryKeystroke: Bool { self != .naive && self != .icu }
}

protocol Peer: AnyObject {
    var kind: PeerKind { get }
    /// Matching record indices, ascending.
    func search(_ text: String, fields: [Int], mode: MatchMode) throws -> [Int32]
    /// The time the last `search` took by the peer's own measure, where the peer times itself
    /// (a helper process); nil where the caller's clock around `search` is its time.
    var ownNanoseconds: UInt64? { get }
}

extension Peer {
    var ownNanoseconds: UInt64? { nil }
}

// MARK: - Naive Foundation filter

/// What an app without an index does: Foundation's case- and diacritic-insensitive `range(of:)`
/// over every record on every keystroke. Strength maps to options: primary → case and diacritic
/// insensitive, secondary → case insensitive, tertiary and above → literal.
final class NaivePeer: Peer {
    let kind = PeerKind.naive
    let columns: [[String]]
    let options: String.CompareOptions

    init(columns: [[String]], strength: Collation.Strength) {
        self.columns = columns
        switch strength {
        case .primary: options = [.caseInsensitive, .diacriticInsensitive]
        case .secondary: options = [.caseInsensitive]
        default: options = []
        }
    }

    func search(_ text: String, fields: [Int], mode: MatchMode) throws -> [Int32] {
        let words = mode == .words ? queryWords(text) : []
        var result: [Int32] = []
        let count = columns.first?.count ?? 0
        for i in 0..<count where matches(text, words: words, record: i, fields: fields, mode: mode) {
            result.append(Int32(i))
        }
        return result
    }

    func matches(_ text: String, words: [String], record i: Int, fields: [Int], mode: MatchMode) -> Bool {
        switch mode {
        case .contains:
            for f in fields where columns[f][i].range(of: text, options: options) != nil { return true }
            return false
        case .prefix:
            for f in fields where columns[f][i].range(of: text, options: options.union(.anchored)) != nil {
                return true
            }
            return false
        case .words:
            for word in words {
                var found = false
                for f in fields where !found { found = wordMatch(word, in: columns[f][i]) }
                if !found { return false }
            }
            return true
        case .fuzzy:
            for f in fields where fuzzyMatch(text, in: columns[f][i]) { return true }
            return false
        }
    }

    /// Each character of the query found with `range(of:options:)` after the previous one.
    private func fuzzyMatch(_ text: String, in field: String) -> Bool {
        var from = field.startIndex
        for character in text {
            guard let hit = field.range(of: String(character), options: options, range: from..<field.endIndex) else {
                return false
            }
            from = hit.upperBound
        }
        return true
    }

    private func wordMatch(_ word: String, in field: String) -> Bool {
        var range = field.startIndex..<field.endIndex
        while let hit = field.range(of: word, options: options, range: range) {
            if isWordStart(hit.lowerBound, in: field) { return true }
            guard hit.lowerBound < field.endIndex else { return false }
            range = field.index(after: hit.lowerBound)..<field.endIndex
        }
        return false
    }
}

// MARK: - ICU usearch per record

/// ICU string search per record (what Sift's `contains` is defined as), with the word rules of
/// `ICUReference` for `prefix` and `words`.
final class ICUPeer: Peer {
    let kind = PeerKind.icu
    let columns: [[String]]
    let reference: ICUReference

    init(columns: [[String]], collation: Collation) throws {
        self.columns = columns
        reference = try ICUReference(collation: collation)
    }

    func search(_ text: String, fields: [Int], mode: MatchMode) throws -> [Int32] {
        var result: [Int32] = []
        let count = columns.first?.count ?? 0
        var values: [String] = []
        values.reserveCapacity(fields.count)
        for i in 0..<count {
            values.removeAll(keepingCapacity: true)
            for f in fields { values.append(columns[f][i]) }
            if try reference.peerMatches(text, fields: values, mode: mode) { result.append(Int32(i)) }
        }
        return result
    }
}

// MARK: - SQLite FTS5

/// SQLite FTS5 (the SQLite `vapor/sqlite-nio` vendors, 3.45 or later), in memory, one table per
/// tokenizer:
/// - `trigram remove_diacritics 1` (columns f0…fn): `contains` and `prefix` queries of 3+
///   characters use MATCH (`"text"`, `^"text"` for prefix), case- and accent-insensitive;
///   shorter ones cannot use trigrams and fall back to `LIKE` over every row (ASCII-only case
///   folding, accent-sensitive).
/// - `unicode61 remove_diacritics 2` with prefix indexes of 1–3 characters: `words` queries, one
///   prefix term per query word (`"san"* "jose"*`).
final class FTS5Peer: Peer {
    let kind = PeerKind.fts5
    let fieldCount: Int
    private let trigram: SQLiteDatabase
    private let words: SQLiteDatabase
    private var statements: [String: SQLiteStatement] = [:]

    struct BuildReport: Codable {
        var trigramNanoseconds: UInt64
        var trigramBytes: Int
        var trigramMemory: Int
        var wordsNanoseconds: UInt64
        var wordsBytes: Int
        var wordsMemory: Int
    }
    private(set) var build: BuildReport

    init(corpus: Corpus, showProgress: Bool) throws {
        let fieldCount = corpus.fields.count
        self.fieldCount = fieldCount
        let columnList = (0..<fieldCount).map { "f\($0)" }.joined(separator: ", ")
        let placeholders = (0..<fieldCount).map { "?\($0 + 2)" }.joined(separator: ", ")

        func fill(_ database: SQLiteDatabase, tokenizer: String, title: String) throws -> (UInt64, Int, Int) {
            let before = Memory.heapBytes
            let progress = showProgress ? Progress(title, total: corpus.count) : nil
            defer { progress?.finish() }
            let start = monotonicNanoseconds()
            try database.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")
            try database.execute("CREATE VIRTUAL TABLE t USING fts5(\(columnList), \(tokenizer))")
            try database.execute("BEGIN")
            let insert = try database.prepare("INSERT INTO t(rowid, \(columnList)) VALUES (?1, \(placeholders))")
            for i in 0..<corpus.count {
                insert.bind(Int64(i + 1), at: 1)
                for f in 0..<fieldCount { insert.bind(corpus.columns[f][i], at: Int32(f + 2)) }
                try insert.run()
                if i & 0x3FFF == 0 { progress?.set(i) }
            }
            try database.execute("COMMIT")
            try database.execute("INSERT INTO t(t) VALUES ('optimize')")
            let elapsed = monotonicNanoseconds() - start
            let bytes = try database.integer("PRAGMA page_count") * database.integer("PRAGMA page_size")
            return (elapsed, bytes, Memory.heapBytes - before)
        }
        trigram = try SQLiteDatabase()
        let t = try fill(
            trigram,
            tokenizer: "tokenize='trigram remove_diacritics 1'",
            title: "FTS5 trigram: indexing"
        )
        words = try SQLiteDatabase()
        let w = try fill(
            words,
            tokenizer: "tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'",
            title: "FTS5 unicode61: indexing"
        )
        build = BuildReport(
            trigramNanoseconds: t.0,
            trigramBytes: t.1,
            trigramMemory: t.2,
            wordsNanoseconds: w.0,
            wordsBytes: w.1,
            wordsMemory: w.2
        )
    }

    private func statement(_ database: SQLiteDatabase, _ sql: String) throws -> SQLiteStatement {
        let key = (database === trigram ? "t:" : "w:") + sql
        if let cached = statements[key] { return cached }
        let prepared = try database.prepare(sql)
        statements[key] = prepared
        return prepared
    }

    /// Column filter for MATCH: empty when every column is searched.
    private func columnFilter(_ fields: [Int]) -> String {
        fields.count == fieldCount ? "" : "{" + fields.map { "f\($0)" }.joined(separator: " ") + "} : "
    }

    private static func phrase(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func likeEscaped(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == "\\" || c == "%" || c == "_" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    /// Whether FTS5 can answer with its trigram index (3+ Unicode characters).
    static func usesTrigramIndex(_ text: String) -> Bool { text.unicodeScalars.count >= 3 }

    func search(_ text: String, fields: [Int], mode: MatchMode) throws -> [Int32] {
        var result: [Int32] = []
        switch mode {
        case .contains, .prefix:
            if Self.usesTrigramIndex(text) {
                let query = columnFilter(fields) + (mode == .prefix ? "^" : "") + Self.phrase(text)
                let statement = try statement(trigram, "SELECT rowid FROM t WHERE t MATCH ?1")
                statement.bind(query, at: 1)
                try statement.integers(into: &result, offset: 1)
            } else {
                let condition = fields.map { "f\($0) LIKE ?1 ESCAPE '\\'" }.joined(separator: " OR ")
                let statement = try statement(trigram, "SELECT rowid FROM t WHERE \(condition)")
                let escaped = Self.likeEscaped(text)
                statement.bind(mode == .prefix ? escaped + "%" : "%" + escaped + "%", at: 1)
                try statement.integers(into: &result, offset: 1)
            }
        case .fuzzy:
            throw UnsupportedMode(peer: "FTS5", mode: mode)
        case .words:
            let terms = queryWords(text).map { Self.phrase($0) + "*" }
            if terms.isEmpty {
                let statement = try statement(words, "SELECT rowid FROM t")
                try statement.integers(into: &result, offset: 1)
            } else {
                let statement = try statement(words, "SELECT rowid FROM t WHERE t MATCH ?1")
                statement.bind(columnFilter(fields) + "(" + terms.joined(separator: " ") + ")", at: 1)
                try statement.integers(into: &result, offset: 1)
            }
        }
        return result
    }
}

/// The records as a peer's helper process reads them: a line per record, its number, then its
/// fields, tab-separated, each as `encode` writes it (which must leave no tab or line feed).
func writeNumberedRecords(_ columns: [[String]], to url: URL, encode: (String) -> String) throws {
    var text = ""
    let count = columns.first?.count ?? 0
    text.reserveCapacity(count * 48)
    for i in 0..<count {
        text += String(i)
        for column in columns {
            text += "\t"
            text += encode(column[i])
        }
        text += "\n"
    }
    try text.write(to: url, atomically: false, encoding: .utf8)
}

/// A peer asked for a mode it has no rule for (the runner does not ask).
struct UnsupportedMode: Error {
    var peer: String
    var mode: MatchMode
}

// MARK: - fzf

/// `fzf --filter` (Debian's fzf) on the same records: one line per record, the record's number,
/// then its fields (tabs and line feeds turned into spaces), tab-separated; `--nth` restricts
/// matching to the searched fields; `--no-sort` keeps input order (the answers are compared as
/// sets); `GOMAXPROCS=1` keeps it on one core, as Sift is timed. A process per keystroke, so its
/// time includes starting up and reading every record. Fuzzy mode only.
///
/// Its rule differs from Sift's: fzf matches characters, not collation elements (case folded
/// when the query is lower-case, "smart case"; Latin diacritics folded by its own table, not
/// the locale's: no `ñ ≠ n` in Spanish, no `aa = å` in Danish, no `ß = ss`), and a space in the
/// query separates terms that must all match, in any order.
final class FzfPeer: Peer {
    let kind = PeerKind.fzf
    let executable: String
    let input: URL

    init(columns: [[String]], executable: String = "/usr/bin/fzf") throws {
        self.executable = executable
        input = FileManager.default.temporaryDirectory.appendingPathComponent("searchbench-fzf-\(getpid()).tsv")
        try writeNumberedRecords(columns, to: input) {
            $0.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
        }
    }

    deinit { try? FileManager.default.removeItem(at: input) }

    func search(_ text: String, fields: [Int], mode: MatchMode) throws -> [Int32] {
        guard mode == .fuzzy else { throw UnsupportedMode(peer: "fzf", mode: mode) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--filter", text, "--no-sort", "--delimiter", "\t", "--nth",
            fields.map { String($0 + 2) }.joined(separator: ","),
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["GOMAXPROCS"] = "1"
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: input)
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var result: [Int32] = []
        var value: Int32 = 0
        var inNumber = true
        for byte in output {
            if byte == UInt8(ascii: "\n") {
                result.append(value)
                value = 0
                inNumber = true
            } else if inNumber {
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    value = value * 10 + Int32(byte - UInt8(ascii: "0"))
                } else {
                    inNumber = false
                }
            }
        }
        return result
    }
}
