"""manage.py idgen_checks - the Django recipe of docs/clients.md, checked

Run by test/t/053_orms.pl after manage.py migrate.  Prints "check <name>
ok|FAIL <detail>" lines and "done"; exits 1 when a check failed.
"""
import sys
import uuid

from django.core.management.base import BaseCommand
from django.db import connection

import idgen_pg
from shop.models import Line, Order

U = "01234567-89ab-7def-8123-456789abcdef"


class Command(BaseCommand):
    help = "check the idgen model fields against the server"

    def check_(self, name, ok, detail=""):
        if ok:
            print("check %s ok" % name)
        else:
            self.failures += 1
            print("check %s FAIL %s" % (name, detail))
        sys.stdout.flush()

    def sql(self, query, params=()):
        with connection.cursor() as cur:
            cur.execute(query, params)
            return cur.fetchall()

    def handle(self, *args, **options):
        self.failures = 0
        check = self.check_

        cols = self.sql("""
            SELECT table_name, column_name, udt_name, column_default, is_nullable
            FROM information_schema.columns
            WHERE table_name IN ('shop_order', 'shop_line')
              AND udt_name IN ('idgen', 'idgen128')
            ORDER BY 1, 2""")
        want = [("shop_line", "id", "idgen", "idgen_next()", "NO"),
                ("shop_line", "order_id", "idgen", None, "NO"),
                ("shop_order", "id", "idgen", "idgen_next()", "NO"),
                ("shop_order", "public_id", "idgen128", "idgen_next128()", "NO")]
        check("migrate_columns_defaults", cols == want, "got %r" % (cols,))

        # save(): the server draws both IDs, RETURNING brings them back
        o = Order(item="first")
        o.save()
        srv = self.sql("SELECT id::text, public_id::text FROM shop_order WHERE item = 'first'")
        check("save_reads_id", isinstance(o.id, int) and [(str(o.id), str(o.public_id))] == srv,
              "object %r %r, server %r" % (o.id, o.public_id, srv))
        check("save_id_above_2_53", isinstance(o.id, int) and o.id > 2**53, "id %r" % (o.id,))
        check("save_reads_idgen128", isinstance(o.public_id, uuid.UUID) and o.public_id.version == 7,
              "public_id %r" % (o.public_id,))

        line = Line.objects.create(order=o, product="p1")
        check("create_with_foreign_key", isinstance(line.id, int) and line.id > o.id
              and [x.product for x in o.lines.all()] == ["p1"]
              and self.sql("SELECT order_id::text FROM shop_line") == [(str(o.id),)],
              "line %r" % (line.id,))

        batch = Order.objects.bulk_create([Order(item="bulk%d" % k) for k in range(10)])
        ids = [b.id for b in batch]
        srv = dict(self.sql("SELECT item, id::text FROM shop_order WHERE item LIKE 'bulk%%'"))
        check("bulk_create_reads_ids", all(isinstance(i, int) for i in ids) and ids == sorted(ids)
              and len(set(ids)) == 10 and all(srv[b.item] == str(b.id) for b in batch),
              "ids %r, server %r" % (ids, srv))
        # at least one of them is no double: the ints are exact, not rounded
        check("ids_exact_not_doubles", any(float(i) != i for i in ids + [o.id, line.id]),
              "ids %r" % (ids,))

        # read back and query: compare, order, look up by either ID
        got = list(Order.objects.filter(id__gt=ids[5], id__lte=ids[8])
                   .order_by("-id").values_list("item", flat=True))
        check("query_compare_order", got == ["bulk8", "bulk7", "bulk6"], "got %r" % (got,))
        again = Order.objects.get(pk=o.id)
        check("get_by_id", again.item == "first" and again.id == o.id and
              again.public_id == o.public_id and type(again.id) is idgen_pg.Idgen, "got %r" % again)
        by_uuid = Order.objects.get(public_id=uuid.UUID(str(batch[2].public_id)))
        check("filter_by_plain_uuid", by_uuid.id == batch[2].id, "got %r" % by_uuid.id)
        newest = Order.objects.order_by("-public_id").first()
        check("order_by_idgen128", newest.item == "bulk9", "got %r" % newest.item)

        # explicit values, above 2**53, go in and come back exactly
        Order(id=2**53 + 1, public_id=uuid.UUID(U), item="fixed").save(force_insert=True)
        f = Order.objects.get(id=2**53 + 1)
        check("explicit_ids_exact", f.id == 2**53 + 1 and f.public_id == uuid.UUID(U)
              and self.sql("SELECT id::text FROM shop_order WHERE item = 'fixed'")
              == [(str(2**53 + 1),)], "got %r %r" % (f.id, f.public_id))

        # an update keeps the IDs
        o.item = "renamed"
        o.save()
        check("update_keeps_ids", self.sql("SELECT id::text, public_id::text FROM shop_order "
                                           "WHERE item = 'renamed'")
              == [(str(o.id), str(o.public_id))], "after update")

        # plain SQL gets the same defaults
        raw = self.sql("INSERT INTO shop_order (item) VALUES ('raw') RETURNING id, public_id")
        check("sql_insert_uses_defaults", len(raw) == 1 and raw[0][0] > ids[-1]
              and isinstance(raw[0][1], uuid.UUID), "got %r" % (raw,))

        print("done")
        if self.failures:
            sys.exit(1)
