// Folding: a field's text becomes the processed collation elements (PCEs) that ICU usearch
// compares, each with its UTF-16 low index, the match limit ICU would report if a match ended
// there, and flags for ICU's start and end checks. This is done once per field at insert time;
// queries then compare integers and read flags, and never run the collator over records.
//
// The logic below mirrors ICU 72's usearch.cpp (usearch_search) and ucoleitr.cpp
// (UCollationPCE::nextProcessed / processCE) step by step, using only public ICU API, so that a
// match accepted by Sift is exactly a match ICU's usearch accepts.

#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/uloc.h>
#include <unicode/uscript.h>
#include <unicode/ustring.h>
#include <unicode/uset.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

// ICU's (internal) collation element masks, as usearch.cpp uses them (ucol_imp.h).
#define SIFT_PRIMARY_ORDER_MASK 0xFFFF0000u
#define SIFT_SECONDARY_ORDER_MASK 0x0000FF00u
#define SIFT_TERTIARY_ORDER_MASK 0x000000FFu

static UCollator *clone_collator(const UCollator *collator, UErrorCode *err) {
#if U_ICU_VERSION_MAJOR_NUM >= 71
    return ucol_clone(collator, err);
#else
    return ucol_safeClone(collator, NULL, NULL, err);
#endif
}

sift_folder *sift_folder_open(const sift_collator *collator, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    sift_folder *f = calloc(1, sizeof *f);
    if (f == NULL) {
        *status = U_MEMORY_ALLOCATION_ERROR;
        return NULL;
    }
    f->collator = clone_collator(collator->collator, &err);
    if (U_FAILURE(err)) goto fail;
    f->elements = ucol_openElements(f->collator, NULL, 0, &err);
    if (U_FAILURE(err)) goto fail;
    const char *locale = ucol_getLocaleByType(f->collator, ULOC_VALID_LOCALE, &err);
    if (U_FAILURE(err) || locale == NULL) {
        err = U_ZERO_ERROR;
        locale = "";
    }
    f->characters = ubrk_open(UBRK_CHARACTER, locale, NULL, 0, &err);
    if (U_FAILURE(err)) goto fail;
    f->words = ubrk_open(UBRK_WORD, locale, NULL, 0, &err);
    if (U_FAILURE(err)) goto fail;
    f->nfd = unorm2_getNFDInstance(&err);
    if (U_FAILURE(err)) goto fail;
    f->strength = ucol_getStrength(f->collator);
    f->toShift = ucol_getAttribute(f->collator, UCOL_ALTERNATE_HANDLING, &err) == UCOL_SHIFTED;
    f->variableTop = ucol_getVariableTop(f->collator, &err);
    if (U_FAILURE(err)) goto fail;
    f->ceMask = f->strength == UCOL_PRIMARY     ? SIFT_PRIMARY_ORDER_MASK
                : f->strength == UCOL_SECONDARY ? (SIFT_SECONDARY_ORDER_MASK | SIFT_PRIMARY_ORDER_MASK)
                                                : (SIFT_TERTIARY_ORDER_MASK | SIFT_SECONDARY_ORDER_MASK | SIFT_PRIMARY_ORDER_MASK);
    *status = U_ZERO_ERROR;
    return f;
fail:
    *status = err;
    sift_folder_close(f);
    return NULL;
}

void sift_folder_close(sift_folder *f) {
    if (f == NULL) return;
    if (f->search) usearch_close(f->search);
    if (f->elements) ucol_closeElements(f->elements);
    if (f->characters) ubrk_close(f->characters);
    if (f->words) ubrk_close(f->words);
    if (f->collator) ucol_close(f->collator);
    if (f->unsafe) uset_close(f->unsafe);
    if (f->utext) utext_close(f->utext);
    free(f->text);
    free(f->ces);
    free(f->lows);
    free(f->highs);
    free(f->limits);
    free(f->flags);
    free(f->bounds);
    free(f);
}

// MARK: - Buffers

// Room for `capacity` UTF-16 units (the old text is not kept). A large text (a streamed fold's)
// gets exactly its size: half as much again would be megabytes held for nothing.
int sift_fold_ensure_text(sift_folder *f, int32_t capacity) {
    if (capacity <= f->textCapacity) return 1;
    int32_t n = capacity < 64 ? 64 : capacity > (1 << 20) ? capacity : capacity + capacity / 2;
    free(f->text);
    f->text = NULL;
    f->textCapacity = 0;
    UChar *t = malloc(sizeof(UChar) * (size_t)n);
    if (t == NULL) return 0;
    f->text = t;
    f->textCapacity = n;
    return 1;
}

int sift_fold_ensure_ces(sift_folder *f, int32_t capacity) {
    if (capacity <= f->capacity) return 1;
    int32_t n = capacity < 64 ? 64 : capacity + capacity / 2;
    int64_t *ces = realloc(f->ces, sizeof(int64_t) * (size_t)n);
    if (ces) f->ces = ces;
    int32_t *lows = realloc(f->lows, sizeof(int32_t) * (size_t)n);
    if (lows) f->lows = lows;
    int32_t *highs = realloc(f->highs, sizeof(int32_t) * (size_t)n);
    if (highs) f->highs = highs;
    int32_t *limits = realloc(f->limits, sizeof(int32_t) * (size_t)n);
    if (limits) f->limits = limits;
    uint8_t *flags = realloc(f->flags, (size_t)n);
    if (flags) f->flags = flags;
    if (!ces || !lows || !highs || !limits || !flags) return 0;
    f->capacity = n;
    return 1;
}

static int ensure_bounds(sift_folder *f, int32_t capacity) {
    if (capacity <= f->boundsCapacity) return 1;
    int32_t n = capacity < 64 ? 64 : capacity + capacity / 2;
    uint8_t *b = realloc(f->bounds, (size_t)n);
    if (b == NULL) return 0;
    f->bounds = b;
    f->boundsCapacity = n;
    return 1;
}

// Converts UTF-8 into f->text. Invalid sequences become U+FFFD (Swift strings are always valid).
static int set_text_utf8(sift_folder *f, const char *utf8, int32_t length, UErrorCode *err) {
    f->textLength = 0;
    f->streaming = 0;
    if (utf8 == NULL || length <= 0) return 1;
    int32_t needed = 0;
    UErrorCode e = U_ZERO_ERROR;
    u_strFromUTF8WithSub(NULL, 0, &needed, utf8, length, 0xFFFD, NULL, &e);
    if (e != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(e)) {
        *err = e;
        return 0;
    }
    if (!sift_fold_ensure_text(f, needed + 1)) {
        *err = U_MEMORY_ALLOCATION_ERROR;
        return 0;
    }
    e = U_ZERO_ERROR;
    u_strFromUTF8WithSub(f->text, f->textCapacity, &f->textLength, utf8, length, 0xFFFD, NULL, &e);
    if (U_FAILURE(e)) {
        *err = e;
        return 0;
    }
    return 1;
}

static int set_text_utf16(sift_folder *f, const uint16_t *utf16, int32_t length, UErrorCode *err) {
    f->textLength = 0;
    f->streaming = 0;
    if (utf16 == NULL || length <= 0) return 1;
    if (!sift_fold_ensure_text(f, length + 1)) {
        *err = U_MEMORY_ALLOCATION_ERROR;
        return 0;
    }
    memcpy(f->text, utf16, sizeof(UChar) * (size_t)length);
    f->textLength = length;
    return 1;
}

// MARK: - Processed collation elements (UCollationPCE)

// UCollationPCE::processCE: masks a raw CE to the strength and applies shifted handling.
// Returns 0 (UCOL_IGNORABLE) for an element usearch skips.
int64_t sift_fold_process_ce(const sift_folder *f, uint32_t ce, int *isShifted) {
    uint64_t primary = 0, secondary = 0, tertiary = 0, quaternary = 0;
    switch (f->strength) {
    default:
        tertiary = (uint64_t)ucol_tertiaryOrder((int32_t)ce);
        // fall through
    case UCOL_SECONDARY:
        secondary = (uint64_t)ucol_secondaryOrder((int32_t)ce);
        // fall through
    case UCOL_PRIMARY:
        primary = (uint64_t)ucol_primaryOrder((int32_t)ce);
    }
    if ((f->toShift && f->variableTop > ce && primary != 0) || (*isShifted && primary == 0)) {
        if (primary == 0) return 0;
        if (f->strength >= UCOL_QUATERNARY) quaternary = primary;
        primary = secondary = tertiary = 0;
        *isShifted = 1;
    } else {
        if (f->strength >= UCOL_QUATERNARY) quaternary = 0xFFFF;
        *isShifted = 0;
    }
    return (int64_t)(primary << 48 | secondary << 32 | tertiary << 16 | quaternary);
}

// usearch.cpp getCE: the masked, shift-adjusted CE of the pattern's CE table. usearch treats a
// pattern whose CE table is empty (pattern.cesLength == 0) as matching everywhere with zero
// length, even when its processed elements are not empty.
static uint32_t pattern_table_ce(const sift_folder *f, uint32_t ce) {
    ce &= f->ceMask;
    if (f->toShift) {
        if (f->variableTop > ce) ce = f->strength >= UCOL_QUATERNARY ? (ce & SIFT_PRIMARY_ORDER_MASK) : 0;
    } else if (f->strength >= UCOL_QUATERNARY && ce == 0) {
        ce = 0xFFFF;
    }
    return ce;
}

// Runs the collation element iterator over f->text, keeping the non-ignorable PCEs with their
// low/high indices exactly as UCollationPCE::nextProcessed reports them.
static int collect_pces(sift_folder *f, UErrorCode *err) {
    f->count = 0;
    f->patternCECount = 0;
    f->endLow = f->endHigh = f->textLength;
    if (f->textLength == 0) return 1;
    ucol_setText(f->elements, f->text, f->textLength, err);
    if (U_FAILURE(*err)) return 0;
    int isShifted = 0;
    for (;;) {
        int32_t low = ucol_getOffset(f->elements);
        int32_t ce = ucol_next(f->elements, err);
        int32_t high = ucol_getOffset(f->elements);
        if (U_FAILURE(*err)) return 0;
        if (ce == UCOL_NULLORDER) {
            f->endLow = low;
            f->endHigh = high;
            break;
        }
        if (pattern_table_ce(f, (uint32_t)ce) != 0) f->patternCECount += 1;
        int64_t pce = sift_fold_process_ce(f, (uint32_t)ce, &isShifted);
        if (pce == 0) continue;
        if (f->count == f->capacity && !sift_fold_ensure_ces(f, f->count + 1)) {
            *err = U_MEMORY_ALLOCATION_ERROR;
            return 0;
        }
        f->ces[f->count] = pce;
        f->lows[f->count] = low;
        f->highs[f->count] = high;
        f->count += 1;
    }
    return 1;
}

// MARK: - Boundaries

// Grapheme cluster boundaries of f->text, as usearch's internal character break iterator sees them.
static int collect_bounds(sift_folder *f, UErrorCode *err) {
    int32_t n = f->textLength;
    if (!ensure_bounds(f, n + 1)) {
        *err = U_MEMORY_ALLOCATION_ERROR;
        return 0;
    }
    // Fast path: below U+0300 there is no combining mark, joiner, prepend or Hangul, so every
    // index is a boundary except between CR and LF (excluded by refusing '\r').
    int simple = 1;
    for (int32_t i = 0; i < n; i++) {
        UChar c = f->text[i];
        if (c >= 0x300 || c == '\r') {
            simple = 0;
            break;
        }
    }
    if (simple) {
        memset(f->bounds, 1, (size_t)n + 1);
        return 1;
    }
    memset(f->bounds, 0, (size_t)n + 1);
    ubrk_setText(f->characters, f->text, n, err);
    if (U_FAILURE(*err)) return 0;
    for (int32_t b = ubrk_first(f->characters); b != UBRK_DONE; b = ubrk_next(f->characters)) {
        if (b >= 0 && b <= n) f->bounds[b] = 1;
    }
    return 1;
}

// MARK: - Offsets of a streamed text

// Moves a cursor over UTF-8 text (a code point start `*offset8` and its UTF-16 index `*index16`)
// to the code point holding UTF-16 index `index`, or to the end: the streamed text's offsets
// (`utf8_offset`) and each UTF-16 view of it (`view_seek`) keep one each.
void sift_fold_seek_code_point(const uint8_t *utf8, int32_t length, int32_t *offset8, int32_t *index16, int32_t index) {
    while (*index16 > index && *offset8 > 0) {
        int32_t i = *offset8 - 1;
        while (i > 0 && (utf8[i] & 0xC0) == 0x80) i--;
        *index16 -= *offset8 - i == 4 ? 2 : 1;
        *offset8 = i;
    }
    while (*offset8 < length) {
        uint8_t lead = utf8[*offset8];
        int32_t size = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        int32_t units = size == 4 ? 2 : 1;
        if (*index16 + units > index) return;
        *offset8 += size;
        *index16 += units;
    }
}

// The UTF-8 offset of UTF-16 index `index` (a code point start) of the streamed text, moving
// f's cursor there (queries come near one another, so each moves it a little).
static int32_t utf8_offset(sift_folder *f, int32_t index) {
    sift_fold_seek_code_point(f->utf8, f->utf8Length, &f->cursor8, &f->cursor16, index);
    return f->cursor8;
}

// The length of the folded text in UTF-16 units (the whole streamed text while streaming).
static int32_t text_length(const sift_folder *f) { return f->streaming ? f->utf16Length : f->textLength; }

// Whether a grapheme boundary is at `index` (0...length): from f->bounds, or while streaming from
// the character break iterator over the whole text.
static int bound_at(sift_folder *f, int32_t index) {
    if (!f->streaming) return f->bounds[index];
    if (f->streamSimple || index == 0 || index == f->utf16Length) return 1;
    return ubrk_isBoundary(f->characters, index) != 0;
}

// ubrk_following(index): the first boundary after index (index < length).
static int32_t boundary_after(sift_folder *f, int32_t index) {
    if (f->streaming) {
        if (f->streamSimple || index + 1 >= f->utf16Length) return index + 1;
        int32_t next = ubrk_following(f->characters, index);
        return next == UBRK_DONE ? f->utf16Length : next;
    }
    int32_t i = index + 1;
    while (i < f->textLength && !f->bounds[i]) i++;
    return i;
}

// usearch's test for ending a match inside a grapheme cluster: the limit is a normalization
// (NFD) boundary.
static int nfd_boundary_at(sift_folder *f, int32_t index) {
    UChar32 after = U_SENTINEL, before = U_SENTINEL;
    if (f->streaming) {
        int32_t offset = utf8_offset(f, index);
        if (offset < f->utf8Length) {
            int32_t i = offset;
            U8_NEXT(f->utf8, i, f->utf8Length, after);
        }
        if (offset > 0) {
            int32_t i = offset;
            U8_PREV(f->utf8, 0, i, before);
        }
    } else {
        if (index < f->textLength) {
            int32_t i = index;
            U16_NEXT(f->text, i, f->textLength, after);
        }
        if (index > 0) {
            int32_t i = index;
            U16_PREV(f->text, 0, i, before);
        }
    }
    // ICU's hasBoundaryBefore/After answer true for U_SENTINEL (it is below every threshold).
    int b = after < 0 ? 1 : unorm2_hasBoundaryBefore(f->nfd, after);
    if (b) return 1;
    return before < 0 ? 1 : unorm2_hasBoundaryAfter(f->nfd, before);
}

// MARK: - Flags

// For the first n PCEs: may a match start here, may a match end here (and where would it end).
// This is usearch_search's acceptance logic, split into the part that depends on the first
// matched element and the part that depends on the last one. Element i + 1 is read when it is
// below `available`; past it is the end of the text.
void sift_fold_compute_match_flags(sift_folder *f, int32_t n, int32_t available) {
    const int32_t length = text_length(f);
    for (int32_t i = 0; i < n; i++) {
        uint8_t flags = 0;
        const int32_t low = f->lows[i], high = f->highs[i];

        // Start: the match must begin on a grapheme boundary, and not on the second or later
        // element of an expansion (those report the index of the following character as low).
        if (low != high && bound_at(f, low)) flags |= SIFT_CE_START_OK;

        // End: look at the element after the match.
        int32_t nextLow, nextHigh;
        int nextIsEnd;
        int64_t nextCE;
        if (i + 1 < available) {
            nextLow = f->lows[i + 1];
            nextHigh = f->highs[i + 1];
            nextCE = f->ces[i + 1];
            nextIsEnd = 0;
        } else {
            nextLow = f->endLow;
            nextHigh = f->endHigh;
            nextCE = INT64_MAX;  // UCOL_PROCESSED_NULLORDER
            nextIsEnd = 1;
        }
        const int32_t minLimit = low;
        const int32_t maxLimit = nextLow;
        int found = 1;
        if (nextLow == nextHigh && !nextIsEnd) found = 0;  // match ends inside an expansion

        int allowMidcluster = 0;
        if (length > maxLimit) {
            allowMidcluster = ((((uint64_t)nextCE) >> 32) & 0xFFFF0000UL) != 0 && maxLimit >= high &&
                              nextHigh > maxLimit && nfd_boundary_at(f, maxLimit);
        }
        int32_t limit = maxLimit;
        if (minLimit < maxLimit) {
            if (minLimit == high && bound_at(f, minLimit)) {
                limit = minLimit;
            } else {
                int32_t nba = boundary_after(f, minLimit);
                if (nba >= high && (!allowMidcluster || nba < maxLimit)) limit = nba;
            }
        }
        if (!allowMidcluster) {
            if (limit > maxLimit) found = 0;
            if (limit < 0 || limit > length || !bound_at(f, limit)) found = 0;
        }
        if (found) flags |= SIFT_CE_END_OK;
        f->limits[i] = limit;
        f->flags[i] = flags;
    }
}

// Marks the first element of every word (ICU word break iterator, segments with a word status).
static int mark_word_starts(sift_folder *f, UErrorCode *err) {
    if (f->count == 0) return 1;
    ubrk_setText(f->words, f->text, f->textLength, err);
    if (U_FAILURE(*err)) return 0;
    int32_t start = ubrk_first(f->words);
    int32_t ce = 0;
    for (int32_t end = ubrk_next(f->words); end != UBRK_DONE; end = ubrk_next(f->words)) {
        if (ubrk_getRuleStatus(f->words) >= UBRK_WORD_NONE_LIMIT) {
            while (ce < f->count && f->lows[ce] < start) ce++;
            if (ce < f->count && f->lows[ce] < end) f->flags[ce] |= SIFT_CE_WORD_START;
        }
        start = end;
    }
    return 1;
}

// Whether ICU's word break iterator would segment part of f->text with a dictionary: runs of
// Complex_Context characters (Thai, Lao, Khmer, Myanmar, ...) and of Han and Kana. Those lookups
// wander over a dictionary of megabytes and take 5-25 us per text when it is not in the cache.
static int needs_word_dictionary(const sift_folder *f) {
    for (int32_t i = 0; i < f->textLength;) {
        UChar32 c;
        U16_NEXT(f->text, i, f->textLength, c);
        if (c < 0x0E00) continue;  // Thai is the first script ICU segments with a dictionary
        if (u_getIntPropertyValue(c, UCHAR_LINE_BREAK) == U_LB_COMPLEX_CONTEXT) return 1;
        UErrorCode err = U_ZERO_ERROR;
        UScriptCode script = uscript_getScript(c, &err);
        if (script == USCRIPT_HAN || script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA) return 1;
    }
    return 0;
}

// Folds f->text. With deferDictionaryWords, a text that needs the word dictionary gets no word
// starts and *deferred is set to 1.
static int32_t fold_current_text(sift_folder *f, int deferDictionaryWords, int32_t *deferred, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    if (!collect_pces(f, &err) || !collect_bounds(f, &err)) {
        *status = err;
        return -1;
    }
    sift_fold_compute_match_flags(f, f->count, f->count);
    if (deferDictionaryWords && needs_word_dictionary(f)) {
        *deferred = 1;
    } else if (!mark_word_starts(f, &err)) {
        *status = err;
        return -1;
    }
    *status = U_ZERO_ERROR;
    return f->count;
}

int32_t sift_folder_fold(sift_folder *f, const char *utf8, int32_t length, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    if (!set_text_utf8(f, utf8, length, &err)) {
        *status = err;
        return -1;
    }
    int32_t deferred = 0;
    return fold_current_text(f, 0, &deferred, status);
}

int32_t sift_folder_fold_deferring_dictionary_words(sift_folder *f, const char *utf8, int32_t length,
                                                    int32_t *deferred, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    *deferred = 0;
    if (!set_text_utf8(f, utf8, length, &err)) {
        *status = err;
        return -1;
    }
    return fold_current_text(f, 1, deferred, status);
}

int32_t sift_folder_fold_utf16(sift_folder *f, const uint16_t *utf16, int32_t length, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    if (!set_text_utf16(f, utf16, length, &err)) {
        *status = err;
        return -1;
    }
    int32_t deferred = 0;
    return fold_current_text(f, 0, &deferred, status);
}

int32_t sift_folder_fold_pattern(sift_folder *f, const char *utf8, int32_t length, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    if (!set_text_utf8(f, utf8, length, &err) || !collect_pces(f, &err)) {
        *status = err;
        return -1;
    }
    *status = U_ZERO_ERROR;
    return f->count;
}

int32_t sift_folder_fold_pattern_utf16(sift_folder *f, const uint16_t *utf16, int32_t length, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    if (!set_text_utf16(f, utf16, length, &err) || !collect_pces(f, &err)) {
        *status = err;
        return -1;
    }
    *status = U_ZERO_ERROR;
    return f->count;
}

// MARK: - Pieces of long texts

// Whether a space (U+0020) may begin a piece of a long text: no contraction or prefix rule of
// the collator holds a space, so the collation element iterator never reads across one.
int32_t sift_folder_space_splits(sift_folder *f) {
    if (f->spaceSplits != 0) return f->spaceSplits > 0;
    UErrorCode err = U_ZERO_ERROR;
    USet *contractions = uset_openEmpty();
    int splits = contractions != NULL;
    if (splits) {
        ucol_getContractionsAndExpansions(f->collator, contractions, NULL, 1, &err);
        splits = U_SUCCESS(err);
        int32_t items = splits ? uset_getItemCount(contractions) : 0;
        UChar buffer[64];
        for (int32_t i = 0; splits && i < items; i++) {
            UChar32 start = 0, end = 0;
            UErrorCode e = U_ZERO_ERROR;
            int32_t length = uset_getItem(contractions, i, &start, &end, buffer, 64, &e);
            if (length == 0) {
                if (start <= 0x20 && 0x20 <= end) splits = 0;
            } else if (U_FAILURE(e)) {
                splits = 0;  // a string too long to check: assume the worst
            } else {
                for (int32_t k = 0; k < length; k++) {
                    if (buffer[k] == 0x20) splits = 0;
                }
            }
        }
        uset_close(contractions);
    }
    f->spaceSplits = splits ? 1 : -1;
    return splits;
}

// Whether a text may be cut between `before` and a following U+0020 with every grapheme, word
// and normalization boundary left as it is: `before` is no space, no mark, joiner, format or
// control character and no prepended concatenation mark, so the space starts a grapheme cluster
// and a word segment and nothing before it looks past it.
int32_t sift_splits_before_space(int32_t before) {
    if (before < 0 || before > 0x10FFFF) return 0;
    if (before > 0x20 && before < 0x7F) return 1;
    if (u_isUWhiteSpace(before)) return 0;
    if (u_getIntPropertyValue(before, UCHAR_GRAPHEME_CLUSTER_BREAK) != U_GCB_OTHER) return 0;
    if (u_getCombiningClass(before) != 0) return 0;
    switch (u_getIntPropertyValue(before, UCHAR_WORD_BREAK)) {
    case U_WB_FORMAT:
    case U_WB_EXTEND:
    case U_WB_ZWJ:
    case U_WB_WSEGSPACE:
    case U_WB_CR:
    case U_WB_LF:
    case U_WB_NEWLINE:
    case U_WB_REGIONAL_INDICATOR:
        return 0;
    default:
        return 1;
    }
}

// The number of leading elements of the last folded text that belong to its first `index` UTF-16
// units: up to the first element that starts a character at `index` or later (the later elements
// of an expansion report low == high, at the index after their character).
int32_t sift_folder_count_before(const sift_folder *f, int32_t index) {
    for (int32_t i = 0; i < f->count; i++) {
        if (f->lows[i] >= index && f->highs[i] != f->lows[i]) return i;
    }
    return f->count;
}

const int64_t *sift_folder_ces(const sift_folder *f) { return f->ces; }
const int32_t *sift_folder_lows(const sift_folder *f) { return f->lows; }
const int32_t *sift_folder_limits(const sift_folder *f) { return f->limits; }
const uint8_t *sift_folder_flags(const sift_folder *f) { return f->flags; }
int32_t sift_folder_utf16_length(const sift_folder *f) { return f->textLength; }
int32_t sift_folder_element_capacity(const sift_folder *f) { return f->capacity; }
int32_t sift_folder_pattern_ce_count(const sift_folder *f) { return f->patternCECount; }

// MARK: - Query words

int32_t sift_folder_query_words(sift_folder *f, const char *utf8, int32_t length, int32_t *ranges, int32_t capacity,
                                int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    if (!set_text_utf8(f, utf8, length, &err)) {
        *status = err;
        return -1;
    }
    if (f->textLength == 0) {
        *status = U_ZERO_ERROR;
        return 0;
    }
    // UTF-16 index -> UTF-8 byte offset, walking the (valid) UTF-8.
    int32_t *map = malloc(sizeof(int32_t) * (size_t)(f->textLength + 1));
    if (map == NULL) {
        *status = U_MEMORY_ALLOCATION_ERROR;
        return -1;
    }
    int32_t u16 = 0;
    for (int32_t b = 0; b < length && u16 <= f->textLength;) {
        unsigned char c = (unsigned char)utf8[b];
        int32_t bytes = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        map[u16++] = b;
        if (bytes == 4 && u16 <= f->textLength) map[u16++] = b;  // second surrogate
        b += bytes;
    }
    while (u16 <= f->textLength) map[u16++] = length;

    ubrk_setText(f->words, f->text, f->textLength, &err);
    if (U_FAILURE(err)) {
        free(map);
        *status = err;
        return -1;
    }
    int32_t count = 0;
    int32_t start = ubrk_first(f->words);
    for (int32_t end = ubrk_next(f->words); end != UBRK_DONE; end = ubrk_next(f->words)) {
        if (ubrk_getRuleStatus(f->words) >= UBRK_WORD_NONE_LIMIT) {
            if (count < capacity) {
                ranges[2 * count] = map[start];
                ranges[2 * count + 1] = map[end] - map[start];
            }
            count += 1;
        }
        start = end;
    }
    free(map);
    *status = U_ZERO_ERROR;
    return count;
}

// MARK: - Identical strength, sort keys

int32_t sift_folder_nfd_equal(sift_folder *f, const char *text, int32_t textLength, int32_t start, int32_t limit,
                              const char *pattern, int32_t patternLength) {
    UErrorCode err = U_ZERO_ERROR;
    if (!set_text_utf8(f, text, textLength, &err)) return 0;
    if (start < 0 || limit > f->textLength || start > limit) return 0;
    int32_t sliceLength = limit - start;
    UChar *slice = malloc(sizeof(UChar) * (size_t)(sliceLength + 1));
    if (slice == NULL) return 0;
    memcpy(slice, f->text + start, sizeof(UChar) * (size_t)sliceLength);
    if (!set_text_utf8(f, pattern, patternLength, &err)) {
        free(slice);
        return 0;
    }
    int32_t capacity = (sliceLength + f->textLength) * 4 + 16;
    UChar *a = malloc(sizeof(UChar) * (size_t)capacity);
    UChar *b = malloc(sizeof(UChar) * (size_t)capacity);
    int equal = 0;
    if (a && b) {
        int32_t na = unorm2_normalize(f->nfd, slice, sliceLength, a, capacity, &err);
        int32_t nb = unorm2_normalize(f->nfd, f->text, f->textLength, b, capacity, &err);
        equal = U_SUCCESS(err) && na == nb && memcmp(a, b, sizeof(UChar) * (size_t)na) == 0;
    }
    free(slice);
    free(a);
    free(b);
    return equal;
}

int32_t sift_folder_sort_key(sift_folder *f, const char *utf8, int32_t length, uint8_t *key, int32_t capacity) {
    UErrorCode err = U_ZERO_ERROR;
    if (!set_text_utf8(f, utf8, length, &err)) return 0;
    return ucol_getSortKey(f->collator, f->text, f->textLength, key, key == NULL ? 0 : capacity);
}

int32_t sift_folder_compare(sift_folder *f, const char *a, int32_t aLength, const char *b, int32_t bLength) {
    UErrorCode err = U_ZERO_ERROR;
    UCollationResult result = ucol_strcollUTF8(f->collator, a ? a : "", a ? aLength : 0, b ? b : "", b ? bLength : 0, &err);
    return U_FAILURE(err) ? 0 : (int32_t)result;
}
