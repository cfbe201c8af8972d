#!/usr/bin/env bash
# Builds one libFuzzer target of Fuzz/ (with AddressSanitizer) and runs it for a while.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags…]
#   scripts/fuzz.sh list
#
# TARGET: predicate | frab-xml | frab-json | icalendar | wire | model-file | xml-store | binary-store (or the product
# name, e.g. FuzzPredicate).
# Seeds come from Data/schedules, ../shared/schedules and ../shared/coredata (when present), for the predicate target
# from the predicate corpus of the tests, for model-file from the model files of Data/ and the tests, and for the
# store targets also from stores the target itself writes first (FUZZ_WRITE_SEEDS: a small store made in code and
# Data/schedules' schedule files migrated into the store's format). The growing corpus is kept in
# Fuzz/.corpus/TARGET, crashes, leaks and timeouts in Fuzz/.artifacts/TARGET/. Exits non-zero when libFuzzer found
# something (its report names the input file; replay it with `Fuzz/.build/release/PRODUCT FILE`, minimise it with
# `-minimize_crash=1 -runs=10000 FILE`).
# Environment: FUZZ_JOBS (libFuzzer -jobs/-workers, default 1), FUZZ_MAX_LEN (default 65536), FUZZ_NO_BUILD=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

targets="predicate frab-xml frab-json icalendar wire model-file xml-store binary-store"
if [ "${1:-}" = list ] || [ $# -lt 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags…]; targets: $targets" >&2
    [ "${1:-}" = list ] && exit 0 || exit 2
fi
target=$1 seconds=$2
shift 2
case "$target" in
    predicate|FuzzPredicate) product=FuzzPredicate name=predicate ;;
    frab-xml|FuzzFrabXML) product=FuzzFrabXML name=frab-xml ;;
    frab-json|FuzzFrabJSON) product=FuzzFrabJSON name=frab-json ;;
    icalendar|FuzzICalendar) product=FuzzICalendar name=icalendar ;;
    wire|FuzzWireRequest) product=FuzzWireRequest name=wire ;;
    model-file|FuzzModelFile) product=FuzzModelFile name=model-file ;;
    xml-store|FuzzXMLStore) product=FuzzXMLStore name=xml-store ;;
    binary-store|FuzzBinaryStore) product=FuzzBinaryStore name=binary-store ;;
    *) echo "fuzz: unknown target $target; targets: $targets" >&2; exit 2 ;;
esac

build=(swift build -c release --package-path Fuzz --scratch-path Fuzz/.build --product "$product"
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld)
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
    "${build[@]}"
fi
binary="$root/Fuzz/.build/release/$product"

corpus="$root/Fuzz/.corpus/$name"
artifacts="$root/Fuzz/.artifacts/$name"
seeds="$root/Fuzz/.seeds/$name"
mkdir -p "$corpus" "$artifacts" "$seeds"

# Seeds: copied (not linked) so that libFuzzer never writes into the sources. Missing folders are skipped.
shared="$root/../shared/schedules"
copy_seeds() { # PATTERN…
    for pattern in "$@"; do
        for file in "$root"/Data/schedules/$pattern "$shared"/$pattern; do
            [ -f "$file" ] && cp -f "$file" "$seeds/"
        done
    done
    return 0
}
coredata="$root/../shared/coredata"
copy_coredata() { # PATTERN… (relative to ../shared/coredata; slashes become dashes in the copy's name)
    for pattern in "$@"; do
        for file in "$coredata"/$pattern; do
            [ -f "$file" ] && cp -f "$file" "$seeds/coredata-$(printf '%s' "${file#"$coredata"/}" | tr / -)"
        done
    done
    return 0
}
# The store targets write seed stores themselves, through the real stores (without leak checks: not fuzzing yet).
write_seed_stores() {
    FUZZ_WRITE_SEEDS="$seeds" ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no "$binary" \
        "$root"/Data/schedules/*.xml "$root"/Data/schedules/*.json "$root"/Data/schedules/*.ics
}
case "$name" in
    frab-xml) copy_seeds '*.xml' ;;
    frab-json) copy_seeds '*.json' ;;
    icalendar) copy_seeds '*.ics' ;;
    predicate)
        # Every format string of the test corpus, one file each.
        python3 - "$seeds" "$root"/Tests/ObjectGraphTestSupport/PredicateCorpus*.swift <<'PY'
import hashlib, pathlib, re, sys
out = pathlib.Path(sys.argv[1])
for path in sys.argv[2:]:
    for match in re.finditer(r'\bP\("((?:[^"\\]|\\.)*)"', pathlib.Path(path).read_text()):
        text = re.sub(r'\\u\{([0-9a-fA-F]+)\}', lambda m: chr(int(m.group(1), 16)), match.group(1))
        text = text.replace('\\"', '"').replace("\\'", "'").replace('\\n', '\n').replace('\\t', '\t').replace('\\\\', '\\')
        data = text.encode('utf-8', 'surrogatepass')
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
PY
        ;;
    wire)
        for line in '{"id":1,"op":"ping"}' '{"id":"a","op":"hello","client":"fuzz","version":1}' \
            '{"id":2,"op":"fetch","entity":"Session","predicate":"title BEGINSWITH[c] $X","variables":{"X":"a"},"sort":[{"key":"start","ascending":false}],"limit":50,"offset":0}' \
            '{"id":3,"op":"count","entity":"Session","predicate":"room.name == \"K.1.105\""}' \
            '{"id":4,"op":"template","name":"SessionsAt","variables":{"START":"2026-01-01T00:00:00Z"}}' \
            '{"id":5,"op":"get","uri":"x-coredata://ABC/Session/p1"}' \
            '{"id":6,"op":"insert","entity":"Favorite","store":"favorites","values":{"note":"x","rank":1.5,"flag":true,"none":null}}' \
            '{"id":7,"op":"update","uri":"x-coredata://ABC/Favorite/p2","values":{"note":"\u00e9\ud83d\ude00"}}' \
            '{"id":8,"op":"delete","uri":"x-coredata://ABC/Favorite/p2"}' '{"id":9,"op":"changes","since":0}' \
            '{"op":"stats"}' '{"op":"model"}' '{"op":"stores"}' '{"op":"subscribe"}' '[1,2,{"a":-1.5e300}]'; do
            printf '%s\n' "$line" > "$seeds/$(printf '%s' "$line" | sha1sum | cut -c1-40)"
        done
        ;;
    model-file)
        copy_coredata '*.xcdatamodel-contents.xml' '*.xcdatamodeld/*.xcdatamodel/contents'
        for file in "$root"/Sources/Schedules/ObjectModel/*.xcdatamodeld/*.xcdatamodel/contents; do
            [ -f "$file" ] && cp -f "$file" "$seeds/data-$(basename "$(dirname "$file")")"
        done
        # The tests' model files written in code (multi-line string literals of ModelFileFixtures).
        python3 - "$seeds" "$root"/Tests/ObjectGraphXMLTests/Support/ModelFileFixtures.swift <<'PY'
import hashlib, pathlib, re, sys
out = pathlib.Path(sys.argv[1])
for path in sys.argv[2:]:
    for match in re.finditer(r'"""\n(.*?)\n( *)"""', pathlib.Path(path).read_text(), re.S):
        indent = len(match.group(2))
        lines = [line[indent:] for line in match.group(1).split('\n')]
        text = '\n'.join(lines).replace('\\\n', '').replace('\\"', '"')
        if '<model' not in text or '\\(' in text:
            continue
        data = text.encode('utf-8')
        (out / ('fixture-' + hashlib.sha1(data).hexdigest())).write_bytes(data)
PY
        ;;
    xml-store)
        copy_coredata '*xml-store*.xml'
        for file in "$root"/Data/schedules/*.xml; do  # the XML stores among the schedules
            head -c 1024 "$file" | grep -q '<database>' && cp -f "$file" "$seeds/"
        done
        write_seed_stores
        ;;
    binary-store)
        copy_seeds '*.binary'
        write_seed_stores
        ;;
esac

dictionary="$root/Fuzz/Dictionaries/$name.dict"
echo "fuzz: $product for ${seconds}s; corpus $corpus, seeds $seeds ($(ls "$seeds" | wc -l) files)"
log="$artifacts/last-run.log"
# The Swift runtime's backtracer reads the crashed thread's stack from a helper thread, which AddressSanitizer
# reports as a stack-buffer-underflow of its own; libFuzzer's report is enough.
export SWIFT_BACKTRACE=enable=no
# Foundation's NSRegularExpression leaks ~500 bytes for some invalid MATCHES patterns (Fuzz/Findings/
# predicate-regex-leak), which stops every predicate run at its end; FUZZ_LEAKS=1 turns leak detection back on.
leaks=()
if [ "$name" = predicate ] && [ "${FUZZ_LEAKS:-0}" != 1 ]; then
    leaks=(-detect_leaks=0)                                         # libFuzzer's check after each input
    export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"  # and LeakSanitizer's at exit
fi
status=0
"$binary" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-65536}" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" ${FUZZ_JOBS:+-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS} \
    $([ -f "$dictionary" ] && echo "-dict=$dictionary") "${leaks[@]}" "$@" "$corpus" "$seeds" >"$log" 2>&1 || status=$?
grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|RELOAD|pulse)|NEW_FUNC|^"|^INFO' "$log" | tail -40
# The last status line (edges covered, features, corpus) and the final statistics.
echo "fuzz: $product: $(grep -E '^#[0-9]+' "$log" | tail -1)"
echo "fuzz: $product: $(grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" | tr -s ' ' | tr '\n' ' ')"
if [ "$status" -ne 0 ]; then
    echo "fuzz: $product stopped with status $status; artifacts in $artifacts:" >&2
    ls -la "$artifacts" >&2
fi
exit "$status"
