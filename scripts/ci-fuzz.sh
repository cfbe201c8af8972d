#!/usr/bin/env bash
# CI fuzz step: builds every libFuzzer target of Fuzz/ with one `swift build` (the flags of scripts/fuzz.sh, so that
# its per-target builds reuse it) and runs each target briefly with scripts/fuzz.sh, from its seeds and whatever
# Fuzz/.corpus already holds.
#
#   scripts/ci-fuzz.sh
#
# Environment: CI_FUZZ_SECONDS (per target, default 20), CI_FUZZ_TARGETS (default: every target of fuzz.sh).
# Exits non-zero when any target found a crash, leak or timeout; its report and input are in Fuzz/.artifacts/TARGET/
# (replay and minimise as scripts/fuzz.sh describes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

seconds=${CI_FUZZ_SECONDS:-20}
targets=${CI_FUZZ_TARGETS:-$(scripts/fuzz.sh list 2>&1 | sed -n 's/.*targets: //p')}
if [ -z "$targets" ]; then
    echo "ci-fuzz: no targets (scripts/fuzz.sh list printed none)" >&2
    exit 2
fi
# SwiftPM names a path dependency after its folder: a checkout in a folder called "fuzz" has the identity of Fuzz/
# itself, and the build fails with "product 'ObjectGraph' … not found in package 'Almanac'".
if [ "$(basename "$root" | tr '[:upper:]' '[:lower:]')" = fuzz ]; then
    echo "ci-fuzz: the checkout's folder is named '$(basename "$root")', which SwiftPM confuses with Fuzz/;" \
        "check out into a folder of another name" >&2
    exit 2
fi

start=$(date +%s)
echo "ci-fuzz: building every target of Fuzz/"
swift build -c release --package-path Fuzz --scratch-path Fuzz/.build \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld
built=$(date +%s)
echo "ci-fuzz: built in $((built - start)) s; running each target for ${seconds} s: $targets"

failed=()
summary=()
for target in $targets; do
    status=0
    FUZZ_NO_BUILD=1 scripts/fuzz.sh "$target" "$seconds" || status=$?
    log="Fuzz/.artifacts/$target/last-run.log"
    runs=$(grep -E '^stat::number_of_executed_units' "$log" 2>/dev/null | tail -1 | awk '{print $2}' || true)
    summary+=("$(printf '%-14s %-9s %s runs' "$target" "$([ "$status" -eq 0 ] && echo ok || echo "FAILED($status)")" \
        "${runs:-?}")")
    [ "$status" -eq 0 ] || failed+=("$target")
done

echo "ci-fuzz: build $((built - start)) s, runs $(( $(date +%s) - built )) s, total $(( $(date +%s) - start )) s"
printf 'ci-fuzz:   %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "ci-fuzz: findings in ${failed[*]}; see Fuzz/.artifacts/<target>/" >&2
    exit 1
fi
