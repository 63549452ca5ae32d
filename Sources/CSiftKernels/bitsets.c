// Word-wide operations on result bitsets (Sources/Sift/Index/Storage/Bitset.swift): a keystroke
// unites, intersects and counts bitsets of one bit per slot, 16,384 words at a million records,
// several times per scope. Each operation here is one pass that also counts the result's
// members, with an AVX2 + POPCNT variant picked at run time (Swift's baseline x86-64 has no
// popcount instruction).
#include "CSiftKernels.h"

#include <string.h>

// One word of an operand, or `missing` past its end.
static inline uint64_t word_or(const uint64_t *words, size_t count, size_t i, uint64_t missing) {
    return words != NULL && i < count ? words[i] : missing;
}

// The operands of one combination (see `sift_bits_combine`).
typedef struct {
    const uint64_t *x, *y, *m, *s, *t;
    size_t xn, yn, mn, sn, tn;
} operands;

// dst[i] = (x[i] | y[i]) & m[i] & ~(s[i] | t[i]) for i < n, the flags telling which operands
// exist (constants at each call, so each case compiles to its own loop); the words before
// `common` exist in every operand, so that loop has no branch.
__attribute__((always_inline)) static inline size_t combine(uint64_t *dst, size_t n, size_t common, operands o,
                                                            int hasY, int hasM, int hasS, int hasT) {
    size_t total = 0;
    size_t i = 0;
    for (; i < common; i++) {
        uint64_t w = o.x[i];
        if (hasY) w |= o.y[i];
        if (hasM) w &= o.m[i];
        if (hasS) w &= ~o.s[i];
        if (hasT) w &= ~o.t[i];
        dst[i] = w;
        total += (size_t)__builtin_popcountll(w);
    }
    // Past an operand's end (a result set's spare capacity: a few hundred words at most).
#pragma clang loop vectorize(disable) unroll(disable)
    for (; i < n; i++) {
        uint64_t w = word_or(o.x, o.xn, i, 0) | word_or(o.y, o.yn, i, 0);
        w &= hasM ? word_or(o.m, o.mn, i, 0) : ~0ull;
        w &= ~(word_or(o.s, o.sn, i, 0) | word_or(o.t, o.tn, i, 0));
        dst[i] = w;
        total += (size_t)__builtin_popcountll(w);
    }
    return total;
}

#define CASE(k) \
    case k: return combine(dst, n, common, o, (k) & 1, ((k) >> 1) & 1, ((k) >> 2) & 1, ((k) >> 3) & 1);
#define COMBINE_CASES                                                                                              \
    switch ((o.y != NULL) | (o.m != NULL) << 1 | (o.s != NULL) << 2 | (o.t != NULL) << 3) {                         \
        CASE(0) CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7)                                            \
        CASE(8) CASE(9) CASE(10) CASE(11) CASE(12) CASE(13) CASE(14) CASE(15)                                      \
    }                                                                                                              \
    return 0;

static size_t combine_scalar(uint64_t *dst, size_t n, size_t common, operands o) { COMBINE_CASES }

#if defined(__x86_64__)
__attribute__((target("avx2,popcnt"))) static size_t combine_avx2(uint64_t *dst, size_t n, size_t common,
                                                                  operands o) {
    COMBINE_CASES
}
#endif

static inline size_t minimum(size_t a, size_t b) { return a < b ? a : b; }

size_t sift_bits_combine(uint64_t *dst, size_t n, const uint64_t *x, size_t xn, const uint64_t *y, size_t yn,
                         const uint64_t *m, size_t mn, const uint64_t *s, size_t sn, const uint64_t *t, size_t tn) {
    operands o = {x, y, m, s, t, xn, yn, mn, sn, tn};
    size_t common = minimum(n, xn);
    if (y != NULL) common = minimum(common, yn);
    if (m != NULL) common = minimum(common, mn);
    if (s != NULL) common = minimum(common, sn);
    if (t != NULL) common = minimum(common, tn);
#if defined(__x86_64__)
    if (sift_kernel_level() >= SIFT_KERNEL_AVX2) return combine_avx2(dst, n, common, o);
#endif
    return combine_scalar(dst, n, common, o);
}

__attribute__((always_inline)) static inline size_t split(uint64_t *rest, size_t n, const uint64_t *x, size_t xn,
                                                          uint64_t *inside) {
    size_t total = 0;
    size_t common = minimum(n, xn);
    for (size_t i = 0; i < common; i++) {
        uint64_t r = rest[i], w = x[i] & r;
        inside[i] = w;
        rest[i] = r & ~w;
        total += (size_t)__builtin_popcountll(w);
    }
    for (size_t i = common; i < n; i++) inside[i] = 0;
    return total;
}

static size_t split_scalar(uint64_t *rest, size_t n, const uint64_t *x, size_t xn, uint64_t *inside) {
    return split(rest, n, x, xn, inside);
}

#if defined(__x86_64__)
__attribute__((target("avx2,popcnt"))) static size_t split_avx2(uint64_t *rest, size_t n, const uint64_t *x,
                                                                size_t xn, uint64_t *inside) {
    return split(rest, n, x, xn, inside);
}
#endif

size_t sift_bits_split(uint64_t *rest, size_t n, const uint64_t *x, size_t xn, uint64_t *inside) {
#if defined(__x86_64__)
    if (sift_kernel_level() >= SIFT_KERNEL_AVX2) return split_avx2(rest, n, x, xn, inside);
#endif
    return split_scalar(rest, n, x, xn, inside);
}

__attribute__((always_inline)) static inline size_t count_words(const uint64_t *words, size_t n) {
    size_t a = 0, b = 0, c = 0, d = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a += (size_t)__builtin_popcountll(words[i]);
        b += (size_t)__builtin_popcountll(words[i + 1]);
        c += (size_t)__builtin_popcountll(words[i + 2]);
        d += (size_t)__builtin_popcountll(words[i + 3]);
    }
    for (; i < n; i++) a += (size_t)__builtin_popcountll(words[i]);
    return a + b + c + d;
}

static size_t count_scalar(const uint64_t *words, size_t n) { return count_words(words, n); }

#if defined(__x86_64__)
__attribute__((target("avx2,popcnt"))) static size_t count_avx2(const uint64_t *words, size_t n) {
    return count_words(words, n);
}
#endif

size_t sift_bits_count(const uint64_t *words, size_t n) {
#if defined(__x86_64__)
    if (sift_kernel_level() >= SIFT_KERNEL_AVX2) return count_avx2(words, n);
#endif
    return count_scalar(words, n);
}

// Skips zero words four at a time (results are often sparse), then writes each member's handle.
__attribute__((always_inline)) static inline size_t to_handles(const uint64_t *bits, size_t n,
                                                               const uint32_t *generations, uint32_t tag,
                                                               uint32_t *out) {
    size_t k = 0;
    size_t w = 0;
    while (w < n) {
        if (w + 4 <= n && (bits[w] | bits[w + 1] | bits[w + 2] | bits[w + 3]) == 0) {
            w += 4;
            continue;
        }
        uint64_t word = bits[w];
        while (word) {
            uint32_t slot = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(word));
            out[2 * k] = slot;
            out[2 * k + 1] = generations != NULL ? (tag | generations[slot]) : tag;
            k++;
            word &= word - 1;
        }
        w++;
    }
    return k;
}

static size_t to_handles_scalar(const uint64_t *bits, size_t n, const uint32_t *generations, uint32_t tag,
                                uint32_t *out) {
    return to_handles(bits, n, generations, tag, out);
}

#if defined(__x86_64__)
__attribute__((target("avx2,bmi"))) static size_t to_handles_avx2(const uint64_t *bits, size_t n,
                                                                  const uint32_t *generations, uint32_t tag,
                                                                  uint32_t *out) {
    return to_handles(bits, n, generations, tag, out);
}
#endif

size_t sift_bits_to_handles(const uint64_t *bits, size_t n, const uint32_t *generations, uint32_t tag,
                            uint32_t *out) {
#if defined(__x86_64__)
    if (sift_kernel_level() >= SIFT_KERNEL_AVX2) return to_handles_avx2(bits, n, generations, tag, out);
#endif
    return to_handles_scalar(bits, n, generations, tag, out);
}

__attribute__((always_inline)) static inline void block_ranks(const uint64_t *words, size_t n, uint32_t *out) {
    uint32_t total = 0;
    for (size_t b = 0; b * 8 < n; b++) {
        out[b] = total;
        size_t end = b * 8 + 8 < n ? b * 8 + 8 : n;
        for (size_t i = b * 8; i < end; i++) total += (uint32_t)__builtin_popcountll(words[i]);
    }
    out[(n + 7) / 8] = total;
}

static void block_ranks_scalar(const uint64_t *words, size_t n, uint32_t *out) { block_ranks(words, n, out); }

#if defined(__x86_64__)
__attribute__((target("avx2,popcnt"))) static void block_ranks_avx2(const uint64_t *words, size_t n,
                                                                    uint32_t *out) {
    block_ranks(words, n, out);
}
#endif

void sift_bits_block_ranks(const uint64_t *words, size_t n, uint32_t *out) {
#if defined(__x86_64__)
    if (sift_kernel_level() >= SIFT_KERNEL_AVX2) {
        block_ranks_avx2(words, n, out);
        return;
    }
#endif
    block_ranks_scalar(words, n, out);
}

size_t sift_bits_select(const uint64_t *words, size_t n, const uint32_t *ranks, size_t k) {
    // The last block whose rank is at most k holds the member.
    size_t low = 0, high = (n + 7) / 8;
    while (low + 1 < high) {
        size_t middle = (low + high) / 2;
        if (ranks[middle] <= k) low = middle; else high = middle;
    }
    size_t remaining = k - ranks[low];
    for (size_t w = low * 8; w < n; w++) {
        uint64_t word = words[w];
        size_t count = (size_t)__builtin_popcountll(word);
        if (remaining < count) {
            while (remaining > 0) {
                word &= word - 1;
                remaining--;
            }
            return w * 64 + (size_t)__builtin_ctzll(word);
        }
        remaining -= count;
    }
    return SIZE_MAX;
}

size_t sift_bits_rank(const uint64_t *words, size_t n, const uint32_t *ranks, size_t bit) {
    size_t word = bit >> 6;
    if (word >= n) return ranks[(n + 7) / 8];
    size_t rank = ranks[word / 8];
    for (size_t w = word & ~(size_t)7; w < word; w++) rank += (size_t)__builtin_popcountll(words[w]);
    uint64_t below = (bit & 63) == 0 ? 0 : words[word] & (~(uint64_t)0 >> (64 - (bit & 63)));
    return rank + (size_t)__builtin_popcountll(below);
}

// Ranked groups ordered by field length without a list of rows in between: a count per length
// over a range of a group's words, then each member written straight to its place. Both skip
// zero words four at a time (most groups of a narrow query are sparse).
// With `out` NULL, adds a count per length to `positions`; else writes each member's handle at
// `out[positions[length]++]`. Inlined with a constant `out`, so each use is its own loop.
__attribute__((always_inline)) static inline void by_length(const uint64_t *bits, size_t from, size_t to,
                                                            const uint8_t *lengths, const uint32_t *generations,
                                                            uint32_t tag, size_t *positions, uint64_t *out) {
    for (size_t w = from; w < to; w++) {
        if (w + 4 <= to && (bits[w] | bits[w + 1] | bits[w + 2] | bits[w + 3]) == 0) {
            w += 3;
            continue;
        }
        uint64_t word = bits[w];
        while (word) {
            size_t slot = w * 64 + (size_t)__builtin_ctzll(word);
            if (out == NULL) {
                positions[lengths[slot]] += 1;
            } else {
                uint64_t generation = generations != NULL ? (tag | generations[slot]) : tag;
                out[positions[lengths[slot]]++] = (uint64_t)slot | generation << 32;
            }
            word &= word - 1;
        }
    }
}

__attribute__((always_inline)) static inline void count_by_length(const uint64_t *bits, size_t from, size_t to,
                                                                  const uint8_t *lengths, size_t *counts) {
    by_length(bits, from, to, lengths, NULL, 0, counts, NULL);
}

__attribute__((always_inline)) static inline void scatter_by_length(const uint64_t *bits, size_t from, size_t to,
                                                                    const uint8_t *lengths,
                                                                    const uint32_t *generations, uint32_t tag,
                                                                    size_t *offsets, uint64_t *out) {
    by_length(bits, from, to, lengths, generations, tag, offsets, out);
}

static void count_by_length_scalar(const uint64_t *bits, size_t from, size_t to, const uint8_t *lengths,
                                   size_t *counts) {
    count_by_length(bits, from, to, lengths, counts);
}

static void scatter_by_length_scalar(const uint64_t *bits, size_t from, size_t to, const uint8_t *lengths,
                                     const uint32_t *generations, uint32_t tag, size_t *offsets, uint64_t *out) {
    scatter_by_length(bits, from, to, lengths, generations, tag, offsets, out);
}

#if defined(__x86_64__)
__attribute__((target("avx2,bmi"))) static void count_by_length_avx2(const uint64_t *bits, size_t from, size_t to,
                                                                     const uint8_t *lengths, size_t *counts) {
    count_by_length(bits, from, to, lengths, counts);
}

__attribute__((target("avx2,bmi"))) static void scatter_by_length_avx2(const uint64_t *bits, size_t from,
                                                                       size_t to, const uint8_t *lengths,
                                                                       const uint32_t *generations, uint32_t tag,
                                                                       size_t *offsets, uint64_t *out) {
    scatter_by_length(bits, from, to, lengths, generations, tag, offsets, out);
}
#endif

void sift_bits_count_by_length(const uint64_t *bits, size_t from, size_t to, const uint8_t *lengths,
                               size_t *counts) {
#if defined(__x86_64__)
    if (sift_kernel_level() >= SIFT_KERNEL_AVX2) {
        count_by_length_avx2(bits, from, to, lengths, counts);
        return;
    }
#endif
    count_by_length_scalar(bits, from, to, lengths, counts);
}

void sift_bits_scatter_by_length(const uint64_t *bits, size_t from, size_t to, const uint8_t *lengths,
                                 const uint32_t *generations, uint32_t tag, size_t *offsets, uint64_t *out) {
#if defined(__x86_64__)
    if (sift_kernel_level() >= SIFT_KERNEL_AVX2) {
        scatter_by_length_avx2(bits, from, to, lengths, generations, tag, offsets, out);
        return;
    }
#endif
    scatter_by_length_scalar(bits, from, to, lengths, generations, tag, offsets, out);
}
