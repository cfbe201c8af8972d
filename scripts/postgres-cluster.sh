#!/usr/bin/env bash
# A private PostgreSQL cluster for tests and CI, on a Unix socket in a temporary folder (no TCP port).
#
#   scripts/postgres-cluster.sh start        # initdb + pg_ctl start; prints the connection URL on stdout
#   scripts/postgres-cluster.sh stop URL     # stops the cluster of that URL (or of $ALMANAC_POSTGRES_URL) and
#                                            # removes its folder
#   scripts/postgres-cluster.sh pause URL    # stops its server, keeping the data; resume URL starts it again
#
# The URL has the form postgres:///postgres?host=<folder>&user=postgres; the tests read it from ALMANAC_POSTGRES_URL
# and give every store a schema of its own. PostgreSQL refuses to run as root: as root the cluster belongs to the
# `postgres` user (Debian's package creates it) and its commands run through runuser.
set -euo pipefail

bin=""
for candidate in "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")" /usr/lib/postgresql/*/bin; do
    if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bin=$candidate; break; fi
done
if [ -z "$bin" ]; then
    echo "postgres-cluster: initdb and pg_ctl not found (install Debian's postgresql package)" >&2
    exit 1
fi

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Starts the server of $folder. It runs on after this script, so it gets none of the script's descriptors beyond
# 0-2: Foundation's Process (swift-corelibs) learns that a child exited when the socket it hands the child closes,
# and a server holding that socket would keep a caller waiting until the server stops.
start_server() {
    (
        for fd in /proc/self/fd/*; do
            fd=${fd##*/}
            if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
        done
        as_owner "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w \
            -o "-k $folder -c listen_addresses='' -c max_connections=300 -c fsync=${ALMANAC_POSTGRES_FSYNC:-off}" \
            start </dev/null >/dev/null
    )
}

case "${1:-}" in
start)
    folder=$(mktemp -d /tmp/almanac-pg.XXXXXX)
    chmod 755 "$folder"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$folder"; fi
    as_owner "$bin/initdb" -D "$folder/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1 \
        || { cat "$folder/initdb.log" >&2; exit 1; }
    # Enough connections for the parallel test run (each coordinator holds one); fsync off unless
    # ALMANAC_POSTGRES_FSYNC=on (benchmarks measure with it on: a commit then waits for the disk).
    start_server || { cat "$folder/server.log" >&2; exit 1; }
    echo "postgres:///postgres?host=$folder&user=postgres"
    ;;
stop)
    url=${2:-${ALMANAC_POSTGRES_URL:-}}
    folder=$(printf '%s\n' "$url" | sed -n 's/.*[?&]host=\([^&]*\).*/\1/p')
    case "$folder" in
    /tmp/almanac-pg.*) ;;
    *) echo "postgres-cluster: $url is not a cluster this script started" >&2; exit 1 ;;
    esac
    if [ -d "$folder/data" ]; then as_owner "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null || true; fi
    rm -rf "$folder"
    ;;
pause | resume)
    # Stops the server of a cluster this script started, keeping its data (pause), or starts it again (resume):
    # the outage tests take the server away under running daemons.
    url=${2:-${ALMANAC_POSTGRES_URL:-}}
    folder=$(printf '%s\n' "$url" | sed -n 's/.*[?&]host=\([^&]*\).*/\1/p')
    case "$folder" in
    /tmp/almanac-pg.*) ;;
    *) echo "postgres-cluster: $url is not a cluster this script started" >&2; exit 1 ;;
    esac
    if [ "$1" = pause ]; then
        as_owner "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null
    else
        start_server
    fi
    ;;
*)
    echo "usage: $0 start | stop [URL] | pause [URL] | resume [URL]" >&2
    exit 2
    ;;
esac
