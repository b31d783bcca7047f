#!/usr/bin/env python3
"""python_drivers.py - clients/python/idgen_pg.py through psycopg 3 and psycopg2

usage: python_drivers.py psycopg|psycopg2 CONNSTR OTHER_CONNSTR NOEXT_CONNSTR

Run by test/t/053_orms.pl (with clients/python on PYTHONPATH) against a node
where the extension exists in the database CONNSTR names.  Prints one line
per check, "check <name> ok" or "check <name> FAIL <detail>", and a last
line "done"; exits 0 when every check passed, 1 when one failed.

What it checks, for the driver named (psycopg 3 in text and in binary
results, psycopg2 in text: it has no binary results):
  - without register() an idgen is not an int (psycopg 3: str or bytes;
    psycopg2: str);
  - after register(conn) an idgen is a Python int and an idgen128 a
    uuid.UUID, equal to what the server prints; arrays of both are lists
    of them; NULL is None;
  - 100 consecutive generated IDs, above 2**53 and not all doubles, are
    exact; so are 2**53 + 1 and 2**63 - 1;
  - values read go back in as parameters (INSERT, =, <, ORDER BY), and so
    do plain values wrapped in Idgen / Idgen128;
  - in OTHER_CONNSTR's database the extension is in schema "ids", not on
    the search_path: register() finds the types there; in NOEXT_CONNSTR's
    there is no extension: register() raises LookupError.
"""
import sys
import uuid

import idgen_pg

failures = 0


def check(name, ok, detail=""):
    global failures
    if ok:
        print("check %s ok" % name)
    else:
        failures += 1
        print("check %s FAIL %s" % (name, detail))
    sys.stdout.flush()


BIG = 2**53 + 1
MAX = 2**63 - 1
U = "01234567-89ab-7def-8123-456789abcdef"


def exercise(conn, cursor_for, tag, table):
    """the checks after register(), with cursors from cursor_for()"""
    cur = cursor_for()
    cur.execute("""
        SELECT b, b::text, u, u::text
        FROM idgen_next_batch(100) WITH ORDINALITY AS x(b, n)
        JOIN LATERAL (SELECT idgen_next128() AS u) AS y ON true
        ORDER BY n""")
    rows = cur.fetchall()
    ints = [r[0] for r in rows]
    check(tag + "_idgen_is_int", all(type(i) is idgen_pg.Idgen and isinstance(i, int) for i in ints),
          "types %r" % {type(i).__name__ for i in ints})
    check(tag + "_idgen_exact", all(r[0] == int(r[1]) and str(r[0]) == r[1] for r in rows),
          "a value differs from the server's text")
    check(tag + "_above_2_53", min(ints) > 2**53 and any(float(i) != i for i in ints),
          "min %d; every value a double: %s" % (min(ints), all(float(i) == i for i in ints)))
    uuids = [r[2] for r in rows]
    check(tag + "_idgen128_is_uuid", all(isinstance(u, uuid.UUID) and u.version == 7 for u in uuids),
          "types %r" % {type(u).__name__ for u in uuids})
    check(tag + "_idgen128_exact", all(str(r[2]) == r[3] for r in rows),
          "a uuid differs from the server's text")

    cur.execute("SELECT %d::idgen, %d::idgen, '%s'::idgen128, NULL::idgen, NULL::idgen128"
                % (BIG, MAX, U))
    big, mx, u, n1, n2 = cur.fetchone()
    check(tag + "_fixed_exact", (big, mx, u, n1, n2) == (BIG, MAX, uuid.UUID(U), None, None)
          and type(big) is idgen_pg.Idgen and type(u) is idgen_pg.Idgen128,
          "got %r" % ((big, mx, u, n1, n2),))

    cur.execute("SELECT array_agg(b ORDER BY b), array_agg(idgen_next128()) "
                "FROM idgen_next_batch(3) AS b")
    a, au = cur.fetchone()
    check(tag + "_arrays", isinstance(a, list) and len(a) == 3 and all(type(x) is idgen_pg.Idgen for x in a)
          and a == sorted(a) and isinstance(au, list) and all(isinstance(x, uuid.UUID) for x in au),
          "got %r, %r" % (a, au))

    # back in as parameters: the values read, and wrapped plain ones
    cur.execute("CREATE TEMP TABLE %s (n int, id idgen, u idgen128)" % table)
    for k, r in enumerate(rows[:10]):
        cur.execute("INSERT INTO " + table + " VALUES (%s, %s, %s)", (k, r[0], r[2]))
    cur.execute("INSERT INTO " + table + " VALUES (%s, %s, %s)",
                (100, idgen_pg.Idgen(BIG), idgen_pg.Idgen128(U)))
    cur.execute("INSERT INTO " + table + " VALUES (%s, %s, %s)",
                (101, idgen_pg.Idgen(7), idgen_pg.Idgen128(uuid.UUID(U))))
    cur.execute("SELECT count(*) FROM " + table + " WHERE id = %s AND u = %s", (rows[3][0], rows[3][2]))
    check(tag + "_params_equal", cur.fetchone()[0] == 1, "a read value does not find its row")
    cur.execute("SELECT n, id FROM " + table + " WHERE id > %s AND n < 100 ORDER BY id", (rows[4][0],))
    got = cur.fetchall()
    check(tag + "_params_compare_order", [g[0] for g in got] == [5, 6, 7, 8, 9]
          and [g[1] for g in got] == ints[5:10], "got %r" % (got,))
    cur.execute("SELECT id, id::text, u FROM " + table + " WHERE n = 100")
    i, t, uu = cur.fetchone()
    check(tag + "_wrapped_back", i == BIG and t == str(BIG) and uu == uuid.UUID(U),
          "got %r" % ((i, t, uu),))


# --- the recipes of docs/clients.md ------------------------------------------

def recipe_psycopg(connstr):
    import uuid

    import psycopg
    import idgen_pg

    with psycopg.connect(connstr) as conn:
        idgen_pg.register(conn)
        conn.execute("""CREATE TEMP TABLE orders (
                            id idgen PRIMARY KEY DEFAULT idgen_next(),
                            public_id idgen128 NOT NULL DEFAULT idgen_next128(),
                            item text)""")
        order_id, public_id = conn.execute(
            "INSERT INTO orders (item) VALUES (%s) RETURNING id, public_id",
            ["book"]).fetchone()            # an int and a uuid.UUID
        item = conn.execute(
            "SELECT item FROM orders WHERE id = %s AND public_id = %s",
            [order_id, public_id]).fetchone()[0]
        # binary results: the same values, from int8's and uuid's formats
        same = conn.cursor(binary=True).execute(
            "SELECT id, public_id FROM orders").fetchone()
        # a plain int or UUID as an ID: wrap it
        conn.execute("INSERT INTO orders VALUES (%s, %s, 'pen')",
                     [idgen_pg.Idgen(2**53 + 1),
                      idgen_pg.Idgen128(uuid.UUID("01234567-89ab-7def-8123-456789abcdef"))])
        pen = conn.execute("SELECT id FROM orders WHERE item = 'pen'").fetchone()[0]
        server = conn.execute("SELECT id::text, public_id::text FROM orders WHERE item = 'book'").fetchone()
    return order_id, public_id, item, same, pen, server


def recipe_psycopg2(connstr):
    import uuid

    import psycopg2
    import idgen_pg

    with psycopg2.connect(connstr) as conn, conn.cursor() as cur:
        idgen_pg.register(conn)
        cur.execute("""CREATE TEMP TABLE orders (
                           id idgen PRIMARY KEY DEFAULT idgen_next(),
                           public_id idgen128 NOT NULL DEFAULT idgen_next128(),
                           item text)""")
        cur.execute("INSERT INTO orders (item) VALUES (%s) RETURNING id, public_id",
                    ["book"])
        order_id, public_id = cur.fetchone()  # an int and a uuid.UUID
        cur.execute("SELECT item FROM orders WHERE id = %s AND public_id = %s",
                    [order_id, public_id])
        item = cur.fetchone()[0]
        cur.execute("INSERT INTO orders VALUES (%s, %s, 'pen')",
                    [2**53 + 1,
                     idgen_pg.Idgen128(uuid.UUID("01234567-89ab-7def-8123-456789abcdef"))])
        cur.execute("SELECT id FROM orders WHERE item = 'pen'")
        pen = cur.fetchone()[0]
        cur.execute("SELECT id::text, public_id::text FROM orders WHERE item = 'book'")
        server = cur.fetchone()
    return order_id, public_id, item, (order_id, public_id), pen, server


def check_recipe(tag, result):
    order_id, public_id, item, same, pen, server = result
    check(tag + "_recipe", isinstance(order_id, int) and isinstance(public_id, uuid.UUID)
          and str(order_id) == server[0] and str(public_id) == server[1] and item == "book"
          and tuple(same) == (order_id, public_id) and pen == 2**53 + 1,
          "got %r" % (result,))


def run_psycopg(connstr):
    import psycopg
    check_recipe("p3", recipe_psycopg(connstr))
    conn = psycopg.connect(connstr, autocommit=True)
    v = conn.execute("SELECT idgen_next()").fetchone()[0]
    vb = conn.cursor(binary=True).execute("SELECT idgen_next()").fetchone()[0]
    check("p3_default_not_int", not isinstance(v, int) and not isinstance(vb, int),
          "without register: %r, %r" % (v, vb))
    idgen_pg.register(conn)
    check("p3_register_left_idle", conn.info.transaction_status == 0, "a transaction is open")
    exercise(conn, lambda: conn.cursor(binary=False), "p3_text", "t_text")
    bcur = conn.cursor(binary=True)
    bcur.execute("SELECT idgen_next(), idgen_next128()")
    check("p3_binary_is_binary", bcur.pgresult.fformat(0) == 1 and bcur.pgresult.fformat(1) == 1,
          "the result was not binary")
    exercise(conn, lambda: conn.cursor(binary=True), "p3_binary", "t_binary")
    # a transaction the caller opened stays open
    conn2 = psycopg.connect(connstr)
    conn2.execute("CREATE TEMP TABLE keep (x int)")
    idgen_pg.register(conn2)
    check("p3_register_keeps_transaction", conn2.info.transaction_status == 2, "status %s"
          % conn2.info.transaction_status)
    conn2.close()
    conn.close()


def run_psycopg2(connstr):
    import psycopg2
    check_recipe("p2", recipe_psycopg2(connstr))
    conn = psycopg2.connect(connstr)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT idgen_next()")
    v = cur.fetchone()[0]
    check("p2_default_not_int", not isinstance(v, int), "without register: %r" % (v,))
    idgen_pg.register(conn)
    exercise(conn, conn.cursor, "p2_text", "t_text")
    conn.close()


def other_databases(driver, other, noext):
    module = __import__(driver)
    conn = module.connect(other)
    idgen_pg.register(conn)
    cur = conn.cursor()
    cur.execute("SELECT i, ids.idgen_next128(), i::text FROM ids.idgen_next() AS i")
    i, u, t = cur.fetchone()
    check(driver + "_other_schema", type(i) is idgen_pg.Idgen and str(i) == t
          and type(u) is idgen_pg.Idgen128, "got %r" % ((i, u, t),))
    conn.close()
    conn = module.connect(noext)
    try:
        idgen_pg.register(conn)
        raised = "nothing"
    except LookupError as e:
        raised = str(e)
    check(driver + "_no_extension", "not installed" in raised, "raised %r" % raised)
    conn.close()


def main():
    driver, connstr, other, noext = sys.argv[1:5]
    {"psycopg": run_psycopg, "psycopg2": run_psycopg2}[driver](connstr)
    other_databases(driver, other, noext)
    print("done")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
