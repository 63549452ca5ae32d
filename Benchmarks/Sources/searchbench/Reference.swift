import Foundation
import Sift

/// What a query means for one record under ICU's own string search: the yardstick every answer
/// difference is explained with.
///
/// - `contains` is exact: Sift's contract is "a record matches exactly when ICU usearch finds
///   the query in a searched field".
/// - `prefix`: usearch finds the query at UTF-16 offset 0. Exact when the field starts with a
///   letter or digit; otherwise (a leading ignorable could shift the start) it is undecided.
/// - `fuzzy`: exact: the query's collation elements (`ReferenceSearch.collationElements(of:)`,
///   ICU's collation element iterator) are a subsequence of some field's.
/// - `words`: every query word (split at characters that are not letters, marks or digits) has a
///   usearch match in some field at a word start (offset 0, or after a character that is not a
///   letter, mark or digit and is not a word-internal apostrophe, period, colon or middle dot).
///   This is ICU's word break rule for alphabetic text; fields with scripts that ICU breaks by
///   dictionary (Thai, Lao, Khmer, Myanmar, CJK) or fullwidth forms are undecided.
///
/// In words mode with `QuerySyntax.operators`, a text that uses operators is read as a
/// `QueryExpression`: each term by the rule above (a phrase by the `contains` rule), negated,
/// OR within a clause and AND over clauses, undecided where a term is and the others do not
/// settle it.
final class ICUReference {
    let collation: Collation
    /// How words-mode texts read (`--syntax`).
    var syntax: QuerySyntax = .operators
    private let search: ReferenceSearch

    init(collation: Collation) throws {
        self.collation = collation
        search = try ReferenceSearch(collation: collation)
    }

    /// Whether the record matches; nil when the rule above cannot decide.
    func matches(_ text: String, fields: [String], mode: MatchMode) throws -> Bool? {
        guard let expression = operators(text, mode: mode) else { return try literalMatches(text, fields, mode) }
        return try matches(expression, fields: fields) { try literalMatches($0, fields, $1) }
    }

    /// `matches` for a text read literally.
    private func literalMatches(_ text: String, _ fields: [String], _ mode: MatchMode) throws -> Bool? {
        switch mode {
        case .contains:
            for field in fields where try search.contains(text, in: field) { return true }
            return false
        case .prefix:
            var undecided = false
            for field in fields {
                if let first = try search.matches(of: text, in: field).first, first.lowerBound == 0 { return true }
                if let scalar = field.unicodeScalars.first, !isWordScalar(scalar) { undecided = true }
            }
            return undecided ? nil : false
        case .fuzzy:
            return try fuzzyMatches(text, fields: fields)
        case .words:
            let words = queryWords(text)
            guard wordsAreSimple(text) else { return nil }
            var undecided = false
            for field in fields where !isSimple(field) { undecided = true }
            for word in words {
                var found = false
                for field in fields {
                    for range in try search.matches(of: word, in: field) where isWordStart(range.lowerBound, in: field)
                    {
                        found = true
                        break
                    }
                    if found { break }
                }
                if !found { return undecided ? nil : false }
            }
            return undecided ? nil : true
        }
    }

    /// Whether the query's collation elements occur in order in some field (none: every record).
    private func fuzzyMatches(_ text: String, fields: [String]) throws -> Bool {
        let pattern = try search.collationElements(of: text)
        if pattern.isEmpty { return true }
        for field in fields {
            var i = 0
            for element in try search.collationElements(of: field) where element == pattern[i] {
                i += 1
                if i == pattern.count { return true }
            }
        }
        return false
    }

    /// The same rule, forced to an answer (the ICU peer).
    func peerMatches(_ text: String, fields: [String], mode: MatchMode) throws -> Bool {
        guard let expression = operators(text, mode: mode) else { return try literalPeerMatches(text, fields, mode) }
        return try matches(expression, fields: fields) { try literalPeerMatches($0, fields, $1) } ?? false
    }

    /// `peerMatches` for a text read literally.
    private func literalPeerMatches(_ text: String, _ fields: [String], _ mode: MatchMode) throws -> Bool {
        switch mode {
        case .contains:
            for field in fields where try search.contains(text, in: field) { return true }
            return false
        case .prefix:
            for field in fields {
                if let first = try search.matches(of: text, in: field).first, first.lowerBound == 0 { return true }
            }
            return false
        case .fuzzy:
            return try fuzzyMatches(text, fields: fields)
        case .words:
            for word in queryWords(text) {
                var found = false
                for field in fields where !found {
                    for range in try search.matches(of: word, in: field) where isWordStart(range.lowerBound, in: field)
                    {
                        found = true
                        break
                    }
                }
                if !found { return false }
            }
            return true
        }
    }
}

extension ICUReference {
    /// The text read with operators, when it is a words query that uses them.
    fileprivate func operators(_ text: String, mode: MatchMode) -> QueryExpression? {
        guard mode == .words, syntax == .operators else { return nil }
        let expression = QueryExpression(parsing: text)
        return expression.usesOperators ? expression : nil
    }

    /// An expression in three-valued logic over its terms' answers (`rule(text, mode)`: a phrase
    /// in `contains` mode, a word term in `words` mode). A term with no word is left out, as
    /// Sift leaves out terms without collation elements; a phrase without one is undecided.
    fileprivate func matches(
        _ expression: QueryExpression,
        fields: [String],
        rule: (String, MatchMode) throws -> Bool?
    ) throws -> Bool? {
        var result: Bool? = true
        for clause in expression.clauses {
            var counted = false
            var any: Bool? = false
            for term in clause {
                let hasWord = !queryWords(term.text).isEmpty
                if !term.isPhrase && !hasWord { continue }
                counted = true
                let answer = hasWord ? try rule(term.text, term.isPhrase ? .contains : .words) : nil
                switch answer.map({ $0 != term.isNegated }) {
                case true?: any = true
                case nil: if any == false { any = nil }
                case false?: break
                }
                if any == true { break }
            }
            guard counted else { continue }
            switch any {
            case false?: return false
            case nil: result = nil
            case true?: break
            }
        }
        return result
    }
}

// MARK: - Word rules shared by the reference, the naive filter and FTS5 query building

func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
    let properties = scalar.properties
    if properties.isAlphabetic { return true }
    switch properties.generalCategory {
    case .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
        return true
    default:
        return false
    }
}

/// Characters that do not break a word between two letters (UAX #29 MidLetter / MidNumLet).
func isWordInternal(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x27, 0x2E, 0x3A, 0xB7, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A, 0x387,
        0x5F4, 0x55F:
        return true
    default:
        return false
    }
}

/// Query words: runs of letters, marks and digits.
func queryWords(_ text: String) -> [String] {
    var words: [String] = []
    var current = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        if isWordScalar(scalar) {
            current.append(scalar)
        } else if !current.isEmpty {
            words.append(String(current))
            current = String.UnicodeScalarView()
        }
    }
    if !current.isEmpty { words.append(String(current)) }
    return words
}

/// Whether the UTF-16 offset starts a word of `field` (see `ICUReference`).
func isWordStart(_ utf16Offset: Int, in field: String) -> Bool {
    if utf16Offset == 0 { return true }
    return isWordStart(String.Index(utf16Offset: utf16Offset, in: field), in: field)
}

/// Whether the index starts a word of `field` (see `ICUReference`).
func isWordStart(_ index: String.Index, in field: String) -> Bool {
    if index == field.startIndex { return true }
    let before = field.unicodeScalars[..<index]
    guard let previous = before.last else { return true }
    if isWordScalar(previous) { return false }
    if isWordInternal(previous) {
        let rest = before.dropLast()
        if let beforePrevious = rest.last, isWordScalar(beforePrevious),
            let next = field.unicodeScalars[index...].first, isWordScalar(next)
        {
            return false
        }
    }
    return true
}

/// Text whose words ICU finds by the simple rule: no dictionary-broken scripts, no fullwidth forms.
func isSimple(_ text: String) -> Bool {
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0x0E00...0x0EFF, 0x1000...0x109F, 0x1780...0x17FF, 0x19E0...0x19FF, 0x3040...0x30FF, 0x3400...0x9FFF,
            0xF900...0xFAFF, 0xFF00...0xFFEF, 0x20000...0x3FFFF:
            return false
        default:
            continue
        }
    }
    return true
}

/// A query whose words the simple split finds as ICU would: letters, digits and spaces only.
func wordsAreSimple(_ text: String) -> Bool {
    isSimple(text) && text.unicodeScalars.allSatisfy { isWordScalar($0) || $0.properties.isWhitespace }
}
