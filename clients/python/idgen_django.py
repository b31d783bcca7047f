"""idgen_django - idgen and idgen128 model fields for Django 3.2 (PostgreSQL)

    from django.db import models
    from idgen_django import IdgenField, Idgen128Field

    class Order(models.Model):
        id = IdgenField(primary_key=True)
        public_id = Idgen128Field(unique=True)
        item = models.TextField()

`makemigrations` and `migrate` create the columns as

    id idgen DEFAULT idgen_next() NOT NULL PRIMARY KEY
    public_id idgen128 DEFAULT idgen_next128() NOT NULL UNIQUE

the way a serial column carries its default in its type.  On save (and
bulk_create) a new row's unset fields are sent as DEFAULT, so the server
draws the IDs, and the fields are read back through RETURNING
(db_returning): after save() obj.id and obj.public_id hold them.  A
ForeignKey to such a primary key is a plain idgen column.  An idgen reads
as an int (exact above 2**53), an idgen128 as a uuid.UUID.

Django 3.2 has no db_default: the DEFAULT lives in the column type, so
AlterField from another type to these fields cannot be migrated by Django
(use a RunSQL operation for that change).  Import this module before the
first connection (the models module does) so each connection registers the
driver's typecasters (idgen_pg.register) for RETURNING, which Django 3.2
does not pass through from_db_value.
"""
import uuid

from django.db import models
from django.db.backends.signals import connection_created
from django.db.models.expressions import Expression

import idgen_pg

__all__ = ["IdgenField", "Idgen128Field"]


class _ColumnDefault(Expression):
    """DEFAULT in an INSERT's VALUES: the column's default draws the ID"""

    def as_sql(self, compiler, connection):
        return "DEFAULT", []


class _DrawnByServer:
    """what both fields share: a server-drawn default, read back on insert"""

    db_returning = True

    def pre_save(self, model_instance, add):
        value = getattr(model_instance, self.attname)
        if add and value is None:
            return _ColumnDefault()
        return value

    def formfield(self, **kwargs):
        # an ID the server draws is not typed into a form
        return None


class IdgenField(_DrawnByServer, models.BigIntegerField):
    description = "idgen: unique, time-sortable 64-bit ID drawn by the server"

    def db_type(self, connection):
        return "idgen DEFAULT idgen_next()"

    def rel_db_type(self, connection):
        return "idgen"

    def cast_db_type(self, connection):
        return "idgen"

    def from_db_value(self, value, expression, connection):
        return None if value is None else idgen_pg.Idgen(value)


class Idgen128Field(_DrawnByServer, models.UUIDField):
    description = "idgen128: unique, time-sortable UUIDv7 drawn by the server"

    def db_type(self, connection):
        return "idgen128 DEFAULT idgen_next128()"

    def rel_db_type(self, connection):
        return "idgen128"

    def cast_db_type(self, connection):
        return "idgen128"

    def get_db_prep_value(self, value, connection, prepared=False):
        value = super().get_db_prep_value(value, connection, prepared)
        # a plain uuid would be sent as ...::uuid, which an idgen128 column
        # takes only with an explicit cast
        if isinstance(value, uuid.UUID):
            return idgen_pg.Idgen128(value)
        return value

    def from_db_value(self, value, expression, connection):
        if value is None or isinstance(value, idgen_pg.Idgen128):
            return value
        return idgen_pg.Idgen128(str(value))


def _register(sender, connection, **kwargs):
    if connection.vendor != "postgresql":
        return
    try:
        idgen_pg.register(connection.connection)
    except LookupError:
        # no extension yet (a migration may create it): reads still convert
        # through from_db_value, RETURNING gives the text until a reconnect
        pass


connection_created.connect(_register, dispatch_uid="idgen_django.register")
