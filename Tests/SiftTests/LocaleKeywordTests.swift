import Testing

@testable import Sift

/// ICU silently ignores what it does not know in a locale id (`de@collation=bogus` collates as
/// `de`, and C stops reading `de\0xx` at the NUL): Sift refuses such locales instead.
@Suite("Locale ids: keywords and NUL")
struct LocaleKeywordTests {
    static func open(_ locale: String) throws(SiftError) -> SearchIndex {
        try SearchIndex(
            configuration: IndexConfiguration(searchFields: ["name"], collation: Collation(locale: locale)),
            records: [Record(id: "1", fields: ["name": "Müller"])]
        )
    }

    @Test(arguments: [
        ("de@collation=bogus", "unknown collation 'bogus' for locale 'de'"),
        ("de-u-co-bogus", "unknown collation 'bogus' for locale 'de'"),
        ("de@collation=traditional", "unknown collation 'traditional' for locale 'de'"),
        ("de\0xx", "contains a NUL character"),
        ("\0", "contains a NUL character"),
        ("de@calendar=gregorian", "not about collation"),
        ("de@colStrength=primary", "use those instead"),
        ("de@colNumeric=yes", "use those instead"),
        ("de@colReorder=Bogu", "invalid value 'Bogu'"),
        ("de@colCaseFirst=sideways", "invalid value 'sideways'"),
    ])
    func unknownKeywordsAndNULAreInvalidConfigurations(locale: String, reason: String) {
        #expect {
            _ = try Self.open(locale)
        } throws: { error in
            guard case SiftError.invalidConfiguration(let message) = error else { return false }
            return message.contains(reason)
        }
        // A scope's collation is checked the same way.
        #expect(throws: SiftError.self) {
            try SearchIndex(
                configuration: IndexConfiguration(
                    searchFields: ["name"],
                    scopes: [Scope(name: "All"), Scope(name: "Other", collation: Collation(locale: locale))]
                )
            )
        }
    }

    @Test(arguments: [
        "de", "root", "", "de@collation=phonebook", "de-u-co-phonebk", "es@collation=traditional",
        "zh@collation=stroke", "zh@collation=pinyin", "de@colCaseFirst=upper", "de@colReorder=Grek",
        "sv@collation=standard",
    ])
    func knownKeywordsOpen(locale: String) throws {
        _ = try Self.open(locale)
    }

    @Test func anUnknownLanguageIsStillAnUnknownLocale() {
        #expect(throws: SiftError.unknownLocale("klingon")) { try Self.open("klingon") }
    }
}
