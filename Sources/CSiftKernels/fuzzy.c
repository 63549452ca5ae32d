// Fuzzy (subsequence) matching and its scores.
#include "internal.h"

// MARK: - Fuzzy (subsequence) matching
//
// A segment matches a fuzzy pattern when the pattern's elements occur in it in order, not
// necessarily adjacent. Codes are self-synchronizing (a lead byte is never a continuation byte),
// so a byte search for an element's lead byte lands on element boundaries only, and the greedy
// leftmost search (each element found as early as possible after the previous one) decides the
// subsequence test. Start, end and word-start flags play no part in whether a segment matches.


// The first occurrence of the code `e` (`len` bytes) in [j, end), or `end`.
static inline size_t fuzzy_find(const uint8_t *codes, size_t j, size_t end, const uint8_t *e, size_t len) {
    while (j < end) {
        const uint8_t *hit = memchr(codes + j, e[0], end - j);
        if (!hit) return end;
        size_t at = (size_t)(hit - codes);
        if (len == 1 || (at + len <= end && middle_equal(codes + at + 1, e + 1, len - 1))) return at;
        j = at + 1;
    }
    return end;
}

// The last occurrence of the code `e` (`len` bytes) in [start, j), or SIZE_MAX.
static inline size_t fuzzy_find_last(const uint8_t *codes, size_t start, size_t j, const uint8_t *e, size_t len) {
    while (j > start) {
        const uint8_t *hit = memrchr(codes + start, e[0], j - start);
        if (!hit) return SIZE_MAX;
        size_t at = (size_t)(hit - codes);
        if (len == 1 || (at + len <= j && middle_equal(codes + at + 1, e + 1, len - 1))) return at;
        j = at;
    }
    return SIZE_MAX;
}

// Whether the pattern's elements occur in [start, end) in order (greedy leftmost).
static inline int fuzzy_segment(const uint8_t *codes, size_t start, size_t end, const sift_scan_pattern *p) {
    size_t j = start;
    for (size_t i = 0; i < p->length;) {
        size_t len = fuzzy_code_length(p->bytes[i]);
        size_t at = fuzzy_find(codes, j, end, p->bytes + i, len);
        if (at >= end) return 0;
        j = at + len;
        i += len;
    }
    return 1;
}

// One aligned element's part of a fuzzy score (element `e` of the pattern, with `bonus` where it
// is, `adjacent` when right after the previous aligned element, else after `gap` skipped
// elements): the first element's bonus counts twice; an adjacent one gets the largest of its own
// bonus, its run's first element's (`chunkBonus`) and SIFT_FUZZY_BONUS_CONSECUTIVE; a gap costs
// SIFT_FUZZY_GAP_START plus SIFT_FUZZY_GAP_EXTENSION per element after the first.
static inline void fuzzy_score_element(size_t e, int32_t bonus, int adjacent, size_t gap, int32_t *score,
                                       int32_t *chunkBonus) {
    if (e == 0) {
        *score += SIFT_FUZZY_SCORE_MATCH + 2 * bonus;
        *chunkBonus = bonus;
    } else if (adjacent) {
        if (bonus > *chunkBonus) *chunkBonus = bonus;
        int32_t consecutive = *chunkBonus > SIFT_FUZZY_BONUS_CONSECUTIVE ? *chunkBonus : SIFT_FUZZY_BONUS_CONSECUTIVE;
        *score += SIFT_FUZZY_SCORE_MATCH + consecutive;
    } else {
        *score += SIFT_FUZZY_SCORE_MATCH + bonus - (SIFT_FUZZY_GAP_START + (int32_t)(gap - 1) * SIFT_FUZZY_GAP_EXTENSION);
        *chunkBonus = bonus;
    }
}

// The fzf-like score of a segment's alignment (see `sift_fuzzy_align_segment`), or -1 when the
// pattern does not occur. `positions`, if not NULL, receives each pattern element's element index
// in the segment; `scratch` holds one byte offset per pattern element.
static int32_t fuzzy_align(const sift_column_view *c, const sift_scan_pattern *p, size_t start, size_t end,
                           size_t *scratch, int32_t *positions) {
    const uint8_t *codes = c->codes;
    size_t firstLength = fuzzy_code_length(p->bytes[0]);
    if (firstLength == p->length && positions == NULL) {
        // One element (a first keystroke, the most results): its first occurrence, scored alone.
        size_t at = fuzzy_find(codes, start, end, p->bytes, firstLength);
        if (at >= end) return -1;
        int32_t bonus = at == start ? SIFT_FUZZY_BONUS_FIELD_START
                        : word_starts_at(c, at) ? SIFT_FUZZY_BONUS_WORD_START
                                                : 0;
        return SIFT_FUZZY_SCORE_MATCH + 2 * bonus;
    }
    // Forward: the greedy leftmost occurrence's last element.
    size_t j = start, last = SIZE_MAX, elements = 0;
    for (size_t i = 0; i < p->length;) {
        size_t len = fuzzy_code_length(p->bytes[i]);
        size_t at = fuzzy_find(codes, j, end, p->bytes + i, len);
        if (at >= end) return -1;
        last = at;
        j = at + len;
        i += len;
        elements += 1;
    }
    // Backward from there: each earlier element as late as possible, the shortest window ending at
    // the forward pass's last element.
    size_t e = elements - 1;
    scratch[e] = last;
    size_t i = p->length;
    while (i > 0 && (p->bytes[i - 1] & 0xC0) == 0x80) i--;
    i--;  // the last element's lead
    j = last;
    while (e > 0) {
        do {
            i--;
        } while ((p->bytes[i] & 0xC0) == 0x80);
        size_t at = fuzzy_find_last(codes, start, j, p->bytes + i, fuzzy_code_length(p->bytes[i]));
        if (at == SIZE_MAX) return -1;  // cannot happen: the forward pass found them in order
        e -= 1;
        scratch[e] = at;
        j = at;
    }
    // The score, left to right.
    int32_t score = 0, chunkBonus = 0;
    size_t previousEnd = 0, element = 0, counted = start;
    for (e = 0; e < elements; e++) {
        size_t at = scratch[e];
        // Element index of `at`: leads between the last counted position and `at` (the leading
        // gap costs nothing: counted only for `positions`).
        size_t gap = 0;
        if (e > 0 || positions) {
            for (size_t k = counted; k < at; k++) gap += (codes[k] & 0xC0) != 0x80;
        }
        element += gap;
        if (positions) positions[e] = (int32_t)element;
        int32_t bonus = at == start ? SIFT_FUZZY_BONUS_FIELD_START
                        : word_starts_at(c, at) ? SIFT_FUZZY_BONUS_WORD_START
                                                : 0;
        // `gap` (at least 1 when not adjacent) is the number of elements skipped since the previous match.
        fuzzy_score_element(e, bonus, at == previousEnd, gap, &score, &chunkBonus);
        size_t len = fuzzy_code_length(codes[at]);
        previousEnd = at + len;
        counted = at + len;
        element += 1;
    }
    return score < 0 ? 0 : score;
}

#if defined(__x86_64__)
// Bits below `n` (n <= 64).
static inline uint64_t fuzzy_bits_below(size_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

// `fuzzy_align` for a segment of at most 64 bytes, on bit masks of the segment's bytes (bit i for
// byte start + i): per pattern element the positions where its whole code occurs, the lead
// bytes, and the word starts. The greedy forward pass is a count of trailing zeros per element,
// the backward pass a count of leading zeros, and an element's gap a population count, where
// `fuzzy_align` calls memchr, memrchr and walks the bytes: the same alignment and the same score,
// or -2 when the segment is longer, the pattern has more than 64 elements, or 64 bytes from the
// segment's start would leave the column (the caller then runs `fuzzy_align`).
__attribute__((target("avx2"))) static int32_t fuzzy_align_short(const sift_column_view *c,
                                                                 const sift_scan_pattern *p, size_t start,
                                                                 size_t end, size_t *scratch, int32_t *positions) {
    const size_t n = end - start;
    if (n > 64 || start + 64 > c->length) return -2;
    const uint8_t *w = c->codes + start;
    const __m256i low = _mm256_loadu_si256((const __m256i *)w);
    const __m256i high = _mm256_loadu_si256((const __m256i *)(w + 32));
#define SIFT_EQ_MASK(b)                                                                                               \
    ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, _mm256_set1_epi8((char)(b)))) |                \
     ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, _mm256_set1_epi8((char)(b)))) << 32))
    uint64_t occurrences[64];
    size_t lengths[64];
    size_t elements = 0;
    for (size_t i = 0; i < p->length;) {
        if (elements == 64) return -2;
        size_t len = fuzzy_code_length(p->bytes[i]);
        if (len > n) return -1;
        uint64_t mask = SIFT_EQ_MASK(p->bytes[i]);
        for (size_t k = 1; k < len; k++) mask &= SIFT_EQ_MASK(p->bytes[i + k]) >> k;
        occurrences[elements] = mask & fuzzy_bits_below(n - len + 1);  // the whole code inside
        lengths[elements] = len;
        elements += 1;
        i += len;
    }
    // Forward: each element's first occurrence after the previous one.
    size_t j = 0, last = 0;
    for (size_t e = 0; e < elements; e++) {
        uint64_t candidates = j >= 64 ? 0 : occurrences[e] & ~fuzzy_bits_below(j);
        if (!candidates) return -1;
        last = (size_t)__builtin_ctzll(candidates);
        j = last + lengths[e];
    }
    const __m256i top = _mm256_set1_epi8((char)0xC0), mark = _mm256_set1_epi8((char)0x80);
    const uint64_t continuations =
        (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(low, top), mark)) |
        ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(high, top), mark)) << 32);
#undef SIFT_EQ_MASK
    const uint64_t leads = ~continuations & fuzzy_bits_below(n);
    if (elements == 1 && positions == NULL) {
        // One element: its first occurrence, scored alone (as `fuzzy_align`).
        int32_t bonus = last == 0 ? SIFT_FUZZY_BONUS_FIELD_START
                        : word_starts_at(c, start + last) ? SIFT_FUZZY_BONUS_WORD_START
                                                          : 0;
        return SIFT_FUZZY_SCORE_MATCH + 2 * bonus;
    }
    // Backward from the last element: each earlier one as late as possible before the next (an
    // occurrence before a lead byte ends before it: codes are self-synchronizing).
    scratch[elements - 1] = last;
    j = last;
    for (size_t e = elements - 1; e > 0; e--) {
        uint64_t candidates = occurrences[e - 1] & fuzzy_bits_below(j);
        if (!candidates) return -1;  // cannot happen: the forward pass found them in order
        j = 63 - (size_t)__builtin_clzll(candidates);
        scratch[e - 1] = j;
    }
    // Word starts of the segment's bytes.
    size_t word = start >> 6, shift = start & 63;
    uint64_t first = word < c->wordCount ? c->wordStarts[word] : 0;
    uint64_t second = word + 1 < c->wordCount ? c->wordStarts[word + 1] : 0;
    const uint64_t wordStarts = shift ? (first >> shift) | (second << (64 - shift)) : first;
    // The score, left to right (as `fuzzy_align`).
    int32_t score = 0, chunkBonus = 0;
    size_t previousEnd = 0, element = 0, counted = 0;
    for (size_t e = 0; e < elements; e++) {
        size_t at = scratch[e];
        size_t gap = (size_t)__builtin_popcountll(leads & fuzzy_bits_below(at) & ~fuzzy_bits_below(counted));
        if (e == 0 && !positions) gap = 0;
        element += gap;
        if (positions) positions[e] = (int32_t)element;
        int32_t bonus = at == 0                      ? SIFT_FUZZY_BONUS_FIELD_START
                        : (wordStarts >> at) & 1 ? SIFT_FUZZY_BONUS_WORD_START
                                                 : 0;
        fuzzy_score_element(e, bonus, at == previousEnd, gap, &score, &chunkBonus);
        previousEnd = at + lengths[e];
        counted = previousEnd;
        element += 1;
    }
    return score < 0 ? 0 : score;
}
#endif

#if defined(__x86_64__)
// `fuzzy_segment` for a segment of at most 64 bytes, on bit masks as `fuzzy_align_short`: each
// element's first occurrence after the previous one is a count of trailing zeros. -2 where
// `fuzzy_align_short` would give -2.
__attribute__((target("avx2"))) static int fuzzy_segment_short(const sift_column_view *c,
                                                               const sift_scan_pattern *p, size_t start,
                                                               size_t end) {
    const size_t n = end - start;
    if (n > 64 || start + 64 > c->length) return -2;
    const uint8_t *w = c->codes + start;
    const __m256i low = _mm256_loadu_si256((const __m256i *)w);
    const __m256i high = _mm256_loadu_si256((const __m256i *)(w + 32));
    size_t j = 0;
    for (size_t i = 0; i < p->length;) {
        size_t len = fuzzy_code_length(p->bytes[i]);
        if (j + len > n) return 0;
        uint64_t mask = ~0ull;
        for (size_t k = 0; k < len; k++) {
            const __m256i b = _mm256_set1_epi8((char)p->bytes[i + k]);
            uint64_t equal = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, b)) |
                             ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, b)) << 32);
            mask &= equal >> k;
        }
        mask &= fuzzy_bits_below(n - len + 1) & ~fuzzy_bits_below(j);
        if (!mask) return 0;
        j = (size_t)__builtin_ctzll(mask) + len;
        i += len;
    }
    return 1;
}
#endif

// `fuzzy_segment`, on bit masks for a short segment where the CPU has AVX2 (`vector`).
static inline int fuzzy_segment_fast(const sift_column_view *c, const sift_scan_pattern *p, size_t start,
                                     size_t end, int vector) {
#if defined(__x86_64__)
    if (vector) {
        int found = fuzzy_segment_short(c, p, start, end);
        if (found != -2) return found;
    }
#else
    (void)vector;
#endif
    return fuzzy_segment(c->codes, start, end, p);
}

// `fuzzy_align`, on bit masks for a short segment where the CPU has AVX2 (`vector`).
static inline int32_t fuzzy_align_fast(const sift_column_view *c, const sift_scan_pattern *p, size_t start,
                                       size_t end, size_t *scratch, int32_t *positions, int vector) {
#if defined(__x86_64__)
    if (vector) {
        int32_t score = fuzzy_align_short(c, p, start, end, scratch, positions);
        if (score != -2) return score;
    }
#else
    (void)vector;
#endif
    return fuzzy_align(c, p, start, end, scratch, positions);
}

// A score as `sift_fuzzy_score_members` stores it.
static inline uint16_t fuzzy_stored_score(int32_t score) {
    return score < 0 ? 0 : score > SIFT_FUZZY_SCORE_LIMIT ? SIFT_FUZZY_SCORE_LIMIT : (uint16_t)score;
}

int sift_fuzzy_one_segment(const sift_column_view *c, const sift_scan_pattern *p, size_t segment) {
    if (segment >= c->segmentCount || test_bit(c->deadSegments, segment)) return 0;
    return fuzzy_segment(c->codes, segment_start(c, segment), segment_end(c, segment), p);
}

// The full fuzzy sweep of segments [firstSegment, lastSegment), one segment at a time: the owner's
// bit in `matched` for every live segment that matches, and, if `scores` is not NULL (one entry per
// slot), the match's score as `sift_fuzzy_score_members` stores it at its owner.
static void fuzzy_sweep_segments(const sift_column_view *c, const sift_scan_pattern *p, size_t firstSegment,
                                 size_t lastSegment, uint64_t *matched, uint16_t *scores, size_t *scratch) {
    if (firstSegment >= lastSegment) return;
    const int vector = sift_kernel_level() >= SIFT_KERNEL_AVX2;
    size_t start = segment_start(c, firstSegment);
    for (size_t s = firstSegment; s < lastSegment; s++) {
        size_t end = segment_end(c, s);
        if (end - start >= p->length) {
            int32_t owner = test_bit(c->checkedSegments, s) ? owner_of(c, s) : (int32_t)s;
            if (owner >= 0 && fuzzy_segment(c->codes, start, end, p)) {
                set_bit(matched, owner);
                if (scores) scores[owner] = fuzzy_stored_score(fuzzy_align_fast(c, p, start, end, scratch, NULL, vector));
            }
        }
        start = end + 1;
    }
}

#if defined(__x86_64__)
// Where one element's code (`len` bytes at `e`) occurs in the 64 bytes at `at`, byte by byte (the
// arena's last block: vector loads would read past its end).
static inline uint64_t fuzzy_tail_mask(const sift_column_view *c, size_t pos, const uint8_t *e, size_t len) {
    uint64_t mask = 0;
    for (size_t k = 0; k < 64 && pos + k < c->length; k++) {
        if (pos + k + len <= c->length && c->codes[pos + k] == e[0] && middle_equal(c->codes + pos + k + 1, e + 1, len - 1)) {
            mask |= 1ull << k;
        }
    }
    return mask;
}

// `fuzzy_sweep_segments` 64 bytes at a time, every segment of a block at once. Per element of the
// pattern, a block's mask of its occurrences (lead positions where its whole code is) and the
// mask of separators give, by one addition, each segment's first occurrence after a start: a
// carry enters at each start, runs through the bytes that are neither an occurrence nor a
// separator, and stops at the first occurrence (marking it) or at the segment's separator (none).
// The starts of the first element are the segments' first bytes; those of the next element are the
// bytes after the previous element's marks: the greedy leftmost search of `fuzzy_segment`, for
// every segment in parallel. A carry out of a block continues in the next one (the segment left
// open has not found that element yet), as does a start after the block's last byte. The last
// element's marks are the matches. At most 64 elements (the caller checks).
__attribute__((target("avx2,bmi2"), always_inline)) static inline void
fuzzy_sweep_blocks(const sift_column_view *c, const sift_scan_pattern *p, size_t first, size_t last, uint64_t *matched,
                   uint16_t *scores, size_t *scratch, uint64_t (*eq)(const uint8_t *, uint8_t)) {
    const uint8_t *elements[64];
    size_t lengths[64], count = 0, longest = 1;
    for (size_t i = 0; i < p->length; i += lengths[count++]) {
        elements[count] = p->bytes + i;
        lengths[count] = fuzzy_code_length(p->bytes[i]);
        if (lengths[count] > longest) longest = lengths[count];
    }
    static const uint8_t separator = 0;
    uint64_t entering[64], open[64];  // per element: a start at the block's first byte; a carry in
    for (size_t i = 0; i < count; i++) entering[i] = open[i] = 0;
    entering[0] = 1;  // `pos` starts a segment
    size_t pos = segment_start(c, first);
    const size_t stop = segment_end(c, last - 1);
    size_t segment = first;  // the segment holding `pos`
    while (pos < stop) {
        const int inside = pos + 64 + longest - 1 <= c->length;
        uint64_t keep = stop - pos < 64 ? (1ull << (stop - pos)) - 1 : ~0ull;
        const uint64_t separators = (inside ? eq(c->codes + pos, 0) : fuzzy_tail_mask(c, pos, &separator, 1)) & keep;
        uint64_t starts = separators << 1, marks = 0, firstStarts = (separators << 1) | entering[0];
        for (size_t i = 0; i < count; i++) {
            uint64_t occurrences;
            if (inside) {
                occurrences = eq(c->codes + pos, elements[i][0]);
                for (size_t k = 1; k < lengths[i]; k++) occurrences &= eq(c->codes + pos + k, elements[i][k]);
            } else {
                occurrences = fuzzy_tail_mask(c, pos, elements[i], lengths[i]);
            }
            occurrences &= keep;
            unsigned long long sum, total;
            int overflow = __builtin_uaddll_overflow(~(occurrences | separators), starts, &sum);
            overflow |= __builtin_uaddll_overflow(sum, entering[i] | open[i], &total);
            open[i] = (uint64_t)overflow;
            entering[i] = (i == 0 ? separators : marks) >> 63;  // for the next block (element 0: already used)
            marks = total & occurrences;
            starts = marks << 1;
        }
        if (marks) {
            const uint64_t wordStarts = scores && count == 1 ? bits_at(c->wordStarts, c->wordCount, pos) : 0;
            do {
                unsigned h = (unsigned)__builtin_ctzll(marks);
                marks &= marks - 1;
                size_t s = segment + (size_t)__builtin_popcountll(separators & ((1ull << h) - 1));
                int32_t owner = (int32_t)s;
                if ((c->checkedSegments[s >> 6] >> (s & 63)) & 1) {
                    owner = owner_of(c, s);
                    if (owner < 0) continue;
                }
                set_bit(matched, owner);
                if (!scores) continue;
                if (count == 1) {
                    // One element: scored where it first occurs, the mark (as `fuzzy_align`).
                    int32_t bonus = (firstStarts >> h) & 1   ? SIFT_FUZZY_BONUS_FIELD_START
                                    : (wordStarts >> h) & 1 ? SIFT_FUZZY_BONUS_WORD_START
                                                            : 0;
                    scores[owner] = (uint16_t)(SIFT_FUZZY_SCORE_MATCH + 2 * bonus);
                } else {
                    size_t start = segment_start(c, s), end = segment_end(c, s);
                    scores[owner] = fuzzy_stored_score(fuzzy_align_fast(c, p, start, end, scratch, NULL, 1));
                }
            } while (marks);
        }
        segment += (size_t)__builtin_popcountll(separators);
        pos += 64;
    }
}

__attribute__((target("avx2,bmi2"))) static void fuzzy_sweep_avx2(const sift_column_view *c, const sift_scan_pattern *p,
                                                                  size_t first, size_t last, uint64_t *matched,
                                                                  uint16_t *scores, size_t *scratch) {
    fuzzy_sweep_blocks(c, p, first, last, matched, scores, scratch, eq_mask64_avx2);
}

__attribute__((target("avx512f,avx512bw,avx2,bmi2"))) static void
fuzzy_sweep_avx512(const sift_column_view *c, const sift_scan_pattern *p, size_t first, size_t last, uint64_t *matched,
                   uint16_t *scores, size_t *scratch) {
    fuzzy_sweep_blocks(c, p, first, last, matched, scores, scratch, eq_mask64_avx512);
}
#endif

// The fuzzy sweep at the kernel level: 64 bytes at a time where the CPU has AVX2 and the pattern
// at most 64 elements, else segment by segment. `scratch` (for `scores`) holds one entry per
// pattern element.
static void fuzzy_sweep(const sift_column_view *c, const sift_scan_pattern *p, size_t firstSegment,
                        size_t lastSegment, uint64_t *matched, uint16_t *scores, size_t *scratch) {
    if (firstSegment >= lastSegment) return;
#if defined(__x86_64__)
    size_t elements = 0;
    for (size_t i = 0; i < p->length; i++) elements += (p->bytes[i] & 0xC0) != 0x80;
    int level = sift_kernel_level();
    if (elements <= 64 && level >= SIFT_KERNEL_AVX512) {
        fuzzy_sweep_avx512(c, p, firstSegment, lastSegment, matched, scores, scratch);
        return;
    }
    if (elements <= 64 && level >= SIFT_KERNEL_AVX2) {
        fuzzy_sweep_avx2(c, p, firstSegment, lastSegment, matched, scores, scratch);
        return;
    }
#endif
    fuzzy_sweep_segments(c, p, firstSegment, lastSegment, matched, scores, scratch);
}

void sift_fuzzy_sweep(const sift_column_view *c, const sift_scan_pattern *p, size_t firstSegment, size_t lastSegment,
                      uint64_t *matched) {
    fuzzy_sweep(c, p, firstSegment, lastSegment, matched, NULL, NULL);
}

void sift_fuzzy_sweep_scores(const sift_column_view *c, const sift_scan_pattern *p, size_t firstSegment,
                             size_t lastSegment, uint64_t *matched, uint16_t *scores, size_t *scratch) {
    fuzzy_sweep(c, p, firstSegment, lastSegment, matched, scores, scratch);
}

size_t sift_fuzzy_gather_scores(const uint64_t *matched, size_t wordCount, const uint16_t *scores, uint16_t *out) {
    size_t written = 0;
    for (size_t w = 0; w < wordCount; w++) {
        for (uint64_t bits = matched[w]; bits; bits &= bits - 1) out[written++] = scores[w * 64 + (size_t)__builtin_ctzll(bits)];
    }
    return written;
}


size_t sift_fuzzy_scan_candidates(const sift_column_view *c, const sift_scan_pattern *p, size_t slotCount,
                                  const uint64_t *base, size_t firstWord, size_t lastWord, uint64_t *matched) {
    size_t examined = 0;
    const int vector = sift_kernel_level() >= SIFT_KERNEL_AVX2;
    SIFT_FUZZY_FOR_EACH_CANDIDATE(c, slotCount, base, firstWord, lastWord, examined, 0, {
        if (end - start >= p->length && fuzzy_segment_fast(c, p, start, end, vector)) set_bit(matched, slot);
    });
    return examined;
}

int32_t sift_fuzzy_align_segment(const sift_column_view *c, const sift_scan_pattern *p, size_t segment,
                                 size_t *scratch, int32_t *positions) {
    if (segment >= c->segmentCount || test_bit(c->deadSegments, segment)) return -1;
    const int vector = sift_kernel_level() >= SIFT_KERNEL_AVX2;
    return fuzzy_align_fast(c, p, segment_start(c, segment), segment_end(c, segment), scratch, positions, vector);
}

size_t sift_fuzzy_score_members(const sift_column_view *c, const sift_scan_pattern *p, size_t slotCount,
                                const uint64_t *members, size_t firstWord, size_t lastWord, size_t *scratch,
                                uint16_t *scores) {
    size_t examined = 0, written = 0;
    const int vector = sift_kernel_level() >= SIFT_KERNEL_AVX2;
    SIFT_FUZZY_FOR_EACH_CANDIDATE(c, slotCount, members, firstWord, lastWord, examined, 1, {
        (void)slot;
        scores[written++] = fuzzy_stored_score(fuzzy_align_fast(c, p, start, end, scratch, NULL, vector));
    });
    return written;
}

size_t sift_fuzzy_scan_score_candidates(const sift_column_view *c, const sift_scan_pattern *p, size_t slotCount,
                                        const uint64_t *base, size_t firstWord, size_t lastWord, uint64_t *matched,
                                        size_t *scratch, uint16_t *scores, size_t *written) {
    size_t examined = 0, count = *written;
    const int vector = sift_kernel_level() >= SIFT_KERNEL_AVX2;
    SIFT_FUZZY_FOR_EACH_CANDIDATE(c, slotCount, base, firstWord, lastWord, examined, 0, {
        if (end - start >= p->length) {
            // The alignment is the match test: -1 exactly where `fuzzy_segment` finds no match.
            int32_t score = fuzzy_align_fast(c, p, start, end, scratch, NULL, vector);
            if (score >= 0) {
                set_bit(matched, slot);
                scores[count++] = fuzzy_stored_score(score);
            }
        }
    });
    *written = count;
    return examined;
}

size_t sift_fuzzy_combine_scores(const uint64_t *members, size_t firstWord, size_t lastWord, const uint64_t *filter,
                                 const uint32_t *ranks, const uint16_t *scores, size_t scoreCount, uint32_t fieldRank,
                                 uint32_t rankCount, uint32_t *keys) {
    size_t read = 0;
    for (size_t w = firstWord; w < lastWord; w++) {
        uint64_t bits = members[w];
        const uint64_t wanted = filter[w];
        while (bits && read < scoreCount) {
            uint64_t bit = bits & (~bits + 1);
            bits ^= bit;
            uint16_t score = scores[read++];
            if (!(wanted & bit)) continue;
            size_t at = ranks[w] + (size_t)__builtin_popcountll(wanted & (bit - 1));
            uint32_t key = ((uint32_t)score + 1) * rankCount + fieldRank;
            if (key > keys[at]) keys[at] = key;
        }
    }
    return read;
}
