/// The dispatch from a field pattern's key to its `MatchStrategy`: the one place the query code
/// chooses by mode. Callers (the cache, the scope results, ranking, highlights) go through these.

internal import SiftStorage

extension SearchIndex {
    /// Candidate and match status of one slot for a field pattern.
    ///
    /// - Complexity: O(*s*) in the size of the slot's field.
    func evaluate(_ key: MatchKey, slot: Int32) -> (candidate: Bool, matched: Bool) {
        switch key.strategy {
        case .exact: evaluateExact(key, slot: slot)
        case .fuzzy: evaluateFuzzy(key, slot: slot)
        case .typo: evaluateTypos(key, slot: slot)
        }
    }

    /// Every segment of the key's column checked for the pattern, split among the machine's
    /// cores where the column is large (see `ParallelSweep`); this thread alone asks
    /// `isCancelled`.
    ///
    /// - Complexity: O(*n*) in the folded size of the field, divided among the cores.
    func fullScan(_ key: MatchKey, _ isCancelled: () -> Bool) throws -> FieldMatch {
        switch key.strategy {
        case .exact: try fullScanExact(key, isCancelled)
        case .fuzzy: try fullScanFuzzy(key, isCancelled)
        case .typo: try fullScanTypos(key, isCancelled)
        }
    }

    /// The pattern checked in the candidates of `base` only, the cached result of a shorter
    /// pattern that provably holds every match of this one (`MatchCache.narrows(_:_:)`).
    ///
    /// - Complexity: O(*k*) in the size of the *k* candidate records.
    func narrowedScan(
        _ key: MatchKey,
        candidates base: Bitset,
        _ run: inout QueryRun
    ) throws -> FieldMatch {
        switch key.strategy {
        case .exact: try narrowedScanExact(key, candidates: base, &run)
        case .fuzzy: try narrowedScanFuzzy(key, candidates: base, &run)
        case .typo: try narrowedScanTypos(key, candidates: base, &run)
        }
    }

    /// Whether a scan of `key` should narrow `candidates` rather than scan the whole column.
    ///
    /// - Complexity: O(1) (the candidates' count is kept).
    func narrowsFrom(_ key: MatchKey, _ candidates: Bitset) -> Bool {
        switch key.strategy {
        case .exact: exactNarrowsFrom(candidates)
        case .fuzzy: fuzzyNarrowsFrom(candidates)
        case .typo: true  // a typo sweep reads every byte of the column either way
        }
    }
}
