// Exact scans: one segment, candidate lists, and the full sweeps (AVX2, AVX-512, portable).
#include "internal.h"

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
// segment's start (a table lookup), then its bytes, and for a word-start pattern the word-start
// bit of each hit: a three-stage software pipeline prefetches the table entry of the candidate
// 2·AHEAD places on and the bytes (and word-start word) of the one AHEAD places on, so the cache
// misses of many candidates overlap. (Without the word-start prefetch, that load took as many
// samples as the bytes' in `perf annotate`; 16 places ahead measured no better than 8.)
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
            size_t aheadStart = segment_start(c, ahead);
            __builtin_prefetch(c->codes + aheadStart);
            // A word-start query reads the word-start bit of each hit: a third miss per candidate.
            if (p->requireWordStart) __builtin_prefetch(c->wordStarts + (aheadStart >> 6));
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
