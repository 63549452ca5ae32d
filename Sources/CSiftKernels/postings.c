// Element postings: which one-element patterns a record's segment matches, for every element at
// once (see `sift_slot_elements` in CSiftKernels.h).
#include "internal.h"

static inline size_t slot_elements(const sift_column_view *c, size_t slot, uint16_t *ids, uint8_t *kinds,
                                   uint8_t *scratch) {
    int32_t found = candidate_segment(c, slot);
    if (found < 0) return 0;
    const size_t segment = (size_t)found;
    const size_t start = segment_start(c, segment), end = segment_end(c, segment);
    const int flagged = test_bit(c->flaggedSegments, segment);
    // The flag entry of byte j is `entryBase + j` (see `classify`).
    const size_t entryBase = flagged ? flag_start(c, segment) - start : 0;
    size_t n = 0;
    for (size_t j = start; j < end; j++) {
        const uint8_t b = c->codes[j];
        unsigned id;
        if (b < 0x80) {
            id = b;
        } else if ((b & 0xE0) == 0xC0 && j + 1 < end) {
            id = 0x80 + (((unsigned)(b & 0x1F) << 6) | (unsigned)(c->codes[j + 1] & 0x3F));
        } else {
            continue;  // a continuation byte, or the lead of a longer code
        }
        // `classify` for a pattern of this one element (its last lead is its first byte).
        unsigned k = 3;
        if (flagged) {
            const unsigned f = flag_entry(c->flags, entryBase + j);
            if (!(f & SIFT_KERNEL_START_OK)) continue;
            k = (f & SIFT_KERNEL_END_OK) ? 3 : 1;
        }
        unsigned all = k;
        if (word_starts_at(c, j)) all |= k << 2;
        if (j == start) all |= k << 4;
        if (!scratch[id]) ids[n++] = (uint16_t)id;
        scratch[id] |= (uint8_t)all;
    }
    for (size_t i = 0; i < n; i++) {
        kinds[i] = scratch[ids[i]];
        scratch[ids[i]] = 0;
    }
    return n;
}

size_t sift_slot_elements(const sift_column_view *c, size_t slot, uint16_t *ids, uint8_t *kinds, uint8_t *scratch) {
    return slot_elements(c, slot, ids, kinds, scratch);
}

// Calls `body(set, slot)` for every set of every slot in [first, last): set 6 * code + 2 * anchor
// for a match, one more for a candidate without one.
#define FOR_EACH_POSTING(c, first, last, body)                                          \
    do {                                                                                \
        uint16_t ids[SIFT_POSTING_CODES];                                               \
        uint8_t kinds[SIFT_POSTING_CODES];                                              \
        uint8_t scratch[SIFT_POSTING_CODES];                                            \
        memset(scratch, 0, sizeof scratch);                                             \
        for (size_t slot = (first); slot < (last); slot++) {                            \
            size_t n = slot_elements((c), slot, ids, kinds, scratch);                   \
            for (size_t i = 0; i < n; i++) {                                            \
                const size_t base = 6 * (size_t)ids[i];                                 \
                const unsigned k = kinds[i];                                            \
                for (unsigned anchor = 0; anchor < 3; anchor++) {                       \
                    const unsigned bits = (k >> (2 * anchor)) & 3;                      \
                    if (!bits) continue;                                                \
                    const size_t set = base + 2 * anchor + (bits == 3 ? 0 : 1);         \
                    body;                                                               \
                }                                                                       \
            }                                                                           \
        }                                                                               \
    } while (0)

void sift_count_postings(const sift_column_view *c, size_t first, size_t last, uint32_t *counts) {
    FOR_EACH_POSTING(c, first, last, counts[set]++);
}

void sift_fill_postings(const sift_column_view *c, size_t first, size_t last, const sift_posting_target *targets,
                        uint32_t *cursors) {
    FOR_EACH_POSTING(c, first, last, {
        const sift_posting_target *t = &targets[set];
        if (t->words) {
            set_bit(t->words, (int32_t)slot);
        } else if (t->members) {
            t->members[cursors[set]++] = (int32_t)slot;
        }
    });
}
