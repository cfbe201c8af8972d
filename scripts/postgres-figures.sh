#!/usr/bin/env bash
# The server-side figures of ObjectGraphPostgres.docc/ScalingOut.md: what PostgreSQL itself costs for the work the
# PostgreSQL store sends it, measured with psql and pgbench on a private cluster with fsync on.
#
#   scripts/postgres-figures.sh [ROWS]      # ROWS defaults to 100000
#
# Prints: multi-row INSERT and COPY of ROWS favourite rows (one transaction), reading them all back, an indexed
# sorted LIMIT 50, and a save's transaction (INSERT + change-token UPDATE + pg_notify, committed) at 1 and 8
# clients for 10 s each, with p50/p99 latency from pgbench's per-transaction log.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
url=$(ALMANAC_POSTGRES_FSYNC=on scripts/postgres-cluster.sh start)
trap 'scripts/postgres-cluster.sh stop "$url"' EXIT
folder=$(printf '%s\n' "$url" | sed -n 's/.*[?&]host=\([^&]*\).*/\1/p')
work=$(mktemp -d)
trap 'rm -rf "$work"; scripts/postgres-cluster.sh stop "$url"' EXIT
sql() { psql -q -X -h "$folder" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

sql -c 'CREATE TABLE ZFAVORITE (Z_PK BIGINT PRIMARY KEY, Z_ENT BIGINT NOT NULL, Z_OPT BIGINT NOT NULL,
    "ZCONFERENCEACRONYM" TEXT COLLATE "C", "ZSESSIONGUID" TEXT COLLATE "C", "ZCREATEDAT" DOUBLE PRECISION);
    CREATE INDEX ZFAVORITE_CREATED ON ZFAVORITE ("ZCREATEDAT" NULLS FIRST);
    CREATE TABLE Z_METADATA (Z_VERSION BIGINT PRIMARY KEY, Z_TOKEN BIGINT NOT NULL DEFAULT 0);
    INSERT INTO Z_METADATA VALUES (1, 0);'

python3 - "$rows" >"$work/insert.sql" <<'PY'
import sys
rows = int(sys.argv[1])
print("BEGIN;")
for start in range(1, rows + 1, 1000):
    values = ",".join(f"({i},1,1,'ssd26','guid-{i}',{800000000 + i})" for i in range(start, min(rows, start + 999) + 1))
    print(f'INSERT INTO ZFAVORITE (Z_PK, Z_ENT, Z_OPT, "ZCONFERENCEACRONYM", "ZSESSIONGUID", "ZCREATEDAT") VALUES {values};')
print("COMMIT;")
PY
python3 - "$rows" >"$work/copy.tsv" <<'PY'
import sys
for i in range(1, int(sys.argv[1]) + 1):
    print(f"{i}\t1\t1\tssd26\tguid-{i}\t{800000000 + i}")
PY

start=$(now); sql -f "$work/insert.sql"; end=$(now)
echo "multi-row INSERT (1000 rows per statement) of $rows rows: $(elapsed "$start" "$end") s"
start=$(now); sql -c 'SELECT * FROM ZFAVORITE' >/dev/null; end=$(now)
echo "SELECT of $rows rows with values (psql): $(elapsed "$start" "$end") s"
sql -c 'TRUNCATE ZFAVORITE'
start=$(now); sql -c "\\copy ZFAVORITE FROM '$work/copy.tsv'"; end=$(now)
echo "COPY of $rows rows: $(elapsed "$start" "$end") s"
sql -c 'ANALYZE ZFAVORITE'

cat >"$work/limit.sql" <<'SQL'
SELECT Z_PK, Z_ENT, Z_OPT, "ZSESSIONGUID" FROM ZFAVORITE ORDER BY "ZCREATEDAT" ASC NULLS FIRST, Z_PK LIMIT 50;
SQL
pgbench -n -h "$folder" -U postgres -T 5 -c 1 -f "$work/limit.sql" postgres 2>/dev/null \
    | sed -n 's/^latency average = /indexed sorted LIMIT 50, latency average = /p'

cat >"$work/save.sql" <<'SQL'
\set key random(1000000, 100000000000)
BEGIN;
INSERT INTO ZFAVORITE (Z_PK, Z_ENT, Z_OPT, "ZCONFERENCEACRONYM", "ZSESSIONGUID", "ZCREATEDAT")
    VALUES (:key, 1, 1, 'ssd26', 'g', 0) ON CONFLICT DO NOTHING;
UPDATE Z_METADATA SET Z_TOKEN = Z_TOKEN + 1 WHERE Z_VERSION = 1;
SELECT pg_notify('objectgraph_bench', 'token');
COMMIT;
SQL
for clients in 1 8; do
    (cd "$work" && rm -f pgbench_log.* && pgbench -n -h "$folder" -U postgres -T 10 -c "$clients" -j "$clients" -l \
        -f save.sql postgres >"pgbench-$clients.txt" 2>&1)
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgbench-$clients.txt")
    cat "$work"/pgbench_log.* | awk '{print $3}' | sort -n | awk -v c="$clients" -v tps="$tps" '
        { v[NR] = $1 } END { printf "save transaction, %d client(s): %.0f saves/s, p50 %.2f ms, p99 %.2f ms (%d saves)\n",
            c, tps, v[int(NR * 0.5)] / 1000, v[int(NR * 0.99)] / 1000, NR }'
done
