import Foundation
import Testing

@testable import Sift

/// One case of ICU's own string-search test data (`usrchdat.c`), as converted in
/// `Tests/SiftTests/Oracles/` (see the README there).
struct OracleCase: Decodable, Sendable, CustomTestStringConvertible {
    struct CollatorOptions: Decodable, Sendable {
        var locale: String
        var rules_base_locale: String?
        var rules: String?
        var short_string: String?
        var normalization: Bool
        var alternate: String
        var case_level: Bool
    }
    struct SearchOptions: Decodable, Sendable {
        var breaker: String?
        var canonical_match: Bool
        var overlap: Bool
        var element_comparison: String
    }
    var id: String
    var text: String?
    var pattern: String?
    var text_utf16: [UInt16]?
    var pattern_utf16: [UInt16]?
    var strength: String
    var expected: [[Int]]
    var portable: Bool
    var collator: CollatorOptions
    var search: SearchOptions

    var testDescription: String { id }

    /// Why Sift cannot run this case through its API, or nil when it can.
    var unsupportedReason: String? {
        if search.breaker != nil { return "custom break iterator" }
        if search.overlap { return "overlapping matches" }
        if search.element_comparison != "standard" { return "asymmetric element comparison" }
        if collator.short_string != nil { return "collator short-string specification" }
        return nil
    }

    var collation: Collation {
        Collation(
            locale: collator.rules != nil ? (collator.rules_base_locale ?? "root") : collator.locale,
            strength: Collation.Strength(rawValue: strength)!,
            alternate: collator.alternate == "shifted" ? .shifted : .nonIgnorable,
            normalization: collator.normalization,
            caseLevel: collator.case_level,
            rules: collator.rules
        )
    }

    var expectedRanges: [Range<Int>] { expected.map { $0[0]..<($0[0] + $0[1]) } }

    static func load(_ name: String) -> [OracleCase] {
        let url = Paths.oracles.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url) else { return [] }
        return (try? JSONDecoder().decode([OracleCase].self, from: data)) ?? []
    }

    static let all = load("icu_usearch_cases.json")
    static let loneSurrogates = load("icu_usearch_cases_lone_surrogates.json")
    static let supported = all.filter { $0.unsupportedReason == nil }
}

@Suite("ICU usearch conformance (ICU's own test data)")
struct OracleTests {
    @Test func theOracleIsPresentAndEveryPortableCaseIsSupported() {
        #expect(OracleCase.all.count == 266)
        #expect(OracleCase.loneSurrogates.count == 3)
        let portable = OracleCase.all.filter(\.portable)
        #expect(portable.count == 93)
        #expect(portable.allSatisfy { $0.unsupportedReason == nil })
        // Everything Sift exposes (locales, strengths incl. identical, shifted, normalization,
        // case level, tailoring rules; canonical matching is the same code path in ICU 72) runs.
        #expect(OracleCase.supported.count >= 200)
    }

    /// Every supported case through the public API: one record, one query, `contains` mode.
    @Test(arguments: OracleCase.supported)
    func caseMatchesThroughTheIndex(_ oracle: OracleCase) throws {
        let text = try #require(oracle.text)
        let pattern = try #require(oracle.pattern)
        let index = try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["text"], collation: oracle.collation),
            records: [Record(id: "r", fields: ["text": text])]
        )
        let query = Query(pattern)
        let result = try index.search(query)
        let expected = oracle.expectedRanges
        #expect(result.rows.count == (expected.isEmpty ? 0 : 1), "membership")
        let ranges = result.rows.isEmpty ? [] : try index.matchRanges(of: result.rows[0], for: query)["text"] ?? []
        if !expected.isEmpty && expected.allSatisfy(\.isEmpty) {
            // A pattern with no collation elements: ICU reports an empty match at every code
            // point; Sift documents that such a query matches everything and highlights nothing.
            #expect(ranges.isEmpty)
        } else {
            #expect(ranges == expected, "ranges")
        }
    }

    /// Lone surrogates cannot live in a Swift `String`, so these run through the folding layer.
    @Test(arguments: OracleCase.loneSurrogates)
    func loneSurrogateCaseMatchesThroughFolding(_ oracle: OracleCase) throws {
        let text = try #require(oracle.text_utf16)
        let pattern = try #require(oracle.pattern_utf16)
        let folder = try ICUFolder(ICUCollator(oracle.collation))
        let elements = try folder.patternElements(utf16: pattern)
        let folded = try folder.fold(utf16: text)
        #expect(folded.matches(of: elements) == oracle.expectedRanges)
        // The shim's reference search agrees with the recorded expectations too.
        let reference = try folder.referenceMatches(of: pattern, in: text).map { $0.start..<($0.start + $0.length) }
        #expect(reference == oracle.expectedRanges)
    }
}
