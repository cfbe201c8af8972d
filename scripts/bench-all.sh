#!/usr/bin/env bash
# Every benchmark in one run: builds the Benchmarks package and a release almanacd, then runs
#   core     AlmanacBenchmarks            framework core vs hand-written Swift     -> latest.json (quick.json)
#   grdb     AlmanacBenchmarks grdb       our SQLite store vs GRDB, same run       -> grdb.json (grdb-quick.json)
#   sqlite   SQLiteBench                  SQLite store vs the raw C API            -> sqlite.json
#   xml      XMLStoreBench                XML/binary stores vs xmllint             -> xmlstore.json
#   daemon   AlmanacBenchmarks daemon     almanacd over its socket                 -> daemon.json (daemon-quick.json)
#   crash    CrashSafety run              SIGKILLed writers of the file stores     -> crash-safety.json
# writing each step's table to Benchmarks/results/STEP[-quick].txt, and a summary of all steps (status, seconds,
# files) to summary[-quick].json and summary[-quick].md.
#
#   scripts/bench-all.sh [--quick] [--only core,grdb,…] [--no-build]
#
# --quick shrinks the inputs (CI-sized: a few minutes once built). Exits non-zero when a step fails to run; a missed
# target is a figure, not a failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
quick=0 only="core,grdb,sqlite,xml,daemon,crash" build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --only) only=$2; shift ;;
        --no-build) build=0 ;;
        *) echo "usage: scripts/bench-all.sh [--quick] [--only core,grdb,sqlite,xml,daemon,crash] [--no-build]" >&2
           exit 2 ;;
    esac
    shift
done
results="$root/Benchmarks/results"
mkdir -p "$results"
suffix=$([ "$quick" = 1 ] && echo -quick || true)
quickflag=$([ "$quick" = 1 ] && echo --quick || true)

if [ "$build" = 1 ]; then
    start=$SECONDS
    swift build -c release --package-path Benchmarks || exit 1
    # almanacd from the same build (a product of the path dependency), so the framework is compiled once.
    case ",$only," in *,daemon,*)
        swift build -c release --package-path Benchmarks --product almanacd || exit 1 ;;
    esac
    echo "bench-all: built in $((SECONDS - start)) s"
fi
bin=$(swift build -c release --package-path Benchmarks --show-bin-path)

steps_json=()
failed=0
step() { # NAME JSON-FILE COMMAND…
    local name=$1 json=$2
    shift 2
    case ",$only," in *",$name,"*) ;; *) return 0 ;; esac
    local text="$results/$name$suffix.txt" start=$SECONDS status=0
    echo "== bench-all: $name: $*"
    "$@" 2>&1 | tee "$text"
    status=${PIPESTATUS[0]}
    local seconds=$((SECONDS - start))
    echo "== bench-all: $name finished with status $status in $seconds s"
    [ "$status" -ne 0 ] && failed=1
    steps_json+=("{\"step\":\"$name\",\"status\":$status,\"seconds\":$seconds,\"table\":\"$(basename "$text")\",\"json\":\"$json\"}")
}

# Text-only tools: their lines and every "label: 1.23x" ratio go into a JSON file beside the table.
text_to_json() { # TEXT JSON
    python3 - "$1" "$2" <<'PY'
import json, re, sys, time
lines = open(sys.argv[1], errors="replace").read().splitlines()
ratios = {}
for number, line in enumerate(lines, 1):
    for segment in re.split(r"\s{2,}|;\s*", line.strip()):
        match = re.match(r"([A-Za-z][\w/+ -]*?):?\s+([0-9.]+)x\b", segment)
        if match:
            label = match.group(1).strip()
            if label in ratios:
                label += f" (line {number})"
            ratios[label] = float(match.group(2))
json.dump({"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "ratios": ratios, "lines": lines},
          open(sys.argv[2], "w"), indent=2, sort_keys=True)
PY
}

step core "$( [ "$quick" = 1 ] && echo quick.json || echo latest.json )" "$bin/AlmanacBenchmarks" $quickflag
step grdb "grdb$suffix.json" "$bin/AlmanacBenchmarks" grdb $quickflag
step sqlite "sqlite$suffix.json" "$bin/SQLiteBench"
[ -f "$results/sqlite$suffix.txt" ] && case ",$only," in *,sqlite,*) text_to_json "$results/sqlite$suffix.txt" "$results/sqlite$suffix.json" ;; esac
step xml "xmlstore$suffix.json" "$bin/XMLStoreBench" "$([ "$quick" = 1 ] && echo 5 || echo 50)"
[ -f "$results/xml$suffix.txt" ] && case ",$only," in *,xml,*) text_to_json "$results/xml$suffix.txt" "$results/xmlstore$suffix.json" ;; esac
step daemon "daemon$suffix.json" "$bin/AlmanacBenchmarks" daemon $quickflag --almanacd "$bin/almanacd"
step crash "crash-safety$suffix.json" "$bin/CrashSafety" run --kills "$([ "$quick" = 1 ] && echo 10 || echo 200)"
[ -f "$results/crash$suffix.txt" ] && case ",$only," in *,crash,*) text_to_json "$results/crash$suffix.txt" "$results/crash-safety$suffix.json" ;; esac

python3 - "$results" "$suffix" "${steps_json[@]}" <<'PY'
import json, os, sys, time
results, suffix, steps = sys.argv[1], sys.argv[2], [json.loads(s) for s in sys.argv[3:]]
date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
json.dump({"date": date, "quick": suffix == "-quick", "steps": steps},
          open(os.path.join(results, f"summary{suffix}.json"), "w"), indent=2)
with open(os.path.join(results, f"summary{suffix}.md"), "w") as out:
    out.write(f"# Benchmarks {'(quick) ' if suffix else ''}{date}\n\n| step | status | seconds | table | JSON |\n| --- | --- | --- | --- | --- |\n")
    for s in steps:
        out.write(f"| {s['step']} | {'ok' if s['status'] == 0 else 'FAILED %d' % s['status']} | {s['seconds']} | {s['table']} | {s['json']} |\n")
    for s in steps:
        out.write(f"\n## {s['step']}\n\n```\n" + open(os.path.join(results, s["table"]), errors="replace").read() + "```\n")
print(f"bench-all: summary in Benchmarks/results/summary{suffix}.md and summary{suffix}.json")
PY
exit "$failed"
