/// How text is compared: an ICU collator's locale and attributes.
///
/// One `Collation` drives everything Sift does with text for an index or a scope: which records
/// match a query (ICU string search semantics), the order of a sorted list, its section titles and
/// the highlighted ranges.
///
/// ```swift
/// let spanish = Collation(locale: "es")                  // "nino" does not find "niño"
/// let english = Collation(locale: "en")                  // "nino" finds "niño"
/// let exact = Collation(locale: "de", strength: .tertiary)
/// let loose = Collation(locale: "root", alternate: .shifted) // "rock n roll" finds "Rock'n'Roll"
/// ```
public struct Collation: Hashable, Sendable, CustomStringConvertible {
    /// Which differences count when comparing text.
    public enum Strength: String, Hashable, Sendable, CaseIterable {
        /// Base letters only: case and accents are ignored (`jose` finds `José`).
        case primary
        /// Base letters and accents: case is ignored.
        case secondary
        /// Base letters, accents and case.
        case tertiary
        /// Tertiary plus the difference between punctuation ignored by `shifted` and none.
        case quaternary
        /// Everything, down to code points after canonical (NFD) normalization.
        case identical
    }

    /// How variable characters (spaces, punctuation, symbols) are treated.
    public enum Alternate: String, Hashable, Sendable, CaseIterable {
        /// Spaces and punctuation are characters like any other.
        case nonIgnorable = "non-ignorable"
        /// Spaces and punctuation are ignored (below quaternary strength).
        case shifted
    }

    /// ICU locale identifier: `root`, `en`, `es`, `de`, `da`, `sv`, `es@collation=traditional`, ...
    ///
    /// Where ICU would silently fall back, opening an index throws instead: a language ICU does
    /// not know is `SiftError.unknownLocale`; a NUL character, a `collation=` type the locale does
    /// not have (`de@collation=bogus`, `de@collation=traditional`), a keyword that is not about
    /// collation (`@calendar=…`), one that sets what ``strength``, ``alternate``,
    /// ``normalization``, ``caseLevel`` or `SortOptions.numeric` set (`@colStrength=…`), or a
    /// value ICU refuses (`@colReorder=Bogu`) is `SiftError.invalidConfiguration`.
    public var locale: String
    /// Which differences count. The default, `.primary`, ignores case and accents.
    public var strength: Strength
    /// Whether spaces and punctuation count. The default is `.nonIgnorable`.
    public var alternate: Alternate
    /// Canonical normalization: when on (the default), NFC and NFD forms of a text match each other.
    public var normalization: Bool
    /// ICU's case level: distinguishes case at primary or secondary strength.
    public var caseLevel: Bool
    /// Extra tailoring in ICU rule syntax, applied on top of the locale (e.g. `"& o ; p"`).
    public var rules: String?

    /// Creates collation options; every argument has the default a search box wants.
    public init(
        locale: String = "root",
        strength: Strength = .primary,
        alternate: Alternate = .nonIgnorable,
        normalization: Bool = true,
        caseLevel: Bool = false,
        rules: String? = nil
    ) {
        self.locale = locale
        self.strength = strength
        self.alternate = alternate
        self.normalization = normalization
        self.caseLevel = caseLevel
        self.rules = rules
    }

    /// A compact summary, e.g. `es/primary/non-ignorable`.
    public var description: String {
        var parts = [locale, strength.rawValue, alternate.rawValue]
        if !normalization { parts.append("no-normalization") }
        if caseLevel { parts.append("case-level") }
        if rules != nil { parts.append("rules") }
        return parts.joined(separator: "/")
    }

    /// The sort options of the index this collation belongs to: `IndexConfiguration.collation`
    /// hands them over (its `sortOptions`), for `sortingCollation`. Not part of equality: it is
    /// how a configuration's sort options reach the sort collator, not a property of matching.
    var sortOptions = SortOptions()

    /// True for the collation `sortingCollation` makes: its collator turns ICU's numeric
    /// collation on when `sortOptions.numeric` says so. Not part of equality.
    var isSortingCollation = false

    /// The options for sorting and sectioning with the same locale: tertiary strength, so that
    /// case and accents order equal base letters deterministically; with `sortOptions.alternate`
    /// `.shifted`, spaces and punctuation are ignored at the first three levels and order ties
    /// at the quaternary level.
    var sortingCollation: Collation {
        var copy = self
        copy.strength = sortOptions.alternate == .shifted ? .quaternary : .tertiary
        copy.alternate = sortOptions.alternate
        copy.normalization = true
        copy.isSortingCollation = true
        return copy
    }
}

extension Collation {
    /// Collations are equal when their locale and attributes are; the sort options an index
    /// configuration hands over are not compared (`IndexConfiguration` compares its own).
    public static func == (a: Collation, b: Collation) -> Bool {
        a.locale == b.locale && a.strength == b.strength && a.alternate == b.alternate
            && a.normalization == b.normalization && a.caseLevel == b.caseLevel && a.rules == b.rules
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(locale)
        hasher.combine(strength)
        hasher.combine(alternate)
        hasher.combine(normalization)
        hasher.combine(caseLevel)
        hasher.combine(rules)
    }
}
