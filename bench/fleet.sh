#!/usr/bin/env bash
# Fleet throughput: 1, 2 and 4 nodes of one registry, on this machine.
#
#   1. a throwaway registry and four nodes: initdb in a fresh mktemp -d
#      directory each, all on 127.0.0.1 (the nodes reach the registry over
#      TCP, as a real fleet does), idgen preloaded everywhere, the nodes
#      with idgen.registry set
#   2. for 1, 2 and 4 nodes at once: pgbench on each of them, 2 clients
#      each, -M prepared, for IDGEN_FLEET_SECONDS; two workloads:
#        single  SELECT idgen_next()                   one ID a round trip
#        batch   SELECT count(*) FROM idgen_next_batch(1000)
#      rounds interleaved (every node count and workload once per round,
#      IDGEN_FLEET_ROUNDS rounds), median of the summed IDs/s
#   3. the registry's load: its committed transactions per second during
#      the runs (lease renewals and high-water marks of all nodes)
#   4. a check that the IDs are a fleet's: 100000 from each node, all
#      distinct
#
# Output: printed, and bench/out/fleet.md; pgbench and server logs in
# bench/out/fleet_*.
# Every node and the registry are stopped (pg_ctl stop -m fast) on every
# exit path.  No pass/fail: the machine is shared and noisy.
#
# Note that all nodes share this machine's cores: with two cores, four
# nodes compete for the same CPUs, so the figures show what the registry
# and the lease protocol cost, not how a fleet of separate machines scales.
set -euo pipefail

# `bench/fleet.sh patroni`: a fleet on a Patroni registry instead (commits per
# node, issuing through a registry outage); see bench/fleet_patroni.sh
if [ "${1:-}" = patroni ]; then
	exec "$(dirname "$0")/fleet_patroni.sh"
fi

here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}
bindir=$("$PG_CONFIG" --bindir)
run_as=${IDGEN_BENCH_USER:-postgres}
SECONDS_PER_RUN=${IDGEN_FLEET_SECONDS:-8}
ROUNDS=${IDGEN_FLEET_ROUNDS:-3}
CLIENTS=2
# below the usual ephemeral range, where outgoing connections take ports
BASE_PORT=${IDGEN_FLEET_PORT:-25430}

work=$(mktemp -d /tmp/idgen-fleet.XXXXXX)
mkdir -p "$out"
if [ "$(id -u)" -eq 0 ]; then
	chown "$run_as" "$work"
fi

# the clusters' superuser is whoever runs initdb
db_user=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
	db_user=$run_as
fi

as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$run_as" -- "$@"
	else
		"$@"
	fi
}

names=(registry node1 node2 node3 node4)
port_of() { echo $((BASE_PORT + $1)); }

cleanup() {
	local i
	for i in "${!names[@]}"; do
		if [ -f "$work/${names[$i]}/postmaster.pid" ]; then
			as_pg "$bindir/pg_ctl" -D "$work/${names[$i]}" -m fast stop >/dev/null 2>&1 || true
		fi
		cp "$work/${names[$i]}.log" "$out/fleet_${names[$i]}.log" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

psql_at() {
	"$bindir/psql" -X -At -h 127.0.0.1 -p "$1" -U "$db_user" -d postgres -c "$2"
}

echo "fleet bench: setting up a registry and four nodes in $work"
for i in "${!names[@]}"; do
	name=${names[$i]}
	as_pg "$bindir/initdb" -D "$work/$name" -A trust -N >/dev/null
	{
		echo "shared_preload_libraries = 'idgen'"
		echo "port = $(port_of "$i")"
		echo "listen_addresses = '127.0.0.1'"
		echo "unix_socket_directories = '$work'"
		echo "shared_buffers = 64MB"
		echo "max_connections = 30"
		echo "autovacuum = off"
		echo "jit = off"
		if [ "$i" -gt 0 ]; then
			echo "idgen.registry = 'host=127.0.0.1 port=$(port_of 0) dbname=postgres'"
		fi
	} >>"$work/$name/postgresql.conf"
	as_pg "$bindir/pg_ctl" -D "$work/$name" -l "$work/$name.log" -w start >/dev/null
	# each node leases only once the registry has its extension
	for _ in $(seq 1 300); do
		state=$(psql_at "$(port_of "$i")" "SELECT state FROM idgen_status()" 2>/dev/null || true)
		[ "$state" = active ] && break
		sleep 0.1
	done
	if [ "$state" != active ]; then
		echo "fleet bench: $name did not become active (state: ${state:-none})" >&2
		exit 1
	fi
done
psql_at "$(port_of 0)" "SELECT holder, region, first_worker, generation FROM idgen.fleet ORDER BY first_worker"

echo 'SELECT idgen_next();' >"$work/single.sql"
echo 'SELECT count(*) FROM idgen_next_batch(1000);' >"$work/batch.sql"

results=$work/results.csv
: >"$results"

# run <nodes> <workload> <round>: pgbench on nodes 1..n at once
run() {
	local n=$1 workload=$2 round=$3 i pids=() total=0 tps ids_per_txn reg_before reg_after
	ids_per_txn=1
	[ "$workload" = batch ] && ids_per_txn=1000
	reg_before=$(psql_at "$(port_of 0)" "SELECT sum(xact_commit) FROM pg_stat_database")
	for i in $(seq 1 "$n"); do
		"$bindir/pgbench" -n -h 127.0.0.1 -p "$(port_of "$i")" -U "$db_user" -M prepared \
			-c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER_RUN" -f "$work/$workload.sql" postgres \
			>"$out/fleet_${n}_${workload}_${round}_node$i.log" 2>&1 &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid"
	done
	reg_after=$(psql_at "$(port_of 0)" "SELECT sum(xact_commit) FROM pg_stat_database")
	for i in $(seq 1 "$n"); do
		tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' \
			"$out/fleet_${n}_${workload}_${round}_node$i.log")
		total=$(awk -v t="$total" -v x="$tps" -v k="$ids_per_txn" 'BEGIN { printf "%.1f", t + x * k }')
	done
	echo "$n,$workload,$round,$total,$(awk -v a="$reg_after" -v b="$reg_before" -v s="$SECONDS_PER_RUN" 'BEGIN { printf "%.1f", (a - b) / s }')" >>"$results"
	printf '  round %d: %d node(s), %-6s %12.0f IDs/s\n' "$round" "$n" "$workload" "$total"
}

for round in $(seq 1 "$ROUNDS"); do
	for n in 1 2 4; do
		for workload in single batch; do
			run "$n" "$workload" "$round"
		done
	done
done

# a fleet's IDs: distinct across the nodes
dups=$(for i in 1 2 3 4; do
	psql_at "$(port_of "$i")" "SELECT idgen_next() FROM generate_series(1, 100000)"
done | sort | uniq -d | wc -l)

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

{
	echo "# idgen fleet throughput"
	echo
	echo "$(nproc) CPU cores, $(date -u +%Y-%m-%d); a registry and 1, 2 or 4 nodes on this"
	echo "machine, each its own cluster on 127.0.0.1; pgbench with $CLIENTS clients per node,"
	echo "-M prepared, ${SECONDS_PER_RUN} s; median of $ROUNDS interleaved rounds."
	echo
	echo "| nodes | workload | IDs/s (all nodes) | per node | registry commits/s |"
	echo "|---:|---|---:|---:|---:|"
	for n in 1 2 4; do
		for workload in single batch; do
			ids=$(awk -F, -v n="$n" -v w="$workload" '$1 == n && $2 == w { print $4 }' "$results" | median)
			reg=$(awk -F, -v n="$n" -v w="$workload" '$1 == n && $2 == w { print $5 }' "$results" | median)
			printf '| %d | %s | %.0f | %.0f | %.0f |\n' "$n" "$workload" "$ids" \
				"$(awk -v x="$ids" -v n="$n" 'BEGIN { print x / n }')" "$reg"
		done
	done
	echo
	echo "single: \`SELECT idgen_next()\`, one ID a round trip; batch: \`SELECT count(*) FROM"
	echo "idgen_next_batch(1000)\`. Duplicates among 100000 IDs from each of the four nodes: $dups."
} | tee "$out/fleet.md"
