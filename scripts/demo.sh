#!/usr/bin/env bash
# Start a throwaway cluster with idgen preloaded and show what it does.
# Called by `make demo` after the build and install.  The cluster keeps
# running afterwards so you can explore it; the script prints how to
# connect and how to stop it.
set -euo pipefail

PG_CONFIG=${PG_CONFIG:-$(command -v /usr/lib/postgresql/15/bin/pg_config || command -v pg_config)}
bindir=$("$PG_CONFIG" --bindir)
run_as=${IDGEN_DEMO_USER:-postgres}

as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$run_as" -- "$@"
	else
		"$@"
	fi
}

port_free() {
	! (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null
}

port=54329
while ! port_free "$port"; do
	port=$((port + 1))
done

dir=$(mktemp -d /tmp/idgen-demo.XXXXXX)
[ "$(id -u)" -eq 0 ] && chown "$run_as" "$dir"
chmod 700 "$dir"

echo "== initdb in $dir/data"
as_pg "$bindir/initdb" -D "$dir/data" -A trust -U postgres >"$dir/initdb.log"
cat >>"$dir/data/postgresql.conf" <<CONF
shared_preload_libraries = 'idgen'
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
CONF

echo "== starting PostgreSQL on 127.0.0.1:$port"
as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null

psql_demo() {
	as_pg "$bindir/psql" -X -q -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"
}

# The background worker creates the extension in its registry database
# (idgen.database, postgres) by itself a moment after start-up.
for _ in $(seq 1 100); do
	if psql_demo -At -c "SELECT 1 FROM pg_extension WHERE extname = 'idgen'" | grep -q 1; then
		break
	fi
	sleep 0.1
done

psql_demo <<'SQL'
\echo == CREATE EXTENSION idgen (the background worker made it here already)
CREATE EXTENSION IF NOT EXISTS idgen;
SET timezone = 'UTC';

\echo == a table keyed by idgen
CREATE TABLE orders (
    id       idgen PRIMARY KEY DEFAULT idgen_next(),
    customer text NOT NULL,
    total    numeric(10,2) NOT NULL
);
INSERT INTO orders (customer, total)
SELECT 'customer ' || g, (g * 9.99)::numeric(10,2) FROM generate_series(1, 5) AS g;
SELECT id, customer, total FROM orders ORDER BY id;

\echo == each ID decoded: time, region, worker, sequence, layout epoch
SELECT o.id, d.* FROM orders AS o, idgen_decode(o.id) AS d ORDER BY o.id;

\echo == a batch of IDs reserved in one step
SELECT * FROM idgen_next_batch(3);

\echo == rows of the last minute, straight from the primary key index
EXPLAIN (COSTS OFF)
SELECT * FROM orders
WHERE id BETWEEN idgen_min_at(now() - interval '1 minute') AND idgen_max_at(now());
SELECT count(*) AS orders_last_minute FROM orders
WHERE id BETWEEN idgen_min_at(now() - interval '1 minute') AND idgen_max_at(now());

\echo == the node
\x on
SELECT * FROM idgen_status();
\x off
SQL

cat <<MSG

== the demo cluster is still running
connect:  runuser -u $run_as -- $bindir/psql -h $dir -p $port -U postgres postgres
     or:  psql -h 127.0.0.1 -p $port -U postgres postgres
stop:     runuser -u $run_as -- $bindir/pg_ctl -D $dir/data stop && rm -rf $dir
MSG
