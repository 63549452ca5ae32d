// Typo tolerance: bounded prefix distance.
#include "internal.h"

// MARK: - Typo tolerance (bounded prefix distance)
//
// The optimal string alignment distance (Damerau's restricted edit distance: insertions,
// deletions, substitutions, swaps of adjacent elements, no element edited twice) between the
// pattern's elements and the nearest prefix of a record word, by the textbook dynamic programme:
// row j holds the distances of every pattern prefix to the record word's first j elements, and the
// prefix distance is the smallest last entry of a row. Elements are whole codes (1 to 4 bytes,
// packed into a uint32), so multi-byte codes are one element each, as collation elements are.
//
// Two cuts keep it cheap, both exact:
// - A row is only ever computed for j <= m + k (a longer prefix needs more than k insertions).
// - Once a row's smallest entry exceeds k and the previous row's is at least k, no later entry can
//   be k or less (a later entry comes from the row above plus 0 only by the diagonal, from the row
//   above plus 1, or from two rows above plus 1), so the word is done.
// And one filter, necessary for a distance of at most k (so also exact): one of the record word's
// first k + 1 elements equals one of the pattern's first k + 1. Proof: of the pattern's first k + 1
// elements at most k are deleted or substituted (a swap keeps both its elements, each equal to its
// partner), so some q_i (i <= k) is paired with an equal record element; take the first such i.
// Before it, i edits consumed q_0 ... q_(i-1) and at most k - i other edits (insertions, or the
// swap q_i takes part in) came before its partner, which therefore stands at most at position
// i + (k - i) = k. The filter compares lead bytes only (equal codes have equal leads).

typedef struct typo_query {
    uint32_t codes[SIFT_TYPO_MAX_ELEMENTS];
    size_t count;
    uint8_t firstLeads[256];  // lead bytes of the first k + 1 elements
} typo_query;

static inline uint32_t typo_code_at(const uint8_t *bytes, size_t at, size_t *length) {
    size_t n = fuzzy_code_length(bytes[at]);
    uint32_t value = bytes[at];
    for (size_t i = 1; i < n; i++) value = (value << 8) | bytes[at + i];
    *length = n;
    return value;
}

static void typo_prepare(const sift_scan_pattern *p, int k, typo_query *q) {
    q->count = 0;
    memset(q->firstLeads, 0, sizeof q->firstLeads);
    for (size_t i = 0; i < p->length && q->count < SIFT_TYPO_MAX_ELEMENTS;) {
        size_t length;
        uint32_t code = typo_code_at(p->bytes, i, &length);
        if (q->count <= (size_t)k) q->firstLeads[p->bytes[i]] = 1;
        q->codes[q->count++] = code;
        i += length;
    }
}

// The distance of the pattern to the record word at [at, stop) if at most k, else k + 1; the
// number of elements of the (longest) nearest prefix in *prefixLength.
static int typo_word_distance(const typo_query *q, const uint8_t *codes, size_t at, size_t stop, int k,
                              size_t *prefixLength) {
    size_t m = q->count;
    {
        size_t j = at;
        int pass = 0;
        for (int e = 0; e <= k && j < stop; e++) {
            if (q->firstLeads[codes[j]]) {
                pass = 1;
                break;
            }
            j += fuzzy_code_length(codes[j]);
        }
        if (!pass) return k + 1;
    }
    // Only the band |i - j| <= k is computed: an entry outside it is more than k. Every entry is
    // kept at most k + 1 (the recurrence's minimum and +1 commute with that cap, so entries of k
    // or less are exact), and the entries just outside the band that the next row reads are k + 1.
    uint8_t rows[3][SIFT_TYPO_MAX_ELEMENTS + 2];
    uint8_t *before = rows[0], *previous = rows[1], *current = rows[2];
    uint8_t cap = (uint8_t)(k + 1);
    for (size_t i = 0; i <= m + 1; i++) {
        previous[i] = i < cap ? (uint8_t)i : cap;
        before[i] = cap;
        current[i] = cap;
    }
    int best = cap, previousMinimum = 0;
    size_t bestLength = 0;
    uint32_t previousCode = 0;
    size_t limit = m + (size_t)k;
    for (size_t j = 1; j <= limit && at < stop && codes[at]; j++) {
        size_t length;
        uint32_t code = typo_code_at(codes, at, &length);
        at += length;
        size_t low = j > (size_t)k ? j - (size_t)k : 0, high = j + (size_t)k < m ? j + (size_t)k : m;
        int rowMinimum = cap;
        if (low == 0) {
            current[0] = j < cap ? (uint8_t)j : cap;
            rowMinimum = current[0];
            low = 1;
        } else {
            current[low - 1] = cap;
        }
        for (size_t i = low; i <= high; i++) {
            uint32_t element = q->codes[i - 1];
            int value = previous[i - 1] + (element != code);
            int other = previous[i] + 1;
            if (other < value) value = other;
            other = current[i - 1] + 1;
            if (other < value) value = other;
            if (i > 1 && j > 1 && element == previousCode && q->codes[i - 2] == code) {
                other = before[i - 2] + 1;
                if (other < value) value = other;
            }
            if (value > cap) value = cap;
            current[i] = (uint8_t)value;
            if (value < rowMinimum) rowMinimum = value;
        }
        if (high < m) current[high + 1] = cap;
        if (high == m && current[m] <= best) {
            best = current[m];
            bestLength = j;
        }
        if (best == 0 || (rowMinimum > k && previousMinimum >= k)) break;
        previousMinimum = rowMinimum;
        previousCode = code;
        uint8_t *spare = before;
        before = previous;
        previous = current;
        current = spare;
    }
    if (prefixLength) *prefixLength = bestLength;
    return best <= k ? best : k + 1;
}

// The first word start in [from, end), or end.
static inline size_t typo_next_word_start(const sift_column_view *c, size_t from, size_t end) {
    while (from < end) {
        size_t word = from >> 6;
        if (word >= c->wordCount) return end;
        uint64_t bits = c->wordStarts[word] >> (from & 63);
        if (bits) {
            size_t at = from + (size_t)__builtin_ctzll(bits);
            return at < end ? at : end;
        }
        from = (word + 1) << 6;
    }
    return end;
}

// The smallest distance of a record word of [start, end) if at most k (the first found when
// `minimum` is 0), else k + 1.
static int typo_segment(const sift_column_view *c, const typo_query *q, int atWordStarts, size_t start, size_t end,
                        int k, int minimum) {
    if (!atWordStarts) return typo_word_distance(q, c->codes, start, end, k, NULL);
    int best = k + 1;
    for (size_t at = typo_next_word_start(c, start, end); at < end;) {
        size_t next = typo_next_word_start(c, at + 1, end);
        int distance = typo_word_distance(q, c->codes, at, next, k, NULL);
        if (distance < best) {
            best = distance;
            if (!minimum || best == 0) break;
        }
        at = next;
    }
    return best;
}

static inline int typo_edits(int maxEdits) {
    return maxEdits < 0 ? 0 : maxEdits > SIFT_TYPO_MAX_EDITS ? SIFT_TYPO_MAX_EDITS : maxEdits;
}

int sift_typo_one_segment(const sift_column_view *c, const sift_scan_pattern *p, size_t segment, int maxEdits) {
    int k = typo_edits(maxEdits);
    if (segment >= c->segmentCount || test_bit(c->deadSegments, segment)) return k + 1;
    typo_query q;
    typo_prepare(p, k, &q);
    return typo_segment(c, &q, p->requireWordStart, segment_start(c, segment), segment_end(c, segment), k, 1);
}

// The one-edit filter of a pattern of 5 or more elements, exact (derived case by case, and checked
// against the distance on 200,000 random short strings over a small alphabet): with at most one edit, the record word's first three
// elements r0 r1 r2 and the pattern's q0 q1 q2 satisfy one of r0 = q0 and (r1 = q1, r2 = q2,
// r2 = q1 or r1 = q2) [no edit, or one after q0]; r1 = q1 and r2 = q2 [q0 substituted]; r0 = q1
// and r1 = q2 [q0 deleted]; r1 = q0 and r2 = q1 [an element inserted first]; r0 = q1 and r1 = q0
// [q0 and q1 swapped]. Compared by lead bytes (equal codes have equal leads).

// The masks of the bytes at [pos, pos + 64): equal to each of `leads` lead bytes (at most six),
// 0x80 or more (a code longer than a byte), and 0 (a separator); bytes at `limit` or later are in
// none.
typedef struct typo_masks {
    uint64_t lead[6];
    uint64_t high;
    uint64_t zero;
} typo_masks;

static inline __attribute__((always_inline)) void typo_block_masks(const uint8_t *codes, size_t pos, size_t limit,
                                                                   const uint8_t *lead, int leads, typo_masks *m) {
    typo_masks r = {{0, 0, 0, 0, 0, 0}, 0, 0};
#if defined(__x86_64__)
    if (pos + 64 <= limit) {
        __m128i vz = _mm_setzero_si128();
        for (int i = 0; i < 4; i++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(codes + pos + 16 * i));
            int shift = 16 * i;
            for (int k = 0; k < leads; k++) {
                __m128i e = _mm_cmpeq_epi8(v, _mm_set1_epi8((char)lead[k]));
                r.lead[k] |= (uint64_t)(uint32_t)_mm_movemask_epi8(e) << shift;
            }
            r.high |= (uint64_t)(uint32_t)_mm_movemask_epi8(v) << shift;
            r.zero |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vz)) << shift;
        }
        *m = r;
        return;
    }
#endif
    for (size_t i = 0; i < 64 && pos + i < limit; i++) {
        uint8_t byte = codes[pos + i];
        for (int k = 0; k < leads; k++) r.lead[k] |= (uint64_t)(byte == lead[k]) << i;
        r.high |= (uint64_t)(byte >> 7) << i;
        r.zero |= (uint64_t)(byte == 0) << i;
    }
    *m = r;
}

// Bits of `x` moved down by `d` (0 to 63) with the low bits of the next block's `after` on top:
// bit i tells about byte i + d.
static inline uint64_t typo_ahead(uint64_t x, uint64_t after, int d) {
    return d == 0 ? x : (x >> d) | (after << (64 - d));
}

// The two-edit filter, necessary for a distance of at most 2 from a pattern of 8 or more
// elements (so also exact): split the pattern's first eight into the blocks (q0 q1), (q3 q4),
// (q6 q7), one element apart. An edit breaks at most one block (a substitution, deletion or swap
// touches the elements of one block at most, since a swap across a gap moves one block element;
// an insertion breaks a block only between its two elements), so with two edits one block is
// matched whole, its two elements side by side in the record word, shifted by the insertions
// minus the deletions before it. Where: (q0 q1) at word element 0, or, after insertions before
// it, one of the later blocks is whole too; else (q3 q4) at 2 to 4 (one edit before it, which
// broke (q0 q1); a second edit before it would leave (q6 q7) whole); else (q6 q7) at 4 to 8.
// Element offsets are byte offsets where the word's first ten bytes are one-byte codes; a word
// start with a longer code there goes to the distance unfiltered.

// The word starts of a block that a filter lets through: for one edit (leads q0 q1 q2) the
// one-edit filter above, where the word's first two bytes are one-byte codes (r1 and r2 are then
// the bytes after r0); for two edits (leads q0 q1 q3 q4 q6 q7) the two-edit filter. Both also let
// through every word start whose bytes they cannot read as elements.
static inline __attribute__((always_inline)) uint64_t typo_filter(const typo_masks *here, const typo_masks *after,
                                                                  int k) {
    if (k == 1) {
        uint64_t r0q0 = here->lead[0], r0q1 = here->lead[1];
        uint64_t r1q0 = typo_ahead(here->lead[0], after->lead[0], 1);
        uint64_t r1q1 = typo_ahead(here->lead[1], after->lead[1], 1);
        uint64_t r1q2 = typo_ahead(here->lead[2], after->lead[2], 1);
        uint64_t r2q1 = typo_ahead(here->lead[1], after->lead[1], 2);
        uint64_t r2q2 = typo_ahead(here->lead[2], after->lead[2], 2);
        uint64_t pass =
            (r0q0 & (r1q1 | r2q2 | r2q1 | r1q2)) | (r1q1 & r2q2) | (r0q1 & r1q2) | (r1q0 & r2q1) | (r0q1 & r1q0);
        return pass | here->high | typo_ahead(here->high, after->high, 1);
    }
    uint64_t pass = 0, longer = 0;
    for (int d = 0; d <= 9; d++) longer |= typo_ahead(here->high, after->high, d);
    // Block b (0, 1, 2) at element offsets lowest[b] ... highest[b].
    static const int lowest[3] = {0, 2, 4}, highest[3] = {0, 4, 8};
    for (int b = 0; b < 3; b++) {
        for (int d = lowest[b]; d <= highest[b]; d++) {
            pass |= typo_ahead(here->lead[2 * b], after->lead[2 * b], d) &
                    typo_ahead(here->lead[2 * b + 1], after->lead[2 * b + 1], d + 1);
        }
    }
    return pass | longer;
}

// The sweep at word starts with k (1 or 2) edits of a pattern of 5 (one edit) or 8 (two) or more
// elements, 64 code bytes at a time and without a branch per word start: `typo_filter` on whole
// blocks of masks, then the distance. Bytes past a word's end only ever let more word starts
// through.
static inline __attribute__((always_inline)) void typo_sweep_masked_body(const sift_column_view *c,
                                                                         const typo_query *q,
                                                                         const sift_scan_pattern *p,
                                                                         size_t firstSegment, size_t lastSegment,
                                                                         uint64_t *matched, int k) {
    // The filter's elements: q0 q1 q2 for one edit, q0 q1 q3 q4 q6 q7 for two.
    static const int elements[2][6] = {{0, 1, 2}, {0, 1, 3, 4, 6, 7}};
    const int leads = k == 1 ? 3 : 6;
    uint8_t lead[6] = {0, 0, 0, 0, 0, 0};
    {
        uint8_t all[8];
        for (int i = 0, at = 0; i < (k == 1 ? 3 : 8); i++) {
            all[i] = p->bytes[at];
            at += (int)fuzzy_code_length(p->bytes[at]);
        }
        for (int i = 0; i < leads; i++) lead[i] = all[elements[k - 1][i]];
    }
    size_t first = segment_start(c, firstSegment), stop = segment_end(c, lastSegment - 1) + 1;
    size_t segment = firstSegment;  // the segment at the current block's first byte (or `first`)
    size_t lastMatched = SIZE_MAX;
    // Each block's masks are computed once: the next block's (for the bytes after this block's
    // last) are kept for the next iteration.
    typo_masks here, after;
    typo_block_masks(c->codes, (first >> 6) << 6, c->length, lead, leads, &here);
    for (size_t w = first >> 6; (w << 6) < stop; w++) {
        size_t pos = w << 6;
        uint64_t inRange = ~0ull;
        if (pos < first) inRange &= ~0ull << (first - pos);
        if (stop - pos < 64) inRange &= (1ull << (stop - pos)) - 1;
        typo_block_masks(c->codes, pos + 64, c->length, lead, leads, &after);
        uint64_t starts = w < c->wordCount ? c->wordStarts[w] & inRange : 0;
        uint64_t zero = here.zero & inRange;
        if (starts) {
            uint64_t look = starts & typo_filter(&here, &after, k);
            while (look) {
                size_t bit = (size_t)__builtin_ctzll(look);
                look &= look - 1;
                size_t s = segment + (size_t)__builtin_popcountll(zero & ((1ull << bit) - 1));
                if (s == lastMatched) continue;
                size_t at = pos + bit;
                size_t next = typo_next_word_start(c, at + 1, stop);
                if (typo_word_distance(q, c->codes, at, next, k, NULL) > k) continue;
                int32_t owner = test_bit(c->checkedSegments, s) ? owner_of(c, s) : (int32_t)s;
                if (owner >= 0) set_bit(matched, owner);
                lastMatched = s;
            }
        }
        segment += (size_t)__builtin_popcountll(zero);
        here = after;
    }
}

static void typo_sweep_masked_portable(const sift_column_view *c, const typo_query *q, const sift_scan_pattern *p,
                                       size_t firstSegment, size_t lastSegment, uint64_t *matched, int k) {
    if (k == 1) {
        typo_sweep_masked_body(c, q, p, firstSegment, lastSegment, matched, 1);
    } else {
        typo_sweep_masked_body(c, q, p, firstSegment, lastSegment, matched, 2);
    }
}

#if defined(__x86_64__)
// The same, with the CPU's popcount instruction (every CPU with AVX2 has it).
__attribute__((target("popcnt"))) static void typo_sweep_masked_popcnt(const sift_column_view *c,
                                                                       const typo_query *q,
                                                                       const sift_scan_pattern *p,
                                                                       size_t firstSegment, size_t lastSegment,
                                                                       uint64_t *matched, int k) {
    if (k == 1) {
        typo_sweep_masked_body(c, q, p, firstSegment, lastSegment, matched, 1);
    } else {
        typo_sweep_masked_body(c, q, p, firstSegment, lastSegment, matched, 2);
    }
}
#endif

// `typo_sweep_masked_body` for k = 1 or 2, with popcount where the CPU has it.
static void typo_sweep_masked(const sift_column_view *c, const typo_query *q, const sift_scan_pattern *p,
                              size_t firstSegment, size_t lastSegment, uint64_t *matched, int k) {
#if defined(__x86_64__)
    if (sift_kernel_level() >= SIFT_KERNEL_AVX2) {
        typo_sweep_masked_popcnt(c, q, p, firstSegment, lastSegment, matched, k);
        return;
    }
#endif
    typo_sweep_masked_portable(c, q, p, firstSegment, lastSegment, matched, k);
}

void sift_typo_sweep(const sift_column_view *c, const sift_scan_pattern *p, size_t firstSegment, size_t lastSegment,
                     int maxEdits, uint64_t *matched) {
    if (firstSegment >= lastSegment) return;
    int k = typo_edits(maxEdits);
    typo_query q;
    typo_prepare(p, k, &q);
    if (p->requireWordStart && ((k == 1 && q.count >= 5) || (k == 2 && q.count >= 8))) {
        typo_sweep_masked(c, &q, p, firstSegment, lastSegment, matched, k);
        return;
    }
    size_t start = segment_start(c, firstSegment);
    for (size_t s = firstSegment; s < lastSegment; s++) {
        size_t end = segment_end(c, s);
        if (end > start) {
            int32_t owner = test_bit(c->checkedSegments, s) ? owner_of(c, s) : (int32_t)s;
            if (owner >= 0 && typo_segment(c, &q, p->requireWordStart, start, end, k, 0) <= k) set_bit(matched, owner);
        }
        start = end + 1;
    }
}

size_t sift_typo_scan_candidates(const sift_column_view *c, const sift_scan_pattern *p, size_t slotCount,
                                 const uint64_t *base, size_t firstWord, size_t lastWord, int maxEdits,
                                 uint64_t *matched) {
    // (Not `k`: the candidate loop's own index is.)
    int edits = typo_edits(maxEdits);
    typo_query q;
    typo_prepare(p, edits, &q);
    size_t examined = 0;
    SIFT_FUZZY_FOR_EACH_CANDIDATE(c, slotCount, base, firstWord, lastWord, examined, 0, {
        if (end > start && typo_segment(c, &q, p->requireWordStart, start, end, edits, 0) <= edits) {
            set_bit(matched, slot);
        }
    });
    return examined;
}

size_t sift_typo_matches_in_segment(const sift_column_view *c, const sift_scan_pattern *p, size_t segment,
                                    int maxEdits, int32_t *out, size_t capacity) {
    int k = typo_edits(maxEdits);
    if (segment >= c->segmentCount || test_bit(c->deadSegments, segment)) return 0;
    typo_query q;
    typo_prepare(p, k, &q);
    size_t start = segment_start(c, segment), end = segment_end(c, segment), found = 0;
    size_t element = 0, counted = start;
    size_t at = p->requireWordStart ? typo_next_word_start(c, start, end) : start;
    while (at < end && found < capacity) {
        size_t next = p->requireWordStart ? typo_next_word_start(c, at + 1, end) : end;
        size_t length = 0;
        if (typo_word_distance(&q, c->codes, at, next, k, &length) <= k) {
            for (; counted < at; counted++) element += (c->codes[counted] & 0xC0) != 0x80;
            out[2 * found] = (int32_t)element;
            out[2 * found + 1] = (int32_t)length;
            found++;
        }
        if (!p->requireWordStart) break;
        at = next;
    }
    return found;
}
