#!/usr/bin/env python3
"""The daemon's own CPU time per request (user + system, from /proc/PID/stat), for A/B comparisons of two almanacd
binaries on a busy machine, where throughput and latency mostly measure the machine: CPU time per request moves
far less with the load around it.

    scripts/daemon-cpu-per-request.py BINARY [BINARY ...] [--clients 8] [--requests 20000] [--rounds 3]
                                      [--watch Data/schedules] [--line JSON]

Starts each binary in turn on the same folder (its own state folder and socket), waits until it serves sessions,
sends one warm-up request, then --requests copies of the request line (by default the sorted limit-50 Session
fetch of the daemon benchmark, answered from the reply cache after the first) over --clients connections, and
prints the daemon's CPU microseconds per request. The binaries alternate, round by round.
"""
import argparse, json, os, socket, subprocess, tempfile, threading, time

FETCH = '{"id":1,"op":"fetch","entity":"Session","sort":[{"key":"start"}],"limit":50}'


def connect(path, wait=120.0):
    deadline = time.monotonic() + wait
    while True:
        try:
            sock = socket.socket(socket.AF_UNIX)
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(binary, watch, line, clients, requests):
    folder = tempfile.mkdtemp(prefix="daemon-cpu.")
    os.mkdir(os.path.join(folder, "state"))
    path = os.path.join(folder, "socket")
    daemon = subprocess.Popen([binary, "--watch", watch, "--state", os.path.join(folder, "state"), "--socket", path,
                               "--log-level", "error"], stderr=subprocess.DEVNULL)
    try:
        first = connect(path)
        reader = first.makefile("rb")
        for _ in range(600):
            first.sendall(b'{"id":0,"op":"count","entity":"Session"}\n')
            if json.loads(reader.readline()).get("count", 0) > 0:
                break
            time.sleep(0.2)
        encoded = line.encode() + b"\n"
        first.sendall(encoded)
        reply = json.loads(reader.readline())
        if "error" in reply:
            raise SystemExit(f"{binary}: the request failed: {reply['error']}")

        def client():
            sock = connect(path)
            replies = sock.makefile("rb")
            for _ in range(requests // clients):
                sock.sendall(encoded)
                replies.readline()
            sock.close()

        threads = [threading.Thread(target=client) for _ in range(clients)]
        before, started = cpu_seconds(daemon.pid), time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        cpu, wall = cpu_seconds(daemon.pid) - before, time.monotonic() - started
        sent = requests // clients * clients
        return cpu / sent * 1e6, sent / wall
    finally:
        daemon.terminate()
        daemon.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--watch", default=os.path.join(os.path.dirname(__file__), "..", "Data", "schedules"))
    parser.add_argument("--line", default=FETCH)
    options = parser.parse_args()
    results = {binary: [] for binary in options.binaries}
    for round_number in range(options.rounds):
        for binary in options.binaries:
            per_request, rate = measure(binary, options.watch, options.line, options.clients, options.requests)
            results[binary].append(per_request)
            print(f"round {round_number + 1}  {binary}: {per_request:.1f} µs CPU per request "
                  f"({rate:.0f} requests/s wall, {options.clients} clients)", flush=True)
    for binary, figures in results.items():
        print(f"median {sorted(figures)[len(figures) // 2]:.1f} µs  {binary}")


if __name__ == "__main__":
    main()
