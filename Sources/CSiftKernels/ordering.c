// Ordering and grouping: selecting rows in an order, sorting by key and by rank, grouping by key.
#include "internal.h"

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
