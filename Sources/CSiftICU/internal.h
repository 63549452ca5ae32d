// Private to CSiftICU: the structs behind the opaque handles, and the ICU includes.
// Never included by the public header.

#ifndef CSIFTICU_INTERNAL_H
#define CSIFTICU_INTERNAL_H

#include "CSiftICU.h"

#include <unicode/ubrk.h>
#include <unicode/ucol.h>
#include <unicode/ucoleitr.h>
#include <unicode/unorm2.h>
#include <unicode/usearch.h>
#include <unicode/uset.h>
#include <unicode/utext.h>
#include <unicode/utypes.h>

struct sift_collator {
    UCollator *collator;
};

struct sift_folder {
    UCollator *collator;  // a private clone, owned
    UCollationElements *elements;
    UBreakIterator *characters;  // grapheme clusters, for usearch's boundary checks
    UBreakIterator *words;
    UStringSearch *search;       // the reference search, opened lazily
    const UNormalizer2 *nfd;
    UCollationStrength strength;
    int toShift;
    uint32_t variableTop;
    uint32_t ceMask;           // usearch's getMask(strength)
    int32_t patternCECount;    // usearch's pattern.cesLength for the last folded pattern

    UChar *text;  // the last folded text, UTF-16
    int32_t textLength;
    int32_t textCapacity;

    int64_t *ces;
    int32_t *lows;
    int32_t *highs;
    int32_t *limits;
    uint8_t *flags;
    int32_t count;
    int32_t capacity;
    int32_t endLow;   // offsets of the end-of-text element
    int32_t endHigh;

    uint8_t *bounds;  // 1 where a grapheme boundary is, per UTF-16 index 0...textLength
    int32_t boundsCapacity;

    int spaceSplits;  // 0: not checked yet; 1: a space may begin a piece (see sift_folder_space_splits); -1: not

    // A streamed fold (sift_folder_stream_begin/next) of UTF-8 text the caller keeps: the break
    // iterators run over all of it (a UText, UTF-8 offsets), the element iterator over one
    // sub-chunk at a time, converted to UTF-16 in f->text and cut where no contraction, prefix
    // rule or canonical reordering spans the cut. Offsets handed out are UTF-16 indexes of the
    // whole text.
    int streaming;           // a stream is in progress
    const uint8_t *utf8;     // the text, and its length in bytes and in UTF-16 units
    int32_t utf8Length;
    int32_t utf16Length;
    UText *utext;            // over utf8, for the break iterators
    int32_t chunkEnd8;       // where the sub-chunk in f->text ends (UTF-8)
    int32_t chunkBase16;     // UTF-16 index of its start
    int32_t chunkBytes;      // sub-chunks of about this many bytes (settable for tests)
    int32_t cursor8;         // a UTF-8 offset and its UTF-16 index, for conversions
    int32_t cursor16;
    USet *unsafe;            // code points a sub-chunk may not end or begin with (built once)
    int streamSimple;        // every UTF-16 index of the text is a grapheme boundary
    int streamShifted;       // process_ce's shifted state, carried from element to element
    int streamDone;          // the element iterator reached the end of the text
    int32_t streamHeld;      // elements read but not handed out (0 or 1), at index count
    int32_t wordStart;       // the word segment the last element fell in (UTF-16), and its status
    int32_t wordEnd;
    int wordIsWord;
    int wordMarked;          // its first element was marked a word start
};

// Shared by folder.c (folding) and folder_stream.c (streamed folds of long texts).

// Room for `capacity` UTF-16 units in f->text, and for `capacity` elements; 0 when out of memory.
int sift_fold_ensure_text(sift_folder *f, int32_t capacity);
int sift_fold_ensure_ces(sift_folder *f, int32_t capacity);
// UCollationPCE::processCE: a raw CE masked to the strength, with shifted handling (0: ignorable).
int64_t sift_fold_process_ce(const sift_folder *f, uint32_t ce, int *isShifted);
// Moves a UTF-8 cursor (a code point start and its UTF-16 index) to UTF-16 index `index`.
void sift_fold_seek_code_point(const uint8_t *utf8, int32_t length, int32_t *offset8, int32_t *index16, int32_t index);
// usearch's start and end checks for the first n elements (element n is read below `available`).
void sift_fold_compute_match_flags(sift_folder *f, int32_t n, int32_t available);

#endif
