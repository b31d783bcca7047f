# 050_idgen128_concurrency.pl - four backends draw 128-bit and 64-bit IDs at once
#
# Four concurrent pgbench clients insert 400,000 idgen128 rows (one
# idgen_next128() per row, and whole idgen_next128_batch() batches) and,
# interleaved in the same sessions, 100,000 idgen rows (idgen_next() per row
# and idgen_next_batch()).  Every row records its backend (pid) and its
# place in that backend's issue order (n), and the test asserts:
#
#   - no idgen128 and no idgen was issued twice;
#   - within each backend the idgen128 values ascend strictly by the type's
#     own < operator, and so do the idgen values;
#   - every idgen128 is an RFC 9562 UUIDv7: version nibble 7, variant bits
#     10, and the layout epoch nibble 1;
#   - every ID of both kinds decodes to region 0 and a worker of the node's
#     block, epoch 1;
#   - both kinds run on one clock per backend: idgen_timestamp() of
#     consecutive IDs never decreases across kinds, and more strictly, the
#     (millisecond, region | worker | sequence) slot of an idgen128 - the
#     64-bit ID it was made from - ascends strictly together with the
#     idgen values of the same backend, and no slot is used by two IDs of
#     either kind;
#   - idgen_status() counted every ID.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $clients          = 4;
my $xacts_per_client = 100;

# Every script inserts exactly this many rows of each kind per transaction,
# so the totals do not depend on which scripts pgbench picks.
my $rows128_per_xact = 1000;
my $rows64_per_xact  = 250;
my $expected128      = $clients * $xacts_per_client * $rows128_per_xact;
my $expected64       = $clients * $xacts_per_client * $rows64_per_xact;

# a block other than the default one, so the worker check means something
my $first_worker = 32;
my $block_size   = 16;
my $last_worker  = $first_worker + $block_size - 1;

my $node = idgen_node('idgen128_concurrency', conf => qq{
idgen.region_id = 0
idgen.worker_id = $first_worker
idgen.workers_per_node = $block_size
synchronous_commit = off
max_wal_size = 1GB
checkpoint_timeout = 30min
});

# the background worker creates the extension in its registry database
ok( wait_extension($node),
	'the background worker created the extension');
ok(wait_state($node),
	'the node is active');
is( $node->safe_psql(
		'postgres', 'SELECT region, worker, workers FROM idgen_status()'),
	"0|$first_worker|$block_size",
	'the node runs with region 0 and the configured worker block');

# One row per ID: exactly one of id64 / id128 is set.  n is taken from a
# sequence after the row's ID, row by row, so within one backend it gives
# the order the IDs were issued in.
$node->safe_psql(
	'postgres', q{
CREATE TABLE ids (
    id64  idgen UNIQUE,
    id128 idgen128 UNIQUE,
    pid   int NOT NULL,
    n     bigserial PRIMARY KEY,
    CHECK ((id64 IS NULL) <> (id128 IS NULL))
);
});

my $issued_before =
  $node->safe_psql('postgres', 'SELECT ids_issued FROM idgen_status()');

my $per_row_total = $rows128_per_xact + $rows64_per_xact;
my $every_nth     = $per_row_total / $rows64_per_xact;    # 5: one in five is 64-bit
my $half128       = $rows128_per_xact / 2;

$node->pgbench(
	"--no-vacuum --client=$clients --jobs=$clients --transactions=$xacts_per_client",
	0,
	[
		qr{number of transactions actually processed: @{[$clients * $xacts_per_client]}/@{[$clients * $xacts_per_client]}},
		qr{number of failed transactions: 0}
	],
	[qr{^$}],
	'pgbench: 4 clients draw idgen128 and idgen IDs concurrently',
	{
		# one ID per row, the two kinds interleaved row by row
		'050_per_row@2' => qq{
INSERT INTO ids (id64, id128, pid)
SELECT CASE WHEN g % $every_nth = 0 THEN idgen_next() END,
       CASE WHEN g % $every_nth <> 0 THEN idgen_next128() END,
       pg_backend_pid()
FROM generate_series(1, $per_row_total) AS g;
},
		# 128-bit batches around 64-bit single IDs
		'050_batch128@1' => qq{
INSERT INTO ids (id128, pid) SELECT b, pg_backend_pid() FROM idgen_next128_batch($half128) AS b;
INSERT INTO ids (id64, pid) SELECT idgen_next(), pg_backend_pid() FROM generate_series(1, $rows64_per_xact);
INSERT INTO ids (id128, pid) SELECT b, pg_backend_pid() FROM idgen_next128_batch($half128) AS b;
},
		# a 64-bit batch, then 128-bit single IDs
		'050_batch64@1' => qq{
INSERT INTO ids (id64, pid) SELECT b, pg_backend_pid() FROM idgen_next_batch($rows64_per_xact) AS b;
INSERT INTO ids (id128, pid) SELECT idgen_next128(), pg_backend_pid() FROM generate_series(1, $rows128_per_xact);
},
	});

is( $node->safe_psql(
		'postgres',
		'SELECT count(id128), count(id64), count(DISTINCT pid) FROM ids'),
	"$expected128|$expected64|$clients",
	"$expected128 idgen128 and $expected64 idgen rows from $clients backends");

is( $node->safe_psql(
		'postgres',
		'SELECT count(DISTINCT id128) = count(id128), count(DISTINCT id64) = count(id64) FROM ids'
	),
	't|t',
	'no idgen128 and no idgen was issued twice');

# within one backend, by issue order, with the type's own operator
is( $node->safe_psql(
		'postgres', q{
SET work_mem = '256MB';
SELECT count(*) FILTER (WHERE prev IS NOT NULL AND NOT (prev OPERATOR(public.<) id128)),
       count(*) FILTER (WHERE prev IS NOT NULL)
FROM (SELECT id128, lag(id128) OVER (PARTITION BY pid ORDER BY n) AS prev
      FROM ids WHERE id128 IS NOT NULL) AS s;
}),
	'0|' . ($expected128 - $clients),
	'every backend saw its idgen128 values strictly ascending (idgen128 < idgen128)');

is( $node->safe_psql(
		'postgres', q{
SET work_mem = '256MB';
SELECT count(*) FILTER (WHERE prev IS NOT NULL AND NOT (prev < id64))
FROM (SELECT id64, lag(id64) OVER (PARTITION BY pid ORDER BY n) AS prev
      FROM ids WHERE id64 IS NOT NULL) AS s;
}),
	'0',
	'every backend saw its idgen values strictly ascending');

# the UUIDv7 bits, read from the uuid wire format
is( $node->safe_psql(
		'postgres', q{
SELECT count(*)
FROM (SELECT encode(uuid_send(id128::uuid), 'hex') AS h FROM ids WHERE id128 IS NOT NULL) AS s
WHERE substr(h, 13, 1) <> '7'                       -- version 7
   OR substr(h, 17, 1) NOT IN ('8', '9', 'a', 'b')  -- variant 10
   OR substr(h, 20, 1) <> '1';                      -- layout epoch 1
}),
	'0',
	'every idgen128 is version 7, variant 10, layout epoch 1');

is( $node->safe_psql(
		'postgres', qq{
SELECT count(*)
FROM ids, LATERAL idgen_decode(ids.id128) AS d
WHERE ids.id128 IS NOT NULL
  AND (d.region IS DISTINCT FROM 0
       OR d.worker NOT BETWEEN $first_worker AND $last_worker
       OR d.epoch IS DISTINCT FROM 1
       OR d.ts IS NULL);
}),
	'0',
	"every idgen128 decodes to region 0, a worker in $first_worker-$last_worker, epoch 1");

is( $node->safe_psql(
		'postgres', qq{
SELECT count(*)
FROM ids, LATERAL idgen_decode(ids.id64) AS d
WHERE ids.id64 IS NOT NULL
  AND (d.region IS DISTINCT FROM 0
       OR d.worker NOT BETWEEN $first_worker AND $last_worker
       OR d.epoch IS DISTINCT FROM 1);
}),
	'0',
	"every idgen decodes to region 0, a worker in $first_worker-$last_worker, epoch 1");

# The 64-bit slot of every ID: the idgen itself, or for an idgen128 the
# 64-bit ID it was composed from, (unix_ms - layout epoch) << shift | node,
# with unix_ms from bytes 0-5 and the 22-bit node field from bits 52-63
# and 66-75 (see src/uuid7.h).
$node->safe_psql(
	'postgres', q{
CREATE TABLE slots AS
SELECT s.pid, s.n, s.kind, s.ts,
       CASE WHEN s.kind = 64 THEN s.id64::bigint
            ELSE ((('x' || substr(s.h, 1, 12))::bit(48)::bigint
                   - (extract(epoch FROM l.epoch_start) * 1000)::bigint)
                  << (l.region_bits + l.worker_bits + l.seq_bits))
                 | (('x' || substr(s.h, 14, 3))::bit(12)::bigint << 10)
                 | ((('x' || substr(s.h, 17, 4))::bit(16)::bigint >> 4) & 1023)
       END AS slot
FROM (SELECT pid, n, id64,
             CASE WHEN id64 IS NULL THEN 128 ELSE 64 END AS kind,
             coalesce(idgen_timestamp(id64), idgen_timestamp(id128)) AS ts,
             encode(uuid_send(id128::uuid), 'hex') AS h
      FROM ids) AS s,
     idgen.default_layout() AS l;
});

# the slot arithmetic agrees with idgen_decode(idgen128)
is( $node->safe_psql(
		'postgres', q{
SELECT count(*)
FROM ids JOIN slots USING (n), LATERAL idgen_decode(ids.id128) AS d,
     idgen.default_layout() AS l
WHERE ids.id128 IS NOT NULL
  AND slots.slot & ((1::bigint << (l.region_bits + l.worker_bits + l.seq_bits)) - 1)
      <> ((d.region::bigint << (l.worker_bits + l.seq_bits)) | (d.worker::bigint << l.seq_bits) | d.seq);
}),
	'0',
	'the node field of every idgen128 is the region | worker | sequence idgen_decode() reports');

my ($ts_back, $kind_changes) = split /\|/,
  $node->safe_psql(
	'postgres', q{
SET work_mem = '256MB';
SELECT count(*) FILTER (WHERE prev_ts IS NOT NULL AND ts < prev_ts),
       count(*) FILTER (WHERE prev_kind <> kind)
FROM (SELECT ts, kind,
             lag(ts) OVER w AS prev_ts,
             lag(kind) OVER w AS prev_kind
      FROM slots WINDOW w AS (PARTITION BY pid ORDER BY n)) AS s;
});
cmp_ok($kind_changes, '>', 1000,
	'the backends switched between the two kinds many times');
is($ts_back, '0',
	'both kinds share one clock per backend: idgen_timestamp() of consecutive IDs never decreases');

is( $node->safe_psql(
		'postgres', q{
SET work_mem = '256MB';
SELECT count(*)
FROM (SELECT slot, lag(slot) OVER (PARTITION BY pid ORDER BY n) AS prev FROM slots) AS s
WHERE prev IS NOT NULL AND slot <= prev;
}),
	'0',
	'both kinds share one sequence per backend: the 64-bit slots ascend strictly across kinds');

is($node->safe_psql('postgres', 'SELECT count(DISTINCT slot) = count(*) FROM slots'),
	't', 'no idgen128 took the 64-bit slot of another ID of either kind');

my $issued_after =
  $node->safe_psql('postgres', 'SELECT ids_issued FROM idgen_status()');
cmp_ok($issued_after - $issued_before,
	'>=', $expected128 + $expected64,
	'idgen_status().ids_issued counts every ID of both kinds');

ok(!$node->log_contains('server process .* terminated'), 'no backend crashed');

$node->stop;

done_testing();
