// CSiftKernels: the scan loops over folded columns, in C so that they run at memory speed.
//
// A column is a byte arena of folded codes (records separated by 0 bytes) and a table of segment
// starts (two levels, see below). Segment s normally belongs to slot s; the few that do not (a record updated since the
// last compaction) are listed in two maps (segment -> owner, slot -> segment), and dead segments
// in a bitset. A segment is either *simple* (every element may start and end a match) or
// *flagged*: it has a two-bit flag entry per code byte, entry flagStarts[rank] + (j - start) where
// rank counts the flagged segments before it, four entries a byte (entry k in bits 2(k mod 4) of
// flags[k / 4]). Word starts are one bit per code byte. An occurrence of
// the pattern at byte j is a *candidate* when a match may start there (and, if required, a word
// starts there); it is a *match* when, in addition, a match may end with the pattern's last
// element. Results are bitsets over slots.

#ifndef CSIFTKERNELS_H
#define CSIFTKERNELS_H

#include <stddef.h>
#include <stdint.h>

#define SIFT_KERNEL_START_OK 1
#define SIFT_KERNEL_END_OK 2

typedef struct sift_column_view {
    const uint8_t *_Nonnull codes;
    size_t length;
    const uint64_t *_Nonnull wordStarts;
    size_t wordCount;
    const uint8_t *_Nonnull flags;
    /// Segment starts, in two levels: per block of 64 segments the start of its first segment,
    /// plus per segment a 16-bit offset; for a block whose bit is set in `wideBlocks`, the
    /// `blockStarts` entry numbers the block's 64 entries in `wideStarts`, the starts in full.
    const uint32_t *_Nonnull blockStarts;
    const uint16_t *_Nonnull startOffsets;
    const uint64_t *_Nonnull wideBlocks;
    const uint32_t *_Nonnull wideStarts;
    /// One bit per segment (every bitset here is padded by a word): set unless the segment is
    /// live, simple and owned by the slot with its own number.
    const uint64_t *_Nonnull checkedSegments;
    /// One bit per segment: set when the segment is dead.
    const uint64_t *_Nonnull deadSegments;
    /// One bit per segment: set when the segment has flag bytes (is not simple).
    const uint64_t *_Nonnull flaggedSegments;
    /// Per word of `flaggedSegments`: the number of flagged segments before it.
    const uint32_t *_Nonnull flaggedRanks;
    /// Per flagged segment, in segment order: its first entry in `flags`.
    const uint32_t *_Nonnull flagStarts;
    /// Live segments owned by a slot of another number: `SlotMap` buckets (key, value pairs,
    /// key -1 empty, `awayOwnersCapacity` buckets, a power of two or 0), segment -> slot.
    const int32_t *_Nonnull awayOwners;
    size_t awayOwnersCapacity;
    /// The same for slots whose segment has another number: slot -> segment.
    const int32_t *_Nonnull awaySegments;
    size_t awaySegmentsCapacity;
    size_t segmentCount;
} sift_column_view;

typedef struct sift_scan_pattern {
    const uint8_t *_Nonnull bytes;
    size_t length;          // >= 1
    size_t lastLead;        // offset of the last element's first byte
    int requireWordStart;   // 1: the occurrence must start a word
} sift_scan_pattern;

/// Full scan of segments [firstSegment, lastSegment): sets the owner's bit in `candidates` for
/// every segment with an occurrence at a valid start (anchored: at the segment's start) and in
/// `matched` for every segment with a match.
void sift_sweep_segments(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                         size_t firstSegment, size_t lastSegment, int anchoredAtStart, uint64_t *_Nonnull matched,
                         uint64_t *_Nonnull candidates);

/// Where a ranked sweep writes: one pair of slot bitsets per anchor.
typedef struct sift_ranked_outputs {
    uint64_t *_Nonnull matchedAnywhere;
    uint64_t *_Nonnull candidatesAnywhere;
    uint64_t *_Nonnull matchedAtWordStart;
    uint64_t *_Nonnull candidatesAtWordStart;
    uint64_t *_Nonnull matchedAtFieldStart;
    uint64_t *_Nonnull candidatesAtFieldStart;
} sift_ranked_outputs;

/// `sift_sweep_segments` under three anchors in one pass over the column: the pattern anywhere,
/// at a word start, and at the segment's start (its `requireWordStart` is ignored). Each pair of
/// outputs gets exactly what `sift_sweep_segments` gives for that anchor.
void sift_sweep_segments_ranked(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                                size_t firstSegment, size_t lastSegment,
                                const sift_ranked_outputs *_Nonnull outputs);

/// Narrowed scan: for every slot below `slotCount` whose bit is set in words [firstWord, lastWord)
/// of `base`, scans that slot's segment, if it has one. Returns the number of slots examined.
size_t sift_scan_candidates(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                            size_t slotCount, const uint64_t *_Nonnull base,
                            size_t firstWord, size_t lastWord, int anchoredAtStart, uint64_t *_Nonnull matched,
                            uint64_t *_Nonnull candidates);

/// Narrowed scan of a list: for every slot of `slots` (`count` of them, ascending) below
/// `slotCount` that has a segment, scans that segment, and appends the slot to `matched` or
/// `candidates` (each with room for `count`) as `sift_scan_candidates` sets its bits. Sets the
/// two counts; returns the number of slots examined.
size_t sift_scan_slots(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                       size_t slotCount, const int32_t *_Nonnull slots, size_t count, int anchoredAtStart,
                       int32_t *_Nonnull matched, size_t *_Nonnull matchedCount, int32_t *_Nonnull candidates,
                       size_t *_Nonnull candidateCount);

/// One segment: 0 nothing, 1 candidate, 3 match (for re-evaluating a single record).
int sift_scan_one_segment(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                          size_t segment, int anchoredAtStart);

// MARK: - Element postings

/// Element codes a posting can hold: the one- and two-byte codes (`CodeBook`), 1 ..< 0x880.
#define SIFT_POSTING_CODES 0x880

/// For the segment of `slot` (none: returns 0): every element with a one- or two-byte code at a
/// position where a match of that one element may start, once each, with what a scan of the
/// one-element pattern would find there. Writes the codes to `ids` and their kinds to `kinds`
/// (room for `SIFT_POSTING_CODES` each) and returns how many. Kind bits, two per anchor: bit 0
/// candidate anywhere, bit 1 match anywhere; bits 2, 3 the same at a word start; bits 4, 5 at the
/// field's start. `scratch` holds `SIFT_POSTING_CODES` zero bytes, and does again on return.
size_t sift_slot_elements(const sift_column_view *_Nonnull column, size_t slot, uint16_t *_Nonnull ids,
                          uint8_t *_Nonnull kinds, uint8_t *_Nonnull scratch);

/// A posting set being filled: bits, or a list with room for its members, or neither (skipped).
typedef struct sift_posting_target {
    uint64_t *_Nullable words;
    int32_t *_Nullable members;
} sift_posting_target;

/// For slots [first, last) of the column (each below its slot count): adds to `counts[set]` (6 *
/// `SIFT_POSTING_CODES` entries) the slots in each posting set. Set 6 * code + 2 * anchor (0
/// anywhere, 1 word start, 2 field start) holds the slots a scan of that one element matches at
/// that anchor; the set after it, the slots that are candidates there without a match.
void sift_count_postings(const sift_column_view *_Nonnull column, size_t first, size_t last,
                         uint32_t *_Nonnull counts);

/// For slots [first, last): sets each slot's bit in the `words` of its sets' targets, or writes it
/// at `members[cursors[set]]` and advances that cursor. Slots come in ascending order.
void sift_fill_postings(const sift_column_view *_Nonnull column, size_t first, size_t last,
                        const sift_posting_target *_Nonnull targets, uint32_t *_Nonnull cursors);

/// Clears the bits of `bits` (`wordCount` words) whose slot's entry in `lengths` is not `length`,
/// a cheap filter before `sift_keep_segments_of_length` (the entries are collation element counts,
/// which a segment of the pattern's bytes shares with the pattern). Words whose 64 entries are not
/// all within `lengthCount` are left as they are. Returns the number of bits left set.
size_t sift_keep_slots_with_length(uint64_t *_Nonnull bits, size_t wordCount, const uint8_t *_Nonnull lengths,
                                   size_t lengthCount, uint8_t length);

/// Clears the bits of `bits` (slots; `wordCount` words) whose segment in the column is not
/// `length` code bytes long (or that have no segment). Returns how many bits stay set.
size_t sift_keep_segments_of_length(const sift_column_view *_Nonnull column, uint64_t *_Nonnull bits,
                                    size_t wordCount, size_t length);

/// Writes to `out`, in order, the entries of `order` whose bit is set in `bits`. Returns how many.
/// `out` needs room for one entry more than that: every entry is written before it is known
/// whether it stays.
size_t sift_select_in_order(const int32_t *_Nonnull order, size_t count, const uint64_t *_Nonnull bits,
                            size_t wordCount, int32_t *_Nonnull out);

/// As `sift_select_in_order`, writing each kept entry as a handle: the slot in the low 32 bits,
/// `tag | generations[slot]` (`tag` alone when `generations` is NULL) in the high ones. `out`
/// needs room for one entry more than it keeps.
size_t sift_select_handles_in_order(const int32_t *_Nonnull order, size_t count, const uint64_t *_Nonnull bits,
                                    size_t wordCount, const uint32_t *_Nullable generations, uint32_t tag,
                                    uint64_t *_Nonnull out);

/// Sets bit `firstPosition + i` of `out` for each entry `i` of `order` whose bit is set in `bits`
/// (the positions, in an order, of a set's members). Returns how many. `out` holds the bits of
/// every position the entries reach; bits outside them are kept.
size_t sift_positions_in_order(const int32_t *_Nonnull order, size_t count, const uint64_t *_Nonnull bits,
                               size_t wordCount, uint64_t *_Nonnull out, size_t firstPosition);

/// Sorts `values` by `keys` (ascending; keys distinct or not, the sort is stable), both `count`
/// long, with an LSD radix sort over the keys' bytes that skips bytes every key shares; the
/// scratch buffers hold `count` entries each. For ordering a sparse result by order labels.
void sift_sort_by_key(uint64_t *_Nonnull keys, int32_t *_Nonnull values, uint64_t *_Nonnull keyScratch,
                      int32_t *_Nonnull valueScratch, size_t count);

/// The highest field length the ranking keys tell apart (`SearchIndex+RankingKeys.swift`):
/// longer fields count as this long.
#define SIFT_RANKING_LENGTH_LIMIT 255

/// Writes to `counts[s]` the number of elements (lead bytes) of segment `s` of a column's codes,
/// `length` bytes in which every segment is followed by a 0 separator and the first starts after
/// the separator at index 0, at most `SIFT_RANKING_LENGTH_LIMIT`; for at most `segments`
/// segments. Returns how many segments it counted.
size_t sift_segment_element_counts(const uint8_t *_Nonnull codes, size_t length, uint8_t *_Nonnull counts,
                                   size_t segments);

/// Stably sorts `count` rows (record handles: a 32-bit slot, then a 32-bit generation) by
/// `lengths[slot]` (when `lengths` is not NULL), then by `keys[i]` (the row's 64-bit key, when
/// `keys` is not NULL; permuted along with the rows), ties keeping their order: an LSD radix sort,
/// the keys' bytes first and the length last, that skips every byte all rows share (so rows whose
/// lengths and keys are all equal are left as they are, after one counting pass). The scratch
/// buffers hold `count` entries each (`keyScratch` may be NULL without keys).
void sift_sort_rows_by_rank(uint64_t *_Nonnull rows, uint64_t *_Nullable keys, const uint8_t *_Nullable lengths,
                            size_t count, uint64_t *_Nonnull rowScratch, uint64_t *_Nullable keyScratch);

/// Writes each row's tie-break key to `out` (rows as for `sift_sort_rows_by_rank`): the
/// slot's entry of `keyOfSlot` (the slot itself when NULL), complemented when `invert` is not 0,
/// and UINT64_MAX for a slot whose bit is set in `missing` (when not NULL).
void sift_gather_tie_keys(const uint64_t *_Nonnull rows, size_t count, const uint64_t *_Nullable keyOfSlot,
                          const uint64_t *_Nullable missing, int invert, uint64_t *_Nonnull out);

/// Writes the members of `bits` (ascending) to `out`. Returns how many.
size_t sift_bits_to_slots(const uint64_t *_Nonnull bits, size_t wordCount, int32_t *_Nonnull out);

/// One pass over bitsets: `dst[i] = (x[i] | y[i]) & m[i] & ~(s[i] | t[i])` for `i < n`, where a
/// NULL `y`, `s` or `t` counts as all zeros and a NULL `m` as all ones, and each operand's words
/// past its own length (`xn`, `yn`, ...) as zeros. `dst` may be one of the operands. Returns the
/// number of bits set in `dst`.
size_t sift_bits_combine(uint64_t *_Nonnull dst, size_t n, const uint64_t *_Nonnull x, size_t xn,
                         const uint64_t *_Nullable y, size_t yn, const uint64_t *_Nullable m, size_t mn,
                         const uint64_t *_Nullable s, size_t sn, const uint64_t *_Nullable t, size_t tn);

/// Splits `rest` by `x` in one pass: `inside[i] = x[i] & rest[i]` and `rest[i] &= ~x[i]` for
/// `i < n` (words of `x` past `xn` count as zeros). Returns the number of bits set in `inside`.
size_t sift_bits_split(uint64_t *_Nonnull rest, size_t n, const uint64_t *_Nonnull x, size_t xn,
                       uint64_t *_Nonnull inside);

/// The number of bits set in `n` words.
size_t sift_bits_count(const uint64_t *_Nonnull words, size_t n);

/// Writes a record handle (slot, then `tag | generations[slot]`, or `tag` alone when
/// `generations` is NULL) for each member of `bits`, ascending, as pairs of 32-bit values.
/// Returns how many.
size_t sift_bits_to_handles(const uint64_t *_Nonnull bits, size_t n, const uint32_t *_Nullable generations,
                            uint32_t tag, uint32_t *_Nonnull out);

/// Adds to `counts[l]` (256 entries) the number of members of words `from..<to` of `bits` whose
/// `lengths[slot]` is `l`.
void sift_bits_count_by_length(const uint64_t *_Nonnull bits, size_t from, size_t to,
                               const uint8_t *_Nonnull lengths, size_t *_Nonnull counts);

/// Writes the handle of each member of words `from..<to` of `bits` (its slot in the low 32 bits,
/// `tag | generations[slot]`, or `tag` alone when `generations` is NULL, in the high ones) at
/// `out[offsets[lengths[slot]]++]`: with `offsets` from the counts of
/// `sift_bits_count_by_length`, members ordered by length, ties ascending.
void sift_bits_scatter_by_length(const uint64_t *_Nonnull bits, size_t from, size_t to,
                                 const uint8_t *_Nonnull lengths, const uint32_t *_Nullable generations,
                                 uint32_t tag, size_t *_Nonnull offsets, uint64_t *_Nonnull out);

/// A rank directory of `n` words of bits: `out[b]` is the number of bits set in words
/// `0..<8b`, for `b` in `0...(n + 7) / 8` (so the last entry is the total). `out` holds
/// `(n + 7) / 8 + 1` entries.
void sift_bits_block_ranks(const uint64_t *_Nonnull words, size_t n, uint32_t *_Nonnull out);

/// The position of the member numbered `k` (from 0, ascending) of `n` words of bits, given their
/// rank directory (`sift_bits_block_ranks`); `SIZE_MAX` when there are not that many members.
size_t sift_bits_select(const uint64_t *_Nonnull words, size_t n, const uint32_t *_Nonnull ranks, size_t k);

/// The number of members of `n` words of bits below position `bit`, given their rank directory.
size_t sift_bits_rank(const uint64_t *_Nonnull words, size_t n, const uint32_t *_Nonnull ranks, size_t bit);

/// Instruction-set levels of the kernels.
#define SIFT_KERNEL_SCALAR 1
#define SIFT_KERNEL_AVX2 2       // AVX2, without pext (slow on AMD before Zen 3)
#define SIFT_KERNEL_AVX2_PEXT 3  // AVX2 and BMI2's pext
#define SIFT_KERNEL_AVX512 4     // AVX-512BW compares, AVX2 and pext

/// The best level this CPU supports.
int sift_best_kernel_level(void);

/// The level the kernels use: the best this CPU supports, or less if forced.
int sift_kernel_level(void);

/// Makes the kernels use at most `level` (0: the best available). For tests, which compare the
/// answers of every level this CPU supports. Thread-safe; takes effect at the next kernel call.
void sift_force_kernel_level(int level);

/// The cores this process may run on: its CPU affinity (as `taskset`, a cpuset or a container
/// sets it), or the cores online where the affinity cannot be read.
long sift_usable_cores(void);

/// Tell ThreadSanitizer, in a build that has it, that the lock at `address` was just acquired /
/// is about to be released; in other builds they do nothing. `Mutex.withSanitizerVisibleLock`
/// calls them inside each critical section.
void sift_sanitizer_acquire(const void *_Nonnull address);
void sift_sanitizer_release(const void *_Nonnull address);

/// Asks for the cache line holding `address` (an edit does, for the scattered entries of the
/// record it is about to change, before the collator's work on the new text).
void sift_prefetch(const void *_Nonnull address);

/// A fast 64-bit checksum of `length` bytes (for detecting corrupted files; not cryptographic).
uint64_t sift_checksum(const void *_Nonnull data, size_t length, uint64_t seed);

/// `sift_checksum` of bytes given in parts (a snapshot written as it is encoded): begin, update
/// with each part in order, end; the result equals `sift_checksum` of the parts joined.
typedef struct {
    uint64_t lanes[4];
    uint64_t length;
    uint8_t pending[32];
} sift_checksum_state;

void sift_checksum_begin(sift_checksum_state *_Nonnull state, uint64_t seed);
void sift_checksum_update(sift_checksum_state *_Nonnull state, const void *_Nullable data, size_t length);
uint64_t sift_checksum_end(const sift_checksum_state *_Nonnull state);

// MARK: - Fuzzy (subsequence) matching

/// A fuzzy pattern is a `sift_scan_pattern` (its `lastLead` and `requireWordStart` unused). A
/// segment matches when the pattern's elements occur in it in order, not necessarily adjacent;
/// flags play no part. The score of a match (fzf's v1 scheme on elements): the greedy leftmost
/// occurrence fixes the last element; a backward pass from it places every earlier element as
/// late as possible (the shortest window ending there). Each element scores
/// `SIFT_FUZZY_SCORE_MATCH` plus a bonus: `SIFT_FUZZY_BONUS_FIELD_START` at the field's first
/// element, `SIFT_FUZZY_BONUS_WORD_START` at another word start, 0 elsewhere; the first pattern
/// element's bonus counts twice; an element right after the previous one gets the largest of its
/// own bonus, the bonus of its run's first element and `SIFT_FUZZY_BONUS_CONSECUTIVE`; a gap of
/// g >= 1 skipped elements costs `SIFT_FUZZY_GAP_START` + (g - 1) * `SIFT_FUZZY_GAP_EXTENSION`.
/// Scores below 0 count as 0.
#define SIFT_FUZZY_SCORE_MATCH 16
#define SIFT_FUZZY_BONUS_FIELD_START 10
#define SIFT_FUZZY_BONUS_WORD_START 8
#define SIFT_FUZZY_BONUS_CONSECUTIVE 4
#define SIFT_FUZZY_GAP_START 3
#define SIFT_FUZZY_GAP_EXTENSION 1
/// Scores above this rank as this (ranking keys stay 32-bit).
#define SIFT_FUZZY_SCORE_LIMIT 65535

/// One segment: 1 when the pattern's elements occur in it in order, else 0 (also when dead).
int sift_fuzzy_one_segment(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                           size_t segment);

/// Full fuzzy scan of segments [firstSegment, lastSegment): sets the owner's bit in `matched` for
/// every live segment that matches.
void sift_fuzzy_sweep(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                      size_t firstSegment, size_t lastSegment, uint64_t *_Nonnull matched);

/// `sift_fuzzy_sweep`, with each match's score (as `sift_fuzzy_score_members` stores it) written
/// at its owner in `scores` (one entry per slot): for one element, from where the sweep found it
/// first (the field's start, a word start, elsewhere: its three scores); for more, aligned while
/// the segment is in cache. `scratch` holds one entry per pattern element.
void sift_fuzzy_sweep_scores(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                             size_t firstSegment, size_t lastSegment, uint64_t *_Nonnull matched,
                             uint16_t *_Nonnull scores, size_t *_Nonnull scratch);

/// The entries of `scores` (one per slot) of the members of `matched` (words [0, wordCount)), in
/// slot order, into `out`. Returns the number written.
size_t sift_fuzzy_gather_scores(const uint64_t *_Nonnull matched, size_t wordCount, const uint16_t *_Nonnull scores,
                                uint16_t *_Nonnull out);

/// Narrowed fuzzy scan: every slot below `slotCount` set in words [firstWord, lastWord) of `base`
/// whose segment matches gets its bit in `matched`. Returns the number of slots examined.
size_t sift_fuzzy_scan_candidates(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                                  size_t slotCount, const uint64_t *_Nonnull base, size_t firstWord, size_t lastWord,
                                  uint64_t *_Nonnull matched);

/// The score of one segment's match (see above), or -1 when it does not match. `scratch` holds one
/// entry per pattern element; `positions`, if not NULL, receives (one per pattern element) the
/// element index in the segment each pattern element is aligned with.
int32_t sift_fuzzy_align_segment(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                                 size_t segment, size_t *_Nonnull scratch, int32_t *_Nullable positions);

/// The score of every member of `members` in words [firstWord, lastWord), in slot order (the
/// score of `sift_fuzzy_align_segment`), clamped to 0...SIFT_FUZZY_SCORE_LIMIT (0 for a member
/// without a segment, at or past `slotCount`, or without an alignment); `scores` has room for the
/// members. Returns the number written: the members.
size_t sift_fuzzy_score_members(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                                size_t slotCount, const uint64_t *_Nonnull members, size_t firstWord,
                                size_t lastWord, size_t *_Nonnull scratch, uint16_t *_Nonnull scores);

/// `sift_fuzzy_scan_candidates` that also scores each match as `sift_fuzzy_score_members` does,
/// while its bytes are in cache: the scores are appended at `scores[*written]` in slot order and
/// `*written` is advanced. Returns the number of candidates examined.
size_t sift_fuzzy_scan_score_candidates(const sift_column_view *_Nonnull column,
                                        const sift_scan_pattern *_Nonnull pattern, size_t slotCount,
                                        const uint64_t *_Nonnull base, size_t firstWord, size_t lastWord,
                                        uint64_t *_Nonnull matched, size_t *_Nonnull scratch,
                                        uint16_t *_Nonnull scores, size_t *_Nonnull written);

/// For the members of `members` in words [firstWord, lastWord), each with its score read in turn
/// from `scores` (as `sift_fuzzy_score_members` wrote them, `scoreCount` of them: no more are
/// read): where the member is in `filter`, the key of its rank among `filter`'s members
/// (`ranks[w]`: the members before word w) becomes (score + 1) * rankCount + fieldRank if that is
/// larger. Returns the number of scores read.
size_t sift_fuzzy_combine_scores(const uint64_t *_Nonnull members, size_t firstWord, size_t lastWord,
                                 const uint64_t *_Nonnull filter, const uint32_t *_Nonnull ranks,
                                 const uint16_t *_Nonnull scores, size_t scoreCount, uint32_t fieldRank,
                                 uint32_t rankCount, uint32_t *_Nonnull keys);

/// The distinct values of `keys` (`keyCount` of them), in the order first met, into `distinct`
/// (room for `limit`). Returns their number, or `limit` + 1 as soon as there are more than `limit`.
size_t sift_distinct_keys(const uint32_t *_Nonnull keys, size_t keyCount, uint32_t *_Nonnull distinct, size_t limit);

/// Sets each member of `members` (words [0, wordCount)) in the group of its key (the i-th member's
/// is `keys[i]`): group g, the members whose key is `distinct[g]`, is the bitset of `wordCount` words at
/// `groups + g * wordCount` (`count` groups).
void sift_group_by_key(const uint64_t *_Nonnull members, size_t wordCount, const uint32_t *_Nonnull keys,
                       const uint32_t *_Nonnull distinct, size_t count, uint64_t *_Nonnull groups);

// MARK: - Typo tolerance (bounded prefix distance)

/// A typo pattern is a `sift_scan_pattern` (its `lastLead` unused; `requireWordStart` 1: the
/// pattern is compared at every word start of a segment, the record word running to the next
/// word start or the segment's end; 0: at the segment's start only, the record word being the
/// whole segment). Its distance to a record word is the optimal string alignment distance (edits:
/// insertion, deletion, substitution of one element, swap of two adjacent elements) between the
/// pattern's elements and the nearest prefix of the record word, elements compared as whole codes.
/// Flags play no part. At most `SIFT_TYPO_MAX_ELEMENTS` pattern elements, at most
/// `SIFT_TYPO_MAX_EDITS` edits.
#define SIFT_TYPO_MAX_ELEMENTS 128
#define SIFT_TYPO_MAX_EDITS 3

/// One segment: the smallest distance of the pattern to a record word of the segment if it is at
/// most `maxEdits`, else `maxEdits` + 1 (also when the segment is dead).
int sift_typo_one_segment(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                          size_t segment, int maxEdits);

/// Full typo scan of segments [firstSegment, lastSegment): sets the owner's bit in `matched` for
/// every live segment with a record word within `maxEdits` of the pattern.
void sift_typo_sweep(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                     size_t firstSegment, size_t lastSegment, int maxEdits, uint64_t *_Nonnull matched);

/// Narrowed typo scan: every slot below `slotCount` set in words [firstWord, lastWord) of `base`
/// whose segment has a record word within `maxEdits` gets its bit in `matched`. Returns the number
/// of slots examined.
size_t sift_typo_scan_candidates(const sift_column_view *_Nonnull column, const sift_scan_pattern *_Nonnull pattern,
                                 size_t slotCount, const uint64_t *_Nonnull base, size_t firstWord, size_t lastWord,
                                 int maxEdits, uint64_t *_Nonnull matched);

/// The record words of one segment within `maxEdits` of the pattern, first to last: for each, its
/// first element's index in the segment and the number of elements of its nearest prefix (the
/// longest among the nearest), as pairs in `out` (room for `capacity` pairs). Returns how many.
size_t sift_typo_matches_in_segment(const sift_column_view *_Nonnull column,
                                    const sift_scan_pattern *_Nonnull pattern, size_t segment, int maxEdits,
                                    int32_t *_Nonnull out, size_t capacity);

#endif
