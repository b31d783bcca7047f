#!/usr/bin/env bash
# Fleet on a Patroni registry (bench/fleet.sh patroni runs this).
#
#   1. etcd and two Patroni members (synchronous_mode, ttl 30 s) on
#      127.0.0.1, idgen preloaded on both, and two nodes leasing through
#      'host=127.0.0.1,127.0.0.1 port=P1,P2 target_session_attrs=read-write'
#      with the default lease settings; initdb in a fresh mktemp -d each
#   2. the registry's load: committed transactions per second on the leader
#      (sum of pg_stat_database.xact_commit) over IDGEN_FLEET_STEADY seconds,
#      before the nodes start (Patroni's own and the members'), with both
#      nodes idle, and with both under pgbench; per node = (rate - before) / 2
#   3. a 10 s registry outage: pgbench on node 1 (2 clients, SELECT
#      idgen_next(), -P 1) for 30 s; from second 10 to 20 the leader's
#      postmaster and every child of it are stopped (SIGSTOP: the registry
#      answers nothing, connections hang), then continued.  Patroni's ttl of
#      30 s keeps it from failing over meanwhile.  IDs/s before, during and
#      after, and pgbench's failed transactions.
#
# Output: printed, and bench/out/fleet_patroni.md; logs in
# bench/out/fleet_patroni_*.  Every process is stopped by its recorded pid on
# every exit path.  No pass/fail: the machine is shared and noisy.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}
bindir=$("$PG_CONFIG" --bindir)
run_as=${IDGEN_BENCH_USER:-postgres}
STEADY=${IDGEN_FLEET_STEADY:-20}
BASE_PORT=${IDGEN_FLEET_PORT:-25450}
ETCD_CLIENT=$BASE_PORT
ETCD_PEER=$((BASE_PORT + 1))

work=$(mktemp -d /tmp/idgen-fleet-patroni.XXXXXX)
mkdir -p "$out"
if [ "$(id -u)" -eq 0 ]; then
	chown "$run_as" "$work"
	db_user=$run_as
else
	db_user=$(id -un)
fi

as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$run_as" -- "$@"
	else
		"$@"
	fi
}

members=(m1 m2)
nodes=(node1 node2)
pg_port() { echo $((BASE_PORT + 2 + 2 * $1)); }
api_port() { echo $((BASE_PORT + 3 + 2 * $1)); }
node_port() { echo $((BASE_PORT + 10 + $1)); }
stopped=()

# spawn NAME LOG CMD...: CMD as the test user in the background; its own pid
# (exec keeps it) in $work/NAME.pid, for stopping it by pid
spawn() {
	local name=$1 log=$2
	shift 2
	as_pg sh -c 'echo $$ >"$0"; exec "$@"' "$work/$name.pid" "$@" >"$log" 2>&1 &
}
pid_of() { cat "$work/$1.pid" 2>/dev/null || true; }

cleanup() {
	local p
	# a stopped leader first gets its SIGCONT, or it could not stop
	for p in "${stopped[@]}"; do kill -CONT "$p" 2>/dev/null || true; done
	for n in "${!nodes[@]}"; do
		[ -f "$work/${nodes[$n]}/postmaster.pid" ] &&
			as_pg "$bindir/pg_ctl" -D "$work/${nodes[$n]}" -m fast stop >/dev/null 2>&1 || true
		cp "$work/${nodes[$n]}.log" "$out/fleet_patroni_${nodes[$n]}.log" 2>/dev/null || true
	done
	# Patroni stops its PostgreSQL on SIGTERM (all at once: a leader
	# stopped alone would hand over to the other); then etcd
	local ps=() pm
	for m in "${members[@]}"; do
		p=$(pid_of "$m")
		[ -n "$p" ] && ps+=("$p")
	done
	[ ${#ps[@]} -gt 0 ] && kill -TERM "${ps[@]}" 2>/dev/null
	for p in "${ps[@]}"; do
		for _ in $(seq 1 300); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null || true
	done
	for m in "${members[@]}"; do
		pm=$(head -1 "$work/$m/data/postmaster.pid" 2>/dev/null || true)
		if [ -n "$pm" ] && kill -QUIT "$pm" 2>/dev/null; then
			for _ in $(seq 1 100); do kill -0 "$pm" 2>/dev/null || break; sleep 0.1; done
		fi
		cp "$work/$m.log" "$out/fleet_patroni_$m.log" 2>/dev/null || true
	done
	p=$(pid_of etcd)
	if [ -n "$p" ] && kill -TERM "$p" 2>/dev/null; then
		for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

psql_at() {
	"$bindir/psql" -X -At -h 127.0.0.1 -p "$1" -U "$db_user" -d postgres -c "$2"
}

# the leader's port, from the members' REST APIs
leader_port() {
	local m
	for m in "${!members[@]}"; do
		if [ "$(curl_code "http://127.0.0.1:$(api_port "$m")/leader")" = 200 ]; then
			pg_port "$m"
			return 0
		fi
	done
	return 1
}
curl_code() {
	python3 -c 'import sys, urllib.request
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=2).status)
except Exception as e:
    print(getattr(e, "code", 0))' "$1"
}

wait_for() {
	local what=$1 i
	shift
	for i in $(seq 1 600); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.2
	done
	echo "fleet patroni bench: $what did not happen" >&2
	exit 1
}

echo "fleet patroni bench: etcd, two Patroni members and two nodes in $work"
spawn etcd "$out/fleet_patroni_etcd.log" /usr/bin/etcd --name etcd0 --data-dir "$work/etcd" \
	--listen-client-urls "http://127.0.0.1:$ETCD_CLIENT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT" \
	--listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
	--initial-cluster "etcd0=http://127.0.0.1:$ETCD_PEER"
etcd_healthy() { test "$(curl_code "http://127.0.0.1:$ETCD_CLIENT/health")" = 200; }
wait_for "etcd health" etcd_healthy

# postgresql.conf of the members, indented by $1 spaces for the YAML
params() {
	local pad
	pad=$(printf '%*s' "$1" '')
	printf '%s\n' "shared_preload_libraries: idgen" "unix_socket_directories: '$work'" \
		"max_connections: 40" "shared_buffers: 64MB" "autovacuum: 'off'" "jit: 'off'" |
		sed "s/^/$pad/"
}
for m in "${!members[@]}"; do
	name=${members[$m]}
	mkdir -p "$work/$name"
	cat >"$work/$name/patroni.yml" <<EOF
scope: idgen-bench
namespace: /idgen/
name: $name
restapi:
  listen: 127.0.0.1:$(api_port "$m")
  connect_address: 127.0.0.1:$(api_port "$m")
etcd3:
  hosts: 127.0.0.1:$ETCD_CLIENT
bootstrap:
  dcs:
    ttl: 30
    loop_wait: 10
    retry_timeout: 10
    synchronous_mode: true
    postgresql:
      use_slots: true
      parameters:
$(params 8)
  initdb:
    - encoding: UTF8
    - auth: trust
postgresql:
  listen: 127.0.0.1:$(pg_port "$m")
  connect_address: 127.0.0.1:$(pg_port "$m")
  data_dir: $work/$name/data
  bin_dir: $bindir
  pgpass: $work/$name/pgpass
  authentication:
    superuser: {username: $db_user}
    replication: {username: $db_user}
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
  parameters:
$(params 4)
EOF
	chown -R "$run_as" "$work/$name" 2>/dev/null || true
	# Debian's Python, whatever python3 the PATH has
	spawn "$name" "$work/$name.log" env -u PYTHONPATH -u PYTHONHOME PATH="$bindir:/usr/bin:/bin" \
		/usr/bin/patroni "$work/$name/patroni.yml"
	if [ "$m" -eq 0 ]; then
		wait_for "a leader" leader_port
	fi
done
has_sync() {
	python3 -c 'import sys, urllib.request
sys.exit(0 if b"sync_standby" in urllib.request.urlopen(sys.argv[1], timeout=2).read() else 1)' \
		"http://127.0.0.1:$(api_port 0)/cluster"
}
wait_for "a sync standby" has_sync
leader=$(leader_port)
has_extension() { test "$(psql_at "$leader" "SELECT count(*) FROM pg_extension WHERE extname = 'idgen'" 2>/dev/null)" = 1; }
wait_for "the extension on the leader" has_extension

commits() { psql_at "$leader" "SELECT sum(xact_commit) FROM pg_stat_database"; }
rate_over() {
	local a b
	a=$(commits)
	sleep "$1"
	b=$(commits)
	awk -v a="$a" -v b="$b" -v s="$1" 'BEGIN { printf "%.2f", (b - a) / s }'
}

echo "  registry commits/s before the nodes start ($STEADY s)"
base=$(rate_over "$STEADY")

node_active() { test "$(psql_at "$(node_port "$1")" "SELECT state FROM idgen_status()" 2>/dev/null)" = active; }
conninfo="host=127.0.0.1,127.0.0.1 port=$(pg_port 0),$(pg_port 1) dbname=postgres connect_timeout=2 target_session_attrs=read-write"
for n in "${!nodes[@]}"; do
	name=${nodes[$n]}
	as_pg "$bindir/initdb" -D "$work/$name" -A trust -N >/dev/null
	{
		echo "shared_preload_libraries = 'idgen'"
		echo "port = $(node_port "$n")"
		echo "listen_addresses = '127.0.0.1'"
		echo "unix_socket_directories = '$work'"
		echo "shared_buffers = 64MB"
		echo "jit = off"
		echo "idgen.registry = '$conninfo'"
	} >>"$work/$name/postgresql.conf"
	as_pg "$bindir/pg_ctl" -D "$work/$name" -l "$work/$name.log" -w start >/dev/null
	wait_for "$name active" node_active "$n"
done
psql_at "$leader" "SELECT holder, region, first_worker, generation FROM idgen.fleet ORDER BY first_worker"

echo "  registry commits/s with both nodes idle ($STEADY s)"
idle=$(rate_over "$STEADY")

echo 'SELECT idgen_next();' >"$work/single.sql"
echo "  registry commits/s with both nodes under pgbench ($STEADY s)"
bp=()
for n in "${!nodes[@]}"; do
	"$bindir/pgbench" -n -h 127.0.0.1 -p "$(node_port "$n")" -U "$db_user" -M prepared -c 2 -j 2 \
		-T $((STEADY + 4)) -f "$work/single.sql" postgres >"$out/fleet_patroni_load_${nodes[$n]}.log" 2>&1 &
	bp+=($!)
done
sleep 2
busy=$(rate_over "$STEADY")
for p in "${bp[@]}"; do wait "$p" || true; done
load_ids=0
for n in "${!nodes[@]}"; do
	t=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' "$out/fleet_patroni_load_${nodes[$n]}.log")
	load_ids=$(awk -v a="$load_ids" -v b="${t:-0}" 'BEGIN { printf "%.0f", a + b }')
done

echo "  a 10 s registry outage under pgbench on node1 (30 s)"
pm=$(head -1 "$work/$(for m in "${!members[@]}"; do [ "$(pg_port "$m")" = "$leader" ] && echo "${members[$m]}"; done)/data/postmaster.pid")
"$bindir/pgbench" -n -h 127.0.0.1 -p "$(node_port 0)" -U "$db_user" -M prepared -c 2 -j 2 -T 30 -P 1 \
	-f "$work/single.sql" postgres >"$out/fleet_patroni_outage.log" 2>&1 &
bench=$!
sleep 10
victims=("$pm" $(ps -o pid= --ppid "$pm"))
stopped=("${victims[@]}")
kill -STOP "${victims[@]}"
sleep 10
kill -CONT "${victims[@]}"
stopped=()
wait "$bench" || true

# progress lines: "progress: 11.0 s, 1234.5 tps, lat ..."
phase() {
	awk -v lo="$1" -v hi="$2" '/^progress: / { t = $2 + 0; tps = $4 + 0; if (t > lo && t <= hi) { s += tps; k++ } }
		END { printf "%.0f", k ? s / k : 0 }' "$out/fleet_patroni_outage.log"
}
minsec() {
	awk -v lo="$1" -v hi="$2" 'BEGIN { m = -1 } /^progress: / { t = $2 + 0; tps = $4 + 0; if (t > lo && t <= hi && (m < 0 || tps < m)) m = tps }
		END { printf "%.0f", m }' "$out/fleet_patroni_outage.log"
}
before=$(phase 1 10)
during=$(phase 10 20)
after=$(phase 20 30)
low=$(minsec 10 20)
failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out/fleet_patroni_outage.log")
aborted=$(grep -c 'aborted\|error' "$out/fleet_patroni_outage.log" || true)
node_state=$(psql_at "$(node_port 0)" "SELECT state FROM idgen_status()")

per_node() { awk -v r="$1" -v b="$base" 'BEGIN { printf "%.2f", (r - b) / 2 }'; }
{
	echo "# idgen fleet on a Patroni registry"
	echo
	echo "$(nproc) CPU cores, $(date -u +%Y-%m-%d); etcd, two Patroni members (synchronous_mode)"
	echo "and two nodes, each its own cluster on 127.0.0.1; default lease settings."
	echo
	echo "| registry commits/s (leader, ${STEADY} s) | all | per node |"
	echo "|---|---:|---:|"
	echo "| before the nodes start | $base | |"
	echo "| two nodes, idle | $idle | $(per_node "$idle") |"
	echo "| two nodes, pgbench 2 clients each ($load_ids IDs/s in all) | $busy | $(per_node "$busy") |"
	echo
	echo "| node1 under pgbench, IDs/s | mean | lowest second |"
	echo "|---|---:|---:|"
	echo "| 10 s before the outage | $before | |"
	echo "| 10 s the leader stopped (SIGSTOP) | $during | $low |"
	echo "| 10 s after | $after | |"
	echo
	echo "pgbench's failed transactions: ${failed:-none reported}; lines with errors or aborts in its"
	echo "log: $aborted; node1's state afterwards: $node_state."
} | tee "$out/fleet_patroni.md"
