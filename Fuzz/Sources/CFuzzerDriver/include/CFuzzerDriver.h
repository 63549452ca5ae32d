// libFuzzer's driver entry point (compiler-rt, FuzzerDriver.cpp), linked in by -sanitize=fuzzer.
// Declared here because SwiftPM gives executables their own main: ours calls the driver.
#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *_Nonnull argc, char *_Nullable *_Nullable *_Nonnull argv,
                        int (*_Nonnull callback)(const uint8_t *_Nullable data, size_t size));
#endif
