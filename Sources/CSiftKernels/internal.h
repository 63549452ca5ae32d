// Shared by the kernel files (not a public header): the helpers every scan uses, the byte
// comparisons of the sweeps, and the candidate loop of fuzzy and typo matching.
#ifndef SIFT_KERNELS_INTERNAL_H
#define SIFT_KERNELS_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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

// Bytes of the code whose lead byte is `lead` (the lengths `CodeBook` writes).
static inline size_t fuzzy_code_length(uint8_t lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

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

#endif
