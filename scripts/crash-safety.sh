#!/bin/sh
# Crash safety of the file stores: builds the CrashSafety harness in release mode and runs it.
#
#   scripts/crash-safety.sh [--kills N] [--types Binary,XML,SQLite] [--folder DIR] [--seed S]
#
# Each type's writer is SIGKILLed N times (default 200) at random moments (fixed seed); the store must reopen after
# every kill and hold every write the writer acknowledged. Exits non-zero when a write is lost or a file is torn.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
swift build -c release --package-path "$root/Benchmarks" --product CrashSafety
bin=$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)
exec "$bin/CrashSafety" run "$@"
