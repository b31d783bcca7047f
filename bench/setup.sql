-- bench/setup.sql: schema, variants and measuring functions of the idgen
-- benchmark.  Run once by bench/run.sh in the throwaway database "bench",
-- with the psql variables N, N_UUID and INSERT_ROWS set.
--
-- Every measurement is taken on the server: a plpgsql function reads
-- clock_timestamp() right before and right after EXECUTE of the query, so
-- neither psql nor the client/server round trip is part of the number.

\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE EXTENSION idgen;
CREATE SCHEMA bench;

-- nextval peers: the default CACHE 1 (what serial and identity use) and a
-- backend-local cache of 1000 values
CREATE SEQUENCE bench.s_cache1 CACHE 1;
CREATE SEQUENCE bench.s_cache1000 CACHE 1000;
-- the sequence the pgbench script draws from (CACHE 1, the default)
CREATE SEQUENCE public.s;

-- A UUIDv7 made in SQL, the way it is commonly done without an extension:
-- the 16 random bytes of a version 4 UUID, their first 6 bytes replaced by
-- the Unix time in milliseconds (big-endian, the low 6 bytes of an int8),
-- and the version nibble turned from 0100 into 0111 by setting the two bits
-- below its top one.  set_bit counts bits from the low end of each byte, so
-- bits 52 and 53 are 0x10 and 0x20 of byte 6; the variant (10) is already
-- that of a v4.  A single SELECT in LANGUAGE sql, so the planner inlines it
-- into the calling query: the fairest form of the pattern.
CREATE FUNCTION bench.uuidv7_sql() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
	SELECT encode(
		set_bit(set_bit(
			overlay(uuid_send(gen_random_uuid())
					PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)
									  FROM 3)
					FROM 1 FOR 6),
			52, 1), 53, 1),
		'hex')::uuid
$$;

-- It must really be a UUIDv7 of now: the cast to idgen128 checks version
-- and variant, idgen_timestamp() reads the millisecond back.
DO $$
DECLARE
	u uuid;
	t0 timestamptz := clock_timestamp();
	t timestamptz;
BEGIN
	FOR i IN 1 .. 1000 LOOP
		u := bench.uuidv7_sql();
		t := idgen_timestamp(u::idgen128);
		IF t < date_trunc('milliseconds', t0) - interval '1 ms' OR t > clock_timestamp() THEN
			RAISE EXCEPTION 'bench.uuidv7_sql() made % with time %, not between % and now',
				u, t, t0;
		END IF;
	END LOOP;
END
$$;

-- One row per timed query of the micro benchmark.  $N in query is replaced
-- by n, so the planner sees a constant row count.
CREATE TABLE bench.variant (
	ord integer PRIMARY KEY,
	name text NOT NULL UNIQUE,
	n bigint NOT NULL,
	query text NOT NULL
);

INSERT INTO bench.variant (ord, name, n, query) VALUES
	(1, 'floor', :N, 'SELECT count(*) FROM generate_series(1, $N)'),
	(2, 'random()', :N, 'SELECT count(random()) FROM generate_series(1, $N)'),
	(3, 'nextval CACHE 1', :N, 'SELECT count(nextval(''bench.s_cache1'')) FROM generate_series(1, $N)'),
	(4, 'nextval CACHE 1000', :N, 'SELECT count(nextval(''bench.s_cache1000'')) FROM generate_series(1, $N)'),
	(5, 'gen_random_uuid()', :N_UUID, 'SELECT count(gen_random_uuid()) FROM generate_series(1, $N)'),
	(6, 'idgen_next()', :N, 'SELECT count(idgen_next()) FROM generate_series(1, $N)'),
	(7, 'idgen_next_batch(N)', :N, 'SELECT count(*) FROM idgen_next_batch($N)'),
	(8, 'idgen_next128()', :N, 'SELECT count(idgen_next128()) FROM generate_series(1, $N)'),
	(9, 'bench.uuidv7_sql()', :N_UUID, 'SELECT count(bench.uuidv7_sql()) FROM generate_series(1, $N)');

-- The tables of the INSERT comparison, created fresh before each timed
-- INSERT and dropped right after it (insert.sql).
CREATE TABLE bench.insert_variant (
	ord integer PRIMARY KEY,
	name text NOT NULL UNIQUE,
	tbl text NOT NULL,
	id_column text NOT NULL
);

INSERT INTO bench.insert_variant (ord, name, tbl, id_column) VALUES
	(1, 'bigint identity', 'a', 'id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY'),
	(2, 'idgen', 'b', 'id idgen PRIMARY KEY DEFAULT idgen_next()'),
	(3, 'uuid (gen_random_uuid)', 'c', 'id uuid PRIMARY KEY DEFAULT gen_random_uuid()'),
	(4, 'idgen128', 'd', 'id idgen128 PRIMARY KEY DEFAULT idgen_next128()');

-- Every number the run measures; round 0 is the warm-up, left out of the
-- medians but kept in raw.csv.
CREATE TABLE bench.result (
	seq integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at timestamptz NOT NULL DEFAULT clock_timestamp(),
	section text NOT NULL,		-- micro, ahead, pgbench, insert
	round integer NOT NULL,
	pos integer NOT NULL,		-- place in the round's order, from 0
	variant text NOT NULL,
	n bigint NOT NULL,			-- IDs, rows or pgbench transactions
	elapsed_us bigint,
	tps numeric,
	latency_ms numeric,
	ahead_ms numeric,
	pkey_bytes bigint,
	heap_bytes bigint,
	seq_exhaustions bigint,		-- idgen_status() counters moved during the step
	clock_waits bigint
);

-- idgen_status() counters that tell whether generation outran the clock
CREATE FUNCTION bench.idgen_counters(OUT seq_exhaustions bigint, OUT clock_waits bigint)
LANGUAGE sql VOLATILE AS $$
	SELECT s.sequence_exhaustions, s.clock_waits FROM idgen_status() AS s
$$;

-- Run one micro variant once and record it; returns a progress line.
CREATE FUNCTION bench.measure(p_round integer, p_pos integer, p_variant text,
							  p_n bigint DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	v bench.variant;
	n bigint;
	q text;
	c0 record;
	c1 record;
	t0 timestamptz;
	t1 timestamptz;
	got bigint;
	us bigint;
BEGIN
	SELECT * INTO STRICT v FROM bench.variant WHERE name = p_variant;
	n := coalesce(p_n, v.n);
	q := replace(v.query, '$N', n::text);
	c0 := bench.idgen_counters();

	t0 := clock_timestamp();
	EXECUTE q INTO got;
	t1 := clock_timestamp();

	c1 := bench.idgen_counters();
	IF got IS DISTINCT FROM n THEN
		RAISE EXCEPTION 'variant "%" counted % rows, expected %', p_variant, got, n;
	END IF;
	us := ((extract(epoch FROM t1) - extract(epoch FROM t0)) * 1000000)::bigint;
	INSERT INTO bench.result (section, round, pos, variant, n, elapsed_us,
							  seq_exhaustions, clock_waits)
	VALUES ('micro', p_round, p_pos, p_variant, n, us,
			c1.seq_exhaustions - c0.seq_exhaustions, c1.clock_waits - c0.clock_waits);
	RETURN format('  round %s  %-22s %9s ms  %7s ns/ID', p_round, p_variant,
				  to_char(us / 1000.0, 'FM999990.0'),
				  to_char(us * 1000.0 / n, 'FM99990.0'));
END
$$;

-- How far IDs run ahead of the wall clock, three ways (p_what):
--   newest       the brief's figure: max of n idgen_next() from one
--                statement vs clock_timestamp() read right after it
--   per row      max over the n rows of (that ID's time - clock_timestamp()
--                read right after that ID): the most any ID led the clock
--   batch lead   the newest of idgen_next_batch(n) vs clock_timestamp()
--                read just before the statement: the lead a batch reserves
-- idgen_timestamp() is the start of the ID's millisecond, so each figure
-- reads up to 1 ms low.  A short sleep first lets the wall clock pass any
-- lead an earlier idgen_next_batch() reserved.
CREATE FUNCTION bench.measure_ahead(p_round integer, p_what text, p_n bigint)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	newest idgen;
	lead interval;
	c0 record;
	c1 record;
	t0 timestamptz;
	t1 timestamptz;
	us bigint;
	ahead numeric;
BEGIN
	PERFORM pg_sleep(0.2);
	c0 := bench.idgen_counters();
	t0 := clock_timestamp();
	CASE p_what
		WHEN 'newest' THEN
			SELECT max(idgen_next())::idgen INTO newest FROM generate_series(1, p_n);
			t1 := clock_timestamp();
			ahead := (extract(epoch FROM idgen_timestamp(newest)) - extract(epoch FROM t1)) * 1000;
		WHEN 'per row' THEN
			-- arguments are evaluated left to right: the clock is read after the ID
			SELECT max(idgen_timestamp(idgen_next()) - clock_timestamp()) INTO lead
			FROM generate_series(1, p_n);
			t1 := clock_timestamp();
			ahead := extract(epoch FROM lead) * 1000;
		WHEN 'batch lead' THEN
			SELECT max(id)::idgen INTO newest FROM idgen_next_batch(p_n::integer) AS id;
			t1 := clock_timestamp();
			ahead := (extract(epoch FROM idgen_timestamp(newest)) - extract(epoch FROM t0)) * 1000;
		ELSE
			RAISE EXCEPTION 'no ahead measurement "%"', p_what;
	END CASE;
	c1 := bench.idgen_counters();

	us := ((extract(epoch FROM t1) - extract(epoch FROM t0)) * 1000000)::bigint;
	INSERT INTO bench.result (section, round, pos, variant, n, elapsed_us, ahead_ms,
							  seq_exhaustions, clock_waits)
	VALUES ('ahead', p_round, 0, p_what, p_n, us, round(ahead, 3),
			c1.seq_exhaustions - c0.seq_exhaustions, c1.clock_waits - c0.clock_waits);
	RETURN format('  round %s  %-22s %9s ms ahead', p_round, p_what,
				  to_char(ahead, 'FM999990.000'));
END
$$;

-- The timed INSERT of the INSERT comparison, into a fresh table after a
-- CHECKPOINT (see insert.sql), then the sizes; returns a progress line.
CREATE FUNCTION bench.insert_measure(p_round integer, p_pos integer, p_variant text,
									 p_rows bigint)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	v bench.insert_variant;
	q text;
	t0 timestamptz;
	t1 timestamptz;
	got bigint;
	us bigint;
	pkey bigint;
	heap bigint;
BEGIN
	SELECT * INTO STRICT v FROM bench.insert_variant WHERE name = p_variant;
	q := format('INSERT INTO public.%I (v) SELECT g FROM generate_series(1, %s) AS g',
				v.tbl, p_rows);

	t0 := clock_timestamp();
	EXECUTE q;
	t1 := clock_timestamp();

	GET DIAGNOSTICS got = ROW_COUNT;
	IF got <> p_rows THEN
		RAISE EXCEPTION 'INSERT into % wrote % rows, expected %', v.tbl, got, p_rows;
	END IF;
	us := ((extract(epoch FROM t1) - extract(epoch FROM t0)) * 1000000)::bigint;
	pkey := pg_relation_size(format('public.%I', v.tbl || '_pkey')::regclass);
	heap := pg_relation_size(format('public.%I', v.tbl)::regclass);
	INSERT INTO bench.result (section, round, pos, variant, n, elapsed_us,
							  pkey_bytes, heap_bytes)
	VALUES ('insert', p_round, p_pos, p_variant, p_rows, us, pkey, heap);
	RETURN format('  round %s  %-22s %9s ms  pkey %s', p_round, p_variant,
				  to_char(us / 1000.0, 'FM999990.0'), pg_size_pretty(pkey));
END
$$;

-- The order of round r: the variants rotated by r - 1 places, so over as
-- many rounds as variants each one runs once in every position.
CREATE FUNCTION bench.plan(p_rounds integer, p_variants integer,
						   OUT round integer, OUT pos integer, OUT ord integer)
RETURNS SETOF record LANGUAGE sql IMMUTABLE AS $$
	SELECT r, p, (p + r - 1) % p_variants + 1
	FROM generate_series(1, p_rounds) AS r, generate_series(0, p_variants - 1) AS p
	ORDER BY r, p
$$;

-- A query's result as a markdown table, columns padded to line up.
-- Columns whose every value looks like a number are right-aligned.
CREATE FUNCTION bench.md_table(q text)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	data json;
	cols text[];
	nrows integer;
	ncols integer;
	cells text[];				-- row-major, header row first
	widths integer[];
	numeric_col boolean[];
	line text;
	cell text;
	i integer;
	j integer;
BEGIN
	EXECUTE format('SELECT coalesce(json_agg(t), ''[]'') FROM (%s) AS t', q) INTO data;
	nrows := json_array_length(data);
	IF nrows = 0 THEN
		RETURN NEXT '(no rows)';
		RETURN;
	END IF;
	SELECT array_agg(k ORDER BY o) INTO cols
	FROM json_object_keys(data -> 0) WITH ORDINALITY AS x(k, o);
	ncols := cardinality(cols);

	cells := cols;
	widths := array_fill(0, ARRAY[ncols]);
	numeric_col := array_fill(true, ARRAY[ncols]);
	FOR i IN 0 .. nrows - 1 LOOP
		FOR j IN 1 .. ncols LOOP
			cell := coalesce(data -> i ->> cols[j], '');
			cells := cells || cell;
			IF cell !~ '^[-+]?[0-9][0-9,.]*( ?[a-zA-Z%/]+)?$' AND cell <> '' THEN
				numeric_col[j] := false;
			END IF;
		END LOOP;
	END LOOP;
	FOR i IN 0 .. nrows LOOP
		FOR j IN 1 .. ncols LOOP
			widths[j] := greatest(widths[j], 3, length(cells[i * ncols + j]));
		END LOOP;
	END LOOP;

	FOR i IN 0 .. nrows LOOP
		line := '|';
		FOR j IN 1 .. ncols LOOP
			cell := cells[i * ncols + j];
			IF numeric_col[j] AND i > 0 THEN
				line := line || ' ' || lpad(cell, widths[j]) || ' |';
			ELSE
				line := line || ' ' || rpad(cell, widths[j]) || ' |';
			END IF;
		END LOOP;
		RETURN NEXT line;
		IF i = 0 THEN
			line := '|';
			FOR j IN 1 .. ncols LOOP
				IF numeric_col[j] THEN
					line := line || ' ' || repeat('-', widths[j] - 1) || ': |';
				ELSE
					line := line || ' ' || repeat('-', widths[j]) || ' |';
				END IF;
			END LOOP;
			RETURN NEXT line;
		END IF;
	END LOOP;
END
$$;
