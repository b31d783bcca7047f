#!/usr/bin/env python3
"""copy_roundtrip.py - idgen and idgen128 through psycopg2 and COPY

usage: copy_roundtrip.py CONNSTR

Run by test/t/052_clients.pl against a node where the extension exists in
the database CONNSTR names.  Prints one line per check,

    check <name> ok
    check <name> FAIL <detail>

and a last line "done"; the TAP test asserts on those lines.  Exits 0 when
every check passed, 1 when one failed, 2 when something broke on the way.

What it checks:
  - text COPY out and back in keeps every idgen and idgen128 exactly, NULLs
    too;
  - binary COPY out and back in keeps them exactly; the binary fields are
    the int8 wire format (8 bytes, big-endian two's complement) and the uuid
    wire format (16 bytes), so they also load into bigint / uuid columns and
    back;
  - binary COPY refuses a negative idgen and a uuid that is not version 7 or
    variant 10, with a proper SQLSTATE;
  - psycopg2 returns an idgen as text by default (an unknown type); with a
    typecaster registered for the type's OID, as a Python int, exact above
    2**53; an idgen128 becomes a uuid.UUID of version 7 with
    psycopg2.extras.register_uuid; Python ints and UUIDs go back in as
    parameters.
"""
import io
import struct
import sys
import uuid

import psycopg2
import psycopg2.extensions
import psycopg2.extras

failures = 0


def check(name, ok, detail=""):
    global failures
    if ok:
        print("check %s ok" % name)
    else:
        failures += 1
        print("check %s FAIL %s" % (name, detail))
    sys.stdout.flush()


# values a client must not round: above 2**53, the largest idgen, UUIDv7
# extremes; generated ones are added by the server
BIG = 2**53 + 1                 # 9007199254740993, not a double
MAX = 2**63 - 1
FIXED = [
    (1, BIG, "01234567-89ab-7def-8123-456789abcdef"),
    (2, MAX, "ffffffff-ffff-7fff-bfff-ffffffffffff"),
    (3, 2**53 - 1, "00000000-0000-7000-8000-000000000000"),
    (4, None, None),
]


def parse_binary_copy(data):
    """rows of a binary COPY stream: lists of bytes (None for NULL)"""
    sig = b"PGCOPY\n\xff\r\n\x00"
    if not data.startswith(sig):
        raise ValueError("no binary COPY signature")
    pos = len(sig)
    _flags, ext_len = struct.unpack_from("!ii", data, pos)
    pos += 8 + ext_len
    rows = []
    while True:
        (nfields,) = struct.unpack_from("!h", data, pos)
        pos += 2
        if nfields == -1:
            break
        row = []
        for _ in range(nfields):
            (length,) = struct.unpack_from("!i", data, pos)
            pos += 4
            if length == -1:
                row.append(None)
            else:
                row.append(data[pos:pos + length])
                pos += length
        rows.append(row)
    if pos != len(data):
        raise ValueError("%d bytes after the trailer" % (len(data) - pos))
    return rows


def copy_out(cur, sql, binary):
    buf = io.BytesIO() if binary else io.StringIO()
    cur.copy_expert(sql, buf)
    return buf.getvalue()


def copy_in(cur, sql, data):
    buf = io.BytesIO(data) if isinstance(data, bytes) else io.StringIO(data)
    cur.copy_expert(sql, buf)


def same_rows(cur, a, b):
    """both tables hold exactly the same rows (compared by the types' =)"""
    cur.execute("""
        SELECT (SELECT count(*) FROM %(a)s), (SELECT count(*) FROM %(b)s),
               (SELECT count(*) FROM (SELECT n, id, id128 FROM %(a)s
                                      EXCEPT SELECT n, id, id128 FROM %(b)s) AS x),
               (SELECT count(*) FROM (SELECT n, id, id128 FROM %(b)s
                                      EXCEPT SELECT n, id, id128 FROM %(a)s) AS x),
               (SELECT count(*) FROM %(a)s JOIN %(b)s USING (n)
                WHERE %(a)s.id::text IS DISTINCT FROM %(b)s.id::text
                   OR %(a)s.id128::text IS DISTINCT FROM %(b)s.id128::text)
        """ % {"a": a, "b": b})
    na, nb, only_a, only_b, text_diff = cur.fetchone()
    return (na == nb and only_a == 0 and only_b == 0 and text_diff == 0,
            "rows %d/%d, only in %s %d, only in %s %d, text differs %d"
            % (na, nb, a, only_a, b, only_b, text_diff))


def sqlstate_of(conn, fn):
    """run fn(cursor) in a savepoint; the SQLSTATE it failed with, or 'ok'"""
    cur = conn.cursor()
    cur.execute("SAVEPOINT s")
    try:
        fn(cur)
    except psycopg2.Error as e:
        cur.execute("ROLLBACK TO SAVEPOINT s")
        return e.pgcode or "no-sqlstate"
    cur.execute("RELEASE SAVEPOINT s")
    return "ok"


def main():
    conn = psycopg2.connect(sys.argv[1])
    conn.autocommit = False
    cur = conn.cursor()

    cur.execute("SELECT 'idgen'::regtype::oid, 'idgen128'::regtype::oid, "
                "'_idgen'::regtype::oid, '_idgen128'::regtype::oid")
    idgen_oid, idgen128_oid, idgen_arr_oid, idgen128_arr_oid = cur.fetchone()

    cur.execute("""
        CREATE TEMP TABLE src (n int PRIMARY KEY, id idgen, id128 idgen128);
        CREATE TEMP TABLE from_text (LIKE src);
        CREATE TEMP TABLE from_binary (LIKE src);
        CREATE TEMP TABLE wire (n int, id bigint, id128 uuid);
        CREATE TEMP TABLE from_wire (LIKE src);
        """)
    for n, i, u in FIXED:
        # Python int and str go in as parameters
        cur.execute("INSERT INTO src VALUES (%s, %s, %s)", (n, i, u))
    cur.execute("""
        INSERT INTO src SELECT 100 + g, idgen_next(), idgen_next128()
        FROM generate_series(1, 500) AS g;
        INSERT INTO src SELECT 1000 + row_number() OVER (), b, NULL
        FROM idgen_next_batch(50) AS b;
        INSERT INTO src SELECT 2000 + row_number() OVER (), NULL, b
        FROM idgen_next128_batch(50) AS b;
        """)
    cur.execute("SELECT count(*), min(id::bigint) > 2^53 FROM src WHERE n > 100")
    nsrc, above = cur.fetchone()
    check("generated_ids_above_2_53", above, "generated IDs are not above 2**53")

    # --- text COPY -------------------------------------------------------
    text = copy_out(cur, "COPY src TO STDOUT", binary=False)
    check("text_copy_has_big", ("1\t%d\t%s\n" % (BIG, FIXED[0][2])) in text,
          "the text COPY line of n=1 is not '1\\t%d\\t%s'" % (BIG, FIXED[0][2]))
    copy_in(cur, "COPY from_text FROM STDIN", text)
    ok, detail = same_rows(cur, "src", "from_text")
    check("text_copy_roundtrip", ok, detail)

    # text COPY with a header and CSV, too
    csv = copy_out(cur, "COPY src TO STDOUT (FORMAT csv, HEADER)", binary=False)
    cur.execute("TRUNCATE from_text")
    copy_in(cur, "COPY from_text FROM STDIN (FORMAT csv, HEADER)", csv)
    ok, detail = same_rows(cur, "src", "from_text")
    check("csv_copy_roundtrip", ok, detail)

    # --- binary COPY -----------------------------------------------------
    data = copy_out(cur, "COPY src TO STDOUT (FORMAT binary)", binary=True)
    rows = parse_binary_copy(data)
    check("binary_copy_rows", len(rows) == len(FIXED) + 600,
          "%d rows in the binary stream" % len(rows))
    by_n = {struct.unpack("!i", r[0])[0]: r for r in rows}
    wire_ok = True
    detail = ""
    for n, i, u in FIXED:
        r = by_n.get(n)
        want_id = None if i is None else struct.pack("!q", i)
        want_u = None if u is None else uuid.UUID(u).bytes
        if r is None or r[1] != want_id or r[2] != want_u:
            wire_ok = False
            detail += "n=%d: %r; " % (n, r)
    check("binary_wire_format", wire_ok,
          detail or "idgen is not 8-byte int8, idgen128 not 16-byte uuid")
    copy_in(cur, "COPY from_binary FROM STDIN (FORMAT binary)", data)
    ok, detail = same_rows(cur, "src", "from_binary")
    check("binary_copy_roundtrip", ok, detail)

    # the same bytes are a bigint and a uuid, and back
    copy_in(cur, "COPY wire FROM STDIN (FORMAT binary)", data)
    cur.execute("SELECT count(*) FROM src JOIN wire USING (n) "
                "WHERE src.id::bigint IS DISTINCT FROM wire.id "
                "   OR src.id128::uuid IS DISTINCT FROM wire.id128")
    check("binary_as_bigint_uuid", cur.fetchone()[0] == 0,
          "bigint/uuid columns loaded from the binary stream differ")
    back = copy_out(cur, "COPY wire TO STDOUT (FORMAT binary)", binary=True)
    copy_in(cur, "COPY from_wire FROM STDIN (FORMAT binary)", back)
    ok, detail = same_rows(cur, "src", "from_wire")
    check("binary_from_bigint_uuid", ok, detail)

    # binary input is checked like text input
    def binary_stream(id_bytes, uuid_bytes):
        out = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
        out += struct.pack("!h", 3) + struct.pack("!i", 4) + struct.pack("!i", 1)
        out += struct.pack("!i", len(id_bytes)) + id_bytes
        out += struct.pack("!i", len(uuid_bytes)) + uuid_bytes
        return out + struct.pack("!h", -1)

    good_u = uuid.UUID(FIXED[0][2]).bytes
    st = sqlstate_of(conn, lambda c: copy_in(
        c, "COPY from_binary FROM STDIN (FORMAT binary)",
        binary_stream(struct.pack("!q", -5), good_u)))
    check("binary_negative_refused", st == "22003",
          "a negative idgen in binary COPY: %s" % st)
    st = sqlstate_of(conn, lambda c: copy_in(
        c, "COPY from_binary FROM STDIN (FORMAT binary)",
        binary_stream(struct.pack("!q", BIG),
                      uuid.UUID("01234567-89ab-4def-8123-456789abcdef").bytes)))
    check("binary_v4_refused", st == "22P03",
          "a version 4 uuid as idgen128 in binary COPY: %s" % st)
    st = sqlstate_of(conn, lambda c: copy_in(
        c, "COPY from_binary FROM STDIN (FORMAT binary)",
        binary_stream(struct.pack("!q", BIG),
                      uuid.UUID("01234567-89ab-7def-c123-456789abcdef").bytes)))
    check("binary_variant_refused", st == "22P03",
          "a variant 11 uuid as idgen128 in binary COPY: %s" % st)
    st = sqlstate_of(conn, lambda c: copy_in(
        c, "COPY from_binary FROM STDIN (FORMAT binary)",
        binary_stream(struct.pack("!i", 5), good_u)))
    check("binary_short_refused", st == "22P03",
          "a 4-byte idgen in binary COPY: %s" % st)

    # --- values in Python ----------------------------------------------------
    cur.execute("SELECT id FROM src WHERE n = 1")
    raw = cur.fetchone()[0]
    check("default_is_text", isinstance(raw, str) and raw == str(BIG),
          "without a typecaster: %r" % (raw,))

    def cast_idgen(value, _cur):
        return None if value is None else int(value)

    idgen_type = psycopg2.extensions.new_type((idgen_oid,), "IDGEN", cast_idgen)
    psycopg2.extensions.register_type(idgen_type, conn)
    psycopg2.extensions.register_type(
        psycopg2.extensions.new_array_type((idgen_arr_oid,), "IDGEN[]", idgen_type),
        conn)
    psycopg2.extras.register_uuid(oids=(idgen128_oid, idgen128_arr_oid), conn_or_curs=conn)

    cur.execute("SELECT n, id, id128, id::text, id128::text FROM src ORDER BY n")
    exact = True
    detail = ""
    count = 0
    for n, i, u, itext, utext in cur.fetchall():
        count += 1
        if i is not None and (type(i) is not int or str(i) != itext):
            exact = False
            detail += "n=%d id %r vs %s; " % (n, i, itext)
        if u is not None and (not isinstance(u, uuid.UUID) or str(u) != utext
                              or u.version != 7 or u.variant != uuid.RFC_4122):
            exact = False
            detail += "n=%d id128 %r vs %s; " % (n, u, utext)
    check("typecaster_exact", exact and count == nsrc + len(FIXED),
          detail or "%d rows" % count)

    cur.execute("SELECT id FROM src WHERE n = 1")
    got = cur.fetchone()[0]
    check("big_is_python_int", type(got) is int and got == BIG and got != float(BIG),
          "%r" % (got,))
    cur.execute("SELECT id FROM src WHERE n = 2")
    got = cur.fetchone()[0]
    check("max_is_python_int", type(got) is int and got == MAX, "%r" % (got,))

    cur.execute("SELECT array_agg(id ORDER BY n) FROM src WHERE n IN (1, 2)")
    got = cur.fetchone()[0]
    check("array_of_idgen", got == [BIG, MAX], "%r" % (got,))

    # Python values back in as parameters
    cur.execute("SELECT %s::idgen = id, %s::idgen128 = id128 FROM src WHERE n = 1",
                (BIG, uuid.UUID(FIXED[0][2])))
    check("parameters_back", cur.fetchone() == (True, True), "parameters did not match")
    cur.execute("SELECT id, id128 FROM src WHERE n > 100 ORDER BY n LIMIT 1")
    gen_id, gen_u = cur.fetchone()
    cur.execute("SELECT count(*) FROM src WHERE id = %s AND id128 = %s", (gen_id, gen_u))
    check("generated_back", cur.fetchone()[0] == 1,
          "a generated ID read into Python does not find its row again")

    conn.rollback()
    conn.close()
    print("done")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a broken run, not a failed check
        print("error %s: %s" % (type(e).__name__, e))
        sys.exit(2)
