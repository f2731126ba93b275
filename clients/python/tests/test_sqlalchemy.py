"""The SQLAlchemy column type and the ORM's writes: increments for
page.views += 1, merges for a CounterState, nothing for an untouched
counter, NULL::counter_crdt + n for a new object; the value in comparisons,
ordering and the index; the guard on create_all."""
import re
import unittest

import sqlalchemy as sa
from sqlalchemy import Column, Index, Integer, String, event, select, update
from sqlalchemy.orm import Session, declarative_base

from counter_crdt import CounterState
from counter_crdt.sqlalchemy import (Counter, CounterWriteError, create_extension, digest,
                                     increment, merge, merge_agg, new_counter, value)

import _server

SA2 = sa.__version__.startswith("2.")
Base = declarative_base()


class Page(Base):
    __tablename__ = "sa_pages"
    id = Column(Integer, primary_key=True)
    title = Column(String)
    views = Column(Counter, nullable=False, server_default="{}")
    __table_args__ = (Index("sa_pages_views_value", value(views)),)


def make_engine():
    """psycopg 3 under SQLAlchemy 2.0, psycopg2 under 1.4 (which has no psycopg 3)."""
    if SA2:
        import psycopg
        return sa.create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(_server.dsn()))
    import psycopg2
    return sa.create_engine("postgresql+psycopg2://", creator=lambda: psycopg2.connect(_server.dsn()),
                            future=True)


class ORM(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.engine = make_engine()
        with cls.engine.begin() as c:
            c.exec_driver_sql("DROP TABLE IF EXISTS sa_pages")
        create_extension(Base.metadata)
        Base.metadata.create_all(cls.engine)
        cls.sql = []
        event.listen(cls.engine, "before_cursor_execute",
                     lambda conn, cur, stmt, params, ctx, many: cls.sql.append(stmt))
        with _server.connect() as conn:
            cls.guarded = _server.has_guard(conn)

    @classmethod
    def tearDownClass(cls):
        cls.engine.dispose()

    def setUp(self):
        with Session(self.engine) as s:
            s.query(Page).delete()
            s.add_all([Page(id=1, title="a", views=5), Page(id=2, title="b"),
                       Page(id=3, title="c", views=CounterState.empty())])
            s.commit()
        del self.sql[:]

    def updates(self):
        return [q for q in self.sql if q.lstrip().startswith("UPDATE")]

    def raw_value(self, k):
        with self.engine.connect() as c:
            return c.execute(sa.text("SELECT views::bigint FROM sa_pages WHERE id = :k"), {"k": k}).scalar()

    def test_new_objects(self):
        with Session(self.engine) as s:
            p = s.get(Page, 1)
            self.assertIsInstance(p.views, CounterState)
            self.assertEqual(p.views.value, 5)
            self.assertEqual(s.get(Page, 2).views, CounterState.empty())
            self.assertEqual(s.get(Page, 3).views.value, 0)

    def test_increment_is_written_as_increment(self):
        with Session(self.engine) as s:
            p = s.get(Page, 1)
            p.views += 1
            # meanwhile another writer increments
            with self.engine.begin() as c:
                c.execute(update(Page.__table__).where(Page.__table__.c.id == 1)
                          .values(views=increment(Page.__table__.c.views, 10)))
            s.commit()
            self.assertEqual(p.views.value, 16)        # 5 + 10 + 1: nothing lost
        ups = self.updates()
        self.assertEqual(len(ups), 2)
        self.assertRegex(ups[1], r"SET views=\(sa_pages\.views \+ CAST\(")
        self.assertEqual(self.raw_value(1), 16)

    def test_assigned_int_is_a_delta(self):
        with Session(self.engine) as s:
            p = s.get(Page, 1)
            p.views = 12
            s.commit()
            self.assertEqual(p.views.value, 12)
            s.expire(p)
            p.views = 3                      # assigned without reading first
            s.commit()
        self.assertEqual(self.raw_value(1), 3)
        for q in self.updates():
            self.assertIn("sa_pages.views +", q)

    def test_untouched_counter_is_not_written(self):
        with Session(self.engine) as s:
            p = s.get(Page, 1)
            p.title = "renamed"
            s.commit()
            p.views = p.views.value          # the same value: no write either
            s.commit()
        ups = self.updates()
        self.assertEqual(len(ups), 1)
        self.assertNotIn("views", ups[0])

    def test_assigned_state_is_merged(self):
        state = CounterState("{00000000-0000-0000-0000-00000000000a:1:40}")
        with Session(self.engine) as s:
            p = s.get(Page, 1)
            p.views = state
            s.commit()
            self.assertEqual(p.views.value, 45)
            p.views = state                  # already held: no write
            s.commit()
        ups = self.updates()
        self.assertEqual(len(ups), 1)
        self.assertIn("counter_crdt_merge(sa_pages.views", ups[0])

    def test_none_and_tombstones(self):
        with Session(self.engine) as s:
            p = s.get(Page, 1)
            p.views = None
            self.assertRaises(CounterWriteError, s.commit)
            s.rollback()
            p = s.get(Page, 1)
            p.views = CounterState.deleted()
            s.commit()
            self.assertIsNone(p.views.value)
            p.views = 3
            self.assertRaises(CounterWriteError, s.commit)

    def test_queries(self):
        with Session(self.engine) as s:
            s.execute(update(Page).where(Page.id == 2).values(views=Page.views + 7))
            s.execute(update(Page).where(Page.id == 3).values(views=Page.views - 2))
            s.commit()
            ids = lambda q: s.scalars(q).all()
            self.assertEqual(ids(select(Page.id).where(Page.views > 5)), [2])
            self.assertEqual(ids(select(Page.id).where(Page.views >= 5).order_by(value(Page.views))), [1, 2])
            self.assertEqual(ids(select(Page.id).where(Page.views == 5)), [1])
            self.assertEqual(ids(select(Page.id).where(Page.views != 5).order_by(Page.id)), [2, 3])
            self.assertEqual(ids(select(Page.id).where(Page.views.between(-2, 5)).order_by(Page.id)), [1, 3])
            self.assertEqual(ids(select(Page.id).where(Page.views.in_([7, -2])).order_by(Page.id)), [2, 3])
            self.assertEqual(ids(select(Page.id).order_by(Page.views.value.desc())), [2, 1, 3])
            self.assertEqual(ids(select(Page.id).order_by(Page.views)), [3, 1, 2])
            self.assertEqual(s.scalar(select(sa.func.sum(value(Page.views)))), 10)
            m = s.scalar(select(merge_agg(Page.views)))
            self.assertEqual(m.value, 7)        # one writer: the highest clock wins
            d = s.scalar(select(digest(Page.views)).where(Page.id == 2))
            self.assertEqual(len(d), 32)
            st = CounterState("{00000000-0000-0000-0000-00000000000a:1:40}")
            self.assertEqual(s.scalar(select(merge(Page.views, st)).where(Page.id == 2)).value, 47)
            self.assertEqual(s.scalar(select(new_counter(9))).value, 9)
            self.assertEqual(s.scalar(select(Page.id).where(Page.views == st)), None)

    def test_value_index(self):
        with self.engine.connect() as c:
            idx = c.execute(sa.text("SELECT indexdef FROM pg_indexes WHERE indexname = 'sa_pages_views_value'")).scalar()
        self.assertIn("((views)::bigint)", idx)

    def test_core_refuses_ints(self):
        with self.engine.begin() as c:
            with self.assertRaises(sa.exc.StatementError) as e:
                c.execute(Page.__table__.insert().values(id=9, views=5))
        self.assertIn("increment(col, n)", str(e.exception))

    def test_guard(self):
        with self.engine.connect() as c:
            trig = c.execute(sa.text("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'sa_pages'::regclass "
                                     "AND tgname = 'counter_crdt_write_guard'")).scalar()
        self.assertEqual(trig, 1 if self.guarded else 0)
        if not self.guarded:
            return
        # the raw read-modify-write: a state read, written back after an increment
        t = Page.__table__
        with self.engine.connect() as c:
            stale = c.execute(select(t.c.views).where(t.c.id == 1)).scalar()
            c.execute(update(t).where(t.c.id == 1).values(views=t.c.views + 1))
            c.commit()
            with self.assertRaises(sa.exc.IntegrityError) as e:
                c.execute(update(t).where(t.c.id == 1).values(views=stale))
            c.rollback()
        self.assertIn("views", str(e.exception))
        self.assertEqual(self.raw_value(1), 6)


class AsyncORM(unittest.TestCase):
    """An AsyncSession on asyncpg: the same increments, nothing lost."""

    def test_increment(self):
        from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine
        sync = make_engine()
        create_extension(Base.metadata)
        Base.metadata.create_all(sync)
        sql = []

        async def run():
            engine = create_async_engine("postgresql+asyncpg://", connect_args=_server.asyncpg_args())
            event.listen(engine.sync_engine, "before_cursor_execute",
                         lambda conn, cur, stmt, params, ctx, many: sql.append(stmt))
            try:
                async with AsyncSession(engine) as s:
                    await s.execute(sa.delete(Page).where(Page.id == 7))
                    s.add(Page(id=7, title="async", views=2))
                    await s.commit()
                    p = await s.get(Page, 7)
                    self.assertEqual(p.views.value, 2)
                    p.views += 3
                    async with engine.begin() as c:     # meanwhile another writer
                        await c.execute(update(Page).where(Page.id == 7).values(views=Page.views + 10))
                    await s.commit()
                    await s.refresh(p)
                    v = p.views
                    p.title = "renamed"                 # the counter is not written
                    await s.commit()
                    return v, await s.scalar(select(value(Page.views)).where(Page.id == 7))
            finally:
                await engine.dispose()
        import asyncio
        try:
            v, now = asyncio.run(run())
        finally:
            sync.dispose()
        self.assertIsInstance(v, CounterState)
        self.assertEqual((v.value, now), (15, 15))
        ups = [q for q in sql if q.lstrip().startswith("UPDATE")]
        self.assertEqual(len(ups), 3)
        self.assertRegex(ups[1], r"SET views=\(sa_pages\.views \+ CAST\(")
        self.assertNotIn("views", ups[2].split("WHERE")[0])


if __name__ == "__main__":
    unittest.main()
