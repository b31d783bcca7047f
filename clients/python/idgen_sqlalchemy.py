"""idgen_sqlalchemy - the idgen types for SQLAlchemy 1.4 (postgresql+psycopg2)

    from sqlalchemy import Column, MetaData, Table, Text, text
    from idgen_sqlalchemy import Idgen, Idgen128

    orders = Table("orders", MetaData(),
        Column("id", Idgen, primary_key=True, server_default=text("idgen_next()")),
        Column("public_id", Idgen128, nullable=False,
               server_default=text("idgen_next128()")),
        Column("item", Text))

The column types render as idgen / idgen128 in DDL (create_all), read as a
Python int and a uuid.UUID (exact above 2**53), and bind parameters - the
values read and plain ints and UUIDs - as the idgen types: an idgen128
column takes no plain uuid without a cast.  Comparison and ORDER BY work on
the server's operators.  With idgen_pg.register() on each connection (see
listen_register below) the driver already returns Idgen / Idgen128; without
it the result processors convert the text.
"""
import uuid

from sqlalchemy import event
from sqlalchemy.types import UserDefinedType

import idgen_pg

__all__ = ["Idgen", "Idgen128", "listen_register"]


class Idgen(UserDefinedType):
    """the 64-bit idgen type"""

    cache_ok = True

    def get_col_spec(self, **kw):
        return "idgen"

    def bind_processor(self, dialect):
        def process(value):
            return None if value is None else idgen_pg.Idgen(value)
        return process

    def result_processor(self, dialect, coltype):
        def process(value):
            return None if value is None else idgen_pg.Idgen(value)
        return process

    @property
    def python_type(self):
        return int


class Idgen128(UserDefinedType):
    """the 128-bit idgen128 type (a UUIDv7)"""

    cache_ok = True

    def get_col_spec(self, **kw):
        return "idgen128"

    def bind_processor(self, dialect):
        def process(value):
            return None if value is None else idgen_pg.Idgen128(value)
        return process

    def result_processor(self, dialect, coltype):
        def process(value):
            if value is None or isinstance(value, idgen_pg.Idgen128):
                return value
            return idgen_pg.Idgen128(str(value))
        return process

    @property
    def python_type(self):
        return uuid.UUID


def listen_register(engine):
    """register idgen_pg on every new DBAPI connection of engine"""
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, connection_record):
        idgen_pg.register(dbapi_connection)
