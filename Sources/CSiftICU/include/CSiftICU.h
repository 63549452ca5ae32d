// CSiftICU: a plain-C face over the system ICU (libicui18n, libicuuc).
//
// Why this target exists: ICU's headers rename every function with a version suffix through
// macros Swift cannot import (`ucol_open` is really `ucol_open_72`), and a Swift module that
// imports Foundation clashes with any Clang module that exposes ICU's own types, because
// Foundation carries a private ICU. So this header uses only <stdint.h>/<stddef.h> types and
// opaque handles; <unicode/*.h> is included by the .c/.cpp files alone.
//
// Conventions: every symbol carries the `sift_` prefix. Text crosses the boundary as UTF-8
// (`const char *` + byte length); offsets that come back are UTF-16 code units, as ICU counts.
// Status values are ICU's UErrorCode as int32_t: 0 is success, < 0 a warning, > 0 an error.

#ifndef CSIFTICU_H
#define CSIFTICU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Status

/// ICU's name for a status code ("U_ZERO_ERROR", "U_ILLEGAL_ARGUMENT_ERROR", ...).
const char *_Nonnull sift_status_name(int32_t status);

/// ICU's version, e.g. "72.1".
const char *_Nonnull sift_icu_version(void);

// MARK: - Collator

/// Strength values, equal to ICU's UColAttributeValue constants.
enum {
    SIFT_STRENGTH_PRIMARY = 0,
    SIFT_STRENGTH_SECONDARY = 1,
    SIFT_STRENGTH_TERTIARY = 2,
    SIFT_STRENGTH_QUATERNARY = 3,
    SIFT_STRENGTH_IDENTICAL = 15,
};

/// Options for `sift_collator_open`.
typedef struct sift_collator_options {
    /// ICU locale id ("root", "es", "es@collation=traditional"); NUL-terminated.
    const char *_Nullable locale;
    /// Extra tailoring rules in UTF-8 (ICU rule syntax), appended to the locale's own rules; may be NULL.
    const char *_Nullable rules;
    int32_t rulesLength;
    int32_t strength;          // SIFT_STRENGTH_*
    int32_t alternateShifted;  // 1: shifted (ignore punctuation and spaces), 0: non-ignorable
    int32_t normalization;     // 1: on (NFC and NFD text match each other)
    int32_t caseLevel;         // 1: on
    int32_t numeric;           // 1: digit runs compare as numbers (UCOL_NUMERIC_COLLATION), for sorting;
                               // 0: the locale's default (off unless it says colNumeric/kn)
} sift_collator_options;

typedef struct sift_collator sift_collator;

/// Opens a collator. Returns NULL and sets `*status` > 0 on failure. An unknown locale is an
/// error (U_ILLEGAL_ARGUMENT_ERROR): ICU would otherwise silently fall back to root.
sift_collator *_Nullable sift_collator_open(const sift_collator_options *_Nonnull options,
                                            int32_t *_Nonnull status);
void sift_collator_close(sift_collator *_Nullable collator);

/// Checks the keywords of a locale id ("de@collation=phonebook", "de-u-co-phonebk") before a
/// collator is opened, since ICU ignores what it does not know: `collation=` must name a collation
/// the locale has; the keywords of attributes Sift sets itself (colStrength, colAlternate,
/// colNormalization, colCaseLevel, colNumeric) and keywords that are not about collation
/// (calendar, currency, ...) are refused; other collation keywords (colCaseFirst, colBackwards,
/// colReorder, maxVariable, colHiraganaQuaternary) need a value ICU accepts. Returns 0 when the
/// keywords are fine, else writes a one-line reason into `buffer` (NUL-terminated when there is
/// room) and returns its full length.
int32_t sift_locale_keyword_problem(const char *_Nonnull locale, char *_Nullable buffer, int32_t capacity);

/// The collator's version (ucol_getVersion: rules, UCA and ICU code versions), as
/// "a.b.c.d". Folded collation elements are only comparable between equal versions.
int32_t sift_collator_version(const sift_collator *_Nonnull collator, char *_Nonnull buffer, int32_t capacity);

/// What decides the collator's collation elements, as "key=value" pairs separated by ';' in
/// UTF-8: its version, valid locale, every attribute (strength, alternate, case level, case
/// first, French secondaries, normalization, numeric, maximum variable), its reorder codes, and
/// the length and a 64-bit hash of its tailoring rules. Two collators with equal identities give
/// equal elements for every text. Writes at most `capacity` bytes (NUL-terminated when there is
/// room) and returns the full length.
int32_t sift_collator_identity(const sift_collator *_Nonnull collator, char *_Nullable buffer, int32_t capacity);

// MARK: - Folder: text -> processed collation elements (the work done once per field at insert)

typedef struct sift_folder sift_folder;

/// Per-CE flags written by `sift_folder_fold`.
enum {
    /// A match may start at this CE: its low index is a grapheme boundary and it is not the
    /// continuation of an expansion (ICU usearch's start checks).
    SIFT_CE_START_OK = 1 << 0,
    /// A match may end with this CE (ICU usearch's end checks against the following CE);
    /// the match limit is then `limits[i]`.
    SIFT_CE_END_OK = 1 << 1,
    /// This CE is the first CE of a word (ICU word break iterator, words only, not spaces
    /// or punctuation).
    SIFT_CE_WORD_START = 1 << 2,
};

/// A folder owns a private clone of a collator plus the iterators that folding needs. It is
/// not thread-safe: use one per thread.
sift_folder *_Nullable sift_folder_open(const sift_collator *_Nonnull collator, int32_t *_Nonnull status);
void sift_folder_close(sift_folder *_Nullable folder);

/// Folds a field: its processed collation elements (exactly the ones ICU usearch compares:
/// masked to the collator's strength, ignorables and shifted variables dropped), with each
/// element's low UTF-16 index, match limit and flags. Returns the element count, or -1 with
/// `*status` set. Results stay valid until the next call on this folder.
int32_t sift_folder_fold(sift_folder *_Nonnull folder, const char *_Nullable utf8, int32_t length,
                         int32_t *_Nonnull status);

/// As `sift_folder_fold`, but when ICU's word break iterator would segment part of the text with
/// a dictionary (Thai, Lao, Khmer, Myanmar, Chinese, Japanese: 5-25 us of cache misses), the
/// elements get no word-start flags and `*deferred` is set to 1 (else 0): the caller adds the
/// word starts later with `sift_folder_fold`.
int32_t sift_folder_fold_deferring_dictionary_words(sift_folder *_Nonnull folder, const char *_Nullable utf8,
                                                    int32_t length, int32_t *_Nonnull deferred,
                                                    int32_t *_Nonnull status);

/// Folds a query (pattern): its processed collation elements only. Returns the count or -1.
int32_t sift_folder_fold_pattern(sift_folder *_Nonnull folder, const char *_Nullable utf8,
                                 int32_t length, int32_t *_Nonnull status);

/// Same as `sift_folder_fold_pattern`, for UTF-16 input (lone surrogates allowed).
int32_t sift_folder_fold_pattern_utf16(sift_folder *_Nonnull folder, const uint16_t *_Nullable utf16,
                                       int32_t length, int32_t *_Nonnull status);
/// Same as `sift_folder_fold`, for UTF-16 input (lone surrogates allowed).
int32_t sift_folder_fold_utf16(sift_folder *_Nonnull folder, const uint16_t *_Nullable utf16,
                               int32_t length, int32_t *_Nonnull status);

/// Splits a query into words with the collator locale's word break iterator (segments that are
/// words, not spaces or punctuation) and writes each word's UTF-8 byte range as
/// (start, length) pairs into `ranges`. Returns the number of words (possibly more than
/// `capacity`; then only `capacity` were written), or -1.
int32_t sift_folder_query_words(sift_folder *_Nonnull folder, const char *_Nullable utf8, int32_t length,
                                int32_t *_Nonnull ranges, int32_t capacity, int32_t *_Nonnull status);

/// Whether a long text may be folded in pieces that begin at a space (U+0020): 1 when no
/// contraction or prefix rule of the folder's collator contains a space.
int32_t sift_folder_space_splits(sift_folder *_Nonnull folder);
/// Whether a text may be cut between the code point `before` and a following space (U+0020) with
/// every grapheme, word and normalization boundary unchanged: 1 or 0.
int32_t sift_splits_before_space(int32_t before);
/// Starts a streamed fold of UTF-8 text: what `sift_folder_fold` gives for the whole text, handed
/// out a chunk of elements at a time by `sift_folder_stream_next`, so that the folder holds a
/// bounded part of the text as UTF-16 and one chunk of elements, not every element. The text must
/// stay valid until the stream ends (`sift_folder_release_text`). Returns 0, or -1 with `*status`
/// set. Any other fold on the folder ends the stream.
int32_t sift_folder_stream_begin(sift_folder *_Nonnull folder, const uint8_t *_Nullable utf8, int32_t length,
                                 int32_t *_Nonnull status);
/// Streamed folds run the element iterator over sub-chunks of about this many bytes (256 KiB
/// unless set; tests set a few).
void sift_folder_set_stream_chunk_bytes(sift_folder *_Nonnull folder, int32_t bytes);
/// The next at most `maxCount` (≥ 1) elements of a streamed fold, in the folder's element
/// buffers (`sift_folder_ces`, `_lows`, `_limits`, `_flags`; low indexes and limits from the
/// start of the text), with their word starts. Returns their number, 0 at the end of the text,
/// or -1 with `*status` set.
int32_t sift_folder_stream_next(sift_folder *_Nonnull folder, int32_t maxCount, int32_t *_Nonnull status);
/// Ends a stream (or any fold): the iterators let go of the text, and the folder's UTF-16 copy is
/// freed when it is large (over a million units).
void sift_folder_release_text(sift_folder *_Nonnull folder);
/// The number of leading elements of the last folded text that come from its first `index` UTF-16
/// code units (the later elements of an expansion go with their character).
int32_t sift_folder_count_before(const sift_folder *_Nonnull folder, int32_t index);
/// Results of the last fold, `count` entries each.
const int64_t *_Nullable sift_folder_ces(const sift_folder *_Nonnull folder);
const int32_t *_Nullable sift_folder_lows(const sift_folder *_Nonnull folder);
const int32_t *_Nullable sift_folder_limits(const sift_folder *_Nonnull folder);
const uint8_t *_Nullable sift_folder_flags(const sift_folder *_Nonnull folder);
/// For the last folded pattern: the number of elements in ICU usearch's CE table
/// (pattern.cesLength). When it is 0, usearch reports an empty match at every position, even if
/// the processed elements are not empty.
int32_t sift_folder_pattern_ce_count(const sift_folder *_Nonnull folder);

/// UTF-16 length of the last folded text.
int32_t sift_folder_utf16_length(const sift_folder *_Nonnull folder);
/// The number of elements the folder's buffers have room for (they grow, never shrink).
int32_t sift_folder_element_capacity(const sift_folder *_Nonnull folder);

/// True (1) when the canonical decompositions (NFD) of `text[start..<limit]` (UTF-16 offsets
/// into the UTF-8 `text`) and of `pattern` are equal: ICU usearch's extra check at identical
/// strength.
int32_t sift_folder_nfd_equal(sift_folder *_Nonnull folder, const char *_Nonnull text, int32_t textLength,
                              int32_t start, int32_t limit, const char *_Nonnull pattern,
                              int32_t patternLength);

/// ICU sort key of the text (tertiary-or-stronger comparisons are by memcmp of keys). Returns
/// the key length including its terminating zero; if larger than `capacity`, call again.
int32_t sift_folder_sort_key(sift_folder *_Nonnull folder, const char *_Nullable utf8, int32_t length,
                             uint8_t *_Nullable key, int32_t capacity);

/// Collation order of two UTF-8 texts under the folder's collator: -1, 0 or 1 (as memcmp of
/// their sort keys would give).
int32_t sift_folder_compare(sift_folder *_Nonnull folder, const char *_Nullable a, int32_t aLength,
                            const char *_Nullable b, int32_t bLength);

// MARK: - Reference search: ICU's own usearch, the oracle Sift is tested against

/// Runs ICU usearch (usearch_first/usearch_next, non-overlapping, standard comparison) for
/// `pattern` in `text` with the folder's collator. Writes (start, length) pairs in UTF-16 code
/// units into `matches`. Returns the number of matches (may exceed `capacity`) or -1.
int32_t sift_reference_search(sift_folder *_Nonnull folder, const char *_Nonnull pattern, int32_t patternLength,
                              const char *_Nonnull text, int32_t textLength, int32_t *_Nonnull matches,
                              int32_t capacity, int32_t *_Nonnull status);

/// The same over UTF-16 input (the oracle's lone-surrogate cases).
int32_t sift_reference_search_utf16(sift_folder *_Nonnull folder, const uint16_t *_Nonnull pattern,
                                    int32_t patternLength, const uint16_t *_Nonnull text, int32_t textLength,
                                    int32_t *_Nonnull matches, int32_t capacity, int32_t *_Nonnull status);

/// The oracle's collation elements of `text`: ICU's collation element iterator, each element
/// processed as usearch compares it (masked to the strength, shifted handling), ignorable ones
/// dropped. Writes up to `capacity` into `elements`; returns how many there are (may exceed
/// `capacity`) or -1.
int32_t sift_reference_elements(sift_folder *_Nonnull folder, const char *_Nonnull text, int32_t textLength,
                                int64_t *_Nullable elements, int32_t capacity, int32_t *_Nonnull status);

// MARK: - Alphabetic index (ICU AlphabeticIndex; C++ inside)

typedef struct sift_alphabetic_index sift_alphabetic_index;

/// Opens ICU's immutable alphabetic index for a locale (its bucket labels, e.g. "… N Ñ O …" for es).
/// Names are put in buckets with the locale's collator set to ignore spaces and punctuation
/// (alternate shifted), so that "'s-Hertogenbosch" is under S rather than before A.
sift_alphabetic_index *_Nullable sift_alphabetic_index_open(const char *_Nonnull locale,
                                                            int32_t *_Nonnull status);
void sift_alphabetic_index_close(sift_alphabetic_index *_Nullable index);
/// Number of buckets, including the underflow/overflow/inflow buckets.
int32_t sift_alphabetic_index_bucket_count(const sift_alphabetic_index *_Nonnull index);
/// Label of a bucket, in UTF-8, into `buffer`; returns its byte length (may exceed capacity).
int32_t sift_alphabetic_index_bucket_label(const sift_alphabetic_index *_Nonnull index, int32_t bucket,
                                           char *_Nullable buffer, int32_t capacity);
/// Kind of a bucket: 0 normal, 1 underflow, 2 inflow, 3 overflow (ICU's UAlphabeticIndexLabelType).
int32_t sift_alphabetic_index_bucket_kind(const sift_alphabetic_index *_Nonnull index, int32_t bucket);
/// Bucket of a name. Thread-safe for concurrent readers.
int32_t sift_alphabetic_index_bucket_of(const sift_alphabetic_index *_Nonnull index, const char *_Nullable utf8,
                                        int32_t length, int32_t *_Nonnull status);

#ifdef __cplusplus
}
#endif

#endif // CSIFTICU_H
