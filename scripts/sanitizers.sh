#!/usr/bin/env bash
# Builds the tests with ThreadSanitizer and AddressSanitizer and runs the suites that exercise concurrency, memory
# and hostile input: the daemon (wire server, query engine, directory watcher, hostile files, request fuzzing), the
# daemon and client as processes, the coordinator and the store conformance suites, the XML and SQLite stores,
# the schedule readers and the wire format.
#
#   scripts/sanitizers.sh [thread|address|all] [--filter REGEX]…     (default: all, the filters below)
#
# Each sanitizer has its own scratch folder (.build-tsan, .build-asan) so the normal debug build stays untouched.
# Reports of the test process and of every child it starts (almanacd, almanac) are written to
# SCRATCH/sanitizer-reports/ (via log_path) and summarised at the end. Exits non-zero when a test fails or a
# sanitizer reported anything.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

which=all
filters=()
while [ $# -gt 0 ]; do
    case "$1" in
        thread|address|all) which=$1 ;;
        --filter) filters+=("$2"); shift ;;
        *) echo "usage: scripts/sanitizers.sh [thread|address|all] [--filter REGEX]…" >&2; exit 2 ;;
    esac
    shift
done
if [ ${#filters[@]} -eq 0 ]; then
    filters=(
        'AlmanacDaemonTests\.'                    # wire server, query engine, watcher, hostile files, fuzzing
        'almanacTests\.(EndToEndTests|DaemonProcessTests)'  # almanacd and almanac as processes
        'ObjectGraphTests\.(CoordinatorTests|MultiStoreSaveTests|StoreConformanceTests|MoreConformanceTests|BinaryStoreTests|AtomicFileWriterTests)'
        'ObjectGraphXMLTests\.XMLStore'
        'ObjectGraphSQLiteTests\.'
        'SchedulesTests\.'                         # frab XML/JSON and iCalendar readers, schedule stores
        'SafeXMLTests\.XMLPullParserHostileInputTests'
        'AlmanacWireTests\.'
    )
fi
filter_args=()
for filter in "${filters[@]}"; do filter_args+=(--filter "$filter"); done

overall=0
run() { # SANITIZER SCRATCH
    local sanitizer=$1 scratch=$2
    local reports="$root/$scratch/sanitizer-reports"
    local log="$root/$scratch/sanitizers.log"
    mkdir -p "$scratch"
    rm -rf "$reports" && mkdir -p "$reports"
    echo "== $sanitizer sanitizer: building tests into $scratch"
    local start=$SECONDS
    if ! swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | tail -3; then
        echo "== $sanitizer: build failed"; overall=1; return
    fi
    echo "== $sanitizer: built in $((SECONDS - start)) s; running ${filters[*]}"
    start=$SECONDS
    local status=0
    # halt_on_error=0: keep running after a report so one run shows them all. Leak detection is off: the Swift
    # runtime's metadata caches and Foundation's singletons are reachable only through tagged pointers and show up
    # as leaks without being ones. A 16 MB quarantine (default 256 MB) keeps the hostile-file tests' resident
    # memory bounds meaningful; freed memory is still poisoned until it is reused.
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 log_path=$reports/tsan ${TSAN_OPTIONS:-}" \
    ASAN_OPTIONS="halt_on_error=0 detect_leaks=0 detect_stack_use_after_return=1 quarantine_size_mb=16 log_path=$reports/asan ${ASAN_OPTIONS:-}" \
        swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "${filter_args[@]}" >"$log" 2>&1 \
        || status=$?
    local summary
    summary=$(grep -E "Test run with .* (passed|failed)|Executed [0-9]+ tests?" "$log" | tail -2)
    echo "== $sanitizer: tests finished in $((SECONDS - start)) s with status $status: ${summary:-see $log}"
    grep -E "✘|error:" "$log" | grep -v "^Test .* recorded an issue.*expected" | head -20
    if ls "$reports"/* >/dev/null 2>&1; then
        echo "== $sanitizer: reports in $reports:"
        cat "$reports"/* | grep -E "^(WARNING|SUMMARY|==[0-9]+==ERROR)" | sort | uniq -c | sort -rn | head -30
        overall=1
    else
        echo "== $sanitizer: no sanitizer reports"
    fi
    [ "$status" -ne 0 ] && overall=1
    return 0
}

if [ "$which" = thread ] || [ "$which" = all ]; then run thread .build-tsan; fi
if [ "$which" = address ] || [ "$which" = all ]; then run address .build-asan; fi
exit "$overall"
