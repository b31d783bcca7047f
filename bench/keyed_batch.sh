#!/usr/bin/env bash
# Benchmark a keyed batch against an unkeyed one, side by side in one run:
# idgen_next_batch(N) and idgen_next_batch(N, request_key) (a new key each
# time, and a retry of a kept key), and their 128-bit twins, each a
# statement of its own timed on the server; and what one keyed batch keeps
# in idgen.batch_request.
#
#   1. a throwaway cluster (initdb in a fresh mktemp -d directory, idgen
#      preloaded, a unix socket in that directory only)
#   2. ROUNDS rounds of every variant, rotated one place per round, after a
#      warm-up round; the median and the fastest per variant
#   3. the bytes one keyed batch of N keeps (pg_column_size of its row)
#   4. the tables on stdout (and in bench/out/keyed_batch.txt)
#
# Tunables (environment): IDGEN_BENCH_N (1000000) IDs a batch,
# IDGEN_BENCH_ROUNDS (5), PG_CONFIG, IDGEN_BENCH_USER (postgres).
# No pass/fail: machines are noisy; the run prints what it measured.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}
bindir=$("$PG_CONFIG" --bindir)
run_as=${IDGEN_BENCH_USER:-postgres}
N=${IDGEN_BENCH_N:-1000000}
ROUNDS=${IDGEN_BENCH_ROUNDS:-5}

as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$run_as" -- "$@"
	else
		"$@"
	fi
}

work=$(mktemp -d /tmp/idgen-keyedbench.XXXXXX)
[ "$(id -u)" -eq 0 ] && chown "$run_as" "$work"
datadir=$work/data
cleanup() {
	as_pg "$bindir/pg_ctl" -D "$datadir" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

as_pg "$bindir/initdb" -D "$datadir" -A trust -U postgres >/dev/null
cat >> "$datadir/postgresql.conf" <<EOF
shared_preload_libraries = 'idgen'
listen_addresses = ''
unix_socket_directories = '$work'
synchronous_commit = off
work_mem = '1GB'
EOF
as_pg "$bindir/pg_ctl" -D "$datadir" -l "$work/pg.log" -w start >/dev/null
psql() { as_pg "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$work" -U postgres -d postgres "$@"; }
for _ in $(seq 1 100); do
	[ "$(psql -At -c "SELECT state FROM idgen_status()" 2>/dev/null)" = active ] && break
	sleep 0.2
done

mkdir -p "$out"
psql -v N="$N" -v ROUNDS="$ROUNDS" <<'SQL' | tee "$out/keyed_batch.txt"
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS idgen;
CREATE TEMP TABLE variant (ord int, name text, query text);
INSERT INTO variant VALUES
    (1, 'idgen_next_batch(N)',                   'SELECT count(*) FROM idgen_next_batch(%s)'),
    (2, 'idgen_next_batch(N, new key)',          'SELECT count(*) FROM idgen_next_batch(%s, %L)'),
    (3, 'idgen_next_batch(N, key) retried',      'SELECT count(*) FROM idgen_next_batch(%s, ''kept-64'')'),
    (4, 'idgen_next128_batch(N)',                'SELECT count(*) FROM idgen_next128_batch(%s)'),
    (5, 'idgen_next128_batch(N, new key)',       'SELECT count(*) FROM idgen_next128_batch(%s, %L)'),
    (6, 'idgen_next128_batch(N, key) retried',   'SELECT count(*) FROM idgen_next128_batch(%s, ''kept-128'')');
CREATE TEMP TABLE took (round int, name text, ms float8);
CREATE FUNCTION pg_temp.measure(r int, v text, n int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    q text := (SELECT format(query, n, 'key-' || r || '-' || v) FROM variant WHERE name = v);
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE q;
    INSERT INTO took VALUES (r, v, extract(epoch FROM clock_timestamp() - t0) * 1000);
END $$;
-- the kept keys the retries ask for
SELECT count(*) FROM idgen_next_batch(:N, 'kept-64') \g /dev/null
SELECT count(*) FROM idgen_next128_batch(:N, 'kept-128') \g /dev/null
-- round 0 warms up; rounds 1..ROUNDS, each variant once, rotated
\o /dev/null
SELECT format('SELECT pg_temp.measure(%s, %L, %s)', r, v.name, :N)
FROM generate_series(0, :ROUNDS) AS r, variant AS v
ORDER BY r, (v.ord + r) % 6
\gexec
\o
\pset footer off
\echo
\echo keyed batches of :N IDs, :ROUNDS rounds (ms per statement)
\echo
SELECT name AS variant, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS median_ms,
       round(min(ms)::numeric, 1) AS fastest_ms
FROM took JOIN variant USING (name) WHERE round > 0 GROUP BY name, ord ORDER BY ord;
\echo
\echo what one keyed batch keeps in idgen.batch_request
\echo
SELECT request_key, width, count, pg_column_size(b.*) AS row_bytes
FROM idgen.batch_request AS b WHERE request_key IN ('kept-64', 'kept-128') ORDER BY width;
SELECT pg_size_pretty(pg_total_relation_size('idgen.batch_request')) AS table_with_toast_and_indexes,
       count(*) AS keyed_batches
FROM idgen.batch_request;
SQL
