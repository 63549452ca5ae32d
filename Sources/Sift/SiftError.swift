/// Errors thrown by Sift's index and query APIs. Misuse never traps: it throws one of these.
public enum SiftError: Error, Hashable, Sendable, CustomStringConvertible {
    /// ICU rejected a collator, iterator or index: the operation, the locale and ICU's status name.
    case icu(operation: String, locale: String, status: String)
    /// A locale ICU does not know (ICU itself would silently fall back to root).
    case unknownLocale(String)
    /// No scope with this name.
    case unknownScope(String)
    /// No field with this name in the index's configuration.
    case unknownField(String)
    /// No record with this id.
    case unknownRecord(id: String)
    /// The handle no longer refers to a live record (deleted, or from before an update).
    case staleHandle
    /// The handle was made by another index (every index tags its handles; a loaded snapshot is
    /// another index too).
    case foreignHandle
    /// A row or position outside `0..<count`.
    case positionOutOfRange(Int, count: Int)
    /// Another record already has this id.
    case duplicateID(String)
    /// A configuration that cannot work (the message says why).
    case invalidConfiguration(String)
    /// A snapshot file could not be written or read: its path and why (unreadable, not a
    /// snapshot, truncated, corrupted, another format version or ICU version, or stored settings
    /// that do not match its folded data).
    case snapshot(path: String, reason: String)
    /// The index cannot hold more (the message says what is full), e.g. a field's text past the
    /// 4 GiB a column addresses. The index is unchanged.
    case capacityExceeded(String)
    /// A query past one of the index's `QueryLimits`: the limit's name (`maximumLength`,
    /// `maximumTerms` or `maximumTypoWords`), the query's size by that measure (UTF-8 bytes, distinct
    /// terms, distinct words that tolerate typos) and the limit.
    case queryTooLarge(limit: String, size: Int, maximum: Int)

    /// One line saying what went wrong, e.g. `unknown scope 'Europe'`.
    public var description: String {
        switch self {
        case .icu(let operation, let locale, let status):
            return "ICU failed to \(operation) for locale '\(locale)': \(status)"
        case .unknownLocale(let locale): return "unknown locale '\(locale)'"
        case .unknownScope(let name): return "unknown scope '\(name)'"
        case .unknownField(let name): return "unknown field '\(name)'"
        case .unknownRecord(let id): return "no record with id '\(id)'"
        case .staleHandle: return "the record handle is stale (the record was deleted or updated)"
        case .foreignHandle: return "the record handle belongs to another index"
        case .positionOutOfRange(let position, let count):
            return "position \(position) is out of range (0..<\(count))"
        case .duplicateID(let id): return "a record with id '\(id)' already exists"
        case .invalidConfiguration(let message): return "invalid configuration: \(message)"
        case .snapshot(let path, let reason): return "\(path): \(reason)"
        case .capacityExceeded(let message): return "the index is full: \(message)"
        case .queryTooLarge(let limit, let size, let maximum):
            let measure =
                limit == QueryLimits.lengthName
                ? "UTF-8 bytes"
                : limit == QueryLimits.termsName ? "distinct terms" : "distinct words that tolerate typos"
            return "the query is too large: \(size) \(measure), at most \(maximum) (QueryLimits.\(limit))"
        }
    }
}
