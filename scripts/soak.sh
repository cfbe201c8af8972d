#!/usr/bin/env bash
# Soak (issue #24, point 5; not in CI): the release almanacd under load with churn for MINUTES minutes (default 30):
# scripts/load-with-churn.sh with 16 clients, the folder churning every 100 ms (files dropped, replaced, rewritten,
# renamed, deleted, malformed), almanacd.json rewritten and SIGHUP sent every 30 s, and the daemon's open
# descriptors, VmRSS and heap in use (glibc's malloc_stats through gdb) sampled every minute. All of
# load-with-churn.sh's checks apply at the end (no failed request, every acknowledged favourite present before and
# after a restart, descriptors and memory back within their bounds once the start-up files are back).
#
#   scripts/soak.sh [MINUTES] [--almanacd PATH] [--no-build]
#
# Writes Benchmarks/results/soak.json (the samples are under "samples") and prints the curve as a table.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
minutes=30
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then minutes=$1; shift; fi
status=0
"$root/scripts/load-with-churn.sh" --seconds $((minutes * 60)) --clients 16 --interval 0.1 --sighup 30 --sample 60 \
    --name soak "$@" || status=$?
python3 - "$root/Benchmarks/results/soak.json" <<'PY'
import json, sys
try:
    result = json.load(open(sys.argv[1]))
except OSError:
    sys.exit("soak: no result written")
def figure(sample, key):
    value = sample.get(key)
    return "-" if value is None else value
print("soak: minute  VmRSS MiB  anonymous  files  heap in use MiB  heap from system  open files  files in folder"
      "  SIGHUPs")
for sample in result.get("samples", []):
    print(f"soak: {sample['minute']:6.1f}  {sample['rssMiB'] or 0:9.1f}  {figure(sample, 'anonymousMiB'):>9}  "
          f"{figure(sample, 'fileMiB'):>5}  {figure(sample, 'heapInUseMiB'):>15}  {figure(sample, 'heapSystemMiB'):>16}  "
          f"{sample['openFiles'] or 0:10}  {sample['filesInFolder']:15}  {sample['sighups']:7}")
print(f"soak: {result.get('requestsAnswered')} requests, p99 {result.get('p99ms', 0):.1f} ms, max "
      f"{result.get('maxms', 0):.0f} ms, {result.get('churnOperations')} churn operations, {result.get('sighups')} "
      f"SIGHUPs; checks {'passed' if result.get('passed') else 'FAILED'}")
PY
exit $status
