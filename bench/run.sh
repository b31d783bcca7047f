#!/usr/bin/env bash
# Benchmark idgen side by side with its peers: random(), nextval() with
# CACHE 1 and CACHE 1000, gen_random_uuid(), a UUIDv7 built in SQL
# (bench.uuidv7_sql()), and a bigint identity or uuid primary key; the
# 128-bit idgen_next128() and an idgen128 primary key next to them.  Called by `make bench` after the build and install; run it
# yourself after `make && make install`.
#
#   1. a throwaway cluster: initdb in a fresh mktemp -d directory, listening
#      only on a unix socket in that private directory, idgen preloaded
#   2. micro: per-ID cost over N rows, timed on the server, in one psql
#      session, rounds interleaved in rotated order (micro.sql); N_UUID rows
#      for gen_random_uuid() and bench.uuidv7_sql(), compared per ID
#   3. ahead: how far the newest of N IDs runs ahead of the wall clock
#   4. pgbench: 2 clients calling idgen_next() / nextval() / gen_random_uuid()
#   5. insert: INSERT ... SELECT into a table keyed by a bigint identity, an
#      idgen, a uuid and an idgen128 (insert.sql)
#   6. summary: printed, and written to bench/out/results.md; every single
#      measurement to bench/out/raw.csv
#   7. chart: the per-ID costs of idgen, nextval(), gen_random_uuid() and
#      the floor from step 2, drawn by gnuplot (chart.sql, chart.gp) into
#      bench/out/chart.png; without gnuplot the run says so and goes on
#
# Server settings and why (see start_cluster below):
#   shared_buffers 256MB  the INSERT tables (one alive at a time) fit in it
#   fsync on              the INSERT comparison pays for WAL as in production
#   synchronous_commit off  no commit waits for a flush; every variant alike
#   max_wal_size 8GB, checkpoint_timeout 1h, wal_buffers 64MB
#                         no checkpoint starts inside a timed INSERT; the run
#                         issues CHECKPOINT before each one instead
#   autovacuum off        no vacuum or analyze of a fresh table runs
#                         alongside the next measurement
#   jit off               no variant pays (or gains) a JIT compile that
#                         depends on the planner's row estimate
#   max_parallel_workers_per_gather 0   every query runs in one process
#   work_mem 1GB (SET in each session)  FunctionScan tuplestores in memory
#
# Tunables (environment): IDGEN_BENCH_N (5000000), IDGEN_BENCH_N_UUID
# (1000000), IDGEN_BENCH_ROUNDS (7), IDGEN_BENCH_PGBENCH_SECONDS (8),
# IDGEN_BENCH_PGBENCH_ROUNDS (3), IDGEN_BENCH_INSERT_ROWS (2000000),
# IDGEN_BENCH_INSERT_ROUNDS (3); PG_CONFIG picks the PostgreSQL install,
# IDGEN_BENCH_USER (postgres) the server's OS user when run as root,
# IDGEN_BENCH_GNUPLOT (gnuplot) the chart's plotter.
#
# No pass/fail: machines are noisy, so each ratio is printed next to its
# target and the exit status only says whether the run itself worked.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}
bindir=$("$PG_CONFIG" --bindir)
run_as=${IDGEN_BENCH_USER:-postgres}
gnuplot=${IDGEN_BENCH_GNUPLOT:-gnuplot}

N=${IDGEN_BENCH_N:-5000000}
N_UUID=${IDGEN_BENCH_N_UUID:-1000000}
ROUNDS=${IDGEN_BENCH_ROUNDS:-7}
PGBENCH_CLIENTS=2
PGBENCH_SECONDS=${IDGEN_BENCH_PGBENCH_SECONDS:-8}
PGBENCH_ROUNDS=${IDGEN_BENCH_PGBENCH_ROUNDS:-3}
INSERT_ROWS=${IDGEN_BENCH_INSERT_ROWS:-2000000}
INSERT_ROUNDS=${IDGEN_BENCH_INSERT_ROUNDS:-3}

started=$(date +%s)
work=
datadir=
postmaster_pid=

# PostgreSQL refuses to run as root: the server runs as $run_as, while the
# clients (psql, pgbench) may stay root and connect over the socket.
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$run_as" -- "$@"
	else
		"$@"
	fi
}

# Long steps run in the background and are waited for: a trapped signal
# interrupts wait at once, where bash would otherwise let a foreground
# client run to its end (and drop SIGINT entirely if that client exits
# normally).  Stopping the cluster then ends the client too.
wait_for() {
	"$@" &
	wait "$!"
}

stop_cluster() {
	if [ -n "$datadir" ] && [ -f "$datadir/postmaster.pid" ]; then
		echo "== stopping the cluster (postmaster pid $postmaster_pid, $datadir)"
		if ! as_pg "$bindir/pg_ctl" -D "$datadir" -m fast -w -t 60 stop >/dev/null; then
			# only the postmaster this script started, by its recorded pid
			if [ -n "$postmaster_pid" ] && kill -0 "$postmaster_pid" 2>/dev/null; then
				echo "bench: pg_ctl stop failed; sending SIGQUIT to postmaster $postmaster_pid" >&2
				kill -QUIT "$postmaster_pid" 2>/dev/null || true
			fi
		fi
	fi
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	stop_cluster
	if [ -n "$work" ] && [ -d "$work" ]; then
		[ -f "$work/server.log" ] && cp "$work/server.log" "$out/server.log" 2>/dev/null
		rm -rf "$work"
	fi
	if [ "$rc" -ne 0 ]; then
		echo "bench: failed (exit $rc); server log in $out/server.log" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$out"
rm -f "$out/results.md" "$out/raw.csv" "$out/server.log" "$out"/pgbench_*.log \
	"$out/chart.tsv" "$out/chart.png"

# ---------------------------------------------------------------------------
# 1. the throwaway cluster
# ---------------------------------------------------------------------------
work=$(mktemp -d /tmp/idgen-bench.XXXXXX)
chmod 700 "$work"
[ "$(id -u)" -eq 0 ] && chown "$run_as" "$work"
datadir=$work/data
sockdir=$work
# The socket lives in the private directory above and TCP is off, so no
# other cluster can hold this port; pick one at random all the same.
port=$((20000 + RANDOM % 40000))

psql_bench() {
	"$bindir/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$sockdir" -p "$port" \
		-U postgres -d bench "$@"
}

start_cluster() {
	echo "== initdb in $datadir"
	as_pg "$bindir/initdb" -D "$datadir" -U postgres -A trust -E UTF8 --locale=C \
		--no-sync >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log" >&2; return 1; }
	cat >>"$datadir/postgresql.conf" <<CONF

# idgen bench (bench/run.sh)
listen_addresses = ''
unix_socket_directories = '$sockdir'
port = $port
shared_preload_libraries = 'idgen'
shared_buffers = 256MB
fsync = on
synchronous_commit = off
wal_buffers = 64MB
max_wal_size = 8GB
checkpoint_timeout = 1h
autovacuum = off
jit = off
max_parallel_workers_per_gather = 0
lc_messages = 'C'
CONF
	echo "== starting PostgreSQL on socket $sockdir, port $port"
	as_pg "$bindir/pg_ctl" -D "$datadir" -l "$work/server.log" -w -t 60 start >/dev/null ||
		{ cat "$work/server.log" >&2; return 1; }
	postmaster_pid=$(head -n 1 "$datadir/postmaster.pid")
	echo "   postmaster pid $postmaster_pid, data directory $datadir"
	"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$sockdir" -p "$port" -U postgres \
		-d postgres -c 'CREATE DATABASE bench'
}

start_cluster

wait_for psql_bench -v N="$N" -v N_UUID="$N_UUID" -f "$here/setup.sql"

# the generator must be issuing before anything is timed
for _ in $(seq 1 50); do
	state=$(psql_bench -c 'SELECT state FROM idgen_status()')
	[ "$state" = active ] && break
	sleep 0.2
done
if [ "$state" != active ]; then
	echo "bench: idgen is not active (state $state):" >&2
	psql_bench -c 'SELECT state, reason FROM idgen_status()' >&2
	exit 1
fi

# ---------------------------------------------------------------------------
# the header: machine, versions, settings
# ---------------------------------------------------------------------------
cpu_model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
[ -n "$cpu_model" ] || cpu_model=$(uname -m)
mem_total=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
pg_version=$(psql_bench -c 'SELECT version()')
idgen_version=$(psql_bench -c "SELECT extversion FROM pg_extension WHERE extname = 'idgen'")

{
	echo "# idgen benchmark"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "- machine: $(nproc) CPUs ($cpu_model), $mem_total RAM, $(uname -sr)"
	echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine shows up as noise)"
	echo "- PostgreSQL: $pg_version"
	echo "- idgen: $idgen_version"
	echo "- micro: N = $N per variant (gen_random_uuid() and bench.uuidv7_sql(): N = $N_UUID, compared per ID), $ROUNDS rounds + warm-up, order rotated each round"
	echo "- pgbench: $PGBENCH_ROUNDS rounds of ${PGBENCH_SECONDS}s per script, -c $PGBENCH_CLIENTS -j $PGBENCH_CLIENTS -M prepared, interleaved"
	echo "- insert: $INSERT_ROWS rows, $INSERT_ROUNDS rounds + warm-up, interleaved"
	echo
	echo "Server settings:"
	echo
	psql_bench -c "SELECT bench.md_table(\$q\$
		SELECT name AS setting, current_setting(name) AS value
		FROM pg_settings
		WHERE name IN ('shared_buffers', 'fsync', 'synchronous_commit', 'wal_buffers',
					   'max_wal_size', 'checkpoint_timeout', 'autovacuum', 'jit',
					   'max_parallel_workers_per_gather', 'wal_level', 'full_page_writes')
		ORDER BY name
	\$q\$)"
	echo
	echo "work_mem = 1GB is SET in the micro and insert sessions."
	echo
} >"$work/header.md"
cat "$work/header.md"

# ---------------------------------------------------------------------------
# 2, 3. micro and ahead, one psql session
# ---------------------------------------------------------------------------
wait_for psql_bench -v ROUNDS="$ROUNDS" -v N="$N" -f "$here/micro.sql"
load_after_micro=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------------------
# 4. pgbench, interleaved: round r runs the scripts rotated by r - 1 places
# ---------------------------------------------------------------------------
scripts=(idgen_next nextval gen_random_uuid)
echo "== pgbench: $PGBENCH_ROUNDS rounds of ${PGBENCH_SECONDS}s per script, $PGBENCH_CLIENTS clients"
for ((r = 1; r <= PGBENCH_ROUNDS; r++)); do
	for ((p = 0; p < ${#scripts[@]}; p++)); do
		s=${scripts[$(((p + r - 1) % ${#scripts[@]}))]}
		log=$out/pgbench_${s}_$r.log
		wait_for "$bindir/pgbench" -n -c "$PGBENCH_CLIENTS" -j "$PGBENCH_CLIENTS" \
			-T "$PGBENCH_SECONDS" -M prepared -f "$here/pgbench/$s.sql" \
			-h "$sockdir" -p "$port" -U postgres bench >"$log" 2>&1 ||
			{ cat "$log" >&2; exit 1; }
		tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' "$log")
		lat=$(sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p' "$log")
		xacts=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*$/\1/p' "$log")
		if [ -z "$tps" ] || [ -z "$lat" ] || [ -z "$xacts" ]; then
			echo "bench: cannot read pgbench's output:" >&2
			cat "$log" >&2
			exit 1
		fi
		printf '  round %s  %-22s %10s TPS  %s ms latency\n' "$r" "$s" "$tps" "$lat"
		psql_bench -v round="$r" -v pos="$p" -v script="$(tr -d '\n' <"$here/pgbench/$s.sql")" \
			-v xacts="$xacts" -v us="$((PGBENCH_SECONDS * 1000000))" -v tps="$tps" \
			-v lat="$lat" <<'SQL'
INSERT INTO bench.result (section, round, pos, variant, n, elapsed_us, tps, latency_ms)
VALUES ('pgbench', :round, :pos, :'script', :xacts, :us, :tps, :lat);
SQL
	done
done

load_after_pgbench=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------------------
# 5. INSERT comparison, one psql session
# ---------------------------------------------------------------------------
wait_for psql_bench -v INSERT_ROUNDS="$INSERT_ROUNDS" -v INSERT_ROWS="$INSERT_ROWS" \
	-f "$here/insert.sql"

# ---------------------------------------------------------------------------
# 6. summary and raw numbers
# ---------------------------------------------------------------------------
psql_bench -c "COPY (SELECT seq, at, section, round, pos, variant, n, elapsed_us, tps,
					latency_ms, ahead_ms, pkey_bytes, heap_bytes,
					seq_exhaustions, clock_waits
				FROM bench.result ORDER BY seq) TO STDOUT WITH (FORMAT csv, HEADER)" \
	>"$out/raw.csv"

{
	cat "$work/header.md"
	psql_bench -v PGBENCH_CLIENTS="$PGBENCH_CLIENTS" -f "$here/report.sql"
	echo
	echo "Run took $(($(date +%s) - started)) s; load average after micro: $load_after_micro, after pgbench: $load_after_pgbench, at the end: $(cut -d' ' -f1-3 /proc/loadavg). Raw numbers: bench/out/raw.csv."
} >"$out/results.md"

echo
echo "================================================================"
sed -n '/^## /,$p' "$out/results.md"

# ---------------------------------------------------------------------------
# 7. the chart, from the medians just printed
# ---------------------------------------------------------------------------
psql_bench -f "$here/chart.sql" >"$out/chart.tsv"
chart=
if ! command -v "$gnuplot" >/dev/null 2>&1; then
	echo
	echo "bench: NO CHART: gnuplot ('$gnuplot') is not installed; the table above is complete." >&2
	echo "bench: install the Debian package gnuplot-nox (or run 'make deps') for bench/out/chart.png." >&2
else
	thousands() { sed ':a; s/\B[0-9]\{3\}\>/,&/; ta' <<<"$1"; }
	machine="$(date -u '+%Y-%m-%d'), $(nproc) CPUs ($cpu_model), PostgreSQL $(psql_bench -c 'SHOW server_version' | cut -d' ' -f1), idgen $idgen_version"
	sizes="N = $(thousands "$N") per variant (gen_random_uuid(): $(thousands "$N_UUID")), $ROUNDS rounds after a warm-up"
	# both go into single-quoted gnuplot strings
	if "$gnuplot" -e "datafile='$out/chart.tsv'; outfile='$out/chart.png'; machine='${machine//\'/}'; sizes='${sizes//\'/}'" \
		"$here/chart.gp"; then
		chart=", $out/chart.png"
	else
		echo "bench: gnuplot failed; no chart written (its data: $out/chart.tsv)" >&2
		exit 1
	fi
fi

echo
echo "written: $out/results.md, $out/raw.csv$chart"
