// Streamed folds of long texts: the text is folded a chunk at a time (`sift_folder_stream_begin`,
// `sift_folder_stream_next`), never whole, and ICU's break iterators see it as UTF-16 through a
// UText that converts a window of the caller's UTF-8 at a time. The folding itself (elements,
// boundaries, flags) is folder.c's; this file only feeds it.

#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include <unicode/uset.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

// MARK: - The streamed text as UTF-16, for the break iterators

// ICU's break iterators segment a UText by its native indexes. Over UTF-8 (utext_openUTF8) its
// dictionary engines (Khmer, Lao, ...) do not always find the boundaries they find in the same
// text as UTF-16, which a whole fold uses. So the streamed text is shown to them as UTF-16: a
// UText whose native indexes are UTF-16 indexes, each clone converting a window of the UTF-8 at
// a time. Its context is the folder (the text, its lengths); a clone's extra space holds its
// window and a cursor (a UTF-8 offset and its UTF-16 index).
#define SIFT_VIEW_UNITS 1024

typedef struct {
    int32_t offset8;  // cursor: a code point start and its UTF-16 index
    int32_t index16;
    UChar units[SIFT_VIEW_UNITS];
} sift_utf16_view;

// Moves the view's cursor to the code point holding UTF-16 index `index` (or the end).
static void view_seek(const sift_folder *f, sift_utf16_view *v, int32_t index) {
    sift_fold_seek_code_point(f->utf8, f->utf8Length, &v->offset8, &v->index16, index);
}

static UBool U_CALLCONV view_access(UText *ut, int64_t nativeIndex, UBool forward) {
    const sift_folder *f = ut->context;
    sift_utf16_view *v = ut->pExtra;
    int32_t length = f->utf16Length;
    int32_t index = nativeIndex < 0 ? 0 : nativeIndex > length ? length : (int32_t)nativeIndex;
    int inChunk = forward ? index >= ut->chunkNativeStart && index < ut->chunkNativeLimit
                          : index > ut->chunkNativeStart && index <= ut->chunkNativeLimit;
    if (!inChunk) {
        int32_t start = forward ? index : index - (SIFT_VIEW_UNITS - 2);
        if (start > length - (SIFT_VIEW_UNITS - 2)) start = length - (SIFT_VIEW_UNITS - 2);
        if (start < 0) start = 0;
        view_seek(f, v, start);
        int32_t n = 0;
        for (int32_t i = v->offset8; i < f->utf8Length && n <= SIFT_VIEW_UNITS - 2;) {
            UChar32 c;
            U8_NEXT(f->utf8, i, f->utf8Length, c);
            if (c < 0) c = 0xFFFD;
            U16_APPEND_UNSAFE(v->units, n, c);
        }
        ut->chunkContents = v->units;
        ut->chunkLength = n;
        ut->nativeIndexingLimit = n;
        ut->chunkNativeStart = v->index16;
        ut->chunkNativeLimit = v->index16 + n;
    }
    int64_t offset = index - ut->chunkNativeStart;
    ut->chunkOffset = (int32_t)(offset < 0 ? 0 : offset > ut->chunkLength ? ut->chunkLength : offset);
    return forward ? index < ut->chunkNativeLimit : index > ut->chunkNativeStart;
}

static UText *U_CALLCONV view_clone(UText *dest, const UText *src, UBool deep, UErrorCode *status) {
    if (U_FAILURE(*status)) return dest;
    (void)deep;  // the text is read only and outlives the clones: shallow and deep are alike
    dest = utext_setup(dest, (int32_t)sizeof(sift_utf16_view), status);
    if (U_FAILURE(*status)) return dest;
    void *extra = dest->pExtra;
    int32_t flags = dest->flags;
    int32_t size = src->sizeOfStruct < dest->sizeOfStruct ? src->sizeOfStruct : dest->sizeOfStruct;
    memcpy(dest, src, (size_t)size);
    dest->pExtra = extra;
    dest->flags = flags;
    memcpy(dest->pExtra, src->pExtra, sizeof(sift_utf16_view));
    dest->chunkContents = ((sift_utf16_view *)dest->pExtra)->units;
    return dest;
}

static int64_t U_CALLCONV view_length(UText *ut) { return ((const sift_folder *)ut->context)->utf16Length; }

static int32_t U_CALLCONV view_extract(UText *ut, int64_t nativeStart, int64_t nativeLimit, UChar *dest,
                                       int32_t capacity, UErrorCode *status) {
    if (U_FAILURE(*status)) return 0;
    const sift_folder *f = ut->context;
    sift_utf16_view *v = ut->pExtra;
    int32_t length = f->utf16Length;
    int32_t start = nativeStart < 0 ? 0 : nativeStart > length ? length : (int32_t)nativeStart;
    int32_t limit = nativeLimit < start ? start : nativeLimit > length ? length : (int32_t)nativeLimit;
    view_seek(f, v, start);
    int32_t n = 0;
    int32_t index = v->index16;
    for (int32_t i = v->offset8; i < f->utf8Length && index < limit;) {
        UChar32 c;
        U8_NEXT(f->utf8, i, f->utf8Length, c);
        if (c < 0) c = 0xFFFD;
        int32_t units = U16_LENGTH(c);
        if (n + units <= capacity && dest) {
            if (units == 1) {
                dest[n] = (UChar)c;
            } else {
                dest[n] = U16_LEAD(c);
                dest[n + 1] = U16_TRAIL(c);
            }
        }
        n += units;
        index += units;
    }
    if (n < capacity && dest) {
        dest[n] = 0;
    } else if (n == capacity) {
        *status = U_STRING_NOT_TERMINATED_WARNING;
    } else {
        *status = U_BUFFER_OVERFLOW_ERROR;
    }
    return n;
}

static int64_t U_CALLCONV view_map_offset(const UText *ut) { return ut->chunkNativeStart + ut->chunkOffset; }

static int32_t U_CALLCONV view_map_native(const UText *ut, int64_t nativeIndex) {
    return (int32_t)(nativeIndex - ut->chunkNativeStart);
}

static void U_CALLCONV view_close(UText *ut) { (void)ut; }

static const UTextFuncs sift_utf16_view_funcs = {
    sizeof(UTextFuncs), 0, 0, 0,
    view_clone, view_length, view_access, view_extract,
    NULL, NULL, view_map_offset, view_map_native, view_close,
    NULL, NULL, NULL,
};

// A UText showing the folder's streamed UTF-8 text as UTF-16.
static UText *open_utf16_view(sift_folder *f, UErrorCode *err) {
    UText *ut = utext_setup(NULL, (int32_t)sizeof(sift_utf16_view), err);
    if (U_FAILURE(*err)) return ut;
    ut->pFuncs = &sift_utf16_view_funcs;
    ut->context = f;
    ut->providerProperties = 0;
    sift_utf16_view *v = ut->pExtra;
    v->offset8 = 0;
    v->index16 = 0;
    ut->chunkContents = v->units;
    ut->chunkLength = 0;
    ut->nativeIndexingLimit = 0;
    ut->chunkNativeStart = 0;
    ut->chunkNativeLimit = 0;
    ut->chunkOffset = 0;
    return ut;
}

// MARK: - Streamed folds of long texts

// The code points a sub-chunk of a streamed text may not end or begin with: those with a
// canonical combining class at either end (normalization may reorder them with a neighbour;
// "[[:^tccc=0:][:^lccc=0:]]", as ICU's own unsafe set), and every code point but the last of a
// contraction or of a prefix rule with its character (the element iterator reads on from them).
static USet *unsafe_set(sift_folder *f, UErrorCode *err) {
    if (f->unsafe) return f->unsafe;
    static const UChar pattern[] = u"[[:^tccc=0:][:^lccc=0:]]";
    USet *unsafe = uset_openPattern(pattern, -1, err);
    USet *contractions = uset_openEmpty();
    if (U_SUCCESS(*err) && contractions) ucol_getContractionsAndExpansions(f->collator, contractions, NULL, 1, err);
    if (U_SUCCESS(*err) && contractions) {
        int32_t items = uset_getItemCount(contractions);
        UChar buffer[128];
        for (int32_t i = 0; i < items && U_SUCCESS(*err); i++) {
            UChar32 start = 0, end = 0;
            UErrorCode e = U_ZERO_ERROR;
            int32_t length = uset_getItem(contractions, i, &start, &end, buffer, 128, &e);
            if (U_FAILURE(e)) {
                *err = e;  // a string too long to read: no stream under this collator
                break;
            }
            for (int32_t k = 0; k < length;) {
                UChar32 c;
                U16_NEXT(buffer, k, length, c);
                if (k < length) uset_add(unsafe, c);
            }
        }
    }
    if (contractions) uset_close(contractions);
    if (U_FAILURE(*err) || unsafe == NULL) {
        if (unsafe) uset_close(unsafe);
        if (U_SUCCESS(*err)) *err = U_MEMORY_ALLOCATION_ERROR;
        return NULL;
    }
    uset_freeze(unsafe);
    f->unsafe = unsafe;
    return unsafe;
}

// Whether the element iterator may stop before `after` and start again there, with `before`
// ahead of it: neither is unsafe (see unsafe_set) nor Hangul (syllables and jamo combine).
static int cuts_between(const USet *unsafe, UChar32 before, UChar32 after) {
    if (uset_contains(unsafe, before) || uset_contains(unsafe, after)) return 0;
    if (u_getIntPropertyValue(before, UCHAR_HANGUL_SYLLABLE_TYPE) != U_HST_NOT_APPLICABLE) return 0;
    if (u_getIntPropertyValue(after, UCHAR_HANGUL_SYLLABLE_TYPE) != U_HST_NOT_APPLICABLE) return 0;
    return 1;
}

// Converts the next sub-chunk of the streamed text (about f->chunkBytes, up to a cut) to UTF-16
// and sets the element iterator on it. Returns 0 at the end of the text, -1 on failure.
static int load_chunk(sift_folder *f, UErrorCode *err) {
    int32_t start = f->chunkEnd8;
    if (start >= f->utf8Length) return 0;
    f->chunkBase16 += f->textLength;
    int32_t end = f->utf8Length;
    if (f->utf8Length - start > f->chunkBytes) {
        const USet *unsafe = unsafe_set(f, err);
        if (unsafe == NULL) return -1;
        int32_t i = start + f->chunkBytes;
        while (i < f->utf8Length && (f->utf8[i] & 0xC0) == 0x80) i++;
        while (i < f->utf8Length) {
            int32_t b = i;
            UChar32 before, after;
            U8_PREV(f->utf8, 0, b, before);
            int32_t a = i;
            U8_NEXT(f->utf8, a, f->utf8Length, after);
            if (cuts_between(unsafe, before, after)) break;
            i = a;
        }
        end = i;
    }
    UErrorCode e = U_ZERO_ERROR;
    int32_t needed = 0;
    u_strFromUTF8WithSub(NULL, 0, &needed, (const char *)f->utf8 + start, end - start, 0xFFFD, NULL, &e);
    if (!sift_fold_ensure_text(f, needed + 1)) {
        *err = U_MEMORY_ALLOCATION_ERROR;
        return -1;
    }
    e = U_ZERO_ERROR;
    u_strFromUTF8WithSub(f->text, f->textCapacity, &f->textLength, (const char *)f->utf8 + start, end - start,
                         0xFFFD, NULL, &e);
    if (U_SUCCESS(e)) ucol_setText(f->elements, f->text, f->textLength, &e);
    if (U_FAILURE(e)) {
        *err = e;
        return -1;
    }
    f->chunkEnd8 = end;
    return 1;
}

int32_t sift_folder_stream_begin(sift_folder *f, const uint8_t *utf8, int32_t length, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    sift_folder_release_text(f);
    f->utf8 = utf8;
    f->utf8Length = utf8 == NULL || length < 0 ? 0 : length;
    f->utf16Length = 0;
    f->streamSimple = 1;
    for (int32_t i = 0; i < f->utf8Length;) {
        uint8_t lead = f->utf8[i];
        // U+0300 and up start with 0xCC or more; every index below is a grapheme boundary but CR LF's.
        if (lead >= 0xCC || lead == '\r') f->streamSimple = 0;
        int32_t size = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        f->utf16Length += size == 4 ? 2 : 1;
        i += size;
    }
    f->count = 0;
    f->textLength = 0;
    f->chunkEnd8 = 0;
    f->chunkBase16 = 0;
    if (f->chunkBytes <= 0) f->chunkBytes = 1 << 18;
    f->cursor8 = f->cursor16 = 0;
    f->endLow = f->endHigh = f->utf16Length;
    f->streamShifted = 0;
    f->streamHeld = 0;
    f->streamDone = f->utf8Length == 0;
    if (f->utf8Length > 0) {
        f->utext = open_utf16_view(f, &err);
        if (!f->streamSimple && U_SUCCESS(err)) ubrk_setUText(f->characters, f->utext, &err);
        if (U_SUCCESS(err)) ubrk_setUText(f->words, f->utext, &err);
        if (U_SUCCESS(err)) load_chunk(f, &err);
        if (U_FAILURE(err)) {
            sift_folder_release_text(f);
            *status = err;
            return -1;
        }
        f->wordStart = ubrk_first(f->words);
        f->wordEnd = ubrk_next(f->words);
        f->wordIsWord = f->wordEnd != UBRK_DONE && ubrk_getRuleStatus(f->words) >= UBRK_WORD_NONE_LIMIT;
        f->wordMarked = 0;
    }
    f->streaming = 1;
    *status = U_ZERO_ERROR;
    return 0;
}

void sift_folder_release_text(sift_folder *f) {
    f->streaming = 0;
    f->textLength = 0;
    if (f->textCapacity > (1 << 20)) {
        free(f->text);
        f->text = NULL;
        f->textCapacity = 0;
    }
    // The iterators may point at the text: give them an empty one.
    UErrorCode err = U_ZERO_ERROR;
    static const UChar empty[1] = {0};
    ubrk_setText(f->characters, empty, 0, &err);
    err = U_ZERO_ERROR;
    ubrk_setText(f->words, empty, 0, &err);
    err = U_ZERO_ERROR;
    ucol_setText(f->elements, empty, 0, &err);
    if (f->utext) f->utext = utext_close(f->utext);
    f->utf8 = NULL;
    f->utf8Length = 0;
}

void sift_folder_set_stream_chunk_bytes(sift_folder *f, int32_t bytes) { f->chunkBytes = bytes; }

// Marks the first of the first n elements in each word segment, carrying the segment over from
// the previous call (elements come in ascending order of their low index).
static void mark_streamed_word_starts(sift_folder *f, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        int32_t low = f->lows[i];
        while (f->wordEnd != UBRK_DONE && low >= f->wordEnd) {
            f->wordStart = f->wordEnd;
            f->wordEnd = ubrk_next(f->words);
            f->wordIsWord = f->wordEnd != UBRK_DONE && ubrk_getRuleStatus(f->words) >= UBRK_WORD_NONE_LIMIT;
            f->wordMarked = 0;
        }
        if (f->wordEnd == UBRK_DONE) return;
        if (f->wordIsWord && !f->wordMarked && low >= f->wordStart) {
            f->flags[i] |= SIFT_CE_WORD_START;
            f->wordMarked = 1;
        }
    }
}

int32_t sift_folder_stream_next(sift_folder *f, int32_t maxCount, int32_t *status) {
    if (!f->streaming || maxCount < 1) {
        *status = U_ILLEGAL_ARGUMENT_ERROR;
        return -1;
    }
    if (!sift_fold_ensure_ces(f, maxCount + 1)) {
        *status = U_MEMORY_ALLOCATION_ERROR;
        return -1;
    }
    int32_t collected = 0;
    if (f->streamHeld > 0) {
        f->ces[0] = f->ces[f->count];
        f->lows[0] = f->lows[f->count];
        f->highs[0] = f->highs[f->count];
        collected = 1;
    }
    UErrorCode err = U_ZERO_ERROR;
    while (!f->streamDone && collected < maxCount + 1) {
        int32_t low = ucol_getOffset(f->elements);
        int32_t ce = ucol_next(f->elements, &err);
        int32_t high = ucol_getOffset(f->elements);
        if (U_FAILURE(err)) {
            *status = err;
            return -1;
        }
        if (ce == UCOL_NULLORDER) {
            int loaded = load_chunk(f, &err);
            if (loaded < 0) {
                *status = err;
                return -1;
            }
            if (loaded > 0) continue;
            f->endLow = f->chunkBase16 + low;
            f->endHigh = f->chunkBase16 + high;
            f->streamDone = 1;
            break;
        }
        int64_t pce = sift_fold_process_ce(f, (uint32_t)ce, &f->streamShifted);
        if (pce == 0) continue;
        f->ces[collected] = pce;
        f->lows[collected] = f->chunkBase16 + low;
        f->highs[collected] = f->chunkBase16 + high;
        collected += 1;
    }
    // The last element's flags need the one after it: it waits for the next call.
    int32_t n = f->streamDone ? collected : collected - 1;
    sift_fold_compute_match_flags(f, n, collected);
    mark_streamed_word_starts(f, n);
    f->count = n;
    f->streamHeld = collected - n;
    *status = U_ZERO_ERROR;
    return n;
}
