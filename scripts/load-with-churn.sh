#!/usr/bin/env bash
# The daemon under load while its watched folder churns: a release almanacd watches a temporary folder, the load
# generator (AlmanacBenchmarks load) runs N clients against it, and a churner changes the folder every ~100 ms:
# valid schedule files dropped (written in place or renamed in), replaced, rewritten, renamed, moved out, deleted,
# and malformed ones (truncated, random bytes, empty, the malformed 31c3 file, deep nesting, runaway recurrence).
#
#   scripts/load-with-churn.sh [--seconds 60] [--clients 32] [--interval 0.1] [--mix standard] [--seed 1]
#                              [--almanacd PATH] [--no-build]
#
# almanacd is built in release mode into .build-bench (as the daemon benchmarks do) unless --almanacd names one.
# Prints and writes Benchmarks/results/churn.json: requests answered, errors by code, dropped connections, the
# churn operations done, the daemon's VmRSS before/after/peak, warnings in its log, whether it stayed up and
# answered afterwards, and its exit status on SIGTERM. Exits non-zero when the daemon died, dropped a connection
# or stopped uncleanly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60 clients=32 interval=0.1 mix=standard seed=1 build=1 almanacd=
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift ;;
        --clients) clients=$2; shift ;;
        --interval) interval=$2; shift ;;
        --mix) mix=$2; shift ;;
        --seed) seed=$2; shift ;;
        --almanacd) almanacd=$2; shift ;;
        --no-build) build=0 ;;
        *) echo "usage: scripts/load-with-churn.sh [--seconds S] [--clients N] [--interval S] [--mix M] [--seed N]" \
                "[--almanacd PATH] [--no-build]" >&2
           exit 2 ;;
    esac
    shift
done
if [ "$build" = 1 ]; then
    [ -z "$almanacd" ] && swift build -c release --package-path "$root" --scratch-path "$root/.build-bench" --product almanacd
    swift build -c release --package-path "$root/Benchmarks" --product AlmanacBenchmarks
fi
almanacd=${almanacd:-"$root/.build-bench/release/almanacd"}
generator="$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/AlmanacBenchmarks"

exec python3 - "$root" "$almanacd" "$generator" "$seconds" "$clients" "$interval" "$mix" "$seed" <<'PY'
import json, os, random, shutil, signal, socket, subprocess, sys, tempfile, time
root, almanacd, generator = sys.argv[1:4]
seconds, clients, interval, mix, seed = float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), sys.argv[7], int(sys.argv[8])
rng = random.Random(seed)

work = tempfile.mkdtemp(prefix="almanac-churn-")
inbox, state, outside = (os.path.join(work, name) for name in ("inbox", "state", "outside"))
for folder in (inbox, state, outside):
    os.makedirs(folder)
socket_path, notify_path, log_path = (os.path.join(work, name) for name in ("almanac.sock", "notify.sock", "almanacd.log"))

pool = []
for folder in (os.path.join(root, "Data", "schedules"), os.path.join(root, "..", "shared", "schedules")):
    if os.path.isdir(folder):
        pool += [os.path.join(folder, name) for name in sorted(os.listdir(folder))
                 if name.rsplit(".", 1)[-1] in ("xml", "json", "ics", "binary", "sqlite")]
valid = [path for path in pool if "malformed" not in path]
malformed_files = [path for path in pool if "malformed" in path]
for path in valid:
    if os.path.getsize(path) < 100_000:
        shutil.copy(path, inbox)

def rss(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024  # MiB
    except OSError:
        return None

notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(notify_path)
environment = dict(os.environ, NOTIFY_SOCKET=notify_path)
environment.pop("WATCHDOG_USEC", None)
environment.pop("LISTEN_FDS", None)
log = open(log_path, "wb")
started = time.monotonic()
daemon = subprocess.Popen([almanacd, "--watch", inbox, "--state", state, "--socket", socket_path],
                          stdout=log, stderr=subprocess.STDOUT, env=environment)
notify.settimeout(60)
try:
    while b"READY=1" not in notify.recv(4096).split(b"\n"):
        pass
except socket.timeout:
    daemon.kill()
    sys.exit(f"churn: almanacd sent no READY=1 within 60 s; log in {log_path}")
ready_seconds = time.monotonic() - started

def request(line, timeout=10):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(timeout)
    client.connect(socket_path)
    client.sendall(line.encode() + b"\n")
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = client.recv(65536)
        if not chunk:
            break
        answer += chunk
    client.close()
    return json.loads(answer)

def store_count():
    try:
        answer = request('{"id":1,"op":"stores"}')
        stores = answer.get("stores", [])
        files = [store.get("file") or store.get("path") or store.get("url") or "" for store in stores]
        return {"stores": len(stores), "failed": sum(1 for store in stores if store.get("error")),
                "inInboxButMissing": sorted(os.path.basename(f) for f in files
                                            if f.startswith(inbox) and not os.path.exists(f))}
    except Exception as error:
        return f"error: {error}"

rss_before = rss(daemon.pid)
stores_before = store_count()

# Malformed content, made up front (deterministic for a seed).
def truncated():
    source = open(rng.choice(valid), "rb").read()
    return source[: rng.randrange(1, max(2, len(source)))]
def deep():
    depth = rng.choice([300, 5000, 100000])
    return rng.choice([b"<schedule>" + b"<a>" * depth, b'{"schedule":' + b"[" * depth])
def runaway_ics():
    return (b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20260101T000000Z\r\n"
            b"DTEND:20260101T000001Z\r\nRRULE:FREQ=SECONDLY;COUNT=100000000\r\nSUMMARY:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
def garbage():
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096)))
def wrong_types():
    return b'{"schedule":{"version":1,"conference":{"title":5,"days":[{"index":"x","rooms":{"A":[{"guid":null}]}}]}}}'
makers = [truncated, truncated, deep, runaway_ics, garbage, wrong_types, lambda: b""]
if malformed_files:
    makers.append(lambda: open(rng.choice(malformed_files), "rb").read())

counter = 0
def fresh_name(extension):
    global counter
    counter += 1
    return f"churn-{counter}.{extension}"
def inbox_files():
    return [name for name in os.listdir(inbox) if not name.startswith(".")]
def write_in_place(path, data):
    with open(path, "wb") as file:  # visible while incomplete: the watcher must cope with partial files
        half = len(data) // 2
        file.write(data[:half]); file.flush()
        time.sleep(0.005)
        file.write(data[half:])
def rename_in(path, data):
    hidden = os.path.join(inbox, "." + os.path.basename(path) + ".part")
    with open(hidden, "wb") as file:
        file.write(data)
    os.rename(hidden, path)

operations = {}
def churn_once():
    files = inbox_files()
    choices = ["drop_rename", "drop_in_place", "replace", "rewrite", "delete", "malformed", "rename", "move_out", "move_in"]
    weights = [14, 8, 12, 8, 14 + max(0, len(files) - 30) * 4, 16, 8, 5, 5]
    action = rng.choices(choices, weights)[0]
    if action in ("replace", "rewrite", "delete", "rename", "move_out") and not files:
        action = "drop_rename"
    if action == "move_in" and not os.listdir(outside):
        action = "drop_rename"
    source = rng.choice(valid)
    extension = source.rsplit(".", 1)[-1]
    if action == "drop_rename":
        rename_in(os.path.join(inbox, fresh_name(extension)), open(source, "rb").read())
    elif action == "drop_in_place":
        write_in_place(os.path.join(inbox, fresh_name(extension)), open(source, "rb").read())
    elif action == "replace":  # a new version renamed over an existing file (possibly another format, same name)
        rename_in(os.path.join(inbox, rng.choice(files)), open(source, "rb").read())
    elif action == "rewrite":  # truncated and rewritten in place
        write_in_place(os.path.join(inbox, rng.choice(files)), open(source, "rb").read())
    elif action == "delete":
        os.unlink(os.path.join(inbox, rng.choice(files)))
    elif action == "malformed":
        data = rng.choice(makers)()
        name = fresh_name(rng.choice(["xml", "json", "ics", "binary", "sqlite"]))
        (rename_in if rng.random() < 0.5 else write_in_place)(os.path.join(inbox, name), data)
    elif action == "rename":
        name = rng.choice(files)
        os.rename(os.path.join(inbox, name), os.path.join(inbox, fresh_name(name.rsplit(".", 1)[-1])))
    elif action == "move_out":
        name = rng.choice(files)
        os.rename(os.path.join(inbox, name), os.path.join(outside, name))
    elif action == "move_in":
        name = rng.choice(os.listdir(outside))
        os.rename(os.path.join(outside, name), os.path.join(inbox, fresh_name(name.rsplit(".", 1)[-1])))
    operations[action] = operations.get(action, 0) + 1

load_json = os.path.join(work, "load.json")
load = subprocess.Popen([generator, "load", "--socket", socket_path, "--clients", str(clients), "--seconds",
                         str(seconds), "--mix", mix, "--json", load_json], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
peak = rss_before or 0
next_sample = time.monotonic()
while load.poll() is None:
    churn_once()
    if time.monotonic() >= next_sample:
        peak = max(peak, rss(daemon.pid) or 0)
        next_sample += 1
    time.sleep(interval)
load_output = load.stdout.read()
alive_after_load = daemon.poll() is None
time.sleep(2)  # let the watcher settle
rss_after = rss(daemon.pid)
stores_after = store_count()
try:
    pong = request('{"id":1,"op":"ping"}')["ok"] is True
except Exception:
    pong = False
# Empty the folder: what stays resident then is what the run left behind.
for name in os.listdir(inbox):
    os.unlink(os.path.join(inbox, name))
time.sleep(3)
rss_empty = rss(daemon.pid)
stores_empty = store_count()
daemon.send_signal(signal.SIGTERM)
try:
    exit_status = daemon.wait(timeout=20)
except subprocess.TimeoutExpired:
    daemon.kill()
    exit_status = "killed after 20 s without exiting on SIGTERM"
log.close()

log_text = open(log_path, errors="replace").read().splitlines()
levels = {}
for line in log_text:  # "DATE LEVEL LABEL: MESSAGE"
    fields = line.split(" ", 2)
    if len(fields) == 3:
        levels[fields[1]] = levels.get(fields[1], 0) + 1
attempts_per_file = {}
for line in log_text:
    if " could not attach " in line:
        name = line.split(" could not attach ", 1)[1].split(":", 1)[0]
        attempts_per_file[name] = attempts_per_file.get(name, 0) + 1
report = json.load(open(load_json)) if os.path.exists(load_json) else {}
errors = report.get("errorsByCode", {})
dropped = sum(count for code, count in errors.items() if code.startswith("transport") or code.startswith("connect"))
summary = {
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": seconds, "clients": clients,
    "mix": mix, "interval": interval, "seed": seed,
    "readySeconds": round(ready_seconds, 3),
    "requestsAnswered": report.get("requests"), "throughput": report.get("throughput"),
    "p50ms": report.get("p50", 0) * 1000, "p99ms": report.get("p99", 0) * 1000, "maxms": report.get("max", 0) * 1000,
    "errorsByCode": errors, "droppedConnections": dropped,
    "churnOperations": sum(operations.values()), "operationsByKind": operations,
    "storesBefore": stores_before, "storesAfter": stores_after, "filesInInboxAfter": len(inbox_files()),
    "rssBeforeMiB": rss_before, "rssAfterMiB": rss_after, "rssPeakMiB": peak,
    "rssAfterEmptyingTheFolderMiB": rss_empty, "storesAfterEmptyingTheFolder": stores_empty,
    "aliveAfterLoad": alive_after_load, "pingAfter": pong, "exitStatusOnSIGTERM": exit_status,
    "logLines": len(log_text), "logLinesByLevel": levels,
    "failedAttachLines": sum(attempts_per_file.values()), "filesThatFailed": len(attempts_per_file),
    "mostFailedAttachLinesForOneFile": max(attempts_per_file.values(), default=0),
}
print(load_output.strip())
print(json.dumps(summary, indent=2, sort_keys=True))
os.makedirs(os.path.join(root, "Benchmarks", "results"), exist_ok=True)
with open(os.path.join(root, "Benchmarks", "results", "churn.json"), "w") as file:
    json.dump(summary, file, indent=2, sort_keys=True)
shutil.copy(log_path, os.path.join(root, "Benchmarks", "results", "churn-almanacd.log.tmp"))
print("churn: the daemon's log is in Benchmarks/results/churn-almanacd.log.tmp")
ok = alive_after_load and pong and exit_status == 0 and dropped == 0
shutil.rmtree(work, ignore_errors=True)
sys.exit(0 if ok else 1)
PY
