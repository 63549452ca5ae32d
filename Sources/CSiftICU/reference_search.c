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

// The oracle's collation elements: ICU's collation element iterator (ucol_openElements, ucol_next)
// over the text, each element processed as ICU string search compares it (UCollationPCE's
// processCE): masked to the collator's strength (tertiary and above: tertiary), and under
// alternate=shifted a variable element (below the variable top, with a primary weight) turned
// into a quaternary-only element, an element with no primary weight after it dropped; elements
// that are 0 after this (ignorable) are dropped. Written from the definitions, not from folder.c.
int32_t sift_reference_elements(sift_folder *f, const char *text, int32_t textLength, int64_t *elements,
                                int32_t capacity, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    int32_t t16 = 0;
    UChar *t = to_utf16(text, textLength, &t16);
    if (t == NULL) {
        *status = U_MEMORY_ALLOCATION_ERROR;
        return -1;
    }
    UCollationStrength strength = ucol_getStrength(f->collator);
    int shifted = ucol_getAttribute(f->collator, UCOL_ALTERNATE_HANDLING, &err) == UCOL_SHIFTED;
    uint32_t variableTop = ucol_getVariableTop(f->collator, &err);
    UCollationElements *iterator = ucol_openElements(f->collator, t, t16, &err);
    int32_t count = 0;
    int afterVariable = 0;
    while (U_SUCCESS(err)) {
        int32_t ce = ucol_next(iterator, &err);
        if (U_FAILURE(err) || ce == UCOL_NULLORDER) break;
        uint64_t primary = (uint64_t)ucol_primaryOrder(ce);
        uint64_t secondary = strength >= UCOL_SECONDARY ? (uint64_t)ucol_secondaryOrder(ce) : 0;
        uint64_t tertiary = strength >= UCOL_TERTIARY ? (uint64_t)ucol_tertiaryOrder(ce) : 0;
        uint64_t quaternary = 0;
        int variable = shifted && variableTop > (uint32_t)ce && primary != 0;
        if (variable || (afterVariable && primary == 0)) {
            if (primary == 0) continue;  // ignorable after a variable element
            if (strength >= UCOL_QUATERNARY) quaternary = primary;
            primary = secondary = tertiary = 0;
            afterVariable = 1;
        } else {
            if (strength >= UCOL_QUATERNARY) quaternary = 0xFFFF;
            afterVariable = 0;
        }
        int64_t element = (int64_t)(primary << 48 | secondary << 32 | tertiary << 16 | quaternary);
        if (element == 0) continue;
        if (count < capacity) elements[count] = element;
        count += 1;
    }
    if (iterator) ucol_closeElements(iterator);
    free(t);
    *status = err;
    return U_FAILURE(err) ? -1 : count;
}
