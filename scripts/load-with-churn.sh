#!/usr/bin/env bash
# The daemon under load while its watched folder churns (issue #10, point 4): almanacd watches a temporary folder,
# the load generator (AlmanacBenchmarks load, mix `churn`: the standard fetch/template/count/insert mix with 5% of
# the fetches turned into a `get` of a Session fetched before) runs N clients against it, and a churner changes the
# folder every ~100 ms: valid schedule files dropped (written in place or renamed in), replaced, rewritten, renamed,
# moved out, deleted, and malformed ones (truncated, random bytes, empty, the malformed 31c3 file, deep nesting,
# runaway recurrence).
#
#   scripts/load-with-churn.sh [--seconds 60] [--clients 32] [--interval 0.1] [--mix churn] [--seed 1]
#                              [--almanacd PATH] [--no-build] [--ci] [--sighup S] [--sample S] [--name NAME]
#
# --sighup S also rewrites almanacd.json in the state folder every S seconds (per-file settings for the churned
# files, alternating between two day changes and zones) and sends the daemon SIGHUP, so the settings are read again
# under load. --sample S records VmRSS, open descriptors and the heap in use (gdb, when it can attach; a pause of a
# few ms) every S seconds into the result's `samples` (soak.sh: every 60 s). --name names the result file
# (Benchmarks/results/NAME.json; default churn, churn-quick with --ci).
#
# almanacd is built in release mode into .build-bench (as the daemon benchmarks do) unless --almanacd names one.
# --ci is the size CI runs (40-55 s in all on the shared 2-core machine): 8 clients for 30 s, the debug almanacd that
# `swift test` built (.build/debug/almanacd) unless --almanacd names one, nothing rebuilt that exists (the CI's
# benchmark smoke step builds Benchmarks/ in release; without it the release build takes ~5 minutes), results in
# churn-quick.json instead of churn.json.
#
# After the run the script checks, and exits non-zero when one fails:
#   - requests: no failed request but `not_found` answering a `get` (the Session it names was fetched earlier by
#     the same client, and its file may have been deleted or replaced since: its store is detached). Every other
#     code fails the run: `busy` (too many connections, or a merge conflict), `timeout` (the 30 s per-request
#     deadline), `internal`, a dropped connection or a client's 10 s receive timeout each mean something to
#     investigate, not load to shrug off;
#   - the daemon stayed up, answered `ping`, and exited 0 on SIGTERM, both times;
#   - open files: /proc/PID/fd is counted after start-up (READY and a first fetch answered), then after the load
#     and the churn stopped and the folder settled, then once the folder holds the start-up files again. With the
#     start-up files back the count may exceed the start-up count by at most 2 (lazily opened descriptors). After
#     the churn the attached files differ: descriptors of files in the folder at most 1 per file (an attached
#     SQLite store keeps its database open; the other formats are read and closed), all others at most the
#     start-up count + 2. No descriptor may point at a deleted file at any of these points;
#   - memory, two figures. VmRSS once the folder holds the start-up files again: at most 2 x the start-up figure
#     + 64 MiB. Measured (release, 60 s, 32 clients): 36 MiB after start-up, 102-115 MiB at the end; the load alone
#     (no churn, 104,000 requests) reaches 105 MiB, the churn alone 88 MiB: glibc keeps the pages that 32
#     connections and the largest set of stores needed (they stay after the folder is emptied, and malloc_trim
#     gives back only a part). So RSS catches only gross growth. The heap in use (glibc's malloc_stats, called
#     through gdb when gdb can attach; the check is skipped otherwise) at the same point: at most the start-up
#     figure + 32 MiB. Measured: 1.6 MiB after start-up; 6.9, 8.3 and 9.0 MiB after 30, 60 and 120 s (levelling
#     off; the personal store gained 450-1,800 favourites); 2.2 MiB after 90 s of churn alone (25 MiB before the
#     daemon stopped keeping changes of conferences no file serves). The bound was 16 MiB: an earlier CI log of this
#     machine shows 1,124 requests/s and 15.7 MiB at the end. The CI size now serves 1,660-1,800 requests/s (likely
#     since session 18's load generator stopped scanning every reply byte by byte) and ends at 21.1-23.1 MiB
#     (2,500-2,800 favourites), with session 19's code and with the code it started from alike. Sampled every 4 s through a 60 s run, the heap in use levels at 36-49 MiB under load and
#     falls to 13 MiB at the end: bounded, not growing with the requests. Not yet broken down; the candidates are
#     the caches that keep what requests asked for, up to their limits: the reply cache (256 replies, kept when
#     stale as the last known answer), the wire objects of attached stores (up to 200,000), SQLite's page cache.
#     Leaks as such are LeakSanitizer's job: run this script with an ASan almanacd (--almanacd
#     .build-asan/debug/almanacd, ASAN_OPTIONS=detect_leaks=1): a report makes the daemon exit non-zero on SIGTERM (the memory checks do not apply then: ASan's quarantine and
#     shadow memory take hundreds of MiB, and its allocator has no malloc_stats);
#   - favourites: every Favorite insert answered `ok` during the run (the generator writes their URIs) is fetched
#     back afterwards, and again after the daemon is stopped with SIGTERM and started on the same state folder:
#     the personal SQLite store is never detached, so an acknowledged write must survive both.
# Prints and writes Benchmarks/results/churn.json: the figures above, requests answered, errors by kind and code,
# the churn operations done, stores listed, the daemon's warnings and failed attaches.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60 clients=32 interval=0.1 mix=churn seed=1 build=1 almanacd= ci=0 sighup=0 sample=0 name=
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift ;;
        --clients) clients=$2; shift ;;
        --interval) interval=$2; shift ;;
        --mix) mix=$2; shift ;;
        --seed) seed=$2; shift ;;
        --almanacd) almanacd=$2; shift ;;
        --no-build) build=0 ;;
        --ci) ci=1 seconds=30 clients=8 ;;
        --sighup) sighup=$2; shift ;;
        --sample) sample=$2; shift ;;
        --name) name=$2; shift ;;
        *) echo "usage: scripts/load-with-churn.sh [--seconds S] [--clients N] [--interval S] [--mix M] [--seed N]" \
                "[--almanacd PATH] [--no-build] [--ci] [--sighup S] [--sample S] [--name NAME]" >&2
           exit 2 ;;
    esac
    shift
done
generator_bin() { echo "$(swift build -c release --package-path "$root/Benchmarks" --show-bin-path)/AlmanacBenchmarks"; }
if [ "$ci" = 1 ]; then
    almanacd=${almanacd:-"$root/.build/debug/almanacd"}
    if [ ! -x "$almanacd" ]; then
        echo "churn: $almanacd is missing; building the debug almanacd"
        swift build --package-path "$root" --product almanacd
    fi
    if [ ! -x "$(generator_bin)" ]; then
        echo "churn: no release AlmanacBenchmarks; building it"
        swift build -c release --package-path "$root/Benchmarks" --product AlmanacBenchmarks
    fi
elif [ "$build" = 1 ]; then
    [ -z "$almanacd" ] && swift build -c release --package-path "$root" --scratch-path "$root/.build-bench" --product almanacd
    swift build -c release --package-path "$root/Benchmarks" --product AlmanacBenchmarks
fi
almanacd=${almanacd:-"$root/.build-bench/release/almanacd"}
generator=$(generator_bin)

exec python3 - "$root" "$almanacd" "$generator" "$seconds" "$clients" "$interval" "$mix" "$seed" "$ci" "$sighup" "$sample" "$name" <<'PY'
import json, os, random, re, shutil, signal, socket, subprocess, sys, tempfile, time
root, almanacd, generator = sys.argv[1:4]
seconds, clients, interval, mix, seed = float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), sys.argv[7], int(sys.argv[8])
ci = sys.argv[9] == "1"
sighup_every, sample_every, result_name = float(sys.argv[10]), float(sys.argv[11]), sys.argv[12]
rng = random.Random(seed)
script_started = time.monotonic()

# The bounds checked at the end (see the header of the script for why these).
FD_SLACK = 2                  # descriptors beyond the start-up count not of the folder's files (lazily opened)
FD_PER_FILE_IN_FOLDER = 1     # descriptors an attached file may keep open (a SQLite store's database file)
RSS_FACTOR, RSS_SLACK_MIB = 2.0, 64
HEAP_SLACK_MIB = 32
TOLERATED = {"get": {"not_found"}}  # kind -> codes a run may see

work = tempfile.mkdtemp(prefix="almanac-churn-")
inbox, state, outside, start_files = (os.path.join(work, name) for name in ("inbox", "state", "outside", "start"))
for folder in (inbox, state, outside, start_files):
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
        shutil.copy(path, start_files)
for name in os.listdir(start_files):
    shutil.copy(os.path.join(start_files, name), inbox)

def rss(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)  # MiB
    except OSError:
        return None

def settled_figures(pid):
    """VmRSS and descriptors, half a second after this script's last request (its connection closes meanwhile)."""
    time.sleep(0.5)
    return rss(pid), descriptors(pid)

def heap_in_use(pid):
    """The bytes glibc's malloc has handed out and not got back (MiB), from malloc_stats() called through gdb
    (it prints to the daemon's stderr, our log); None without gdb, when it cannot attach, or without glibc's
    allocator (a sanitizer's)."""
    figures = malloc_figures(pid)
    return figures["inUseMiB"] if figures else None

def malloc_figures(pid):
    """malloc_stats()'s totals over every arena (MiB): `inUseMiB` handed out, `systemMiB` taken from the system
    (the difference is free memory glibc keeps); None when heap_in_use's conditions fail."""
    if shutil.which("gdb") is None:
        return None
    log.flush()
    before = os.path.getsize(log_path)
    try:
        subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "call (void)malloc_stats()"],
                       capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with open(log_path, "rb") as file:
            file.seek(before)
            text = file.read().decode(errors="replace")
        found = re.search(r"Total \(incl\. mmap\):\s*system bytes\s*=\s*(\d+)\s*in use bytes\s*=\s*(\d+)", text)
        if found:
            return {"inUseMiB": round(int(found.group(2)) / 1048576, 2),
                    "systemMiB": round(int(found.group(1)) / 1048576, 2)}
        time.sleep(0.1)
    return None

def resident_parts(pid):
    """VmRSS split as /proc/PID/smaps_rollup splits it (MiB): anonymous memory (the heap, thread stacks, the Swift
    runtime's metadata) and the rest (mapped files: the binary, shared libraries, files read by mmap)."""
    parts = {}
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            key, _, value = line.partition(":")
            if key in ("Rss", "Anonymous"):
                parts[key] = int(value.split()[0]) / 1024
    except OSError:
        return None
    if "Rss" not in parts or "Anonymous" not in parts:
        return None
    return {"anonymousMiB": round(parts["Anonymous"], 1), "fileMiB": round(parts["Rss"] - parts["Anonymous"], 1)}

def descriptors(pid):
    """The daemon's open descriptors by kind, and the deleted files among them."""
    kinds, deleted = {}, []
    real_inbox, real_state = os.path.realpath(inbox), os.path.realpath(state)
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue  # closed meanwhile
        if target.endswith(" (deleted)"):
            deleted.append(target)
            kind = "deleted"
        elif target.startswith(real_inbox + "/"):
            kind = "inbox"
        elif target.startswith(real_state + "/"):
            kind = "state"
        elif ":" in target and not target.startswith("/"):
            kind = target.split(":", 1)[0]  # socket, pipe, anon_inode
        else:
            kind = "other"
        kinds[kind] = kinds.get(kind, 0) + 1
    return {"total": sum(kinds.values()), "byKind": kinds, "deleted": sorted(deleted)}

notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(notify_path)
environment = dict(os.environ, NOTIFY_SOCKET=notify_path)
for name in ("WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID"):
    environment.pop(name, None)
log = open(log_path, "ab")
daemons = []

def start_daemon():
    notify.setblocking(False)  # a READY=1 left from an earlier daemon's reloads must not pass for this one's
    try:
        while notify.recv(4096):
            pass
    except BlockingIOError:
        pass
    notify.setblocking(True)
    started = time.monotonic()
    daemon = subprocess.Popen([almanacd, "--watch", inbox, "--state", state, "--socket", socket_path],
                              stdout=log, stderr=subprocess.STDOUT, env=environment)
    daemons.append(daemon)
    notify.settimeout(60)
    try:
        while b"READY=1" not in notify.recv(4096).split(b"\n"):
            pass
    except socket.timeout:
        daemon.kill()
        sys.exit(f"churn: almanacd sent no READY=1 within 60 s; log in {log_path}")
    return daemon, time.monotonic() - started

def stop_daemon(daemon):
    daemon.send_signal(signal.SIGTERM)
    try:
        return daemon.wait(timeout=20)
    except subprocess.TimeoutExpired:
        if shutil.which("gdb"):  # where it hangs, for the log
            stacks = subprocess.run(["gdb", "-p", str(daemon.pid), "-batch", "-ex", "thread apply all bt 30"],
                                    capture_output=True, text=True, timeout=120).stdout
            log.write(b"churn: almanacd did not exit within 20 s of SIGTERM; its threads:\n" + stacks.encode())
            log.flush()
        daemon.kill()
        daemon.wait()
        return "killed after 20 s without exiting on SIGTERM"

def request(line, timeout=30):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(timeout)
    client.connect(socket_path)
    client.sendall(line.encode() + b"\n")
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = client.recv(1 << 20)
        if not chunk:
            break
        answer += chunk
    client.close()
    return json.loads(answer)

def stores():
    try:
        return request('{"id":1,"op":"stores"}').get("stores", [])
    except Exception as error:
        return f"error: {error}"

def store_summary(listed):
    if isinstance(listed, str):
        return listed
    files = [store.get("file") or "" for store in listed]
    return {"stores": len(listed), "failed": sum(1 for store in listed if store.get("error")),
            "inInboxButMissing": sorted(os.path.basename(f) for f in files
                                        if f.startswith(inbox) and not os.path.exists(f))}

def inbox_files():
    return [name for name in os.listdir(inbox) if not name.startswith(".")]

def settle(until=None, quiet=1.5, limit=20):
    """Waits until `stores` stops changing for `quiet` seconds (and `until(listed)` holds, if given)."""
    deadline = time.monotonic() + limit
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        listed = stores()
        key = json.dumps(listed, sort_keys=True)
        if key != last:
            last, since = key, time.monotonic()
        elif time.monotonic() - since >= quiet and (until is None or until(listed)):
            return True
        time.sleep(0.25)
    return False

def favourites():
    """URI -> sessionGUID of every Favorite the daemon has."""
    answer = request('{"id":1,"op":"fetch","entity":"Favorite","properties":["sessionGUID"]}', timeout=60)
    if answer.get("ok") is not True:
        raise RuntimeError(f"fetching the favourites failed: {answer.get('error')}")
    return {item["uri"]: item.get("values", {}).get("sessionGUID") for item in answer["objects"]}

def check_favourites(expected):
    """Missing acknowledged favourites (by URI; a present URI must carry its sessionGUID too)."""
    try:
        present = favourites()
    except Exception as error:
        return {"error": str(error)}
    missing = [item for item in expected
               if item["uri"] not in present or present[item["uri"]] != item["sessionGUID"]]
    return {"present": len(expected) - len(missing), "missing": len(missing), "missingSample": missing[:5],
            "inStore": len(present)}

daemon = None
try:
    daemon, ready_seconds = start_daemon()
    first = request('{"id":1,"op":"fetch","entity":"Session","sort":[{"key":"start"}],"limit":50}')
    if first.get("ok") is not True:
        sys.exit(f"churn: the first fetch failed: {first}")
    stores_before = stores()
    start_store_count = len(stores_before) if isinstance(stores_before, list) else None
    stores_before = store_summary(stores_before)
    rss_start, fds_start = settled_figures(daemon.pid)
    heap_start = heap_in_use(daemon.pid)

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

    load_json, inserted_json = os.path.join(work, "load.json"), os.path.join(work, "inserted.json")
    load = subprocess.Popen([generator, "load", "--socket", socket_path, "--clients", str(clients), "--seconds",
                             str(seconds), "--mix", mix, "--json", load_json, "--inserted", inserted_json],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rss_peak, fds_peak, rss_series = rss_start or 0, fds_start["total"], []
    load_started = next_sample = time.monotonic()
    samples = [{"minute": 0.0, "rssMiB": rss_start, "openFiles": fds_start["total"], "heapInUseMiB": heap_start,
                "heapSystemMiB": (malloc_figures(daemon.pid) or {}).get("systemMiB"),
                **(resident_parts(daemon.pid) or {}), "filesInFolder": len(inbox_files()), "sighups": 0}]
    next_soak_sample = load_started + sample_every if sample_every > 0 else float("inf")
    next_sighup = load_started + sighup_every if sighup_every > 0 else float("inf")
    sighups = 0
    sighup_times = []
    def reload_settings():
        global sighups
        variant = sighups % 2
        settings = {"files": {"churn-*": {"dayChange": ["04:00", "05:30"][variant],
                                          "timeZone": ["Europe/Berlin", "Europe/Brussels"][variant]}}}
        with open(os.path.join(state, "almanacd.json.part"), "w") as file:
            json.dump(settings, file)
        os.rename(os.path.join(state, "almanacd.json.part"), os.path.join(state, "almanacd.json"))
        daemon.send_signal(signal.SIGHUP)
        sighup_times.append(round(time.monotonic() - load_started, 1))
        sighups += 1
    while load.poll() is None:
        churn_once()
        now = time.monotonic()
        if now >= next_sighup:
            reload_settings()
            next_sighup += sighup_every
        if now >= next_soak_sample:
            figures = descriptors(daemon.pid) or {"total": None}
            heap = malloc_figures(daemon.pid) or {}
            samples.append({"minute": round((now - load_started) / 60, 2), "rssMiB": rss(daemon.pid),
                            "openFiles": figures["total"], "heapInUseMiB": heap.get("inUseMiB"),
                            "heapSystemMiB": heap.get("systemMiB"), **(resident_parts(daemon.pid) or {}),
                            "filesInFolder": len(inbox_files()), "sighups": sighups,
                            "loadAverage": round(os.getloadavg()[0], 1)})
            print(f"soak: {samples[-1]}", flush=True)
            next_soak_sample += sample_every
        if time.monotonic() >= next_sample:
            sample = rss(daemon.pid) or 0
            rss_peak = max(rss_peak, sample)
            fds_peak = max(fds_peak, (descriptors(daemon.pid) or {"total": 0})["total"])
            if len(rss_series) * 5 <= time.monotonic() - load_started:
                rss_series.append(sample)
            next_sample += 1
        time.sleep(interval)
    load_output = load.stdout.read()
    alive_after_load = daemon.poll() is None

    # The churn stopped: once the folder settled, what stays open is bounded by the files in it.
    settled_after_churn = settle()
    stores_after = store_summary(stores())
    files_after = len(inbox_files())
    rss_after, fds_after = settled_figures(daemon.pid)
    try:
        pong = request('{"id":1,"op":"ping"}')["ok"] is True
    except Exception:
        pong = False

    # The start-up files again: the same stores as after start-up, so the same descriptors, and memory comparable.
    for name in os.listdir(inbox):
        os.unlink(os.path.join(inbox, name))
    for name in sorted(os.listdir(start_files)):
        shutil.copy(os.path.join(start_files, name), os.path.join(inbox, "." + name + ".part"))
        os.rename(os.path.join(inbox, "." + name + ".part"), os.path.join(inbox, name))
    settled_restored = settle(until=lambda listed: isinstance(listed, list) and len(listed) == start_store_count
                              and not any(store.get("error") for store in listed))
    stores_restored = store_summary(stores())
    rss_restored, fds_restored = settled_figures(daemon.pid)
    heap_restored = heap_in_use(daemon.pid)

    inserted = json.load(open(inserted_json)) if os.path.exists(inserted_json) else None
    favourites_present = check_favourites(inserted or [])

    # Empty the folder: what stays resident then is what the run left behind.
    for name in os.listdir(inbox):
        os.unlink(os.path.join(inbox, name))
    settle(until=lambda listed: isinstance(listed, list) and len(listed) == 1)
    stores_empty = store_summary(stores())
    rss_empty, fds_empty = settled_figures(daemon.pid)
    heap_empty = heap_in_use(daemon.pid)
    exit_status = stop_daemon(daemon)

    # Acknowledged writes survive a restart on the same state folder.
    daemon, restart_ready_seconds = start_daemon()
    favourites_after_restart = check_favourites(inserted or [])
    exit_status_after_restart = stop_daemon(daemon)
finally:
    for process in daemons:
        if process.poll() is None:
            process.kill()
    log.close()

log_text = open(log_path, errors="replace").read().splitlines()
levels = {}
for line in log_text:  # "DATE LEVEL LABEL: MESSAGE" (malloc_stats' lines are not the daemon's)
    found = re.match(r"\d{4}-\d\d-\d\dT\S+ (\w+) ", line)
    if found:
        levels[found.group(1)] = levels.get(found.group(1), 0) + 1
attempts_per_file = {}
for line in log_text:
    if " could not attach " in line:
        name = line.split(" could not attach ", 1)[1].split(":", 1)[0]
        attempts_per_file[name] = attempts_per_file.get(name, 0) + 1
report = json.load(open(load_json)) if os.path.exists(load_json) else {}
errors_by_kind = report.get("errorsByKind", {})
untolerated = {kind: {code: count for code, count in codes.items() if code not in TOLERATED.get(kind, set())}
               for kind, codes in errors_by_kind.items()}
untolerated = {kind: codes for kind, codes in untolerated.items() if codes}
dropped = sum(count for code, count in report.get("errorsByCode", {}).items()
              if code.split(":")[0] in ("transport", "connect", "warm-up"))

def outside_folder(figures):
    return figures["total"] - figures["byKind"].get("inbox", 0)
fd_bound_after = outside_folder(fds_start) + FD_SLACK + FD_PER_FILE_IN_FOLDER * files_after
fd_bound_restored = fds_start["total"] + FD_SLACK
rss_bound = (rss_start or 0) * RSS_FACTOR + RSS_SLACK_MIB
heap_bound = None if heap_start is None else heap_start + HEAP_SLACK_MIB
deleted_open = sorted(set((fds_after or {}).get("deleted", []) + (fds_restored or {}).get("deleted", [])
                          + (fds_empty or {}).get("deleted", [])))
checks = {
    "load generator reported": bool(report) and report.get("requests", 0) > 0,
    "no failed request but not_found of a get": not untolerated,
    "daemon stayed up and answered ping": alive_after_load and pong,
    "exit 0 on SIGTERM": exit_status == 0,
    "exit 0 on SIGTERM after the restart": exit_status_after_restart == 0,
    "folder settled after the churn and after restoring it": settled_after_churn and settled_restored,
    f"open files after the churn: those of the folder's files <= {FD_PER_FILE_IN_FOLDER} per file, the others "
    f"<= start + {FD_SLACK}":
        fds_after is not None and fds_after["byKind"].get("inbox", 0) <= FD_PER_FILE_IN_FOLDER * files_after
        and outside_folder(fds_after) <= outside_folder(fds_start) + FD_SLACK,
    f"open files with the start-up files back <= start + {FD_SLACK}":
        fds_restored is not None and fds_restored["total"] <= fd_bound_restored,
    "no open descriptor of a deleted file": not deleted_open,
    f"VmRSS with the start-up files back <= {RSS_FACTOR:g} x start + {RSS_SLACK_MIB} MiB":
        rss_restored is not None and rss_restored <= rss_bound,
    f"heap in use with the start-up files back <= start + {HEAP_SLACK_MIB} MiB (skipped when gdb cannot read it)":
        heap_bound is None or (heap_restored is not None and heap_restored <= heap_bound),
    "favourites inserted": bool(inserted) or mix not in ("standard", "churn"),
    "every acknowledged favourite present": inserted is not None and favourites_present.get("missing") == 0,
    "every acknowledged favourite present after a restart":
        inserted is not None and favourites_after_restart.get("missing") == 0,
}
summary = {
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": seconds, "clients": clients,
    "mix": mix, "interval": interval, "seed": seed, "almanacd": almanacd, "ci": ci,
    "readySeconds": round(ready_seconds, 3), "readySecondsAfterRestart": round(restart_ready_seconds, 3),
    "requestsAnswered": report.get("requests"), "requestsByKind": report.get("requestsByKind"),
    "throughput": report.get("throughput"),
    "p50ms": report.get("p50", 0) * 1000, "p99ms": report.get("p99", 0) * 1000, "maxms": report.get("max", 0) * 1000,
    "errorsByCode": report.get("errorsByCode", {}), "errorsByKind": errors_by_kind,
    "toleratedErrors": {kind: sorted(codes) for kind, codes in TOLERATED.items()}, "untoleratedErrors": untolerated,
    "droppedConnections": dropped,
    "churnOperations": sum(operations.values()), "operationsByKind": operations,
    "storesAfterStartUp": stores_before, "storesAfterChurn": stores_after,
    "filesInFolderAfterChurn": files_after, "storesWithStartUpFilesBack": stores_restored,
    "storesAfterEmptyingTheFolder": stores_empty,
    "openFiles": {"afterStartUp": fds_start, "peakDuringRun": fds_peak, "afterChurn": fds_after,
                  "boundAfterChurn": fd_bound_after, "withStartUpFilesBack": fds_restored,
                  "boundWithStartUpFilesBack": fd_bound_restored, "afterEmptyingTheFolder": fds_empty},
    "rssMiB": {"afterStartUp": rss_start, "peakDuringRun": rss_peak, "every5sDuringRun": rss_series, "afterChurn": rss_after,
               "withStartUpFilesBack": rss_restored, "bound": rss_bound, "afterEmptyingTheFolder": rss_empty},
    "heapInUseMiB": {"afterStartUp": heap_start, "withStartUpFilesBack": heap_restored, "bound": heap_bound,
                     "afterEmptyingTheFolder": heap_empty},
    "favourites": {"acknowledged": len(inserted) if inserted is not None else None,
                   "afterRun": favourites_present, "afterRestart": favourites_after_restart},
    "aliveAfterLoad": alive_after_load, "pingAfter": pong, "exitStatusOnSIGTERM": exit_status,
    "exitStatusOnSIGTERMAfterRestart": exit_status_after_restart,
    "logLines": len(log_text), "logLinesByLevel": levels,
    "failedAttachLines": sum(attempts_per_file.values()), "filesThatFailed": len(attempts_per_file),
    "mostFailedAttachLinesForOneFile": max(attempts_per_file.values(), default=0),
    "sighups": sighups, "sighupSeconds": sighup_times, "samples": samples,
    "slowRequests": report.get("slowRequests", []),
    "checks": checks, "passed": all(checks.values()),
    "scriptSeconds": round(time.monotonic() - script_started, 1),
}
print(load_output.strip())
print(json.dumps(summary, indent=2, sort_keys=True))
name = result_name or ("churn-quick" if ci else "churn")
os.makedirs(os.path.join(root, "Benchmarks", "results"), exist_ok=True)
with open(os.path.join(root, "Benchmarks", "results", name + ".json"), "w") as file:
    json.dump(summary, file, indent=2, sort_keys=True)
shutil.copy(log_path, os.path.join(root, "Benchmarks", "results", name + "-almanacd.log.tmp"))
print(f"churn: the daemon's log is in Benchmarks/results/{name}-almanacd.log.tmp")
print(f"churn: {report.get('requests')} requests, errors {report.get('errorsByCode', {}) or 'none'}; open files "
      f"{fds_start['total']} after start-up, {(fds_after or {}).get('total')} after the churn "
      f"(bound {fd_bound_after}, {files_after} files), {(fds_restored or {}).get('total')} with the start-up files "
      f"back (bound {fd_bound_restored}); VmRSS {rss_start} MiB after start-up, {rss_peak} peak, {rss_after} after "
      f"the churn, {rss_restored} with the start-up files back (bound {rss_bound:g}); heap in use {heap_start} MiB "
      f"after start-up, {heap_restored} with the start-up files back (bound {heap_bound}); favourites "
      f"{len(inserted or [])} acknowledged, {favourites_present.get('present')} present, "
      f"{favourites_after_restart.get('present')} after a restart")
for check, ok in checks.items():
    print(f"churn: {'ok  ' if ok else 'FAIL'} {check}")
shutil.rmtree(work, ignore_errors=True)
sys.exit(0 if all(checks.values()) else 1)
PY
