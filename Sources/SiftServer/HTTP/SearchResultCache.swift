import Sift
import SiftStorage
import Synchronization

/// The answers of recent `GET /search` queries, so that programs asking the same queries again
/// (a page of results after another, the same popular queries from many clients) read a page
/// instead of searching again. An answer is kept for the index revision it was computed at: any
/// edit makes it stale.
///
/// At most `capacity` answers and `rowBudget` rows in all are kept (least recently used first
/// out): at most 8 bytes a row (128 MB for the default 16 million) when the rows are handles, far
/// less for broad answers in original order, which stay bitsets. The budget must hold the
/// queries a load repeats: least-recently-used over a rotation that does not fit keeps nothing
/// useful.
final class SearchResultCache: Sendable {
    private struct Entry {
        var result: SearchResult
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Query: Entry] = [:]
        var rows = 0
        var clock: UInt64 = 0
    }

    let capacity: Int
    let rowBudget: Int
    private let state = Mutex(State())

    init(capacity: Int = 256, rowBudget: Int = 16_000_000) {
        self.capacity = capacity
        self.rowBudget = rowBudget
    }

    /// The kept answer to `query` at `revision`, if any.
    ///
    /// - Complexity: O(1).
    func result(for query: Query, revision: UInt64) -> SearchResult? {
        state.withSanitizerVisibleLock { state in
            guard var entry = state.entries[query] else { return nil }
            guard entry.result.revision == revision else {
                state.rows -= entry.result.rowCount
                state.entries[query] = nil
                return nil
            }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[query] = entry
            return entry.result
        }
    }

    /// Keeps an answer, dropping the least recently used ones past the limits.
    ///
    /// - Complexity: O(1), plus O(*k*) for each answer dropped, *k* the answers kept.
    func keep(_ result: SearchResult, for query: Query) {
        guard result.rowCount <= rowBudget else { return }
        state.withSanitizerVisibleLock { state in
            if let old = state.entries[query] { state.rows -= old.result.rowCount }
            state.clock += 1
            state.entries[query] = Entry(result: result, lastUse: state.clock)
            state.rows += result.rowCount
            while state.entries.count > capacity || state.rows > rowBudget {
                guard let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
                state.rows -= oldest.value.result.rowCount
                state.entries[oldest.key] = nil
            }
        }
    }
}
