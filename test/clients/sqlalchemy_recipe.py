#!/usr/bin/env python3
"""sqlalchemy_recipe.py - docs/clients.md's SQLAlchemy 1.4 recipe, checked

usage: sqlalchemy_recipe.py CONNSTR

Run by test/t/053_orms.pl (clients/python on PYTHONPATH).  Prints "check
<name> ok|FAIL <detail>" lines and "done"; exits 0 when every check passed.

  - create_all makes idgen / idgen128 columns with DEFAULT idgen_next() /
    idgen_next128();
  - Core INSERT ... RETURNING reads the new IDs back, exact above 2**53;
  - the ORM reads them back on flush (the primary key, and with
    eager_defaults the idgen128 column);
  - queries compare and order by them, with the values read, plain ints
    and plain UUIDs as parameters.
"""
import sys
import uuid

import psycopg2
from sqlalchemy import Column, MetaData, Table, Text, create_engine, select, text
from sqlalchemy.orm import Session, declarative_base

from idgen_sqlalchemy import Idgen, Idgen128, listen_register

failures = 0


def check(name, ok, detail=""):
    global failures
    if ok:
        print("check %s ok" % name)
    else:
        failures += 1
        print("check %s FAIL %s" % (name, detail))
    sys.stdout.flush()


# --- the recipe (docs/clients.md) ---------------------------------------
metadata = MetaData()

orders = Table(
    "sa_orders", metadata,
    Column("id", Idgen, primary_key=True, server_default=text("idgen_next()")),
    Column("public_id", Idgen128, nullable=False, server_default=text("idgen_next128()")),
    Column("item", Text),
)

Base = declarative_base()


class Event(Base):
    __tablename__ = "sa_events"
    __mapper_args__ = {"eager_defaults": True}   # read public_id back too

    id = Column(Idgen, primary_key=True, server_default=text("idgen_next()"))
    public_id = Column(Idgen128, nullable=False, server_default=text("idgen_next128()"))
    name = Column(Text)
# --- end of the recipe ----------------------------------------------------


def main():
    connstr = sys.argv[1]
    engine = create_engine("postgresql+psycopg2://",
                           creator=lambda: psycopg2.connect(connstr))
    listen_register(engine)
    metadata.drop_all(engine)
    Base.metadata.drop_all(engine)
    metadata.create_all(engine)
    Base.metadata.create_all(engine)

    with engine.begin() as conn:
        cols = conn.execute(text("""
            SELECT table_name, column_name, udt_name, column_default
            FROM information_schema.columns
            WHERE table_name IN ('sa_orders', 'sa_events')
              AND column_name IN ('id', 'public_id')
            ORDER BY 1, 2""")).fetchall()
    want = [("sa_events", "id", "idgen", "idgen_next()"),
            ("sa_events", "public_id", "idgen128", "idgen_next128()"),
            ("sa_orders", "id", "idgen", "idgen_next()"),
            ("sa_orders", "public_id", "idgen128", "idgen_next128()")]
    check("ddl_types_defaults", [tuple(c) for c in cols] == want, "got %r" % (cols,))

    # Core: INSERT ... RETURNING, one row and several
    with engine.begin() as conn:
        row = conn.execute(orders.insert().values(item="first")
                           .returning(orders.c.id, orders.c.public_id)).one()
        srv = conn.execute(text("SELECT id::text, public_id::text FROM sa_orders "
                                "WHERE item = 'first'")).one()
        check("core_returning", isinstance(row.id, int) and str(row.id) == srv[0]
              and isinstance(row.public_id, uuid.UUID) and str(row.public_id) == srv[1],
              "RETURNING %r, server %r" % (tuple(row), tuple(srv)))
        check("core_above_2_53", row.id > 2**53, "id %d" % row.id)
        rows = [conn.execute(orders.insert().values(item="item%d" % k)
                             .returning(orders.c.id, orders.c.item)).one()
                for k in range(20)]
        ids = [r.id for r in rows]
        check("core_ids_ascend", ids == sorted(ids) and len(set(ids)) == 20 and ids[0] > row.id,
              "ids %r" % ids)
        conn.execute(orders.insert(), [{"id": 2**53 + 1, "public_id": uuid.UUID(
            "01234567-89ab-7def-8123-456789abcdef"), "item": "fixed"}])
        got = conn.execute(select(orders.c.id, orders.c.public_id)
                           .where(orders.c.item == "fixed")).one()
        check("core_exact_params", got.id == 2**53 + 1 and
              got.public_id == uuid.UUID("01234567-89ab-7def-8123-456789abcdef"),
              "got %r" % (tuple(got),))

        # compare and order by them
        got = conn.execute(select(orders.c.item).where(orders.c.id > ids[14])
                           .where(orders.c.id <= ids[17])
                           .order_by(orders.c.id.desc())).scalars().all()
        check("query_compare_order", got == ["item17", "item16", "item15"], "got %r" % (got,))
        pid = conn.execute(select(orders.c.public_id).where(orders.c.id == ids[3])).scalar_one()
        got = conn.execute(select(orders.c.item).where(orders.c.public_id == uuid.UUID(str(pid)))
                           ).scalar_one()
        check("query_by_plain_uuid", got == "item3", "got %r" % (got,))
        newest = conn.execute(select(orders.c.item).order_by(orders.c.public_id.desc())
                              .limit(1)).scalar_one()
        check("query_order_idgen128", newest == "item19", "got %r" % (newest,))

    # ORM: the ids read back on flush
    with Session(engine) as session:
        events = [Event(name="e%d" % k) for k in range(5)]
        session.add_all(events)
        session.flush()
        check("orm_flush_reads_id", all(isinstance(e.id, int) and e.id > 2**53 for e in events),
              "ids %r" % [e.id for e in events])
        check("orm_flush_reads_idgen128", all(isinstance(e.public_id, uuid.UUID)
                                              and e.public_id.version == 7 for e in events),
              "public ids %r" % [e.public_id for e in events])
        session.commit()
        srv = dict(session.execute(text("SELECT name, id::text FROM sa_events")).fetchall())
        check("orm_ids_match_server", all(srv[e.name] == str(e.id) for e in events),
              "server %r" % srv)
        again = session.get(Event, events[2].id)
        check("orm_get_by_id", again is events[2], "got %r" % again)
        later = session.execute(select(Event.name).where(Event.id >= events[3].id)
                                .order_by(Event.id)).scalars().all()
        check("orm_query_compare_order", later == ["e3", "e4"], "got %r" % later)

    print("done")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
