#define _GNU_SOURCE
#include "CSiftKernels.h"

#include <string.h>

ptrdiff_t sift_find(const uint8_t *haystack, size_t length, const uint8_t *needle, size_t needleLength) {
    if (needleLength == 0 || length < needleLength) return -1;
    const void *hit = needleLength == 1 ? memchr(haystack, needle[0], length)
                                        : memmem(haystack, length, needle, needleLength);
    return hit == NULL ? -1 : (const uint8_t *)hit - haystack;
}
