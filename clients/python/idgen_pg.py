"""idgen_pg - idgen and idgen128 for psycopg 3 and psycopg2

    import psycopg            # or psycopg2
    import idgen_pg

    conn = psycopg.connect(...)
    idgen_pg.register(conn)

After register(conn), results of that connection hold an idgen as a Python
int (exact: Python ints have no 2**53 limit) and an idgen128 as a uuid.UUID,
their arrays as lists, in text and (psycopg 3) binary results.  The values
are of the subclasses Idgen(int) and Idgen128(uuid.UUID): they compare, hash
and print as the plain int and UUID, and as parameters they go back in as
the idgen types, where a plain int goes in as smallint/integer/bigint and a
plain UUID as uuid (which an idgen128 column does not take without a cast).
Wrap a plain value to pass it as an ID: Idgen(42), Idgen128(some_uuid).

The type OIDs differ per database, so register() looks them up in the
connection's database, in the schema the extension was created in; it
raises LookupError when the extension is not there.  It takes a psycopg 3
Connection (not an AsyncConnection) or a psycopg2 connection.  psycopg2 has no binary
results (its binary COPY is covered by the wire formats: int8's and uuid's).
"""
import uuid

__all__ = ["Idgen", "Idgen128", "register", "type_oids"]


class Idgen(int):
    """an idgen: an int that goes into queries as an idgen"""

    __slots__ = ()

    # int's __str__ would call the __repr__ below
    __str__ = int.__repr__

    def __repr__(self):
        return "Idgen(%d)" % self


class Idgen128(uuid.UUID):
    """an idgen128: a uuid.UUID that goes into queries as an idgen128"""

    __slots__ = ()

    def __init__(self, hex=None, **kwargs):
        """as uuid.UUID, and Idgen128(a_uuid) as well"""
        if isinstance(hex, uuid.UUID):
            super().__init__(int=hex.int)
        else:
            super().__init__(hex, **kwargs)

    def __repr__(self):
        return "Idgen128('%s')" % self


_TYPES_SQL = """
    SELECT t.typname, t.oid::int8, t.typarray::int8,
           quote_ident(n.nspname) || '.' || quote_ident(t.typname)
    FROM pg_catalog.pg_extension AS e
    JOIN pg_catalog.pg_type AS t ON t.typnamespace = e.extnamespace
    JOIN pg_catalog.pg_namespace AS n ON n.oid = t.typnamespace
    WHERE e.extname = 'idgen' AND t.typname IN ('idgen', 'idgen128')
"""


def type_oids(cursor):
    """{'idgen': (oid, array oid, qualified name), 'idgen128': (...)}"""
    cursor.execute(_TYPES_SQL)
    found = {name: (oid, array_oid, qualified)
             for name, oid, array_oid, qualified in cursor.fetchall()}
    if set(found) != {"idgen", "idgen128"}:
        raise LookupError("the extension idgen is not installed in this database")
    return found


def register(conn):
    """make conn read and write idgen and idgen128 (psycopg 3 or psycopg2)"""
    module = type(conn).__module__
    if module.startswith("psycopg2"):
        _register_psycopg2(conn)
    elif module.startswith("psycopg"):
        _register_psycopg(conn)
    else:
        raise TypeError("not a psycopg or psycopg2 connection: %r" % type(conn))


# --- psycopg 3 ---------------------------------------------------------------

def _register_psycopg(conn):
    from psycopg.adapt import Dumper, Loader
    from psycopg.pq import Format, TransactionStatus
    from psycopg.types import TypeInfo

    # the catalog query must not leave a transaction open behind the caller
    idle = conn.info.transaction_status == TransactionStatus.IDLE
    with conn.cursor(binary=False) as cur:
        found = type_oids(cur)
    if idle and not conn.autocommit:
        conn.rollback()

    # the wire formats are int8's (8 bytes big-endian) and uuid's (16 bytes)
    class IdgenLoader(Loader):
        def load(self, data):
            return Idgen(bytes(data))

    class IdgenBinaryLoader(Loader):
        format = Format.BINARY

        def load(self, data):
            return Idgen(int.from_bytes(data, "big", signed=True))

    class Idgen128Loader(Loader):
        def load(self, data):
            return Idgen128(bytes(data).decode("ascii"))

    class Idgen128BinaryLoader(Loader):
        format = Format.BINARY

        def load(self, data):
            return Idgen128(bytes=bytes(data))

    class IdgenDumper(Dumper):
        oid = found["idgen"][0]

        def dump(self, obj):
            return b"%d" % obj

    class IdgenBinaryDumper(IdgenDumper):
        format = Format.BINARY

        def dump(self, obj):
            return int(obj).to_bytes(8, "big", signed=True)

    class Idgen128Dumper(Dumper):
        oid = found["idgen128"][0]

        def dump(self, obj):
            return str(obj).encode("ascii")

    class Idgen128BinaryDumper(Idgen128Dumper):
        format = Format.BINARY

        def dump(self, obj):
            return obj.bytes

    adapters = conn.adapters
    for name, (oid, array_oid, qualified) in found.items():
        # known by name and OID, with its array type, for this connection
        TypeInfo(name, oid, array_oid, regtype=qualified).register(conn)
    adapters.register_loader(found["idgen"][0], IdgenLoader)
    adapters.register_loader(found["idgen"][0], IdgenBinaryLoader)
    adapters.register_loader(found["idgen128"][0], Idgen128Loader)
    adapters.register_loader(found["idgen128"][0], Idgen128BinaryLoader)
    adapters.register_dumper(Idgen, IdgenDumper)
    adapters.register_dumper(Idgen, IdgenBinaryDumper)
    adapters.register_dumper(Idgen128, Idgen128Dumper)
    adapters.register_dumper(Idgen128, Idgen128BinaryDumper)


# --- psycopg2 ----------------------------------------------------------------

def _quote_idgen128(value):
    import psycopg2.extensions
    # an untyped literal: the server takes it as the type the column or the
    # other operand has, so it needs no schema-qualified type name
    return psycopg2.extensions.QuotedString(str(value))


def _register_psycopg2(conn):
    import psycopg2.extensions as ext

    # the catalog query must not leave a transaction open behind the caller
    idle = conn.get_transaction_status() == ext.TRANSACTION_STATUS_IDLE
    with conn.cursor() as cur:
        found = type_oids(cur)
    if idle and not conn.autocommit:
        conn.rollback()

    def cast_idgen(text, cursor):
        return None if text is None else Idgen(text)

    def cast_idgen128(text, cursor):
        return None if text is None else Idgen128(text)

    for name, cast in (("idgen", cast_idgen), ("idgen128", cast_idgen128)):
        oid, array_oid, _qualified = found[name]
        scalar = ext.new_type((oid,), name.upper(), cast)
        ext.register_type(scalar, conn)
        ext.register_type(ext.new_array_type((array_oid,), name.upper() + "[]", scalar), conn)
    # adapters are global in psycopg2; Idgen is an int and adapts as one
    ext.register_adapter(Idgen128, _quote_idgen128)
