#define _GNU_SOURCE
#include "CSiftKernels.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

static inline void set_bit(uint64_t *bits, int32_t slot) { bits[(uint32_t)slot >> 6] |= 1ull << (slot & 63); }

static inline int test_bit(const uint64_t *bits, size_t i) { return (int)((bits[i >> 6] >> (i & 63)) & 1); }

// A `SlotMap` lookup (Sources/Sift/Index/SlotMap.swift): the same hash and linear probing.
static inline int32_t map_lookup(const int32_t *entries, size_t capacity, int32_t key, int32_t missing) {
    if (!capacity) return missing;
    size_t mask = capacity - 1;
    size_t i = ((uint32_t)key * 0x9E3779B1u) & mask;
    for (;;) {
        int32_t stored = entries[2 * i];
        if (stored == key) return entries[2 * i + 1];
        if (stored == -1) return missing;
        i = (i + 1) & mask;
    }
}

// The slot owning a segment, or -1 when it is dead.
static inline int32_t owner_of(const sift_column_view *c, size_t segment) {
    if (test_bit(c->deadSegments, segment)) return -1;
    return map_lookup(c->awayOwners, c->awayOwnersCapacity, (int32_t)segment, (int32_t)segment);
}

// The segment of a slot, or -1 when it has none.
static inline int32_t segment_of_slot(const sift_column_view *c, size_t slot) {
    int32_t away = map_lookup(c->awaySegments, c->awaySegmentsCapacity, (int32_t)slot, -1);
    if (away >= 0) return away;
    if (slot < c->segmentCount && !test_bit(c->deadSegments, slot) &&
        map_lookup(c->awayOwners, c->awayOwnersCapacity, (int32_t)slot, -1) < 0) {
        return (int32_t)slot;
    }
    return -1;
}

// The segment of a slot, or -1 when it has none, for the scans that visit slots: an unchecked
// segment (live, simple, owned by the slot of its number) is its slot's without a lookup.
static inline int32_t candidate_segment(const sift_column_view *c, size_t slot) {
    if (slot < c->segmentCount && !test_bit(c->checkedSegments, slot)) return (int32_t)slot;
    return segment_of_slot(c, slot);
}

// Flag entry k: two bits, four entries a byte.
static inline unsigned flag_entry(const uint8_t *flags, size_t k) { return (flags[k >> 2] >> ((k & 3) << 1)) & 3; }

// A flagged segment's first flag entry.
static inline size_t flag_start(const sift_column_view *c, size_t segment) {
    size_t w = segment >> 6;
    uint64_t before = c->flaggedSegments[w] & ((1ull << (segment & 63)) - 1);
    return c->flagStarts[c->flaggedRanks[w] + (size_t)__builtin_popcountll(before)];
}

static inline size_t segment_start(const sift_column_view *c, size_t segment) {
    size_t block = segment >> 6;
    if (test_bit(c->wideBlocks, block)) return c->wideStarts[((size_t)c->blockStarts[block] << 6) | (segment & 63)];
    return (size_t)c->blockStarts[block] + c->startOffsets[segment];
}

static inline size_t segment_end(const sift_column_view *c, size_t segment) {
    return segment + 1 < c->segmentCount ? segment_start(c, segment + 1) - 1 : c->length - 1;
}

static inline int word_starts_at(const sift_column_view *c, size_t j) {
    size_t word = j >> 6;
    return word < c->wordCount && ((c->wordStarts[word] >> (j & 63)) & 1);
}

// Whether n bytes are equal (the middle of a pattern: usually a byte or two, too few for memcmp).
static inline int middle_equal(const uint8_t *a, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i]) return 0;
    }
    return 1;
}

// Candidate/match status of an occurrence at j (codes already equal) in `segment`: 0, 1 or 3.
static inline int classify(const sift_column_view *c, const sift_scan_pattern *p, size_t segment, size_t start,
                           size_t j) {
    if (p->requireWordStart && !word_starts_at(c, j)) return 0;
    if (!test_bit(c->flaggedSegments, segment)) return 3;
    size_t entry = flag_start(c, segment) - start + j;  // the flag entry of byte j
    if (!(flag_entry(c->flags, entry) & SIFT_KERNEL_START_OK)) return 0;
    return (flag_entry(c->flags, entry + p->lastLead) & SIFT_KERNEL_END_OK) ? 3 : 1;
}

// The instruction set the kernels use: the best this CPU has, unless `sift_force_kernel_level`
// asked for less (tests run every level this CPU supports).
static int forced_level = 0;

void sift_force_kernel_level(int level) { __atomic_store_n(&forced_level, level, __ATOMIC_RELAXED); }

#if defined(__x86_64__)
static int cpu_has_avx2(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return cached;
}

static int cpu_has_avx512bw(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && cpu_has_avx2() ? 1 : 0;
    }
    return cached;
}

// BMI2's pext is one instruction on Intel and on AMD from Zen 3 (family 0x19) on, but microcode
// (hundreds of cycles) on Zen 1 and 2: use it only where it is fast.
static int has_fast_pext(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        int fast = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx2");
        unsigned eax, ebx, ecx, edx;
        if (fast && __get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == 0x68747541 /* "Auth"enticAMD */) {
            __get_cpuid(1, &eax, &ebx, &ecx, &edx);
            unsigned family = (eax >> 8) & 0xF;
            if (family == 0xF) family += (eax >> 20) & 0xFF;
            fast = family >= 0x19;
        }
        cached = fast;
    }
    return cached;
}
#endif

int sift_best_kernel_level(void) {
    int best = SIFT_KERNEL_SCALAR;
#if defined(__x86_64__)
    if (cpu_has_avx2()) best = has_fast_pext() ? SIFT_KERNEL_AVX2_PEXT : SIFT_KERNEL_AVX2;
    if (cpu_has_avx512bw()) best = has_fast_pext() ? SIFT_KERNEL_AVX512 : SIFT_KERNEL_AVX2;
#endif
    return best;
}

int sift_kernel_level(void) {
    int best = sift_best_kernel_level();
    int forced = __atomic_load_n(&forced_level, __ATOMIC_RELAXED);
    return forced > 0 && forced < best ? forced : best;
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

#if defined(__x86_64__)
// `scan_segment` with vector compares: 32 positions at a time against the pattern's first and
// last bytes, then the exact check and the flags for each hit.
__attribute__((target("avx2"))) static inline int scan_segment_avx2(const sift_column_view *c,
                                                                    const sift_scan_pattern *p, size_t segment,
                                                                    size_t start, size_t end, int anchoredAtStart) {
    const size_t m = p->length;
    if (end - start < m) return 0;
    if (anchoredAtStart) return scan_segment(c, p, segment, start, end, 1);
    const size_t stop = end - m + 1;  // occurrences start before this
    const __m256i vFirst = _mm256_set1_epi8((char)p->bytes[0]);
    const __m256i vLast = _mm256_set1_epi8((char)p->bytes[m - 1]);
    int result = 0;
    for (size_t off = start; off < stop; off += 32) {
        if (off + 32 + m - 1 > c->length) return scan_segment(c, p, segment, start, end, 0);  // the arena's end
        uint32_t hits = (uint32_t)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(c->codes + off)), vFirst));
        if (m > 1) {
            hits &= (uint32_t)_mm256_movemask_epi8(
                _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(c->codes + off + m - 1)), vLast));
        }
        if (stop - off < 32) hits &= (1u << (stop - off)) - 1;
        while (hits) {
            size_t j = off + (size_t)__builtin_ctz(hits);
            hits &= hits - 1;
            if (m > 2 && memcmp(c->codes + j + 1, p->bytes + 1, m - 2) != 0) continue;
            result |= classify(c, p, segment, start, j);
            if (result & 2) return 3;
        }
    }
    return result;
}
#endif

// A batch of candidates of a narrowed scan: `results[k]` gets the scan of `segments[k]` (1
// candidate, 3 match). Candidates are scattered over the column, and every one needs its
// segment's start (a table lookup), then its bytes: a three-stage software pipeline prefetches
// the table entry of the candidate 2·AHEAD places on and the bytes of the one AHEAD places on, so
// the cache misses of many candidates overlap.
static void scan_candidate_batch(const sift_column_view *c, const sift_scan_pattern *p, const size_t *segments, size_t n,
                                 int anchoredAtStart, uint8_t *results) {
    enum { AHEAD = 8 };
#if defined(__x86_64__)
    const int vector = sift_kernel_level() >= SIFT_KERNEL_AVX2;
#endif
    for (size_t k = 0; k < n && k < 2 * AHEAD; k++) __builtin_prefetch(c->startOffsets + segments[k]);
    for (size_t k = 0; k < n; k++) {
        if (k + 2 * AHEAD < n) {
            __builtin_prefetch(c->startOffsets + segments[k + 2 * AHEAD]);
            __builtin_prefetch(c->blockStarts + (segments[k + 2 * AHEAD] >> 6));
        }
        if (k + AHEAD < n) {
            size_t ahead = segments[k + AHEAD];
            __builtin_prefetch(c->codes + segment_start(c, ahead));
        }
        size_t segment = segments[k];
        size_t start = segment_start(c, segment), end = segment_end(c, segment);
#if defined(__x86_64__)
        results[k] = (uint8_t)(vector ? scan_segment_avx2(c, p, segment, start, end, anchoredAtStart)
                                      : scan_segment(c, p, segment, start, end, anchoredAtStart));
#else
        results[k] = (uint8_t)scan_segment(c, p, segment, start, end, anchoredAtStart);
#endif
    }
}

size_t sift_scan_slots(const sift_column_view *c, const sift_scan_pattern *p, size_t slotCount, const int32_t *slots, size_t count,
                       int anchoredAtStart, int32_t *matched, size_t *matchedCount, int32_t *candidates,
                       size_t *candidateCount) {
    enum { BATCH = 512 };
    int32_t batch[BATCH];
    size_t segments[BATCH];
    uint8_t results[BATCH];
    size_t next = 0, examined = 0, nMatched = 0, nCandidates = 0;
    while (next < count) {
        size_t n = 0;
        while (n < BATCH && next < count) {
            size_t slot = (size_t)slots[next++];
            if (slot >= slotCount) continue;
            int32_t segment = candidate_segment(c, slot);
            if (segment < 0) continue;
            batch[n] = (int32_t)slot;
            segments[n] = (size_t)segment;
            n++;
        }
        scan_candidate_batch(c, p, segments, n, anchoredAtStart, results);
        for (size_t k = 0; k < n; k++) {
            if (results[k] & 1) candidates[nCandidates++] = batch[k];
            if (results[k] & 2) matched[nMatched++] = batch[k];
        }
        examined += n;
    }
    *matchedCount = nMatched;
    *candidateCount = nCandidates;
    return examined;
}

size_t sift_scan_candidates(const sift_column_view *c, const sift_scan_pattern *p, size_t slotCount, const uint64_t *base, size_t firstWord, size_t lastWord,
                            int anchoredAtStart, uint64_t *matched, uint64_t *candidates) {
    enum { BATCH = 512 };
    int32_t slots[BATCH];
    size_t segments[BATCH];
    uint8_t results[BATCH];
    size_t examined = 0;
    size_t w = firstWord;
    uint64_t bits = w < lastWord ? base[w] : 0;
    for (;;) {
        size_t n = 0;
        while (n < BATCH && w < lastWord) {
            if (!bits) {
                if (++w >= lastWord) break;
                bits = base[w];
                continue;
            }
            size_t slot = w * 64 + (size_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            if (slot >= slotCount) continue;
            int32_t segment = candidate_segment(c, slot);
            if (segment < 0) continue;
            slots[n] = (int32_t)slot;
            segments[n] = (size_t)segment;
            n++;
        }
        if (n == 0) break;
        scan_candidate_batch(c, p, segments, n, anchoredAtStart, results);
        for (size_t k = 0; k < n; k++) {
            if (results[k] & 1) set_bit(candidates, slots[k]);
            if (results[k] & 2) set_bit(matched, slots[k]);
        }
        examined += n;
    }
    return examined;
}

size_t sift_select_in_order(const int32_t *order, size_t count, const uint64_t *bits, size_t wordCount, int32_t *out) {
    // Branch-free: every entry is written, and kept by advancing past it only when its bit is set
    // (a branch on the bit mispredicts about half the time in a broad result).
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t slot = (uint32_t)order[i];
        size_t word = slot >> 6;
        uint64_t bitsWord = word < wordCount ? bits[word] : 0;
        out[n] = (int32_t)slot;
        n += (size_t)((bitsWord >> (slot & 63)) & 1);
    }
    return n;
}

size_t sift_select_handles_in_order(const int32_t *order, size_t count, const uint64_t *bits, size_t wordCount,
                                    const uint32_t *generations, uint32_t tag, uint64_t *out) {
    // Branch-free as `sift_select_in_order`; the generations' branch is one per call.
    size_t n = 0;
    uint64_t high = (uint64_t)tag << 32;
    if (generations) {
        for (size_t i = 0; i < count; i++) {
            uint32_t slot = (uint32_t)order[i];
            size_t word = slot >> 6;
            uint64_t bitsWord = word < wordCount ? bits[word] : 0;
            uint64_t keep = (bitsWord >> (slot & 63)) & 1;
            // Read only for a kept entry's slot (the order may hold slots past the generations).
            uint32_t generation = keep ? generations[slot] : 0;
            out[n] = (uint64_t)slot | high | ((uint64_t)generation << 32);
            n += (size_t)keep;
        }
    } else {
        for (size_t i = 0; i < count; i++) {
            uint32_t slot = (uint32_t)order[i];
            size_t word = slot >> 6;
            uint64_t bitsWord = word < wordCount ? bits[word] : 0;
            out[n] = (uint64_t)slot | high;
            n += (size_t)((bitsWord >> (slot & 63)) & 1);
        }
    }
    return n;
}

size_t sift_positions_in_order(const int32_t *order, size_t count, const uint64_t *bits, size_t wordCount,
                               uint64_t *out, size_t firstPosition) {
    // A word of positions gathered in a register, branch-free per entry, stored once it is full.
    size_t found = 0;
    size_t i = 0;
    while (i < count) {
        size_t position = firstPosition + i;
        size_t shift = position & 63;
        size_t take = 64 - shift;
        if (take > count - i) take = count - i;
        uint64_t word = 0;
        for (size_t k = 0; k < take; k++) {
            uint32_t slot = (uint32_t)order[i + k];
            size_t w = slot >> 6;
            uint64_t bitsWord = w < wordCount ? bits[w] : 0;
            word |= ((bitsWord >> (slot & 63)) & 1) << (shift + k);
        }
        out[position >> 6] |= word;
        found += (size_t)__builtin_popcountll(word);
        i += take;
    }
    return found;
}

void sift_sort_by_key(uint64_t *keys, int32_t *values, uint64_t *keyScratch, int32_t *valueScratch, size_t count) {
    if (count < 2) return;
    int sorted = 1;
    for (size_t i = 1; i < count; i++) {
        if (keys[i - 1] > keys[i]) {
            sorted = 0;
            break;
        }
    }
    if (sorted) return;
    // Every byte's histogram in one pass.
    size_t histogram[8][256];
    memset(histogram, 0, sizeof histogram);
    for (size_t i = 0; i < count; i++) {
        uint64_t key = keys[i];
        for (int b = 0; b < 8; b++) histogram[b][(key >> (8 * b)) & 0xFF] += 1;
    }
    uint64_t *fromKeys = keys, *toKeys = keyScratch;
    int32_t *fromValues = values, *toValues = valueScratch;
    for (int b = 0; b < 8; b++) {
        size_t *counts = histogram[b];
        if (counts[(fromKeys[0] >> (8 * b)) & 0xFF] == count) continue;  // every key shares this byte
        size_t offset = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = counts[d];
            counts[d] = offset;
            offset += c;
        }
        for (size_t i = 0; i < count; i++) {
            size_t to = counts[(fromKeys[i] >> (8 * b)) & 0xFF]++;
            toKeys[to] = fromKeys[i];
            toValues[to] = fromValues[i];
        }
        uint64_t *k = fromKeys;
        fromKeys = toKeys;
        toKeys = k;
        int32_t *v = fromValues;
        fromValues = toValues;
        toValues = v;
    }
    if (fromKeys != keys) {
        memcpy(keys, fromKeys, sizeof(uint64_t) * count);
        memcpy(values, fromValues, sizeof(int32_t) * count);
    }
}

size_t sift_segment_element_counts(const uint8_t *codes, size_t length, uint8_t *counts, size_t segments) {
    const uint64_t high = 0x8080808080808080ULL, low7 = 0x7F7F7F7F7F7F7F7FULL;
    size_t segment = 0;
    size_t elements = 0;
    size_t i = 1;
#define SIFT_EMIT_SEGMENT()                                                                                  \
    do {                                                                                                     \
        if (segment == segments) return segment;                                                             \
        counts[segment++] = (uint8_t)(elements < SIFT_RANKING_LENGTH_LIMIT ? elements : SIFT_RANKING_LENGTH_LIMIT); \
        elements = 0;                                                                                        \
    } while (0)
    // Eight bytes at a time: the high bit of each zero byte (exact: no carry crosses bytes) and of
    // each continuation byte (10xxxxxx); the other bytes are lead bytes, one element each.
    for (; i + 8 <= length; i += 8) {
        uint64_t w;
        memcpy(&w, codes + i, 8);
        uint64_t zero = ~(((w & low7) + low7) | w | low7);
        uint64_t continuation = w & ~(w << 1) & high;
        uint64_t lead = ~(zero | continuation) & high;
        if (zero == 0) {
            elements += (size_t)__builtin_popcountll(lead);
            continue;
        }
        uint64_t consumed = 0;
        while (zero) {
            int p = __builtin_ctzll(zero);
            uint64_t below = (1ULL << p) - 1;
            elements += (size_t)__builtin_popcountll(lead & below & ~consumed);
            SIFT_EMIT_SEGMENT();
            consumed = below | (1ULL << p);
            zero &= zero - 1;
        }
        elements += (size_t)__builtin_popcountll(lead & ~consumed);
    }
    for (; i < length; i++) {
        uint8_t byte = codes[i];
        if (byte == 0) {
            SIFT_EMIT_SEGMENT();
        } else {
            elements += (byte & 0xC0) != 0x80;
        }
    }
#undef SIFT_EMIT_SEGMENT
    return segment;
}

void sift_gather_tie_keys(const uint64_t *rows, size_t count, const uint64_t *keyOfSlot, const uint64_t *missing,
                          int invert, uint64_t *out) {
    uint64_t flip = invert ? UINT64_MAX : 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t slot = (uint32_t)rows[i];
        uint64_t key = (keyOfSlot ? keyOfSlot[slot] : slot) ^ flip;
        if (missing && (missing[slot >> 6] >> (slot & 63)) & 1) key = UINT64_MAX;
        out[i] = key;
    }
}

void sift_sort_rows_by_rank(uint64_t *rows, uint64_t *keys, const uint8_t *lengths, size_t count,
                            uint64_t *rowScratch, uint64_t *keyScratch) {
    if (count < 2 || (keys == NULL && lengths == NULL)) return;
    // Digit 0..7: the key's bytes, least significant first; digit 8: the length. Bytes every key
    // shares (equal in the keys' AND and OR) need neither a histogram nor a pass.
    int varies[9] = {0};
    if (keys) {
        uint64_t all = UINT64_MAX, any = 0;
        for (size_t i = 0; i < count; i++) {
            all &= keys[i];
            any |= keys[i];
        }
        for (int b = 0; b < 8; b++) varies[b] = ((all ^ any) >> (8 * b)) & 0xFF ? 1 : 0;
    }
    varies[8] = lengths != NULL;
    size_t histogram[9][256];
    for (int b = 0; b < 9; b++)
        if (varies[b]) memset(histogram[b], 0, sizeof histogram[b]);
    for (int b = 0; b < 8; b++) {
        if (!varies[b]) continue;
        for (size_t i = 0; i < count; i++) histogram[b][(keys[i] >> (8 * b)) & 0xFF] += 1;
    }
    if (lengths)
        for (size_t i = 0; i < count; i++) histogram[8][lengths[(uint32_t)rows[i]]] += 1;
    int lastKeyDigit = -1;
    for (int b = 0; b < 8; b++)
        if (varies[b]) lastKeyDigit = b;
    uint64_t *fromRows = rows, *toRows = rowScratch;
    uint64_t *fromKeys = keys, *toKeys = keyScratch;
    for (int digit = 0; digit < 9; digit++) {
        if (!varies[digit]) continue;
        size_t *counts = histogram[digit];
        uint8_t first = digit == 8 ? lengths[(uint32_t)fromRows[0]] : (uint8_t)(fromKeys[0] >> (8 * digit));
        if (counts[first] == count) continue;  // every row shares this digit
        size_t offset = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = counts[d];
            counts[d] = offset;
            offset += c;
        }
        if (digit == 8) {
            for (size_t i = 0; i < count; i++) toRows[counts[lengths[(uint32_t)fromRows[i]]]++] = fromRows[i];
        } else {
            int last = digit == lastKeyDigit;  // no key pass follows: the keys need not move
            for (size_t i = 0; i < count; i++) {
                size_t to = counts[(fromKeys[i] >> (8 * digit)) & 0xFF]++;
                toRows[to] = fromRows[i];
                if (!last) toKeys[to] = fromKeys[i];
            }
            if (!last) {
                uint64_t *k = fromKeys;
                fromKeys = toKeys;
                toKeys = k;
            }
        }
        uint64_t *r = fromRows;
        fromRows = toRows;
        toRows = r;
    }
    if (fromRows != rows) memcpy(rows, fromRows, sizeof(uint64_t) * count);
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

void sift_checksum_begin(sift_checksum_state *s, uint64_t seed) {
    s->lanes[0] = seed ^ 0x243F6A8885A308D3ull;
    s->lanes[1] = seed ^ 0x13198A2E03707344ull;
    s->lanes[2] = seed ^ 0xA4093822299F31D0ull;
    s->lanes[3] = seed ^ 0x082EFA98EC4E6C89ull;
    s->length = 0;
}

static inline void checksum_block(sift_checksum_state *s, const uint8_t *block) {
    uint64_t w[4];
    memcpy(w, block, 32);
    for (int k = 0; k < 4; k++) s->lanes[k] = mix(s->lanes[k], w[k]);
}

void sift_checksum_update(sift_checksum_state *s, const void *data, size_t length) {
    if (!length) return;
    const uint8_t *p = data;
    size_t held = (size_t)(s->length % 32);
    s->length += length;
    if (held) {
        size_t take = 32 - held < length ? 32 - held : length;
        memcpy(s->pending + held, p, take);
        p += take;
        length -= take;
        if (held + take < 32) return;
        checksum_block(s, s->pending);
    }
    for (; length >= 32; p += 32, length -= 32) checksum_block(s, p);
    if (length) memcpy(s->pending, p, length);
}

uint64_t sift_checksum_end(const sift_checksum_state *s) {
    uint64_t h = mix(mix(mix(mix(s->length, s->lanes[0]), s->lanes[1]), s->lanes[2]), s->lanes[3]);
    size_t rest = (size_t)(s->length % 32), i = 0;
    for (; i + 8 <= rest; i += 8) {
        uint64_t w;
        memcpy(&w, s->pending + i, 8);
        h = mix(h, w);
    }
    uint64_t tail = 0;
    memcpy(&tail, s->pending + i, rest - i);
    h = mix(h, tail ^ ((uint64_t)(rest - i) << 56));
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

int sift_scan_one_segment(const sift_column_view *c, const sift_scan_pattern *p, size_t segment, int anchoredAtStart) {
    if (segment >= c->segmentCount) return 0;
    return scan_segment(c, p, segment, segment_start(c, segment), segment_end(c, segment), anchoredAtStart);
}

size_t sift_keep_slots_with_length(uint64_t *bits, size_t wordCount, const uint8_t *lengths, size_t lengthCount,
                                   uint8_t length) {
    size_t kept = 0;
    for (size_t w = 0; w < wordCount; w++) {
        uint64_t word = bits[w];
        if (!word) continue;
        const size_t base = w * 64;
        if (base + 64 <= lengthCount) {
            const uint8_t *at = lengths + base;
            uint64_t mask = 0;
#if defined(__x86_64__)
            const __m128i v = _mm_set1_epi8((char)length);
            for (int k = 0; k < 4; k++) {
                const __m128i block = _mm_loadu_si128((const __m128i *)(at + 16 * k));
                mask |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(block, v)) << (16 * k);
            }
#else
            for (int k = 0; k < 64; k++) mask |= (uint64_t)(at[k] == length) << k;
#endif
            word &= mask;
            bits[w] = word;
        }
        kept += (size_t)__builtin_popcountll(word);
    }
    return kept;
}

size_t sift_keep_segments_of_length(const sift_column_view *c, uint64_t *bits, size_t wordCount, size_t length) {
    size_t kept = 0;
    for (size_t w = 0; w < wordCount; w++) {
        uint64_t word = bits[w];
        if (!word) continue;
        uint64_t keep = word;
        while (word) {
            size_t slot = w * 64 + (size_t)__builtin_ctzll(word);
            word &= word - 1;
            int32_t segment = candidate_segment(c, slot);
            if (segment < 0 || segment_end(c, (size_t)segment) - segment_start(c, (size_t)segment) != length) {
                keep &= ~(1ull << (slot & 63));
            }
        }
        bits[w] = keep;
        kept += (size_t)__builtin_popcountll(keep);
    }
    return kept;
}

// The full sweep. Segments are contiguous in the arena (each ends with its 0 separator), so the
// segment of a position is the first segment plus the number of separators before it: the loop
// compares 64 bytes at a time with the pattern's first and last bytes and with 0, and turns a hit
// into its segment with a popcount, instead of searching the segment table per hit. After a match
// the rest of that segment is skipped. Anchored at the start, a hit must follow a separator.
#if defined(__x86_64__)
// Bit k set when at[k] == byte, for 64 bytes.
__attribute__((target("avx2"))) static inline uint64_t eq_mask64_avx2(const uint8_t *at, uint8_t byte) {
    const __m256i v = _mm256_set1_epi8((char)byte);
    uint32_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)at), v));
    uint32_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(at + 32)), v));
    uint64_t mask = (uint64_t)lo | ((uint64_t)hi << 32);
    // Opaque to the optimizer: otherwise LLVM may merge the ANDs of several masks into vector
    // operations and then rebuild the result one bit at a time (ten times slower).
    __asm__("" : "+r"(mask));
    return mask;
}

__attribute__((target("avx512f,avx512bw"))) static inline uint64_t eq_mask64_avx512(const uint8_t *at, uint8_t byte) {
    return _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)at), _mm512_set1_epi8((char)byte));
}

#endif

// The bits of a bitset from bit `pos` on (64 of them), reading past its end as zeros.
static inline uint64_t bits_at(const uint64_t *words, size_t wordCount, size_t pos) {
    size_t w = pos >> 6;
    unsigned shift = (unsigned)(pos & 63);
    uint64_t low = w < wordCount ? words[w] : 0;
    if (shift == 0) return low;
    uint64_t high = w + 1 < wordCount ? words[w + 1] : 0;
    return (low >> shift) | (high << (64 - shift));
}

static inline void or_bits_at(uint64_t *words, size_t pos, uint64_t value) {
    size_t w = pos >> 6;
    unsigned shift = (unsigned)(pos & 63);
    words[w] |= value << shift;
    if (shift && (value >> (64 - shift))) words[w + 1] |= value >> (64 - shift);
}

#if defined(__x86_64__)
// Segments seg0 + i for the bits i of `hits` have an occurrence: those the fast path may take
// (live, simple, segment number = slot) are matches at once; the others are checked one by one.
__attribute__((target("avx2"), always_inline)) static inline void
emit_segments(const sift_column_view *c, const sift_scan_pattern *p, size_t seg0, uint64_t hits, int anchoredAtStart,
              uint64_t *matched, uint64_t *candidates) {
    uint64_t checked = bits_at(c->checkedSegments, (c->segmentCount >> 6) + 2, seg0);
    uint64_t fast = hits & ~checked;
    if (fast) {
        or_bits_at(matched, seg0, fast);
        or_bits_at(candidates, seg0, fast);
    }
    uint64_t slow = hits & checked;
    while (slow) {
        size_t s = seg0 + (size_t)__builtin_ctzll(slow);
        slow &= slow - 1;
        int32_t owner = owner_of(c, s);
        if (owner < 0) continue;
        int r = scan_segment_avx2(c, p, s, segment_start(c, s), segment_end(c, s), anchoredAtStart);
        if (r & 1) set_bit(candidates, owner);
        if (r & 2) set_bit(matched, owner);
    }
}

// A block's hits reduced to one bit per segment that ends in it (bit i: the i-th separator's
// segment has a hit); `openHit` carries a hit of the segment still open at the block's end.
__attribute__((target("avx2,bmi2"), always_inline)) static inline uint64_t
segments_with_hits(uint64_t hits, uint64_t separators, uint64_t *openHit, int usePext) {
    uint64_t out = 0;
    if (usePext) {
        // In the order of the block's hit and separator bits, a segment has a hit when the
        // entry just before its separator is a hit (the first one: or a hit carried over).
        // Without branches: whether a block has hits or separators is a coin toss for a letter.
        uint64_t either = hits | separators;
        uint64_t hitEntries = _pext_u64(hits, either);
        uint64_t separatorEntries = _pext_u64(separators, either);
        out = _pext_u64(separatorEntries & ((hitEntries << 1) | *openHit), separatorEntries);
        // The segment left open: its hits after the last separator, or all of them (and the
        // carried one) when the block has none.
        uint64_t throughLastSeparator = (~0ull >> __builtin_clzll(separators | 1)) & -(uint64_t)(separators != 0);
        *openHit = ((hits & ~throughLastSeparator) != 0) | (*openHit & (separators == 0));
    } else if (!hits) {  // only a hit carried over can end here
        if (separators) {
            out = *openHit;
            *openHit = 0;
        }
    } else {
        unsigned i = 0;
        for (uint64_t rest = separators; rest; rest &= rest - 1, i++) {
            uint64_t below = (1ull << __builtin_ctzll(rest)) - 1;
            out |= (uint64_t)(((hits & below) != 0) | *openHit) << i;
            *openHit = 0;
            hits &= ~below;
        }
        *openHit |= hits != 0;
    }
    return out;
}

// One letter is in most records, so for one-byte patterns the sweep reduces a block's hits to
// one bit per segment (pext where it is fast, else a walk over the block's separators) and hands
// them to `emit_segments`: a segment costs a few instructions instead of a lookup per hit. Longer
// patterns hit sparsely; each hit of their first and last bytes is checked on its own (measured on
// 1M generated records: from two bytes on, this is as fast as the reduction or faster).
// The masks of the arena's last block, byte by byte (the vector loads would read past its end).
__attribute__((noinline)) static void tail_masks(const sift_column_view *c, size_t pos, size_t m, uint8_t firstByte,
                                                 uint8_t lastByte, uint64_t *hits, uint64_t *separators) {
    *hits = *separators = 0;
    for (size_t k = 0; k < 64 && pos + k < c->length; k++) {
        uint8_t byte = c->codes[pos + k];
        *separators |= (uint64_t)(byte == 0) << k;
        if (byte == firstByte && pos + k + m - 1 < c->length && c->codes[pos + k + m - 1] == lastByte) {
            *hits |= 1ull << k;
        }
    }
}

// The block at `pos`: where the pattern's first and last bytes occur (hits, not yet checked in
// between) and where segments end (separators), both cut at `stop`.
__attribute__((target("avx2"), always_inline)) static inline void
block_masks(const sift_column_view *c, size_t pos, size_t stop, size_t m, uint8_t firstByte, uint8_t lastByte,
            uint64_t (*eq)(const uint8_t *, uint8_t), uint64_t *hits, uint64_t *separators) {
    if (pos + 64 + m - 1 <= c->length) {
        *separators = eq(c->codes + pos, 0);
        *hits = eq(c->codes + pos, firstByte);
        if (m > 1) *hits &= eq(c->codes + pos + m - 1, lastByte);
    } else {
        tail_masks(c, pos, m, firstByte, lastByte, hits, separators);
    }
    size_t available = stop - pos;
    if (available < 64) {
        uint64_t keep = (1ull << available) - 1;
        *hits &= keep;
        *separators &= keep;
    }
}

//
// The body is compiled twice, with the 64-byte compares of AVX2 and of AVX-512 (`eq`); the
// caller's instruction set decides which runs, and whether pext is used.
__attribute__((target("avx2,bmi2"), always_inline)) static inline void sweep_blocks(const sift_column_view *c, const sift_scan_pattern *p,
                                                              size_t first, size_t last, int anchoredAtStart,
                                                              uint64_t *matched, uint64_t *candidates,
                                                              uint64_t (*eq)(const uint8_t *, uint8_t), int usePext) {
    const int dense = p->length == 1;
    const size_t m = p->length;
    const uint8_t firstByte = p->bytes[0], lastByte = p->bytes[m - 1], secondByte = m > 2 ? p->bytes[1] : 0;
    size_t pos = segment_start(c, first);
    const size_t stop = segment_end(c, last - 1);  // occurrences start before the last separator
    size_t segment = first;                         // the segment holding `pos`
    uint64_t startCarry = 1;                        // `pos` starts a segment
    uint64_t openHit = 0;                           // dense: that segment has an occurrence before `pos`
    int skipping = 0;                               // sparse: that segment is done (matched or dead)
    while (pos < stop) {
        if (!dense && !skipping) {
            // Most blocks hold no occurrence of a longer pattern's first and last bytes: they only
            // advance the segment count (and the anchoring carry), in a tight loop.
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
            while (stop - pos >= 64 && pos + 64 + m - 1 <= c->length) {
                uint64_t separators = eq(c->codes + pos, 0);
                uint64_t hits = eq(c->codes + pos, firstByte) & eq(c->codes + pos + m - 1, lastByte);
                if (m > 2) hits &= eq(c->codes + pos + 1, secondByte);
                if (anchoredAtStart) hits &= (separators << 1) | startCarry;
                if (p->requireWordStart && hits) hits &= bits_at(c->wordStarts, c->wordCount, pos);
                if (hits) break;  // the block is handled below
                startCarry = separators >> 63;
                segment += (size_t)__builtin_popcountll(separators);
                pos += 64;
            }
            if (pos >= stop) break;
        }
        uint64_t hits, separators;
        block_masks(c, pos, stop, m, firstByte, lastByte, eq, &hits, &separators);
        uint64_t nextCarry = separators >> 63;
        if (anchoredAtStart) hits &= (separators << 1) | startCarry;
        startCarry = nextCarry;
        if (p->requireWordStart) hits &= bits_at(c->wordStarts, c->wordCount, pos);
        if (dense) {
            uint64_t out = segments_with_hits(hits, separators, &openHit, usePext);
            if (out) emit_segments(c, p, segment, out, anchoredAtStart, matched, candidates);
        } else {
            if (skipping) {
                if (separators) {
                    hits &= ~((1ull << __builtin_ctzll(separators)) - 1);
                    skipping = 0;
                } else {
                    hits = 0;
                }
            }
            while (hits) {
                unsigned h = (unsigned)__builtin_ctzll(hits);
                size_t j = pos + h;
                if (m > 2 && !middle_equal(c->codes + j + 1, p->bytes + 1, m - 2)) {
                    hits &= hits - 1;
                    continue;
                }
                size_t s = segment + (size_t)__builtin_popcountll(separators & ((1ull << h) - 1));
                // Unchecked: live, simple, its own slot, so a match (word starts are already masked).
                int32_t owner = (int32_t)s;
                int status = 3;
                if ((c->checkedSegments[s >> 6] >> (s & 63)) & 1) {
                    owner = owner_of(c, s);
                    status = owner >= 0 ? classify(c, p, s, segment_start(c, s), j) : 0;
                }
                if (status & 1) set_bit(candidates, owner);
                if (status & 2) set_bit(matched, owner);
                if (owner < 0 || (status & 2)) {  // this segment is done: go on after its separator
                    uint64_t after = h == 63 ? 0 : separators & ~((2ull << h) - 1);
                    if (after) {
                        hits &= ~((1ull << __builtin_ctzll(after)) - 1);
                    } else {
                        hits = 0;
                        skipping = 1;
                    }
                } else {
                    hits &= hits - 1;
                }
            }
        }
        segment += (size_t)__builtin_popcountll(separators);
        pos += 64;
        // The segment table is read only for checked segments, too sparsely for the hardware
        // prefetcher to follow: fetch it ahead of the sweep.
        if (segment + 64 < c->segmentCount) __builtin_prefetch(c->startOffsets + segment + 64);
    }
    if (openHit) emit_segments(c, p, segment, 1, anchoredAtStart, matched, candidates);
}

__attribute__((target("avx2,bmi2"))) static void sweep_avx2(const sift_column_view *c, const sift_scan_pattern *p,
                                                             size_t first, size_t last, int anchoredAtStart,
                                                             uint64_t *matched, uint64_t *candidates, int usePext) {
    sweep_blocks(c, p, first, last, anchoredAtStart, matched, candidates, eq_mask64_avx2, usePext);
}

__attribute__((target("avx512f,avx512bw,avx2,bmi2"))) static void
sweep_avx512(const sift_column_view *c, const sift_scan_pattern *p, size_t first, size_t last, int anchoredAtStart,
             uint64_t *matched, uint64_t *candidates, int usePext) {
    sweep_blocks(c, p, first, last, anchoredAtStart, matched, candidates, eq_mask64_avx512, usePext);
}

// The ranked sweep: one pass computing what three sweeps of the pattern would (anywhere, at a
// word start, at the segment's start), for the ranking groups of a short query whose anchored
// scans cannot be narrowed. Same structure as `sweep_blocks`, without its skip after a match
// (a segment matched anywhere may still match at a word start further on).
__attribute__((target("avx2,bmi2"), always_inline)) static inline void
sweep_ranked_blocks(const sift_column_view *c, const sift_scan_pattern *p, size_t first, size_t last,
                    const sift_ranked_outputs *out, uint64_t (*eq)(const uint8_t *, uint8_t), int usePext) {
    const size_t m = p->length;
    sift_scan_pattern anywhere = *p, atWord = *p;
    anywhere.requireWordStart = 0;
    atWord.requireWordStart = 1;
    const sift_scan_pattern *patterns[3] = {&anywhere, &atWord, &anywhere};
    uint64_t *matched[3] = {out->matchedAnywhere, out->matchedAtWordStart, out->matchedAtFieldStart};
    uint64_t *candidates[3] = {out->candidatesAnywhere, out->candidatesAtWordStart, out->candidatesAtFieldStart};
    const int dense = m == 1;
    const uint8_t firstByte = p->bytes[0], lastByte = p->bytes[m - 1], secondByte = m > 2 ? p->bytes[1] : 0;
    size_t pos = segment_start(c, first);
    const size_t stop = segment_end(c, last - 1);
    size_t segment = first;
    uint64_t startCarry = 1;
    uint64_t openHit[3] = {0, 0, 0};
    while (pos < stop) {
        if (!dense) {
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
            while (stop - pos >= 64 && pos + 64 + m - 1 <= c->length) {
                uint64_t separators = eq(c->codes + pos, 0);
                uint64_t hits = eq(c->codes + pos, firstByte) & eq(c->codes + pos + m - 1, lastByte);
                if (m > 2) hits &= eq(c->codes + pos + 1, secondByte);
                if (hits) break;
                startCarry = separators >> 63;
                segment += (size_t)__builtin_popcountll(separators);
                pos += 64;
            }
            if (pos >= stop) break;
        }
        uint64_t hits, separators;
        block_masks(c, pos, stop, m, firstByte, lastByte, eq, &hits, &separators);
        const uint64_t openStartsHere = startCarry;
        const uint64_t starts = (separators << 1) | openStartsHere;
        startCarry = separators >> 63;
        const uint64_t wordHits = hits ? hits & bits_at(c->wordStarts, c->wordCount, pos) : 0;
        if (dense) {
            // Written out per class (a loop over them spills to the stack), with one look at the
            // checked bits for all three.
            const uint64_t any = segments_with_hits(hits, separators, &openHit[0], usePext);
            const uint64_t atWordStart = segments_with_hits(wordHits, separators, &openHit[1], usePext);
            // A hit at a segment's first byte belongs to that segment: the k-th start in the block
            // is segment k (counting the open one, whether or not it starts here) from `segment`.
            const uint64_t atStart = usePext ? _pext_u64(hits & starts, starts) << (1 - openStartsHere)
                                             : segments_with_hits(hits & starts, separators, &openHit[2], 0);
            if (any | atStart) {  // (a segment with a hit at its start may end in a later block)
                const uint64_t checked = bits_at(c->checkedSegments, (c->segmentCount >> 6) + 2, segment);
                if (!((any | atStart) & checked)) {
                    // (Unconditional: whether a block has word or field starts with hits is a
                    // coin toss, and a mispredicted branch costs more than the writes.)
                    or_bits_at(out->matchedAnywhere, segment, any);
                    or_bits_at(out->candidatesAnywhere, segment, any);
                    or_bits_at(out->matchedAtWordStart, segment, atWordStart);
                    or_bits_at(out->candidatesAtWordStart, segment, atWordStart);
                    or_bits_at(out->matchedAtFieldStart, segment, atStart);
                    or_bits_at(out->candidatesAtFieldStart, segment, atStart);
                } else {
                    if (any) emit_segments(c, &anywhere, segment, any, 0, matched[0], candidates[0]);
                    if (atWordStart) emit_segments(c, &atWord, segment, atWordStart, 0, matched[1], candidates[1]);
                    if (atStart) emit_segments(c, &anywhere, segment, atStart, 1, matched[2], candidates[2]);
                }
            }
        } else {
            while (hits) {
                unsigned h = (unsigned)__builtin_ctzll(hits);
                hits &= hits - 1;
                size_t j = pos + h;
                if (m > 2 && !middle_equal(c->codes + j + 1, p->bytes + 1, m - 2)) continue;
                size_t s = segment + (size_t)__builtin_popcountll(separators & ((1ull << h) - 1));
                const int inClass[3] = {1, (int)((wordHits >> h) & 1), (int)((starts >> h) & 1)};
                if (!((c->checkedSegments[s >> 6] >> (s & 63)) & 1)) {
                    // Live, simple, its own slot: a match in every class it is in.
                    for (int k = 0; k < 3; k++) {
                        if (!inClass[k]) continue;
                        set_bit(matched[k], (int32_t)s);
                        set_bit(candidates[k], (int32_t)s);
                    }
                    continue;
                }
                int32_t owner = owner_of(c, s);
                if (owner < 0) continue;
                size_t start = segment_start(c, s);
                for (int k = 0; k < 3; k++) {
                    if (!inClass[k]) continue;
                    int status = classify(c, patterns[k], s, start, j);
                    if (status & 1) set_bit(candidates[k], owner);
                    if (status & 2) set_bit(matched[k], owner);
                }
            }
        }
        segment += (size_t)__builtin_popcountll(separators);
        pos += 64;
        if (segment + 64 < c->segmentCount) __builtin_prefetch(c->startOffsets + segment + 64);
    }
    for (int k = 0; k < 3; k++) {
        if (openHit[k]) emit_segments(c, patterns[k], segment, 1, k == 2, matched[k], candidates[k]);
    }
}

__attribute__((target("avx2,bmi2"))) static void sweep_ranked_avx2(const sift_column_view *c, const sift_scan_pattern *p,
                                                                    size_t first, size_t last,
                                                                    const sift_ranked_outputs *out, int usePext) {
    sweep_ranked_blocks(c, p, first, last, out, eq_mask64_avx2, usePext);
}

__attribute__((target("avx512f,avx512bw,avx2,bmi2"))) static void
sweep_ranked_avx512(const sift_column_view *c, const sift_scan_pattern *p, size_t first, size_t last,
                    const sift_ranked_outputs *out, int usePext) {
    sweep_ranked_blocks(c, p, first, last, out, eq_mask64_avx512, usePext);
}
#endif

void sift_sweep_segments(const sift_column_view *c, const sift_scan_pattern *p, size_t firstSegment,
                         size_t lastSegment, int anchoredAtStart, uint64_t *matched, uint64_t *candidates) {
    if (lastSegment > c->segmentCount) lastSegment = c->segmentCount;
    if (firstSegment >= lastSegment) return;
#if defined(__x86_64__)
    int level = sift_kernel_level();
    if (level >= SIFT_KERNEL_AVX512) {
        sweep_avx512(c, p, firstSegment, lastSegment, anchoredAtStart, matched, candidates, 1);
        return;
    }
    if (level >= SIFT_KERNEL_AVX2) {
        sweep_avx2(c, p, firstSegment, lastSegment, anchoredAtStart, matched, candidates, level >= SIFT_KERNEL_AVX2_PEXT);
        return;
    }
#endif
    for (size_t s = firstSegment; s < lastSegment; s++) {
        int32_t owner = owner_of(c, s);
        if (owner < 0) continue;
        int r = scan_segment(c, p, s, segment_start(c, s), segment_end(c, s), anchoredAtStart);
        if (r & 1) set_bit(candidates, owner);
        if (r & 2) set_bit(matched, owner);
    }
}

void sift_sweep_segments_ranked(const sift_column_view *c, const sift_scan_pattern *p, size_t firstSegment,
                                size_t lastSegment, const sift_ranked_outputs *out) {
    if (lastSegment > c->segmentCount) lastSegment = c->segmentCount;
    if (firstSegment >= lastSegment) return;
#if defined(__x86_64__)
    int level = sift_kernel_level();
    if (level >= SIFT_KERNEL_AVX512) {
        sweep_ranked_avx512(c, p, firstSegment, lastSegment, out, 1);
        return;
    }
    if (level >= SIFT_KERNEL_AVX2) {
        sweep_ranked_avx2(c, p, firstSegment, lastSegment, out, level >= SIFT_KERNEL_AVX2_PEXT);
        return;
    }
#endif
    sift_scan_pattern anywhere = *p, atWord = *p;
    anywhere.requireWordStart = 0;
    atWord.requireWordStart = 1;
    for (size_t s = firstSegment; s < lastSegment; s++) {
        int32_t owner = owner_of(c, s);
        if (owner < 0) continue;
        size_t start = segment_start(c, s), end = segment_end(c, s);
        int r = scan_segment(c, &anywhere, s, start, end, 0);
        if (!r) continue;  // no occurrence anywhere: none at a word or field start either
        if (r & 1) set_bit(out->candidatesAnywhere, owner);
        if (r & 2) set_bit(out->matchedAnywhere, owner);
        r = scan_segment(c, &atWord, s, start, end, 0);
        if (r & 1) set_bit(out->candidatesAtWordStart, owner);
        if (r & 2) set_bit(out->matchedAtWordStart, owner);
        r = scan_segment(c, &anywhere, s, start, end, 1);
        if (r & 1) set_bit(out->candidatesAtFieldStart, owner);
        if (r & 2) set_bit(out->matchedAtFieldStart, owner);
    }
}

void sift_prefetch(const void *address) { __builtin_prefetch(address); }

// MARK: - Fuzzy (subsequence) matching
//
// A segment matches a fuzzy pattern when the pattern's elements occur in it in order, not
// necessarily adjacent. Codes are self-synchronizing (a lead byte is never a continuation byte),
// so a byte search for an element's lead byte lands on element boundaries only, and the greedy
// leftmost search (each element found as early as possible after the previous one) decides the
// subsequence test. Start, end and word-start flags play no part in whether a segment matches.

// Bytes of the code whose lead byte is `lead` (the lengths `CodeBook` writes).
static inline size_t fuzzy_code_length(uint8_t lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

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

// The candidate slots of words [firstWord, lastWord) of `base`, each with its segment, in batches
// with the table entries and bytes prefetched ahead (as `sift_scan_candidates` does); `visit` is
// called with (slot, start, end). A slot without a segment (or not below `slotCount`) is skipped,
// or with `keepMissing` visited with start = end = 0 (an empty segment).
#define SIFT_FUZZY_FOR_EACH_CANDIDATE(c, slotCount, base, firstWord, lastWord, examined, keepMissing, VISIT)                      \
    do {                                                                                                            \
        enum { BATCH = 512, AHEAD = 8 };                                                                            \
        int32_t slots[BATCH];                                                                                       \
        size_t segments[BATCH];                                                                                     \
        size_t w = firstWord;                                                                                       \
        uint64_t bits = w < lastWord ? base[w] : 0;                                                                 \
        for (;;) {                                                                                                  \
            size_t n = 0;                                                                                           \
            while (n < BATCH && w < lastWord) {                                                                     \
                if (!bits) {                                                                                        \
                    if (++w >= lastWord) break;                                                                     \
                    bits = base[w];                                                                                 \
                    continue;                                                                                       \
                }                                                                                                   \
                size_t slot = w * 64 + (size_t)__builtin_ctzll(bits);                                               \
                bits &= bits - 1;                                                                                   \
                if (slot >= slotCount && !(keepMissing)) continue;                                                  \
                int32_t segment = slot < slotCount ? candidate_segment(c, slot) : -1;                               \
                if (segment < 0 && !(keepMissing)) continue;                                                        \
                slots[n] = (int32_t)slot;                                                                           \
                segments[n] = segment < 0 ? SIZE_MAX : (size_t)segment;                                             \
                n++;                                                                                                \
            }                                                                                                       \
            if (n == 0) break;                                                                                      \
            for (size_t k = 0; k < n; k++) {                                                                        \
                if (k + 2 * AHEAD < n && segments[k + 2 * AHEAD] != SIZE_MAX) {                                     \
                    __builtin_prefetch(c->startOffsets + segments[k + 2 * AHEAD]);                                  \
                    __builtin_prefetch(c->blockStarts + (segments[k + 2 * AHEAD] >> 6));                            \
                }                                                                                                   \
                if (k + AHEAD < n && segments[k + AHEAD] != SIZE_MAX) {                                             \
                    __builtin_prefetch(c->codes + segment_start(c, segments[k + AHEAD]));                           \
                }                                                                                                   \
                int32_t slot = slots[k];                                                                            \
                size_t start = 0, end = 0;                                                                          \
                if (segments[k] != SIZE_MAX) {                                                                      \
                    start = segment_start(c, segments[k]);                                                          \
                    end = segment_end(c, segments[k]);                                                              \
                }                                                                                                   \
                VISIT;                                                                                              \
            }                                                                                                       \
            examined += n;                                                                                          \
        }                                                                                                           \
    } while (0)

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

// The position of `key` among `distinct[0..<count)`, or `count`: the last one found is tried first
// (members of one key come in runs).
static inline size_t key_position(const uint32_t *distinct, size_t count, uint32_t key, size_t *last) {
    if (*last < count && distinct[*last] == key) return *last;
    for (size_t g = 0; g < count; g++) {
        if (distinct[g] == key) {
            *last = g;
            return g;
        }
    }
    return count;
}

// Keys below this are looked up in a table of a byte each (a first letter's are below a hundred
// or so: a score of at most 36, times the number of fields); larger ones by `key_position`.
enum { SIFT_KEY_TABLE = 1 << 16 };

size_t sift_distinct_keys(const uint32_t *keys, size_t keyCount, uint32_t *distinct, size_t limit) {
    uint32_t largest = 0;
    for (size_t i = 0; i < keyCount; i++) largest = keys[i] > largest ? keys[i] : largest;
    size_t count = 0;
    if (largest < SIFT_KEY_TABLE) {
        uint8_t *seen = calloc((size_t)largest + 1, 1);
        if (seen) {
            for (size_t i = 0; i < keyCount; i++) {
                if (seen[keys[i]]) continue;
                if (count == limit) {
                    free(seen);
                    return limit + 1;
                }
                seen[keys[i]] = 1;
                distinct[count++] = keys[i];
            }
            free(seen);
            return count;
        }
    }
    size_t last = 0;
    for (size_t i = 0; i < keyCount; i++) {
        uint32_t key = keys[i];
        if (key_position(distinct, count, key, &last) < count) continue;
        if (count == limit) return limit + 1;
        last = count;
        distinct[count++] = key;
    }
    return count;
}

void sift_group_by_key(const uint64_t *members, size_t wordCount, const uint32_t *keys, const uint32_t *distinct,
                       size_t count, uint64_t *groups) {
    uint32_t largest = 0;
    for (size_t g = 0; g < count; g++) largest = distinct[g] > largest ? distinct[g] : largest;
    uint8_t *table = largest < SIFT_KEY_TABLE && count < 255 ? malloc((size_t)largest + 1) : NULL;
    if (table) {
        memset(table, 255, (size_t)largest + 1);
        for (size_t g = 0; g < count; g++) table[distinct[g]] = (uint8_t)g;
    }
    size_t last = 0, i = 0;
    for (size_t w = 0; w < wordCount; w++) {
        uint64_t bits = members[w];
        while (bits) {
            size_t slot = w * 64 + (size_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            uint32_t key = keys[i++];
            size_t g = table ? (key <= largest && table[key] != 255 ? table[key] : count)
                             : key_position(distinct, count, key, &last);
            if (g < count) set_bit(groups + g * wordCount, (int32_t)slot);
        }
    }
    free(table);
}

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
