import Foundation

@testable import Sift

/// Paths of the package's own files, found from this source file.
enum Paths {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let oracles = packageRoot.appendingPathComponent("Tests/SiftTests/Oracles")
    static let data = packageRoot.appendingPathComponent("Data")
}

/// A seeded SplitMix64 generator, so random tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Reads a TSV file written by Python's csv module (no quoted fields in our data): header + rows.
func readTSV(_ name: String) throws -> (header: [String], rows: [[String]]) {
    let text = try String(contentsOf: Paths.data.appendingPathComponent(name), encoding: .utf8)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map {
        $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
    let header = lines.removeFirst()
    return (header, lines)
}

/// The oracle: ICU usearch with the same collation, through the shim.
func referenceRanges(_ pattern: String, in text: String, collation: Collation) throws -> [Range<Int>] {
    let folder = try ICUFolder(ICUCollator(collation))
    return try folder.referenceMatches(of: pattern, in: text).map { $0.start..<($0.start + $0.length) }
}

extension SearchIndex {
    /// Ids of a result's rows.
    func ids(_ result: SearchResult) throws -> [String] { try result.rows.map { try id(of: $0) } }
}

/// How much random data the differential tests use. `.ci/run` sets `SIFT_FULL_TESTS=1` for the
/// full sizes; a local `swift test` runs every assertion on less data, to stay short on two cores.
enum TestScale {
    static let isFull = ProcessInfo.processInfo.environment["SIFT_FULL_TESTS"] == "1"

    static func size(full: Int, default small: Int) -> Int { isFull ? full : small }
}

/// A seed derived from `text` that is the same in every run (`hashValue` is randomized per
/// process, so a failure seeded by it could not be reproduced).
func stableSeed(_ text: String) -> UInt64 {
    text.utf8.reduce(14_695_981_039_346_656_037 as UInt64) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
}

/// The texts of typing `text` one character at a time, then two backspaces, then its last
/// character again (for texts of more than two characters): keystrokes that narrow, then are
/// answered from the cache.
func typedWithBackspaces(_ text: String) -> [String] {
    var keystrokes: [String] = []
    var typed = ""
    for character in text {
        typed.append(character)
        keystrokes.append(typed)
    }
    if typed.count > 2 {
        keystrokes.append(String(typed.dropLast()))
        keystrokes.append(String(typed.dropLast(2)))
        keystrokes.append(String(typed.dropLast()))
    }
    return keystrokes
}

/// What the oracle tests of the matching modes share (`FuzzyOracleTests`, `TypoOracleTests`):
/// the collations they run in, and records made from their texts.
enum OracleCorpus {
    /// Six locales and more, four strengths (identical included), shifted and not.
    static let collations: [Collation] = [
        Collation(locale: "root", strength: .primary),
        Collation(locale: "es"),
        Collation(locale: "da", strength: .primary),
        Collation(locale: "de", strength: .secondary),
        Collation(locale: "sv", strength: .tertiary),
        Collation(locale: "cs", strength: .primary),
        Collation(locale: "tr", strength: .secondary),
        Collation(locale: "ja", strength: .primary),
        Collation(locale: "th"),
        Collation(locale: "root", strength: .primary, alternate: .shifted),
        Collation(locale: "fr", strength: .identical),
    ]

    /// One record per text: the text as `name`, and a random one of them as `place`.
    static func records(_ texts: [String], seed: UInt64) -> [Record] {
        var generator = SeededGenerator(seed: seed)
        return texts.indices.map { i in
            Record(id: String(i), fields: ["name": texts[i], "place": texts.randomElement(using: &generator)!])
        }
    }
}
