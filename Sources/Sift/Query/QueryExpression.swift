/// How `.words` mode reads the operators `-`, `"…"` and `|` in a query's text.
public enum QuerySyntax: String, Hashable, Sendable, CaseIterable {
    /// `-word` excludes, `"two words"` must occur contiguously, `a | b` matches either (see
    /// `QueryExpression`). The default. Only `.words` mode reads operators.
    case operators
    /// Every character is text: ICU's word breaking makes words of the query, and the
    /// punctuation between them (`-`, `"`, `|` among it) separates words and is otherwise ignored.
    case literal
}

/// A `.words` query read with `QuerySyntax.operators`: an AND of clauses, each an OR of terms.
///
/// - A **word term** is a run of text outside quotes, up to whitespace or `|`. It matches like a
///   whole `.words` query: each of its ICU words must match the start of some word of the record
///   (so `foo-bar` needs `foo` and `bar`, as in literal words mode).
/// - A **phrase term** is the text between two `"`: its collation elements must occur contiguously
///   anywhere in one field (the `.contains` rule), the text folded as one pattern.
/// - A term that starts with `-` (followed by more than whitespace or `|`) is **negated**: it
///   matches the records the rest of the term does not match.
/// - Terms side by side are clauses that must all match; `a | b` (with or without spaces) joins
///   terms into one clause that matches when any of them does. `|` binds tighter than the
///   implicit AND: `a b | c d` is `a AND (b OR c) AND d`.
///
/// Never an error: a lone `-`, a `-` inside a word (`foo-bar`), a `"` without a closing `"`, and a
/// `|` without a term on both sides are ordinary characters of the text, which ICU's word breaking
/// then treats as in literal words mode (as punctuation between words). A query of negated terms
/// only matches every record except those; a term without collation elements is left out.
///
/// ```swift
/// let expression = QueryExpression(parsing: "vim | emacs -\"neo vim\"")
/// expression.clauses.count        // 2: (vim OR emacs) AND NOT "neo vim"
/// expression.clauses[1][0].isPhrase   // true
/// ```
///
/// `SearchIndex` reads a `.words` query this way when its `syntax` is `.operators`; the type is
/// public so that tools and tests can show or check how a text reads.
public struct QueryExpression: Hashable, Sendable {
    /// One term of a clause.
    public struct Term: Hashable, Sendable {
        /// The term's text, without its `-` or its quotes.
        public var text: String
        /// Whether the text was quoted: a phrase, matched by the `.contains` rule.
        public var isPhrase: Bool
        /// Whether the term was written `-term`.
        public var isNegated: Bool

        /// A term.
        public init(text: String, isPhrase: Bool, isNegated: Bool) {
            self.text = text
            self.isPhrase = isPhrase
            self.isNegated = isNegated
        }
    }

    /// The clauses, each a non-empty OR of terms; a record matches when every clause matches.
    public var clauses: [[Term]]
    /// Whether the text used any operator (a negation, a closed quote, an `|` between two terms):
    /// without one, the query reads exactly as in literal words mode.
    public var usesOperators: Bool

    /// Reads a query's text. Total: every text has a reading.
    ///
    /// - Complexity: O(*n*) in the number of characters of `text`.
    public init(parsing text: String) {
        let characters = Array(text)
        // The index of the closing quote for each opening one, from the right: a `"` closes the
        // nearest `"` before it that is not itself closing one.
        var closingQuote = [Int?](repeating: nil, count: characters.count)
        var nextQuote: Int? = nil
        for index in characters.indices.reversed() where characters[index] == "\"" {
            closingQuote[index] = nextQuote
            nextQuote = index
        }
        enum Token {
            case term(Term)
            case bar
        }
        var tokens: [Token] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "|" {
                tokens.append(.bar)
                index += 1
                continue
            }
            var negated = false
            if character == "-", index + 1 < characters.count, !characters[index + 1].isWhitespace,
                characters[index + 1] != "|"
            {
                negated = true
                index += 1
            }
            // Scanning jumps past every closing quote it uses, so a quote reached here opens.
            if characters[index] == "\"", let close = closingQuote[index] {
                tokens.append(
                    .term(Term(text: String(characters[(index + 1)..<close]), isPhrase: true, isNegated: negated))
                )
                index = close + 1
                continue
            }
            var end = index + 1
            while end < characters.count, !characters[end].isWhitespace, characters[end] != "|",
                !(characters[end] == "\"" && closingQuote[end] != nil)
            {
                end += 1
            }
            tokens.append(.term(Term(text: String(characters[index..<end]), isPhrase: false, isNegated: negated)))
            index = end
        }
        var clauses: [[Term]] = []
        var usesOperators = false
        var joinsNext = false
        for (position, token) in tokens.enumerated() {
            switch token {
            case .bar:
                // An operator only between two terms; otherwise a literal `|` (no word).
                if case .term? = position > 0 ? tokens[position - 1] : nil,
                    position + 1 < tokens.count, case .term = tokens[position + 1]
                {
                    joinsNext = true
                    usesOperators = true
                }
            case .term(let term):
                if term.isNegated || term.isPhrase { usesOperators = true }
                if joinsNext, !clauses.isEmpty {
                    clauses[clauses.count - 1].append(term)
                } else {
                    clauses.append([term])
                }
                joinsNext = false
            }
        }
        self.clauses = clauses
        self.usesOperators = usesOperators
    }
}
