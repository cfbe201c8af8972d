#!/usr/bin/env bash
# The growth table of issue 26: how the daemon's fetch and count cost and its memory grow with what it serves.
# Builds the Benchmarks package and almanacd in release mode (unless --no-build), then runs
# `AlmanacBenchmarks growth` at 10k, 100k and 1M sessions (100, 100 and 1,000 binary stores), 8 clients per
# workload: the sorted limit-50 fetch answered from the reply cache, the same at 1,000 offsets (cache misses), and
# counts with 1,000 different predicates. Prints one line per size (time to READY, VmRSS after READY and after the
# load, p50 / p99 / rate per workload) and writes Benchmarks/results/growth.json. 1M sessions take minutes to
# write and load; the machine's load average is printed before and after.
# Then the scale rows (`AlmanacBenchmarks scale`): 10,000 small files to READY=1 and VmRSS then, and a generated
# frab XML file of a million sessions renamed into a running daemon's inbox until queryable, written to
# Benchmarks/results/scale.json with their targets. --only growth or --only scale runs one of the two.
#
#   scripts/growth-table.sh [--sizes 10000,100000,1000000] [--seconds 5] [--files 10000] [--frab-sessions 1000000]
#                           [--only growth|scale] [--no-build]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=1 extra=() scale=() only=
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --sizes|--seconds) extra+=("$1" "$2"); shift ;;
        --files|--frab-sessions) scale+=("$1" "$2"); shift ;;
        --only) only=$2; shift ;;
        *) echo "usage: scripts/growth-table.sh [--sizes N,N,…] [--seconds S] [--files N] [--frab-sessions N]" \
               "[--only growth|scale] [--no-build]" >&2; exit 2 ;;
    esac
    shift
done
if [ "$build" = 1 ]; then
    swift build -c release --package-path Benchmarks --product AlmanacBenchmarks
    swift build -c release --package-path Benchmarks --product almanacd
fi
bin=$(swift build -c release --package-path Benchmarks --show-bin-path)
echo "growth-table: load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$only" != scale ]; then
    "$bin/AlmanacBenchmarks" growth --almanacd "$bin/almanacd" --json "$root/Benchmarks/results/growth.json" \
        "${extra[@]}"
fi
if [ "$only" != growth ]; then
    "$bin/AlmanacBenchmarks" scale --almanacd "$bin/almanacd" --json "$root/Benchmarks/results/scale.json" \
        "${scale[@]}"
fi
