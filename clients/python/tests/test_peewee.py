"""Peewee's CounterField: save() writes increments for page.views += 1,
merges for a CounterState, nothing for an untouched counter, '{}' or
NULL::counter_crdt + n for a new row; the value in comparisons, ordering
and sums; the guard on create_tables; a model's own save() and
only_save_dirty; psycopg 3 (playhouse.psycopg3_ext)."""
import logging
import unittest

import peewee
from peewee import IntegerField, Model, TextField, fn
import psycopg2
from psycopg2.extensions import parse_dsn

from counter_crdt import CounterState
from counter_crdt.peewee import (CounterField, CounterValue, CounterWriteError, create_tables,
                                 digest, guard_writes, increment, merge, merge_agg, new_counter,
                                 value)

import _server

OTHER = CounterState("{00000000-0000-0000-0000-00000000000a:1:40}")


def database(cls=peewee.PostgresqlDatabase):
    args = parse_dsn(_server.dsn())
    return cls(args.pop("dbname"), **args)


db = database()


class Base(Model):
    class Meta:
        database = db


class Page(Base):
    title = TextField(null=True)
    views = CounterField(default=0)

    class Meta:
        table_name = "pw_pages"


class Bare(Base):
    """A counter and its key, nothing else; no default but the column's."""
    views = CounterField()

    class Meta:
        table_name = "pw_bare"


class Dirty(Page):
    """Page's fields, saved with only_save_dirty."""

    class Meta:
        table_name = "pw_dirty"
        only_save_dirty = True


class Stamped(Page):
    """A subclass with a save() of its own that calls Peewee's."""
    saves = IntegerField(default=0)

    def save(self, *args, **kwargs):
        self.saves += 1
        return super().save(*args, **kwargs)

    class Meta:
        table_name = "pw_stamped"


class Plain(Base):
    """pw_pages as Peewee without this package sees it: views is text."""
    views = TextField()

    class Meta:
        table_name = "pw_pages"


class Queries(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.sql = []

    def emit(self, record):
        if isinstance(record.msg, tuple):
            self.sql.append(record.msg[0])


def other_session(sql, *params):
    """A statement of another session (another writer, meanwhile)."""
    conn = psycopg2.connect(_server.dsn())
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute(sql, params)
    finally:
        conn.close()


class PeeweeORM(unittest.TestCase):
    MODELS = [Page, Bare, Dirty, Stamped]

    @classmethod
    def setUpClass(cls):
        db.connect(reuse_if_open=True)
        db.execute_sql("SET client_min_messages = warning")
        db.drop_tables(cls.MODELS, safe=True)
        create_tables(db, cls.MODELS)
        with _server.connect() as conn:
            cls.guarded = _server.has_guard(conn)
        cls.log = Queries()
        logging.getLogger("peewee").addHandler(cls.log)
        logging.getLogger("peewee").setLevel(logging.DEBUG)

    @classmethod
    def tearDownClass(cls):
        logging.getLogger("peewee").removeHandler(cls.log)
        db.close()

    def setUp(self):
        db.rollback()                           # a failed statement's transaction
        for m in self.MODELS:
            m.delete().execute()
        Page.create(id=1, title="a", views=5)
        Page.create(id=2, title="b")
        Page.create(id=3, title="c", views=CounterState.empty())
        del self.log.sql[:]

    def updates(self):
        return [q for q in self.log.sql if q.startswith("UPDATE")]

    def raw_value(self, k, table="pw_pages"):
        return db.execute_sql("SELECT views::bigint FROM %s WHERE id = %%s" % table, (k,)).fetchone()[0]

    def test_reads(self):
        p = Page.get_by_id(1)
        self.assertIs(type(p.views), CounterValue)
        self.assertEqual(p.views, 5)
        self.assertEqual(p.views.state.value, 5)
        self.assertEqual(Page.get_by_id(2).views, 0)
        self.assertEqual(str(Page.get_by_id(3).views.state), "{}")

    def test_new_rows(self):
        Page.create(id=4, views=0)
        Page.create(id=5, views=7)
        Page.create(id=6, views=OTHER)
        Bare.create(id=1)                       # the column's default
        ins = [q for q in self.log.sql if q.startswith("INSERT")]
        self.assertIn("'{}'::counter_crdt", ins[0])
        self.assertIn("(NULL::counter_crdt + %s::bigint)", ins[1])
        self.assertIn("%s::counter_crdt", ins[2])
        self.assertEqual([self.raw_value(k) for k in (4, 5, 6)], [0, 7, 40])
        self.assertEqual(self.raw_value(1, "pw_bare"), 0)
        n = Dirty.create(views=3)               # a key the sequence gives
        n.views += 1
        n.save()
        self.assertEqual(self.raw_value(n.id, "pw_dirty"), 4)

    def test_insert_many_and_bulk_create(self):
        # class-level inserts write new counters as create() does: a bare
        # int would reach the server as an integer, which it refuses
        Page.insert(id=10, views=3).execute()
        Page.insert({Page.id: 11, Page.views: 0}).execute()
        Page.insert_many([{"id": 12, "views": 6}, {Page.id: 13, "views": OTHER},
                          {"id": 14, "title": "no counter"}]).execute()
        Page.insert_many([(15, -4), [16, str(OTHER)]], fields=[Page.id, "views"]).execute()
        Page.insert_many(((k, "t", k) for k in (17, 18)),
                         fields=[Page.id, Page.title, Page.views]).execute()
        # bulk_create() leaves the key to the sequence, past the keys above
        db.execute_sql("SELECT setval(pg_get_serial_sequence('pw_pages', 'id'), 100)")
        Page.bulk_create([Page(title="b1", views=9), Page(title="b2"),
                          Page(title="b3", views=OTHER), Page(title="b4", views=new_counter(2))])
        Dirty.bulk_create([Dirty(views=8)])     # a subclass, wrapped once
        self.assertEqual([self.raw_value(k) for k in range(10, 19)],
                         [3, 0, 6, 40, 0, -4, 40, 17, 18])
        self.assertEqual(db.execute_sql("SELECT string_agg(title || '=' || views::bigint, ' ' ORDER BY title)"
                                        " FROM pw_pages WHERE title LIKE 'b_'").fetchone()[0],
                         "b1=9 b2=0 b3=40 b4=2")
        self.assertEqual(db.execute_sql("SELECT views::bigint FROM pw_dirty").fetchall(), [(8,)])
        ins = " ".join(q for q in self.log.sql if q.startswith("INSERT"))
        self.assertEqual(ins.count("(NULL::counter_crdt + %s::bigint)"), 8)
        self.assertEqual(ins.count("'{}'::counter_crdt"), 3)
        with self.assertRaises(CounterWriteError):
            Page.insert_many([{"id": 23, "views": 1.5}])
        with self.assertRaises(CounterWriteError):
            Page.bulk_create([Page(title="b5", views=True)])
        self.assertIsNone(db.execute_sql("SELECT 1 FROM pw_pages WHERE id = 23 OR title = 'b5'").fetchone())

    def test_increment_is_written_as_increment(self):
        p = Page.get_by_id(1)
        p.views += 1
        other_session("UPDATE pw_pages SET views = views + 10 WHERE id = 1")
        self.assertEqual(p.save(), 1)
        self.assertEqual(self.raw_value(1), 16)         # 5 + 10 + 1: nothing lost
        (up,) = self.updates()
        self.assertIn('"views" = ("pw_pages"."views" + %s)', up)
        p.views -= 3
        p.save()
        self.assertEqual(self.raw_value(1), 13)

    def test_saves_in_a_row(self):
        p = Page.get_by_id(1)
        p.views += 1
        p.save()
        p.save()                                # written: not again
        p.views += 2
        p.save()                                # 2 more, not 3
        self.assertEqual(p.views, 8)
        self.assertEqual(self.raw_value(1), 8)
        self.assertEqual(len(self.updates()), 3)
        self.assertNotIn("views", self.updates()[1])

    def test_assigned_int_is_a_delta(self):
        p = Page.get_by_id(1)
        p.views = 12
        other_session("UPDATE pw_pages SET views = views + 10 WHERE id = 1")
        p.save()
        self.assertEqual(self.raw_value(1), 22)
        q = Page.select(Page.id, Page.title).where(Page.id == 2).get()   # read no counter
        q.views = 3
        q.save()
        self.assertEqual(self.raw_value(2), 3)
        for u in self.updates():
            self.assertIn('("pw_pages"."views" + %s)', u)

    def test_untouched_counter_is_not_written(self):
        p = Page.get_by_id(1)
        p.title = "renamed"
        p.save()
        p.views = p.views                       # the same: no write
        p.save()
        p.views = 5                             # the same value: no write
        p.save()
        self.assertFalse(p.is_dirty())
        ups = self.updates()
        self.assertEqual(len(ups), 3)
        for u in ups:
            self.assertNotIn("views", u)
        b = Bare.create(id=2, views=4)
        del self.log.sql[:]
        b = Bare.get_by_id(2)
        self.assertIs(b.save(), False)          # nothing to write: no UPDATE at all
        self.assertEqual(self.updates(), [])
        self.assertFalse(b.is_dirty())

    def test_only(self):
        p = Page.get_by_id(1)
        p.views += 4
        p.title = "not saved"
        p.save(only=[Page.views])
        self.assertEqual(self.raw_value(1), 9)
        self.assertEqual(Page.get_by_id(1).title, "a")

    def increment_beside_another(self, model):
        """A row of views 1 read, += 1 in the instance and + 10 by another
        session, then save(): 12, and the instance."""
        table = model._meta.table_name
        model.create(id=1, views=1)
        obj = model.get_by_id(1)
        obj.views += 1
        other_session("UPDATE %s SET views = views + 10 WHERE id = 1" % table)
        obj.save()
        self.assertEqual(self.raw_value(1, table), 12)
        self.assertIn('("%s"."views" + %%s)' % table, self.updates()[-1])
        return obj

    def test_only_save_dirty(self):
        d = self.increment_beside_another(Dirty)
        d.title = "t"
        d.save()
        self.assertEqual(self.raw_value(1, "pw_dirty"), 12)
        self.assertNotIn("views", self.updates()[-1])
        self.assertIs(d.save(), False)

    def test_own_save_and_subclass(self):
        s = self.increment_beside_another(Stamped)
        self.assertEqual(s.saves, 2)            # create(), save()

    def test_assigned_state_is_merged(self):
        p = Page.get_by_id(1)
        p.views = OTHER
        p.save()
        self.assertEqual(self.raw_value(1), 45)
        p.views = OTHER                         # already held: no write
        p.save()
        p = Page.get_by_id(1)
        p.views = OTHER                         # read back, held: no write
        p.save()
        ups = self.updates()
        self.assertEqual(len(ups), 3)
        self.assertIn('counter_crdt_merge("pw_pages"."views", %s::counter_crdt)', ups[0])
        self.assertNotIn("views", ups[1])
        self.assertNotIn("views", ups[2])

    def test_none_and_tombstones(self):
        p = Page.get_by_id(1)
        p.views = None
        self.assertRaises(CounterWriteError, p.save)
        self.assertEqual(self.raw_value(1), 5)
        p.views = CounterState.deleted()
        p.save()
        self.assertIsNone(Page.get_by_id(1).views)
        self.assertIsNone(self.raw_value(1))
        p.views = True
        self.assertRaises(CounterWriteError, p.save)

    def test_class_level_writes(self):
        Page.update(views=Page.views + 7).where(Page.id == 2).execute()
        Page.update(views=increment(Page.views, -2)).where(Page.id == 3).execute()
        self.assertIn('"views" = ("pw_pages"."views" + %s)', self.updates()[0])
        self.assertEqual((self.raw_value(2), self.raw_value(3)), (7, -2))
        with self.assertRaises(CounterWriteError):
            Page.update(views=3).execute()          # would set every counter to 3
        Page.update(views=OTHER).where(Page.id == 1).execute()
        self.assertIn("counter_crdt_merge", self.updates()[-1])
        self.assertEqual(self.raw_value(1), 45)
        Page.insert(id=9, views=new_counter(4)).execute()
        self.assertEqual(self.raw_value(9), 4)

    def test_queries(self):
        Page.update(views=Page.views + 7).where(Page.id == 2).execute()
        Page.update(views=Page.views - 2).where(Page.id == 3).execute()

        def ids(q):
            return [p.id for p in q]
        self.assertEqual(ids(Page.select().where(Page.views > 5)), [2])
        self.assertEqual(ids(Page.select().where(Page.views >= 5).order_by(value(Page.views))), [1, 2])
        self.assertEqual(ids(Page.select().where(Page.views == 5)), [1])
        self.assertEqual(ids(Page.select().where(Page.views != 5).order_by(Page.id)), [2, 3])
        self.assertEqual(ids(Page.select().where(Page.views.between(-2, 5)).order_by(Page.id)), [1, 3])
        self.assertEqual(ids(Page.select().where(Page.views.in_([7, -2])).order_by(Page.id)), [2, 3])
        self.assertEqual(ids(Page.select().order_by(Page.views.value.desc())), [2, 1, 3])
        self.assertEqual(ids(Page.select().order_by(Page.views)), [3, 1, 2])
        self.assertEqual(Page.select(fn.SUM(value(Page.views))).scalar(), 10)
        self.assertEqual(Page.select(fn.SUM(Page.views.value)).where(Page.id < 3).scalar(), 12)
        m = Page.select(merge_agg(Page.views)).scalar()
        self.assertIsInstance(m, CounterState)
        self.assertEqual(m.value, 7)            # one writer: the highest clock wins
        d = Page.select(digest(Page.views)).where(Page.id == 2).scalar()
        self.assertEqual((type(d), len(d)), (bytes, 32))
        self.assertEqual(Page.select(merge(Page.views, OTHER)).where(Page.id == 2).scalar().value, 47)
        self.assertEqual(Page.select(merge(Page.views, str(OTHER))).where(Page.id == 2).scalar().value, 47)
        self.assertEqual(CounterState(Page.select(new_counter(9).alias("n")).scalar()).value, 9)
        self.assertEqual(ids(Page.select().where(Page.views == OTHER)), [])
        s = Page.get_by_id(2).views.state
        self.assertEqual(ids(Page.select().where(Page.views == s)), [2])

    def test_guard(self):
        trig = db.execute_sql(
            "SELECT count(*) FROM pg_trigger WHERE tgname = 'counter_crdt_write_guard' "
            "AND tgrelid IN ('pw_pages'::regclass, 'pw_bare'::regclass, 'pw_dirty'::regclass, "
            "'pw_stamped'::regclass)").fetchone()[0]
        self.assertEqual(trig, 4 if self.guarded else 0)
        guard_writes(Page)                      # once more: no error, one trigger
        if not self.guarded:
            return
        # the trap, as Peewee without this package saves a row: the state
        # read written back after another writer's increment
        p = Plain.get_by_id(1)
        other_session("UPDATE pw_pages SET views = views + 1 WHERE id = 1")
        with self.assertRaises(peewee.IntegrityError) as e:
            p.save()
        db.rollback()
        self.assertIn("views", str(e.exception))
        self.assertEqual(self.raw_value(1), 6)


class Psycopg3(unittest.TestCase):
    """playhouse's psycopg 3 database: the same writes, with the
    parameters bound by the server."""

    def test_increment(self):
        try:
            from playhouse.psycopg3_ext import Psycopg3Database
        except ImportError:
            self.skipTest("Peewee %s has no psycopg 3 database" % peewee.__version__)
        db3 = database(Psycopg3Database)
        models = [Page, Bare]
        with db3.bind_ctx(models):
            create_tables(db3, models)
            Page.delete().execute()
            Page.create(id=1, views=2)
            Page.create(id=2, views=OTHER)
            p = Page.get_by_id(1)
            self.assertIs(type(p.views), CounterValue)
            p.views += 3
            other_session("UPDATE pw_pages SET views = views + 10 WHERE id = 1")
            p.save()
            p.views = OTHER
            p.save()
            self.assertEqual(Page.get_by_id(1).views, 55)
            self.assertEqual([x.id for x in Page.select().where(Page.views > 50).order_by(Page.views)], [1])
            self.assertEqual(Page.select(fn.SUM(value(Page.views))).scalar(), 95)
            self.assertEqual([x.id for x in Page.select().where(Page.views == OTHER)], [2])
        db3.close()


if __name__ == "__main__":
    unittest.main()
