// The oracle: ICU's own string search (usearch) with the folder's collator. Sift's tests compare
// the index's answers with these, match for match.

#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include <unicode/ustring.h>

static int32_t run_search(sift_folder *f, const UChar *pattern, int32_t patternLength, const UChar *text,
                          int32_t textLength, int32_t *matches, int32_t capacity, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    // usearch refuses empty text and empty patterns: no match.
    if (patternLength <= 0 || textLength <= 0) {
        *status = U_ZERO_ERROR;
        return 0;
    }
    if (f->search == NULL) {
        f->search = usearch_openFromCollator(pattern, patternLength, text, textLength, f->collator, NULL, &err);
    } else {
        usearch_setText(f->search, text, textLength, &err);
        usearch_setPattern(f->search, pattern, patternLength, &err);
        usearch_reset(f->search);
    }
    if (U_FAILURE(err)) {
        *status = err;
        return -1;
    }
    int32_t count = 0;
    for (int32_t start = usearch_first(f->search, &err); start != USEARCH_DONE && U_SUCCESS(err);
         start = usearch_next(f->search, &err)) {
        if (count < capacity) {
            matches[2 * count] = start;
            matches[2 * count + 1] = usearch_getMatchedLength(f->search);
        }
        count += 1;
    }
    *status = err;
    return U_FAILURE(err) ? -1 : count;
}

static UChar *to_utf16(const char *utf8, int32_t length, int32_t *outLength) {
    UErrorCode err = U_ZERO_ERROR;
    int32_t needed = 0;
    u_strFromUTF8WithSub(NULL, 0, &needed, utf8, length, 0xFFFD, NULL, &err);
    UChar *buffer = malloc(sizeof(UChar) * (size_t)(needed + 1));
    if (buffer == NULL) return NULL;
    err = U_ZERO_ERROR;
    u_strFromUTF8WithSub(buffer, needed + 1, outLength, utf8, length, 0xFFFD, NULL, &err);
    return buffer;
}

int32_t sift_reference_search(sift_folder *f, const char *pattern, int32_t patternLength, const char *text,
                              int32_t textLength, int32_t *matches, int32_t capacity, int32_t *status) {
    int32_t p16 = 0, t16 = 0;
    UChar *p = to_utf16(pattern, patternLength, &p16);
    UChar *t = to_utf16(text, textLength, &t16);
    int32_t result = -1;
    if (p && t) {
        result = run_search(f, p, p16, t, t16, matches, capacity, status);
        // usearch keeps pointers to its text and pattern: detach before freeing them.
        if (f->search) {
            usearch_close(f->search);
            f->search = NULL;
        }
    } else {
        *status = U_MEMORY_ALLOCATION_ERROR;
    }
    free(p);
    free(t);
    return result;
}

int32_t sift_reference_search_utf16(sift_folder *f, const uint16_t *pattern, int32_t patternLength,
                                    const uint16_t *text, int32_t textLength, int32_t *matches, int32_t capacity,
                                    int32_t *status) {
    int32_t result = run_search(f, pattern, patternLength, text, textLength, matches, capacity, status);
    if (f->search) {
        usearch_close(f->search);
        f->search = NULL;
    }
    return result;
}
