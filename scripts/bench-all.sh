#!/usr/bin/env bash
# Every benchmark in one run, in release mode: builds the Benchmarks package and a release almanacd from it, then runs
#   core     AlmanacBenchmarks            framework core vs hand-written Swift, predicate parse rate
#   grdb     AlmanacBenchmarks grdb       our SQLite store vs GRDB, same run
#   sqlite   SQLiteBench                  SQLite store vs the raw C API
#   xml      XMLStoreBench                XML and binary stores vs xmllint, the FOSDEM frab file
#   daemon   AlmanacBenchmarks daemon     almanacd over its socket: fetch, ping vs redis, start-up, RSS, dropped file,
#                                         change propagation between two daemons through PostgreSQL
#   postgres AlmanacBenchmarks postgres   the PostgreSQL store vs PostgresNIO by hand, 8 daemons on one schema
#   crash    CrashSafety run              SIGKILLed writers of the file stores
# Every step writes its rows to Benchmarks/results/STEP[-quick].json and its output to STEP[-quick].txt. At the end
# all rows go into Benchmarks/results/latest.json (quick.json with --quick):
#   {date, machine, quick, rows: [{step, workload, ours, anchor, ratio, target, pass, note}],
#    steps: [{step, status, seconds}]}
# (ours and anchor are {median, minimum, maximum, runs, unit}; BENCHMARKS.md says how to read a row), and one table
# of every row is printed and written to latest.md (quick.md).
#
#   scripts/bench-all.sh [--quick] [--only core,grdb,…] [--no-build] [--almanacd PATH] [--shared PATH]
#
# --shared names the folder of real schedules (default: `shared` beside the checkout, ../shared); without its
# schedules/fosdem-2021-schedule.xml the frab XML row and the daemon's dropped-file row say skipped.
#
# --almanacd runs the daemon step against that binary instead of building a release almanacd (CI passes the debug
# one `swift test` built: the step then checks that the workloads run, and its figures say nothing about speed).
#
# --quick shrinks the inputs (CI-sized: under 2 minutes once built). Exits non-zero when a step fails to run; a
# missed target is a figure, not a failure. The daemon's ping rows need redis-server and redis-benchmark, the XML
# step's xmllint rows need xmllint: run as root, the script installs the redis-server and libxml2-utils packages
# when they are missing; otherwise it says so and those rows say "skipped".
# BENCH_BUILD_FLAGS adds flags to every release build of Benchmarks/ (CI passes --static-swift-stdlib, so that the
# package check's static almanac and almanacd and this step share one compilation of the framework).
# The postgres step uses the server of ALMANAC_POSTGRES_URL, else a private cluster (fsync on) that
# scripts/postgres-cluster.sh starts and the script stops at exit; without either its rows say "skipped".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
all="core,grdb,sqlite,xml,daemon,postgres,crash"
quick=0 only=$all build=1 almanacd= shared=$(cd "$root/.." && pwd)/shared
read -r -a build_flags <<<"${BENCH_BUILD_FLAGS:-}"
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --only) only=$2; shift ;;
        --no-build) build=0 ;;
        --almanacd) almanacd=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
        --shared) shared=$(cd "$2" 2>/dev/null && pwd || echo "$2"); shift ;;
        *) echo "usage: scripts/bench-all.sh [--quick] [--only $all] [--no-build] [--almanacd PATH] [--shared PATH]" >&2
           exit 2 ;;
    esac
    shift
done
for name in ${only//,/ }; do
    case ",$all," in *",$name,"*) ;; *) echo "bench-all: unknown step $name (steps: $all)" >&2; exit 2 ;; esac
done
selected() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
results="$root/Benchmarks/results"
mkdir -p "$results"
suffix=$([ "$quick" = 1 ] && echo -quick || true)
quickflag=$([ "$quick" = 1 ] && echo --quick || true)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

if [ "$build" = 1 ]; then
    start=$SECONDS
    swift build -c release --package-path Benchmarks "${build_flags[@]}" || exit 1
    # almanacd from the same build (a product of the path dependency), so the framework is compiled once.
    if { selected daemon || selected postgres; } && [ -z "$almanacd" ]; then
        swift build -c release --package-path Benchmarks "${build_flags[@]}" --product almanacd || exit 1
    fi
    echo "bench-all: built in $((SECONDS - start)) s"
fi
bin=$(swift build -c release --package-path Benchmarks "${build_flags[@]}" --show-bin-path)

if selected daemon && ! { command -v redis-server && command -v redis-benchmark; } >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "bench-all: installing redis-server for the daemon's ping rows"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) \
            || echo "bench-all: could not install redis-server; the ping rows will say skipped"
    else
        echo "bench-all: redis-server/redis-benchmark missing (not root): the ping rows will say skipped"
    fi
fi

# The XML step's anchor is xmllint (Debian's libxml2-utils); without it the step cannot run.
if selected xml && ! command -v xmllint >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "bench-all: installing libxml2-utils for the XML step's xmllint anchor"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils) \
            || echo "bench-all: could not install libxml2-utils; the XML step's xmllint rows will say skipped"
    else
        echo "bench-all: xmllint missing (not root): the XML step's xmllint rows will say skipped"
    fi
fi

# The real schedules (the frab XML row, the daemon's dropped-file row) come from ../shared, passed to the tools.
export ALMANAC_SHARED=$shared
if { selected xml || selected daemon; } && [ ! -f "$shared/schedules/fosdem-2021-schedule.xml" ]; then
    echo "bench-all: $shared/schedules/fosdem-2021-schedule.xml is absent: the frab XML and dropped-file rows" \
        "will say skipped (--shared PATH names the folder)"
fi

# The postgres step and the daemon step's propagation rows need a PostgreSQL server: ALMANAC_POSTGRES_URL, or one
# private cluster started here (with fsync on, like a real server) and stopped at exit; without PostgreSQL those rows
# say skipped.
if { selected postgres || selected daemon; } && [ -z "${ALMANAC_POSTGRES_URL:-}" ]; then
    if cluster=$(ALMANAC_POSTGRES_FSYNC=on "$root/scripts/postgres-cluster.sh" start 2>/dev/null); then
        export ALMANAC_POSTGRES_URL=$cluster
        trap '"$root/scripts/postgres-cluster.sh" stop "$cluster"' EXIT
        echo "bench-all: started a PostgreSQL cluster for the postgres step and the propagation rows: $cluster"
    else
        echo "bench-all: no ALMANAC_POSTGRES_URL and no PostgreSQL to start (scripts/postgres-cluster.sh):" \
            "the postgres step's and the propagation rows will say skipped"
    fi
fi

steps=()
failed=0
run_started=$SECONDS
step() { # NAME COMMAND… (the command writes its rows to $results/NAME$suffix.json)
    local name=$1
    shift
    selected "$name" || return 0
    local text="$results/$name$suffix.txt" json="$results/$name$suffix.json" start=$SECONDS status=0
    rm -f "$json"
    echo "== bench-all: $name: $*"
    "$@" 2>&1 | tee "$text"
    status=${PIPESTATUS[0]}
    local seconds=$((SECONDS - start))
    echo "== bench-all: $name finished with status $status in $seconds s"
    [ "$status" -ne 0 ] && failed=1
    steps+=("$name:$status:$seconds")
}

step core "$bin/AlmanacBenchmarks" core $quickflag --json "$results/core$suffix.json"
step grdb "$bin/AlmanacBenchmarks" grdb $quickflag --json "$results/grdb$suffix.json"
step sqlite "$bin/SQLiteBench" $quickflag --json "$results/sqlite$suffix.json"
step xml "$bin/XMLStoreBench" "$([ "$quick" = 1 ] && echo 5 || echo 50)" $quickflag --json "$results/xml$suffix.json"
step daemon "$bin/AlmanacBenchmarks" daemon $quickflag --almanacd "${almanacd:-$bin/almanacd}" --json "$results/daemon$suffix.json"
step postgres "$bin/AlmanacBenchmarks" postgres $quickflag --almanacd "${almanacd:-$bin/almanacd}" \
    --json "$results/postgres$suffix.json"
step crash "$bin/CrashSafety" run --kills "$([ "$quick" = 1 ] && echo 10 || echo 200)" \
    --json "$results/crash$suffix.json"
echo "bench-all: the steps took $((SECONDS - run_started)) s"

# Merge every step's rows into latest.json (quick.json) and print one table.
python3 - "$results" "$suffix" "$quick" "$started" "$load_before" "${steps[@]}" <<'PY'
import json, math, os, platform, subprocess, sys

results, suffix, quick, started, load_before = sys.argv[1:6]
steps = []
for argument in sys.argv[6:]:
    name, status, seconds = argument.split(":")
    steps.append({"step": name, "status": int(status), "seconds": int(seconds)})

def machine():
    cores = os.cpu_count()
    memory = "?"
    try:
        with open("/proc/meminfo") as meminfo:
            kilobytes = int(next(line for line in meminfo if line.startswith("MemTotal:")).split()[1])
            memory = f"{round(kilobytes / 1024 / 1024)} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    system = platform.platform()
    try:
        with open("/etc/os-release") as release:
            for line in release:
                if line.startswith("PRETTY_NAME="):
                    system = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    try:
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True, timeout=60).stdout
        swift = next((line.strip() for line in swift.splitlines() if "Swift version" in line), "swift ?")
    except (OSError, subprocess.SubprocessError):
        swift = "swift ?"
    try:
        load_after = " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        load_after = "?"
    return (f"{cores} cores, {memory}, {system}, {swift}; "
            f"load average {load_before} before the steps, {load_after} after")

rows = []
for step in steps:
    path = os.path.join(results, f"{step['step']}{suffix}.json")
    try:
        with open(path) as file:
            step_rows = json.load(file)["rows"]
    except (OSError, ValueError, KeyError) as error:
        step_rows = [{"workload": f"{step['step']}: no rows", "ours": None, "anchor": None, "ratio": None,
                      "target": "none", "pass": None,
                      "note": f"error: the step exited with status {step['status']} and left no rows ({error})"}]
    for row in step_rows:
        rows.append({"step": step["step"], **row})

name = "quick" if quick == "1" else "latest"
# A full run of some steps (--only) keeps the other steps' rows of the previous latest.json, marked with their date,
# so that latest.json (and BENCHMARKS.md's table) always has every row.
if quick != "1":
    try:
        with open(os.path.join(results, "latest.json")) as file:
            previous = json.load(file)
        ran = {step["step"] for step in steps}
        for row in previous.get("rows", []):
            if row.get("step") in ran:
                continue
            row = dict(row)
            measured = row.pop("measured", None) or previous.get("date", "?")
            rows.append({**row, "measured": measured})
        known = [step["step"] for step in steps]
        steps += [step for step in previous.get("steps", []) if step["step"] not in known]
    except (OSError, ValueError):
        pass
    order = ["core", "grdb", "sqlite", "xml", "daemon", "postgres", "crash"]
    rows.sort(key=lambda row: order.index(row["step"]) if row["step"] in order else len(order))
report = {"date": started, "machine": machine(), "quick": quick == "1", "rows": rows, "steps": steps}
with open(os.path.join(results, f"{name}.json"), "w") as file:
    json.dump(report, file, indent=2, ensure_ascii=False)
    file.write("\n")

# The table: the same formatting as the tools' own tables (BenchmarkSupport/Format.swift).
def number(value):
    if value == round(value) and abs(value) < 1e15:
        return str(int(value))
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"

def scale(value, unit, reference):
    magnitude = abs(reference)
    if unit == "s":
        if magnitude >= 1 or magnitude == 0:
            return value, " s"
        if magnitude >= 1e-3:
            return value * 1e3, " ms"
        return value * 1e6, " µs"
    if unit.endswith("/s"):
        rest = "/s" if unit == "/s" else " " + unit
        if magnitude >= 1e6:
            return value / 1e6, "M" + rest
        if magnitude >= 1e4:
            return value / 1e3, "k" + rest
        return value, rest
    return value, (" " + unit if unit else "")

def figure(value):
    if not value:
        return "—"
    median, unit = scale(value["median"], value["unit"], value["median"])
    text = number(median) + unit
    if value.get("runs", 1) > 1 and value["minimum"] == value["maximum"]:
        text += f" ({value['runs']} runs)"
    elif value.get("runs", 1) > 1:
        low = scale(value["minimum"], value["unit"], value["median"])[0]
        high = scale(value["maximum"], value["unit"], value["median"])[0]
        text += f" ({number(low)}–{number(high)}, {value['runs']} runs)"
    return text

def verdict(row):
    if row.get("ours") is None and row.get("note"):
        return "skipped" if row["note"].startswith("skipped") else "ERROR"
    return {True: "pass", False: "FAIL", None: "—"}[row.get("pass")]

header = ["step", "workload", "ours", "anchor", "ratio", "target", "pass/fail"]
table = [[row["step"] + (f" ({row['measured'][:10]})" if row.get("measured") else ""), row["workload"],
          figure(row.get("ours")), figure(row.get("anchor")),
          "—" if row.get("ratio") is None else f"{row['ratio']:.2f}", row.get("target", ""), verdict(row)]
         for row in rows]
widths = [max(len(line[column]) for line in [header] + table) for column in range(len(header))]
def line(cells):
    return "| " + " | ".join(cell.ljust(width) for cell, width in zip(cells, widths)) + " |"
text = [line(header), "|" + "|".join("-" * (width + 2) for width in widths) + "|"] + [line(cells) for cells in table]
notes = [f"- {row['step']}: {row['workload']}: {row['note']}" for row in rows
         if verdict(row) in ("skipped", "ERROR") or (row.get("note") or "").startswith("skipped")]
verdicts = [verdict(row) for row in rows]
summary = (f"{len(rows)} rows: {verdicts.count('pass')} pass, {verdicts.count('FAIL')} miss their target, "
           f"{verdicts.count('—')} without target, {verdicts.count('skipped')} skipped, "
           f"{verdicts.count('ERROR')} errors; steps: "
           + ", ".join(f"{s['step']} {'ok' if s['status'] == 0 else 'FAILED %d' % s['status']} {s['seconds']} s"
                       for s in steps))
with open(os.path.join(results, f"{name}.md"), "w") as file:
    file.write(f"# Benchmarks{' (--quick)' if quick == '1' else ''}, {started}\n\n{report['machine']}\n\n")
    file.write("\n".join(text) + "\n\n" + summary + "\n")
    if notes:
        file.write("\n" + "\n".join(notes) + "\n")
# BENCHMARKS.md shows the table of the last full run between its markers.
if quick != "1":
    document = os.path.join(os.path.dirname(os.path.dirname(results)), "BENCHMARKS.md")
    begin, end = "<!-- table:begin (scripts/bench-all.sh writes it) -->", "<!-- table:end -->"
    try:
        with open(document) as file:
            content = file.read()
        if begin in content and end in content:
            head, rest = content.split(begin, 1)
            tail = rest.split(end, 1)[1]
            block = (f"{begin}\nRun of {started}; {report['machine']}. A step in brackets was measured in an earlier "
                     f"run (on the date shown).\n\n" + "\n".join(text) + "\n\n" + summary + "\n")
            with open(document, "w") as file:
                file.write(head + block + end + tail)
            print(f"bench-all: the table in BENCHMARKS.md is updated")
    except OSError as error:
        print(f"bench-all: BENCHMARKS.md not updated: {error}")
print()
print("\n".join(text))
print()
print(summary)
for note in notes:
    print(note)
print(f"bench-all: {len(rows)} rows in Benchmarks/results/{name}.json, the table in {name}.md")
PY
[ $? -ne 0 ] && failed=1
exit "$failed"
