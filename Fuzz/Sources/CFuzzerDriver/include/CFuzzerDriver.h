#ifndef C_FUZZER_DRIVER_H
#define C_FUZZER_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, `-sanitize=fuzzer`): parses libFuzzer's flags from argv and runs the callback.
/// The fuzz targets call it from their own `main`, because SwiftPM links an executable's `main` to the target's
/// entry point and so libFuzzer's `main` is never used.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
