internal import Dispatch

/// The ICU objects an index opens that do not change once opened, shared by every index (and
/// `ReferenceSearch`) of the process: collators by `Collation`, alphabetic indexes by locale.
///
/// Opening them is most of what a small index costs to build: an AlphabeticIndex enumerates and
/// sorts the locale's exemplar characters (about 5% of the fuzzer's time when every input built
/// one), a collator parses its settings. Both are only ever read after opening, and ICU documents
/// reading them as thread-safe (a `const` collator may be used and cloned from any thread;
/// `AlphabeticIndex::ImmutableIndex` is its thread-safe form), so one instance can serve every
/// index and thread. Each cache holds at most `capacity` entries and is emptied when full. Only
/// the locale of a cached collator's `collation` is read later (in error messages), and every
/// collation that maps to it has that locale.
enum ICUObjectCache {
    /// Entries a cache holds before it is emptied: far more distinct collations than a process
    /// normally uses, few enough that a process trying many locales stays small.
    static let capacity = 32

    /// What decides the collator `ICUCollator.init` opens: the collation and its sort options,
    /// which `Collation`'s own equality leaves out (a sorting collation opens numeric when
    /// `sortOptions.numeric` says so).
    private struct CollatorKey: Hashable {
        let collation: Collation
        let isSortingCollation: Bool
        let sortOptions: SortOptions

        init(_ collation: Collation) {
            self.collation = collation
            isSortingCollation = collation.isSortingCollation
            sortOptions = collation.sortOptions
        }
    }

    private static let collators = SharedCache<CollatorKey, ICUCollator>(label: "Sift.ICUObjectCache.collators")
    private static let alphabeticIndexes = SharedCache<String, ICUAlphabeticIndex>(
        label: "Sift.ICUObjectCache.alphabeticIndexes"
    )

    /// The collator for `collation`, opened on first use.
    ///
    /// - Throws: what `ICUCollator.init` throws (a failure is not cached).
    static func collator(_ collation: Collation) throws(SiftError) -> ICUCollator {
        let key = CollatorKey(collation)
        if let cached = collators.value(for: key) { return cached }
        return collators.insert(try ICUCollator(collation), for: key, capacity: capacity)
    }

    /// The alphabetic index of `locale`, opened on first use.
    ///
    /// - Throws: what `ICUAlphabeticIndex.init` throws (a failure is not cached).
    static func alphabeticIndex(locale: String) throws(SiftError) -> ICUAlphabeticIndex {
        if let cached = alphabeticIndexes.value(for: locale) { return cached }
        return alphabeticIndexes.insert(try ICUAlphabeticIndex(locale: locale), for: locale, capacity: capacity)
    }
}

/// A dictionary that threads share, each access on a serial dispatch queue. Not
/// `Synchronization.Mutex`: ThreadSanitizer cannot see its futex, and reported the accesses it
/// guards in this process-wide cache as races; it does see libdispatch.
private final class SharedCache<Key: Hashable, Value>: @unchecked Sendable {
    private let queue: DispatchQueue
    private var entries: [Key: Value] = [:]

    init(label: String) { queue = DispatchQueue(label: label) }

    func value(for key: Key) -> Value? { queue.sync { entries[key] } }

    /// Stores `value` unless another thread stored one first, and returns the one kept; empties
    /// the cache first when it holds `capacity` entries.
    func insert(_ value: Value, for key: Key, capacity: Int) -> Value {
        queue.sync {
            if let cached = entries[key] { return cached }
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = value
            return value
        }
    }
}
