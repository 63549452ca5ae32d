#define _GNU_SOURCE
#include "CBenchSupport.h"

#include <sys/resource.h>
#if defined(__linux__)
#include <malloc.h>
#include <sched.h>
#endif

size_t bench_heap_in_use(void) {
#if defined(__GLIBC__)
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}

void bench_malloc_trim(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

size_t bench_peak_resident(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
#if defined(__APPLE__)
    return (size_t)usage.ru_maxrss;
#else
    return (size_t)usage.ru_maxrss * 1024;
#endif
}

#if defined(__linux__)
static cpu_set_t saved_mask;
static int saved = 0;
#endif

int bench_pin_to_current_cpu(void) {
#if defined(__linux__)
    if (!saved) {
        if (sched_getaffinity(0, sizeof saved_mask, &saved_mask) != 0) return -1;
        saved = 1;
    }
    int cpu = sched_getcpu();
    if (cpu < 0) return -1;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0 ? cpu : -1;
#else
    return -1;
#endif
}

void bench_release_pin(void) {
#if defined(__linux__)
    if (saved) sched_setaffinity(0, sizeof saved_mask, &saved_mask);
#endif
}
