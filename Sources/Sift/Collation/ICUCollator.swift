internal import CSiftICU

/// An ICU collator opened from `Collation` options. Immutable after opening; folders clone it.
///
/// `@unchecked Sendable`: nothing changes the collator after `init` (its attributes are set
/// while it opens), and ICU documents a `const` collator as safe to use and clone from several
/// threads at once, so `ICUObjectCache` shares one among indexes and threads.
final class ICUCollator: @unchecked Sendable {
    let collation: Collation
    let handle: OpaquePointer

    init(_ collation: Collation) throws(SiftError) {
        self.collation = collation
        try Self.checkLocale(collation.locale)
        var status: Int32 = 0
        let opened: OpaquePointer? = collation.locale.withCString { locale in
            var options = sift_collator_options()
            options.locale = locale
            options.strength = Self.icuStrength(collation.strength)
            options.alternateShifted = collation.alternate == .shifted ? 1 : 0
            options.normalization = collation.normalization ? 1 : 0
            options.caseLevel = collation.caseLevel ? 1 : 0
            // Numeric collation is for sorting only: ICU string search does not support it.
            options.numeric = collation.isSortingCollation && collation.sortOptions.numeric ? 1 : 0
            guard var rules = collation.rules else {
                return sift_collator_open(&options, &status)
            }
            return rules.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    options.rules = chars.baseAddress
                    options.rulesLength = Int32(chars.count)
                    return sift_collator_open(&options, &status)
                }
            }
        }
        guard let opened, status <= 0 else {
            if status == 1 && collation.rules == nil { throw .unknownLocale(collation.locale) }
            throw .icu(operation: "open a collator", locale: collation.locale, status: statusName(status))
        }
        handle = opened
    }

    deinit { sift_collator_close(handle) }

    /// Refuses what ICU would silently ignore in a locale id: a NUL character (C would cut the id
    /// there) and keywords it does not know or Sift sets otherwise (see
    /// `sift_locale_keyword_problem`).
    static func checkLocale(_ locale: String) throws(SiftError) {
        guard !locale.utf8.contains(0) else {
            throw .invalidConfiguration("the locale '\(locale.replacing("\0", with: "\\0"))' contains a NUL character")
        }
        var buffer = [CChar](repeating: 0, count: 1024)
        let length = Int(locale.withCString { sift_locale_keyword_problem($0, &buffer, Int32(buffer.count)) })
        guard length > 0 else { return }
        let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw .invalidConfiguration(reason)
    }

    /// The collator's version ("a.b.c.d"): folded elements are comparable only between equal versions.
    var version: String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = sift_collator_version(handle, &buffer, Int32(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What decides this collator's elements, as `key=value` pairs separated by `;`: its version,
    /// valid locale, every attribute, reorder codes and a hash of its tailoring rules (see
    /// `sift_collator_identity`).
    var identity: String {
        var buffer = [CChar](repeating: 0, count: 512)
        let length = Int(sift_collator_identity(handle, &buffer, Int32(buffer.count)))
        if length >= buffer.count {
            buffer = [CChar](repeating: 0, count: length + 1)
            _ = sift_collator_identity(handle, &buffer, Int32(buffer.count))
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func icuStrength(_ strength: Collation.Strength) -> Int32 {
        switch strength {
        case .primary: return Int32(SIFT_STRENGTH_PRIMARY)
        case .secondary: return Int32(SIFT_STRENGTH_SECONDARY)
        case .tertiary: return Int32(SIFT_STRENGTH_TERTIARY)
        case .quaternary: return Int32(SIFT_STRENGTH_QUATERNARY)
        case .identical: return Int32(SIFT_STRENGTH_IDENTICAL)
        }
    }
}

/// ICU's version string, e.g. `72.1`.
