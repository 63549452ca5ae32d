#define _GNU_SOURCE
#include "CSiftKernels.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static inline void set_bit(uint64_t *bits, int32_t slot) { bits[(uint32_t)slot >> 6] |= 1ull << (slot & 63); }

// The segment holding byte `offset`, galloping forward from `hint`.
static inline size_t locate(const sift_column_view *c, size_t offset, size_t hint) {
    const uint32_t *starts = c->segmentStarts;
    size_t n = c->segmentCount;
    size_t low = hint;
    if (low + 1 >= n || starts[low + 1] > offset) return low;
    size_t step = 1, high = low + 1;
    while (high < n && starts[high] <= offset) {
        low = high;
        step <<= 1;
        high = low + step;
    }
    if (high > n) high = n;
    while (high - low > 1) {
        size_t mid = (low + high) >> 1;
        if (starts[mid] <= offset) low = mid; else high = mid;
    }
    return low;
}

static inline size_t segment_end(const sift_column_view *c, size_t segment) {
    return segment + 1 < c->segmentCount ? c->segmentStarts[segment + 1] - 1 : c->length - 1;
}

static inline int word_starts_at(const sift_column_view *c, size_t j) {
    size_t word = j >> 6;
    return word < c->wordCount && ((c->wordStarts[word] >> (j & 63)) & 1);
}

// Candidate/match status of an occurrence at j (codes already equal) in `segment`: 0, 1 or 3.
static inline int classify(const sift_column_view *c, const sift_scan_pattern *p, size_t segment, size_t start,
                           size_t j) {
    if (p->requireWordStart && !word_starts_at(c, j)) return 0;
    uint32_t position = c->segmentFlags[segment];
    if (position == SIFT_KERNEL_SIMPLE) return 3;
    const uint8_t *flags = c->flags + position - start;
    if (!(flags[j] & SIFT_KERNEL_START_OK)) return 0;
    return (flags[j + p->lastLead] & SIFT_KERNEL_END_OK) ? 3 : 1;
}

// Handles an occurrence at j whose first and last bytes already matched.
// Returns the position to continue from.
static inline size_t on_occurrence(const sift_column_view *c, const sift_scan_pattern *p, size_t j, size_t *hint,
                                   uint64_t *matched, uint64_t *candidates) {
    if (p->length > 2 && memcmp(c->codes + j + 1, p->bytes + 1, p->length - 2) != 0) return j + 1;
    size_t segment = locate(c, j, *hint);
    *hint = segment;
    int32_t owner = c->owners[segment];
    if (owner < 0) return segment_end(c, segment) + 1;
    int status = classify(c, p, segment, c->segmentStarts[segment], j);
    if (status & 1) set_bit(candidates, owner);
    if (status & 2) {
        set_bit(matched, owner);
        return segment_end(c, segment) + 1;
    }
    return j + 1;
}

static size_t sweep_scalar(const sift_column_view *c, const sift_scan_pattern *p, size_t i, size_t to, size_t *hint,
                           uint64_t *matched, uint64_t *candidates) {
    const uint8_t first = p->bytes[0], last = p->bytes[p->length - 1];
    const size_t m = p->length;
    size_t limit = c->length >= m ? c->length - m + 1 : 0;  // last possible start + 1
    if (to > limit) to = limit;
    while (i < to) {
        const uint8_t *hit = memchr(c->codes + i, first, to - i);
        if (hit == NULL) return to;
        size_t j = (size_t)(hit - c->codes);
        if (c->codes[j + m - 1] == last) {
            i = on_occurrence(c, p, j, hint, matched, candidates);
        } else {
            i = j + 1;
        }
    }
    return i;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static size_t sweep_avx2(const sift_column_view *c, const sift_scan_pattern *p,
                                                          size_t i, size_t to, size_t *hint, uint64_t *matched,
                                                          uint64_t *candidates) {
    const size_t m = p->length;
    const __m256i first = _mm256_set1_epi8((char)p->bytes[0]);
    const __m256i last = _mm256_set1_epi8((char)p->bytes[m - 1]);
    // Vector loads read codes[i .. i+31+m-1] and flags[i .. i+31]: stay inside the arena.
    while (i < to && i + 32 + m - 1 <= c->length) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(c->codes + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(c->codes + i + m - 1));
        __m256i hitv = _mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, last));
        uint32_t bits = (uint32_t)_mm256_movemask_epi8(hitv);
        // The last block of a chunk: only positions before `to` are this call's, and the next
        // call resumes exactly at `to` (resuming at i + 32 would skip the rest of the block).
        size_t next = i + 32;
        if (to - i < 32) {
            bits &= (1u << (to - i)) - 1;
            next = to;
        }
        while (bits) {
            size_t j = i + (size_t)__builtin_ctz(bits);
            size_t resume = on_occurrence(c, p, j, hint, matched, candidates);
            if (resume > j + 1) {  // skipped the rest of a segment
                next = resume;
                break;
            }
            bits &= bits - 1;
        }
        i = next;
    }
    if (i < to) i = sweep_scalar(c, p, i, to, hint, matched, candidates);
    return i;
}

static int has_avx2(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return cached;
}
#endif

size_t sift_sweep(const sift_column_view *c, const sift_scan_pattern *p, size_t from, size_t to, size_t *hint,
                  uint64_t *matched, uint64_t *candidates) {
    if (to > c->length) to = c->length;
    if (from >= to || c->segmentCount == 0) return to;
#if defined(__x86_64__)
    if (has_avx2()) {
        size_t i = sweep_avx2(c, p, from, to, hint, matched, candidates);
        return i > to ? i : to;
    }
#endif
    size_t i = sweep_scalar(c, p, from, to, hint, matched, candidates);
    return i > to ? i : to;
}

// One segment [start, end): 0 nothing, 1 candidate, 3 match.
static inline int scan_segment(const sift_column_view *c, const sift_scan_pattern *p, size_t segment, size_t start,
                               size_t end, int anchoredAtStart) {
    const size_t m = p->length;
    if (end - start < m) return 0;
    const uint8_t first = p->bytes[0];
    size_t stop = anchoredAtStart ? start + 1 : end - m + 1;
    int result = 0;
    for (size_t j = start; j < stop; j++) {
        if (c->codes[j] != first) continue;
        if (m > 1 && memcmp(c->codes + j + 1, p->bytes + 1, m - 1) != 0) continue;
        result |= classify(c, p, segment, start, j);
        if (result & 2) return 3;
    }
    return result;
}

void sift_sweep_prefix(const sift_column_view *c, const sift_scan_pattern *p, size_t firstSegment, size_t lastSegment,
                       uint64_t *matched, uint64_t *candidates) {
    for (size_t s = firstSegment; s < lastSegment && s < c->segmentCount; s++) {
        int32_t owner = c->owners[s];
        if (owner < 0) continue;
        int r = scan_segment(c, p, s, c->segmentStarts[s], segment_end(c, s), 1);
        if (r & 1) set_bit(candidates, owner);
        if (r & 2) set_bit(matched, owner);
    }
}

size_t sift_scan_candidates(const sift_column_view *c, const sift_scan_pattern *p, const int32_t *slotSegments,
                            size_t slotCount, const uint64_t *base, size_t firstWord, size_t lastWord,
                            int anchoredAtStart, uint64_t *matched, uint64_t *candidates) {
    // Candidates are scattered over the column: gather a batch, prefetch their bytes, then scan,
    // so that the cache misses of a batch overlap instead of queueing one after another.
    enum { BATCH = 32 };
    int32_t slots[BATCH];
    size_t segments[BATCH], starts[BATCH], ends[BATCH];
    size_t examined = 0, n = 0;
    for (size_t w = firstWord; w <= lastWord; w++) {
        uint64_t bits = w < lastWord ? base[w] : 0;
        while (bits || (w == lastWord && n > 0)) {
            if (bits) {
                int32_t slot = (int32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
                bits &= bits - 1;
                if ((size_t)slot >= slotCount) continue;
                int32_t segment = slotSegments[slot];
                if (segment < 0) continue;
                slots[n] = slot;
                segments[n] = (size_t)segment;
                starts[n] = c->segmentStarts[segment];
                ends[n] = segment_end(c, (size_t)segment);
                __builtin_prefetch(c->codes + starts[n]);
                __builtin_prefetch(c->segmentFlags + segment);
                if (++n < BATCH) continue;
            }
            for (size_t k = 0; k < n; k++) {
                int r = scan_segment(c, p, segments[k], starts[k], ends[k], anchoredAtStart);
                if (r & 1) set_bit(candidates, slots[k]);
                if (r & 2) set_bit(matched, slots[k]);
            }
            examined += n;
            n = 0;
        }
    }
    return examined;
}

size_t sift_select_in_order(const int32_t *order, size_t count, const uint64_t *bits, size_t wordCount, int32_t *out) {
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t slot = (uint32_t)order[i];
        size_t word = slot >> 6;
        if (word < wordCount && (bits[word] >> (slot & 63)) & 1) out[n++] = (int32_t)slot;
    }
    return n;
}

size_t sift_bits_to_slots(const uint64_t *bits, size_t wordCount, int32_t *out) {
    size_t n = 0;
    for (size_t w = 0; w < wordCount; w++) {
        uint64_t word = bits[w];
        while (word) {
            out[n++] = (int32_t)(w * 64 + (size_t)__builtin_ctzll(word));
            word &= word - 1;
        }
    }
    return n;
}

// A fast 64-bit checksum (four independent multiply-xorshift lanes, then mixed), for detecting
// corrupted snapshot files. Not cryptographic.
static inline uint64_t mix(uint64_t h, uint64_t w) {
    h ^= w * 0x9E3779B97F4A7C15ull;
    h = (h << 31) | (h >> 33);
    return h * 0xC2B2AE3D27D4EB4Full;
}

uint64_t sift_checksum(const void *data, size_t length, uint64_t seed) {
    const uint8_t *p = data;
    uint64_t a = seed ^ 0x243F6A8885A308D3ull, b = seed ^ 0x13198A2E03707344ull;
    uint64_t c = seed ^ 0xA4093822299F31D0ull, d = seed ^ 0x082EFA98EC4E6C89ull;
    size_t i = 0;
    for (; i + 32 <= length; i += 32) {
        uint64_t w[4];
        memcpy(w, p + i, 32);
        a = mix(a, w[0]);
        b = mix(b, w[1]);
        c = mix(c, w[2]);
        d = mix(d, w[3]);
    }
    uint64_t h = mix(mix(mix(mix((uint64_t)length, a), b), c), d);
    for (; i + 8 <= length; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = mix(h, w);
    }
    uint64_t tail = 0;
    memcpy(&tail, p + i, length - i);
    h = mix(h, tail ^ ((uint64_t)(length - i) << 56));
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

// Single-byte patterns match densely (one letter is in most records): walk the segments and test
// each with one vector compare, instead of sweeping hits and locating each hit's segment.
#if defined(__x86_64__)
__attribute__((target("avx2"))) static void sweep_single_avx2(const sift_column_view *c, const sift_scan_pattern *p,
                                                               size_t first, size_t last, uint64_t *matched,
                                                               uint64_t *candidates) {
    const __m256i needle = _mm256_set1_epi8((char)p->bytes[0]);
    for (size_t s = first; s < last; s++) {
        int32_t owner = c->owners[s];
        if (owner < 0) continue;
        size_t start = c->segmentStarts[s], end = segment_end(c, s);
        for (size_t off = start; off < end; off += 32) {
            uint32_t mask;
            if (off + 32 <= c->length) {
                mask = (uint32_t)_mm256_movemask_epi8(
                    _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(c->codes + off)), needle));
                if (end - off < 32) mask &= (1u << (end - off)) - 1;
            } else {
                mask = 0;
                for (size_t j = off; j < end; j++) mask |= (uint32_t)(c->codes[j] == p->bytes[0]) << (j - off);
            }
            int status = 0;
            while (mask) {
                status |= classify(c, p, s, start, off + (size_t)__builtin_ctz(mask));
                if (status & 2) break;
                mask &= mask - 1;
            }
            if (status & 1) set_bit(candidates, owner);
            if (status & 2) {
                set_bit(matched, owner);
                break;
            }
        }
    }
}
#endif

void sift_sweep_single(const sift_column_view *c, const sift_scan_pattern *p, size_t firstSegment, size_t lastSegment,
                       uint64_t *matched, uint64_t *candidates) {
    if (lastSegment > c->segmentCount) lastSegment = c->segmentCount;
#if defined(__x86_64__)
    if (has_avx2()) {
        sweep_single_avx2(c, p, firstSegment, lastSegment, matched, candidates);
        return;
    }
#endif
    for (size_t s = firstSegment; s < lastSegment; s++) {
        int32_t owner = c->owners[s];
        if (owner < 0) continue;
        int r = scan_segment(c, p, s, c->segmentStarts[s], segment_end(c, s), 0);
        if (r & 1) set_bit(candidates, owner);
        if (r & 2) set_bit(matched, owner);
    }
}

int sift_scan_one_segment(const sift_column_view *c, const sift_scan_pattern *p, size_t segment, int anchoredAtStart) {
    if (segment >= c->segmentCount) return 0;
    return scan_segment(c, p, segment, c->segmentStarts[segment], segment_end(c, segment), anchoredAtStart);
}
