// ICU AlphabeticIndex, which has only a C++ API: the section labels of a locale (es has
// "N Ñ O", sv ends "Z Å Ä Ö", ja has kana rows) and the bucket of any name.
//
// The index is built on the locale's collator with alternate handling "shifted", so that spaces
// and punctuation before a name's first letter do not decide its bucket: "'s-Hertogenbosch" is
// under S and "‘Abasān" under A, not in the underflow bucket "…" before A. The labels are the
// locale's own either way (AlphabeticIndex compares at primary strength, where letters are not
// variable).

#include "internal.h"

#include <cstring>
#include <new>
#include <string>

#include <unicode/alphaindex.h>
#include <unicode/coll.h>
#include <unicode/locid.h>
#include <unicode/tblcoll.h>
#include <unicode/unistr.h>

static_assert(U_ALPHAINDEX_NORMAL == 0 && U_ALPHAINDEX_UNDERFLOW == 1 && U_ALPHAINDEX_INFLOW == 2 &&
                  U_ALPHAINDEX_OVERFLOW == 3,
              "the header documents these values");

struct sift_alphabetic_index {
    icu::AlphabeticIndex::ImmutableIndex *index;
};

extern "C" sift_alphabetic_index *sift_alphabetic_index_open(const char *locale, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    icu::Locale loc(locale);
    if (loc.isBogus()) {
        *status = U_ILLEGAL_ARGUMENT_ERROR;
        return nullptr;
    }
    icu::Collator *collator = icu::Collator::createInstance(loc, err);
    auto *ruleBased = dynamic_cast<icu::RuleBasedCollator *>(collator);
    if (U_FAILURE(err) || ruleBased == nullptr) {
        delete collator;
        *status = U_FAILURE(err) ? err : U_UNSUPPORTED_ERROR;
        return nullptr;
    }
    ruleBased->setAttribute(UCOL_ALTERNATE_HANDLING, UCOL_SHIFTED, err);
    // The builder adopts the collator (and deletes it, also when it fails).
    icu::AlphabeticIndex builder(ruleBased, err);
    builder.addLabels(loc, err);
    if (U_FAILURE(err)) {
        *status = err;
        return nullptr;
    }
    icu::AlphabeticIndex::ImmutableIndex *immutable = builder.buildImmutableIndex(err);
    if (U_FAILURE(err) || immutable == nullptr) {
        delete immutable;
        *status = U_FAILURE(err) ? err : U_MEMORY_ALLOCATION_ERROR;
        return nullptr;
    }
    auto *result = new (std::nothrow) sift_alphabetic_index{immutable};
    if (result == nullptr) {
        delete immutable;
        *status = U_MEMORY_ALLOCATION_ERROR;
        return nullptr;
    }
    *status = U_ZERO_ERROR;
    return result;
}

extern "C" void sift_alphabetic_index_close(sift_alphabetic_index *index) {
    if (index == nullptr) return;
    delete index->index;
    delete index;
}

extern "C" int32_t sift_alphabetic_index_bucket_count(const sift_alphabetic_index *index) {
    return index->index->getBucketCount();
}

extern "C" int32_t sift_alphabetic_index_bucket_label(const sift_alphabetic_index *index, int32_t bucket,
                                                      char *buffer, int32_t capacity) {
    const icu::AlphabeticIndex::Bucket *b = index->index->getBucket(bucket);
    if (b == nullptr) return 0;
    std::string utf8;
    b->getLabel().toUTF8String(utf8);
    int32_t n = static_cast<int32_t>(utf8.size());
    if (buffer != nullptr && capacity > 0) {
        int32_t copy = n < capacity ? n : capacity;
        memcpy(buffer, utf8.data(), static_cast<size_t>(copy));
    }
    return n;
}

extern "C" int32_t sift_alphabetic_index_bucket_kind(const sift_alphabetic_index *index, int32_t bucket) {
    const icu::AlphabeticIndex::Bucket *b = index->index->getBucket(bucket);
    return b == nullptr ? 0 : static_cast<int32_t>(b->getLabelType());
}

extern "C" int32_t sift_alphabetic_index_bucket_of(const sift_alphabetic_index *index, const char *utf8,
                                                   int32_t length, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    icu::UnicodeString name =
        utf8 == nullptr ? icu::UnicodeString() : icu::UnicodeString::fromUTF8(icu::StringPiece(utf8, length));
    int32_t bucket = index->index->getBucketIndex(name, err);
    *status = err;
    return U_FAILURE(err) ? -1 : bucket;
}
