// Which instruction set the kernels use.
#include "internal.h"


// The instruction set the kernels use: the best this CPU has, unless `sift_force_kernel_level`
// asked for less (tests run every level this CPU supports).
static int forced_level = 0;

void sift_force_kernel_level(int level) { __atomic_store_n(&forced_level, level, __ATOMIC_RELAXED); }

#if defined(__x86_64__)
// What the CPU supports, asked once through `sift_best_kernel_level`, which caches the answer.
static int cpu_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

static int cpu_has_avx512bw(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && cpu_has_avx2() ? 1 : 0;
}

// BMI2's pext is one instruction on Intel and on AMD from Zen 3 (family 0x19) on, but microcode
// (hundreds of cycles) on Zen 1 and 2: use it only where it is fast.
static int has_fast_pext(void) {
    __builtin_cpu_init();
    int fast = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx2");
    unsigned eax, ebx, ecx, edx;
    if (fast && __get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == 0x68747541 /* "Auth"enticAMD */) {
        __get_cpuid(1, &eax, &ebx, &ecx, &edx);
        unsigned family = (eax >> 8) & 0xF;
        if (family == 0xF) family += (eax >> 20) & 0xFF;
        fast = family >= 0x19;
    }
    return fast;
}
#endif

// The best level, worked out on first use. Workers of a split scan may ask at once: the cache is
// an atomic, and each of them would work out the same answer.
static int best_level = -1;

int sift_best_kernel_level(void) {
    int cached = __atomic_load_n(&best_level, __ATOMIC_RELAXED);
    if (cached >= 0) return cached;
    int best = SIFT_KERNEL_SCALAR;
#if defined(__x86_64__)
    if (cpu_has_avx2()) best = has_fast_pext() ? SIFT_KERNEL_AVX2_PEXT : SIFT_KERNEL_AVX2;
    if (cpu_has_avx512bw()) best = has_fast_pext() ? SIFT_KERNEL_AVX512 : SIFT_KERNEL_AVX2;
#endif
    __atomic_store_n(&best_level, best, __ATOMIC_RELAXED);
    return best;
}

int sift_kernel_level(void) {
    int best = sift_best_kernel_level();
    int forced = __atomic_load_n(&forced_level, __ATOMIC_RELAXED);
    return forced > 0 && forced < best ? forced : best;
}
