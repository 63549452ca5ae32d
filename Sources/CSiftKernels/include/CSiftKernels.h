// CSiftKernels: byte-search kernels for the scan loops over folded columns.
// glibc's memmem needs _GNU_SOURCE, which Swift's Glibc module does not define; this target
// defines it and re-exports the search as a plain function (room for a SIMD kernel later).

#ifndef CSIFTKERNELS_H
#define CSIFTKERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Offset of the first occurrence of `needle` (length >= 1) in `haystack`, or -1.
ptrdiff_t sift_find(const uint8_t *_Nonnull haystack, size_t length, const uint8_t *_Nonnull needle,
                    size_t needleLength);

#endif
