#!/usr/bin/env bash
# Benchmark idgen-gateway against idgen_next_batch() over libpq, side by
# side in one run: IDs/s, requests/s and p50/p99 latency at count 1, 100
# and 10,000, with keep-alive connections on both sides.
#
#   1. a throwaway cluster (initdb in a fresh mktemp -d directory, idgen
#      preloaded, TCP on 127.0.0.1 only): the registry, and the node the
#      libpq side asks
#   2. idgen-gateway on 127.0.0.1, leasing --workers workers from it
#   3. for each count: wrk (keep-alive, GET /v1/ids?count=N) against the
#      gateway, then pgbench (SELECT idgen_next_batch(N), one connection per
#      client for the whole run) against the node; p50/p99 from wrk's
#      --latency and from pgbench's per-transaction log
#   4. a Markdown table on stdout (and in bench/out/gateway.md)
#
# Tunables (environment): IDGEN_BENCH_SECONDS (10) per measurement,
# IDGEN_BENCH_CONNECTIONS (8) HTTP connections, IDGEN_BENCH_CLIENTS (8)
# pgbench clients, IDGEN_BENCH_THREADS (2) wrk/pgbench threads,
# IDGEN_BENCH_GW_THREADS (2) gateway request threads, IDGEN_BENCH_WORKERS
# (auto: the gateway's default, its workers following the demand; or 1, 2,
# 4, 8) its --workers, each gateway row naming the workers it held at the
# end; PG_CONFIG, IDGEN_BENCH_USER (postgres) as in run.sh;
# IDGEN_BENCH_KEYED=1 adds a row per count for requests that each carry a
# new Idempotency-Key (a record stored in the registry before the answer),
# IDGEN_BENCH_POOL (4) the gateway's registry connections for them.
#
# No pass/fail: machines are noisy; the run prints what it measured.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}
bindir=$("$PG_CONFIG" --bindir)
run_as=${IDGEN_BENCH_USER:-postgres}
SECONDS_EACH=${IDGEN_BENCH_SECONDS:-10}
CONNS=${IDGEN_BENCH_CONNECTIONS:-8}
CLIENTS=${IDGEN_BENCH_CLIENTS:-8}
THREADS=${IDGEN_BENCH_THREADS:-2}
GW_THREADS=${IDGEN_BENCH_GW_THREADS:-2}
WORKERS=${IDGEN_BENCH_WORKERS:-auto}
COUNTS=${IDGEN_BENCH_COUNTS:-"1 100 10000"}
KEYED=${IDGEN_BENCH_KEYED:-0}
POOL=${IDGEN_BENCH_POOL:-4}

for tool in wrk "$bindir/pgbench" "$bindir/idgen-gateway" openssl; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make install gateway-install; scripts/deps.sh)" >&2; exit 1; }
done

as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$run_as" -- "$@"
	else
		"$@"
	fi
}

work=$(mktemp -d /tmp/idgen-gwbench.XXXXXX)
[ "$(id -u)" -eq 0 ] && chown "$run_as" "$work"
datadir=$work/data
gw_pid=
cleanup() {
	[ -n "$gw_pid" ] && kill "$gw_pid" 2>/dev/null && wait "$gw_pid" 2>/dev/null
	as_pg "$bindir/pg_ctl" -D "$datadir" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
pg_port=$(free_port)
gw_port=$(free_port)

echo "== cluster in $datadir (port $pg_port)" >&2
as_pg "$bindir/initdb" -D "$datadir" -A trust -U postgres >/dev/null
cat >> "$datadir/postgresql.conf" <<EOF
shared_preload_libraries = 'idgen'
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = '$work'
max_connections = 50
synchronous_commit = off
EOF
as_pg "$bindir/pg_ctl" -D "$datadir" -l "$work/pg.log" -w start >/dev/null
conn="host=127.0.0.1 port=$pg_port dbname=postgres user=postgres"
for _ in $(seq 1 100); do
	[ "$(as_pg "$bindir/psql" -X -At -d "$conn" -c "SELECT state FROM idgen_status()" 2>/dev/null)" = active ] && break
	sleep 0.2
done

# a token for the bench client
token=bench-$(openssl rand -hex 16)
printf 'bench:ids:%s\n' "$(printf '%s' "$token" | sha256sum | cut -d' ' -f1)" > "$work/tokens"
mkdir -p "$work/state"
chown -R "$run_as" "$work" 2>/dev/null || true
"$bindir/idgen-gateway" --registry "$conn" --listen "127.0.0.1:$gw_port" \
	--tokens "$work/tokens" --state-dir "$work/state" --workers "$WORKERS" \
	--threads "$GW_THREADS" --pool "$POOL" --idempotency-keys 1000000000 \
	--name bench 2>"$work/gateway.log" &
gw_pid=$!
for _ in $(seq 1 100); do
	curl -sf "http://127.0.0.1:$gw_port/healthz" >/dev/null && break
	sleep 0.1
done
curl -sf "http://127.0.0.1:$gw_port/healthz" >/dev/null || { cat "$work/gateway.log" >&2; echo "bench: the gateway did not become healthy" >&2; exit 1; }

# wrk's "50%    1.23ms" to milliseconds
wrk_ms() {
	awk -v p="$1" '$1 == p {
		v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
		if (u == "us") v /= 1000; else if (u == "s") v *= 1000; else if (u == "m") v *= 60000;
		printf "%.3f", v }'
}

# wrk: a new Idempotency-Key for every request (thread number, counter)
cat > "$work/keyed.lua" <<'EOF'
local threads = 0
function setup(thread)
	threads = threads + 1
	thread:set("tid", threads)
end
local n = 0
function request()
	local h = {}
	for k, v in pairs(wrk.headers) do h[k] = v end
	n = n + 1
	h["Idempotency-Key"] = "bench-" .. tid .. "-" .. n
	return wrk.format(nil, nil, h)
end
EOF

results=()
cpu=$(nproc)
for n in $COUNTS; do
	echo "== count=$n: gateway (wrk -t$THREADS -c$CONNS, ${SECONDS_EACH}s)" >&2
	w=$(wrk -t"$THREADS" -c"$CONNS" -d"${SECONDS_EACH}s" --latency \
		-H "Authorization: Bearer $token" "http://127.0.0.1:$gw_port/v1/ids?count=$n")
	rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$w")
	p50=$(wrk_ms 50% <<<"$w")
	p99=$(wrk_ms 99% <<<"$w")
	non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$w")
	held=$(curl -sf "http://127.0.0.1:$gw_port/metrics" | awk '$1 == "idgen_gateway_workers" {print $2}')
	results+=("| gateway HTTP ($held worker$([ "$held" = 1 ] || echo s) at the end) | $n | $(awk -v r="$rps" -v n="$n" 'BEGIN{printf "%.0f", r*n}') | $(printf '%.0f' "$rps") | $p50 | $p99 | ${non2xx:-0} |")
	if [ "$KEYED" = 1 ]; then
		echo "== count=$n: gateway, a new Idempotency-Key each (wrk -t$THREADS -c$CONNS, ${SECONDS_EACH}s)" >&2
		w=$(wrk -t"$THREADS" -c"$CONNS" -d"${SECONDS_EACH}s" --latency -s "$work/keyed.lua" \
			-H "Authorization: Bearer $token" "http://127.0.0.1:$gw_port/v1/ids?count=$n")
		rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$w")
		p50=$(wrk_ms 50% <<<"$w")
		p99=$(wrk_ms 99% <<<"$w")
		non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$w")
		results+=("| gateway HTTP, keyed | $n | $(awk -v r="$rps" -v n="$n" 'BEGIN{printf "%.0f", r*n}') | $(printf '%.0f' "$rps") | $p50 | $p99 | ${non2xx:-0} |")
	fi

	echo "== count=$n: idgen_next_batch over libpq (pgbench -c$CLIENTS -j$THREADS, ${SECONDS_EACH}s)" >&2
	# the IDs travel to the client, as the gateway's do
	echo "SELECT idgen_next_batch($n);" > "$work/batch.sql"
	rm -f "$work"/pgbench_log.*
	chown "$run_as" "$work/batch.sql" 2>/dev/null || true
	p=$(cd "$work" && as_pg "$bindir/pgbench" -n -M prepared -c "$CLIENTS" -j "$THREADS" -T "$SECONDS_EACH" \
		-l --log-prefix="$work/pgbench_log" -f "$work/batch.sql" -d "$conn" 2>&1)
	tps=$(awk '/^tps = / {print $3}' <<<"$p")
	fails=$(awk '/number of failed transactions/ {print $5}' <<<"$p")
	read -r lp50 lp99 < <(cat "$work"/pgbench_log.* | awk '{print $3}' | sort -n |
		awk '{a[NR]=$1} END {printf "%.3f %.3f\n", a[int(NR*0.5)+1]/1000, a[int(NR*0.99)+1]/1000}')
	results+=("| idgen_next_batch, libpq | $n | $(awk -v r="$tps" -v n="$n" 'BEGIN{printf "%.0f", r*n}') | $(printf '%.0f' "$tps") | $lp50 | $lp99 | ${fails:-0} |")
done

mkdir -p "$out"
{
	echo "idgen-gateway vs idgen_next_batch() over libpq; $cpu CPUs; ${SECONDS_EACH}s each;"
	echo "gateway: --workers $WORKERS --threads $GW_THREADS, wrk -t$THREADS -c$CONNS keep-alive; pgbench -c$CLIENTS -j$THREADS -M prepared"
	echo
	echo "| path | count | IDs/s | requests/s | p50 ms | p99 ms | errors |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	printf '%s\n' "${results[@]}"
} | tee "$out/gateway.md"
