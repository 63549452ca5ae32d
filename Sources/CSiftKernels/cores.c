// How many cores the process may run on.
#if defined(__linux__)
#define _GNU_SOURCE
#include <sched.h>
#endif
#include <unistd.h>

#include "CSiftKernels.h"

long sift_usable_cores(void) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1) online = 1;
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(getpid(), sizeof set, &set) == 0) {  // the main thread's, which taskset sets
        long allowed = CPU_COUNT(&set);
        if (allowed >= 1 && allowed < online) return allowed;
    }
#endif
    return online;
}
