// Lock handoffs made visible to ThreadSanitizer (see SiftStorage's Mutex+Sanitizers.swift).
//
// In a build with ThreadSanitizer these tell it that a lock at `address` was acquired, or is
// about to be released, so it orders two critical sections of one lock even when the lock was
// handed over inside the kernel, where it cannot see. In any other build they do nothing.
#include "CSiftKernels.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIFT_THREAD_SANITIZER 1
#endif
#endif

#if defined(SIFT_THREAD_SANITIZER)
void __tsan_acquire(void *address);
void __tsan_release(void *address);

void sift_sanitizer_acquire(const void *address) { __tsan_acquire((void *)address); }
void sift_sanitizer_release(const void *address) { __tsan_release((void *)address); }
#else
void sift_sanitizer_acquire(const void *address) { (void)address; }
void sift_sanitizer_release(const void *address) { (void)address; }
#endif
