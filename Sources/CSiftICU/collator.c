// Collator handles: opening (locale, rules, attributes), validation, status names.

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uenum.h>
#include <unicode/uloc.h>
#include <unicode/ustring.h>
#include <unicode/uversion.h>

// The Swift side mirrors these values; pin them to ICU's.
_Static_assert(U_ZERO_ERROR == 0, "U_ZERO_ERROR");
_Static_assert(U_ILLEGAL_ARGUMENT_ERROR == 1, "U_ILLEGAL_ARGUMENT_ERROR");
_Static_assert(U_BUFFER_OVERFLOW_ERROR == 15, "U_BUFFER_OVERFLOW_ERROR");
_Static_assert(sizeof(UErrorCode) == sizeof(int32_t), "UErrorCode size");
_Static_assert(sizeof(UChar) == sizeof(uint16_t), "UChar size");
_Static_assert(UCOL_PRIMARY == SIFT_STRENGTH_PRIMARY, "strength");
_Static_assert(UCOL_SECONDARY == SIFT_STRENGTH_SECONDARY, "strength");
_Static_assert(UCOL_TERTIARY == SIFT_STRENGTH_TERTIARY, "strength");
_Static_assert(UCOL_QUATERNARY == SIFT_STRENGTH_QUATERNARY, "strength");
_Static_assert(UCOL_IDENTICAL == SIFT_STRENGTH_IDENTICAL, "strength");

const char *sift_status_name(int32_t status) { return u_errorName((UErrorCode)status); }

const char *sift_icu_version(void) { return U_ICU_VERSION; }

// ICU falls back to root for any locale it has no data for ("xx", "klingon"), with only a
// warning. Sift treats a locale whose language ICU does not know as an error instead.
static int locale_is_known(const char *locale) {
    if (locale == NULL || locale[0] == 0 || locale[0] == '@') return 1;
    char base[ULOC_FULLNAME_CAPACITY];
    UErrorCode status = U_ZERO_ERROR;
    uloc_getBaseName(locale, base, (int32_t)sizeof base, &status);
    if (U_FAILURE(status)) return 0;
    char language[ULOC_LANG_CAPACITY];
    status = U_ZERO_ERROR;
    int32_t n = uloc_getLanguage(base, language, (int32_t)sizeof language, &status);
    if (U_FAILURE(status)) return 0;
    if (strcmp(base, "root") == 0 || strcmp(language, "root") == 0 || strcmp(language, "und") == 0) return 1;
    if (n == 0) return base[0] == 0;  // an empty language is fine only when nothing else is given
    const char *iso3 = uloc_getISO3Language(base);
    return iso3 != NULL && iso3[0] != 0;
}

sift_collator *sift_collator_open(const sift_collator_options *options, int32_t *status) {
    UErrorCode err = U_ZERO_ERROR;
    const char *locale = options->locale ? options->locale : "root";
    if (!locale_is_known(locale)) {
        *status = U_ILLEGAL_ARGUMENT_ERROR;
        return NULL;
    }
    UCollator *base = ucol_open(locale, &err);
    if (U_FAILURE(err)) {
        *status = err;
        return NULL;
    }
    UCollator *coll = base;
    if (options->rules != NULL && options->rulesLength > 0) {
        // Tailoring on top of the locale: the locale's own rules followed by the extra ones.
        int32_t baseLength = 0;
        const UChar *baseRules = ucol_getRules(base, &baseLength);
        int32_t extraLength = 0;
        err = U_ZERO_ERROR;
        u_strFromUTF8(NULL, 0, &extraLength, options->rules, options->rulesLength, &err);
        if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err)) {
            ucol_close(base);
            *status = err;
            return NULL;
        }
        UChar *all = malloc(sizeof(UChar) * (size_t)(baseLength + extraLength + 1));
        if (all == NULL) {
            ucol_close(base);
            *status = U_MEMORY_ALLOCATION_ERROR;
            return NULL;
        }
        memcpy(all, baseRules, sizeof(UChar) * (size_t)baseLength);
        err = U_ZERO_ERROR;
        u_strFromUTF8(all + baseLength, extraLength + 1, NULL, options->rules, options->rulesLength, &err);
        UParseError parseError;
        err = U_ZERO_ERROR;
        coll = ucol_openRules(all, baseLength + extraLength, UCOL_DEFAULT, UCOL_DEFAULT, &parseError, &err);
        free(all);
        ucol_close(base);
        if (U_FAILURE(err)) {
            *status = err;
            return NULL;
        }
    }
    err = U_ZERO_ERROR;
    ucol_setStrength(coll, (UCollationStrength)options->strength);
    ucol_setAttribute(coll, UCOL_ALTERNATE_HANDLING, options->alternateShifted ? UCOL_SHIFTED : UCOL_NON_IGNORABLE,
                      &err);
    ucol_setAttribute(coll, UCOL_NORMALIZATION_MODE, options->normalization ? UCOL_ON : UCOL_OFF, &err);
    ucol_setAttribute(coll, UCOL_CASE_LEVEL, options->caseLevel ? UCOL_ON : UCOL_OFF, &err);
    if (options->numeric) ucol_setAttribute(coll, UCOL_NUMERIC_COLLATION, UCOL_ON, &err);
    if (U_FAILURE(err)) {
        ucol_close(coll);
        *status = err;
        return NULL;
    }
    sift_collator *result = calloc(1, sizeof *result);
    if (result == NULL) {
        ucol_close(coll);
        *status = U_MEMORY_ALLOCATION_ERROR;
        return NULL;
    }
    result->collator = coll;
    *status = U_ZERO_ERROR;
    return result;
}

void sift_collator_close(sift_collator *collator) {
    if (collator == NULL) return;
    ucol_close(collator->collator);
    free(collator);
}

int32_t sift_collator_version(const sift_collator *collator, char *buffer, int32_t capacity) {
    UVersionInfo version;
    ucol_getVersion(collator->collator, version);
    char text[U_MAX_VERSION_STRING_LENGTH + 1];
    u_versionToString(version, text);
    int32_t n = (int32_t)strlen(text);
    if (capacity > 0) {
        int32_t copy = n < capacity - 1 ? n : capacity - 1;
        memcpy(buffer, text, (size_t)copy);
        buffer[copy] = 0;
    }
    return n;
}

static const char *attribute_name(UColAttributeValue value) {
    switch (value) {
    case UCOL_DEFAULT: return "default";
    case UCOL_PRIMARY: return "primary";
    case UCOL_SECONDARY: return "secondary";
    case UCOL_TERTIARY: return "tertiary";
    case UCOL_QUATERNARY: return "quaternary";
    case UCOL_IDENTICAL: return "identical";
    case UCOL_OFF: return "off";
    case UCOL_ON: return "on";
    case UCOL_SHIFTED: return "shifted";
    case UCOL_NON_IGNORABLE: return "non-ignorable";
    case UCOL_LOWER_FIRST: return "lower-first";
    case UCOL_UPPER_FIRST: return "upper-first";
    default: return "other";
    }
}

// Appends to a bounded buffer, counting what would have been written (snprintf's contract).
typedef struct {
    char *buffer;
    int32_t capacity;
    int32_t length;
} identity_text;

static void identity_append(identity_text *text, const char *part) {
    for (const char *c = part; *c != 0; c++) {
        if (text->length + 1 < text->capacity) text->buffer[text->length] = *c;
        text->length += 1;
    }
}

static void identity_attribute(identity_text *text, const UCollator *coll, const char *key,
                               UColAttribute attribute) {
    UErrorCode err = U_ZERO_ERROR;
    UColAttributeValue value = ucol_getAttribute(coll, attribute, &err);
    identity_append(text, key);
    identity_append(text, "=");
    identity_append(text, U_FAILURE(err) ? "error" : attribute_name(value));
    identity_append(text, ";");
}

int32_t sift_collator_identity(const sift_collator *collator, char *buffer, int32_t capacity) {
    const UCollator *coll = collator->collator;
    identity_text text = {buffer, buffer == NULL ? 0 : capacity, 0};
    char part[U_MAX_VERSION_STRING_LENGTH + ULOC_FULLNAME_CAPACITY + 64];

    UVersionInfo version;
    ucol_getVersion(coll, version);
    char versionText[U_MAX_VERSION_STRING_LENGTH + 1];
    u_versionToString(version, versionText);
    identity_append(&text, "version=");
    identity_append(&text, versionText);
    identity_append(&text, ";locale=");
    UErrorCode err = U_ZERO_ERROR;
    const char *locale = ucol_getLocaleByType(coll, ULOC_VALID_LOCALE, &err);
    identity_append(&text, U_FAILURE(err) || locale == NULL ? "" : locale);
    identity_append(&text, ";");

    identity_attribute(&text, coll, "strength", UCOL_STRENGTH);
    identity_attribute(&text, coll, "alternate", UCOL_ALTERNATE_HANDLING);
    identity_attribute(&text, coll, "caseLevel", UCOL_CASE_LEVEL);
    identity_attribute(&text, coll, "caseFirst", UCOL_CASE_FIRST);
    identity_attribute(&text, coll, "french", UCOL_FRENCH_COLLATION);
    identity_attribute(&text, coll, "normalization", UCOL_NORMALIZATION_MODE);
    identity_attribute(&text, coll, "numeric", UCOL_NUMERIC_COLLATION);
    snprintf(part, sizeof part, "maxVariable=%d;", (int)ucol_getMaxVariable(coll));
    identity_append(&text, part);

    identity_append(&text, "reorder=");
    err = U_ZERO_ERROR;
    int32_t codes[64];
    int32_t codeCount = ucol_getReorderCodes(coll, codes, 64, &err);
    if (U_FAILURE(err)) {
        identity_append(&text, "many");
    } else {
        for (int32_t i = 0; i < codeCount; i++) {
            snprintf(part, sizeof part, i == 0 ? "%d" : ",%d", (int)codes[i]);
            identity_append(&text, part);
        }
    }

    // The tailoring rules can be long (hundreds of kB for Chinese): their length and an FNV-1a hash.
    int32_t rulesLength = 0;
    const UChar *rules = ucol_getRules(coll, &rulesLength);
    uint64_t hash = 0xCBF29CE484222325ULL;
    for (int32_t i = 0; i < rulesLength; i++) {
        hash = (hash ^ (uint64_t)rules[i]) * 0x100000001B3ULL;
    }
    snprintf(part, sizeof part, ";rules=%d:%016llx", (int)rulesLength, (unsigned long long)hash);
    identity_append(&text, part);
    if (text.capacity > 0) text.buffer[text.length < text.capacity ? text.length : text.capacity - 1] = 0;
    return text.length;
}

// MARK: - Locale keywords

static int32_t problem(char *buffer, int32_t capacity, const char *format, const char *a, const char *b,
                       const char *c) {
    char text[1024];
    int n = snprintf(text, sizeof text, format, a, b, c);
    if (n < 0) return 0;
    if (buffer != NULL && capacity > 0) {
        int32_t copy = n < capacity - 1 ? n : capacity - 1;
        memcpy(buffer, text, (size_t)copy);
        buffer[copy] = 0;
    }
    return n > 0 ? n : 1;
}

int32_t sift_locale_keyword_problem(const char *locale, char *buffer, int32_t capacity) {
    UErrorCode err = U_ZERO_ERROR;
    UEnumeration *keywords = uloc_openKeywords(locale, &err);
    if (U_FAILURE(err)) return problem(buffer, capacity, "cannot read the keywords of '%s'%s%s", locale, "", "");
    if (keywords == NULL) return 0;
    int32_t result = 0;
    const char *key;
    while (result == 0 && (key = uenum_next(keywords, NULL, &err)) != NULL && U_SUCCESS(err)) {
        char value[ULOC_FULLNAME_CAPACITY];
        UErrorCode valueError = U_ZERO_ERROR;
        uloc_getKeywordValue(locale, key, value, (int32_t)sizeof value, &valueError);
        if (U_FAILURE(valueError)) {
            result = problem(buffer, capacity, "cannot read keyword '%s' of '%s'%s", key, locale, "");
        } else if (strcmp(key, "collation") == 0) {
            char base[ULOC_FULLNAME_CAPACITY];
            UErrorCode baseError = U_ZERO_ERROR;
            uloc_getBaseName(locale, base, (int32_t)sizeof base, &baseError);
            UErrorCode listError = U_ZERO_ERROR;
            UEnumeration *types = ucol_getKeywordValuesForLocale("collation", base, 0, &listError);
            int known = 0;
            char list[512] = "";
            const char *type;
            while (types != NULL && (type = uenum_next(types, NULL, &listError)) != NULL && U_SUCCESS(listError)) {
                if (strcmp(type, value) == 0) known = 1;
                if (strlen(list) + strlen(type) + 3 < sizeof list) {
                    if (list[0] != 0) strcat(list, ", ");
                    strcat(list, type);
                }
            }
            if (types != NULL) uenum_close(types);
            if (!known) {
                result = problem(buffer, capacity, "unknown collation '%s' for locale '%s' (it has: %s)", value,
                                 base[0] != 0 ? base : "root", list);
            }
        } else if (strcmp(key, "colstrength") == 0 || strcmp(key, "colalternate") == 0 ||
                   strcmp(key, "colnormalization") == 0 || strcmp(key, "colcaselevel") == 0 ||
                   strcmp(key, "colnumeric") == 0) {
            result = problem(buffer, capacity,
                             "locale keyword '%s' sets what Collation (strength, alternate, normalization, case "
                             "level) or SortOptions (numeric) set: use those instead%s%s",
                             key, "", "");
        } else if (strcmp(key, "colcasefirst") == 0 || strcmp(key, "colbackwards") == 0 ||
                   strcmp(key, "colreorder") == 0 || strcmp(key, "maxvariable") == 0 ||
                   strcmp(key, "colhiraganaquaternary") == 0) {
            // ICU refuses a value it does not know when it opens a collator with the keyword.
            char probe[ULOC_FULLNAME_CAPACITY + 64];
            snprintf(probe, sizeof probe, "root@%s=%s", key, value);
            UErrorCode openError = U_ZERO_ERROR;
            UCollator *collator = ucol_open(probe, &openError);
            if (collator != NULL) ucol_close(collator);
            if (U_FAILURE(openError)) {
                result = problem(buffer, capacity, "invalid value '%s' for locale keyword '%s' (%s)", value, key,
                                 u_errorName(openError));
            }
        } else {
            result = problem(buffer, capacity, "locale keyword '%s' is not about collation (in '%s')%s", key, locale,
                             "");
        }
    }
    uenum_close(keywords);
    return result;
}
