#ifndef CBENCHSUPPORT_H
#define CBENCHSUPPORT_H

#include <stddef.h>

/// Bytes in use by malloc, all arenas plus mmap-ed blocks (glibc mallinfo2); 0 elsewhere.
size_t bench_heap_in_use(void);

/// Returns free heap memory to the system (glibc malloc_trim); no-op elsewhere.
void bench_malloc_trim(void);

/// Peak resident set size in bytes (getrusage).
size_t bench_peak_resident(void);

/// Pins the calling thread to the CPU it runs on (saving the previous mask once); returns the
/// CPU, or -1 when pinning is not possible.
int bench_pin_to_current_cpu(void);

/// Restores the mask saved by the first bench_pin_to_current_cpu call.
void bench_release_pin(void);

#endif
