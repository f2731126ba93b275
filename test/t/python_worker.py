"""One application process of test/t/029_python.pl: N increments of one
counter, each in its own transaction, through one driver or ORM of the
counter_crdt package.

    python_worker.py MODE TABLE KEY N

The server is the libpq environment's (PGHOST, PGPORT, PGDATABASE); TABLE
is (id int PRIMARY KEY, views counter_crdt NOT NULL).  The worker connects,
prints "ready", waits for SIGUSR1 (so that the processes of a run start
together), then prints "done OK REFUSED": the increments committed,
and those the server refused with IntegrityError (SQLSTATE 23000, the
write guard).  Any other error ends it with a traceback and exit status 1.

MODE:
  psycopg      psycopg 3, registered: UPDATE ... SET views = views + %s
  psycopg2     psycopg2, registered: the same
  asyncpg      asyncpg, registered: UPDATE ... SET views = views + $1
  core-DRIVER  SQLAlchemy Core: update().values(views=increment(col, 1))
  orm-DRIVER   SQLAlchemy ORM: page = session.get(Page, KEY);
               page.views += 1; session.commit()
               (DRIVER: psycopg2, psycopg, asyncpg: an AsyncSession)
  peewee       Peewee (PostgresqlDatabase, psycopg2): page =
               Page.get_by_id(KEY); page.views += 1; page.save()
  writeback    the read-modify-write trap by hand with psycopg 3, as an ORM
               without this package saves a loaded row: the state read,
               then written back (UPDATE ... SET views = %s); it adds
               nothing, and undoes every increment made in between unless
               the write guard refuses it
  plus1, plus2 the state read, then written back plus one (two)
               (UPDATE ... SET views = %s::counter_crdt + 1): two such
               processes with different steps make two states from one
               read, which the write guard refuses
"""
import asyncio
import signal
import sys


def ready():
    print("ready", flush=True)
    signal.sigwait({signal.SIGUSR1})


def done(ok, refused):
    print("done %d %d" % (ok, refused), flush=True)


def run_psycopg(table, key, n):
    import psycopg
    from counter_crdt.psycopg import register
    with psycopg.connect("", autocommit=True) as conn:
        register(conn)
        sql = "UPDATE %s SET views = views + %%s WHERE id = %%s" % table
        ready()
        for _ in range(n):
            conn.execute(sql, [1, key])
    done(n, 0)


def run_psycopg2(table, key, n):
    import psycopg2
    from counter_crdt.psycopg2 import register
    conn = psycopg2.connect("")
    conn.autocommit = True
    register(conn)
    cur = conn.cursor()
    sql = "UPDATE %s SET views = views + %%s WHERE id = %%s" % table
    ready()
    for _ in range(n):
        cur.execute(sql, (1, key))
    conn.close()
    done(n, 0)


def run_asyncpg(table, key, n):
    import asyncpg
    from counter_crdt.asyncpg import register

    async def run():
        conn = await asyncpg.connect()
        await register(conn)
        sql = "UPDATE %s SET views = views + $1 WHERE id = $2" % table
        ready()
        for _ in range(n):
            await conn.execute(sql, 1, key)
        await conn.close()
    asyncio.run(run())
    done(n, 0)


def run_writeback(table, key, n, plus=0):
    import psycopg
    from counter_crdt.psycopg import register
    ok = refused = 0
    with psycopg.connect("", autocommit=True) as conn:
        register(conn)
        read = "SELECT views FROM %s WHERE id = %%s" % table
        write = "UPDATE %s SET views = %%s%s WHERE id = %%s" % (
            table, "::counter_crdt + %d" % plus if plus else "")
        ready()
        for _ in range(n):
            (state,) = conn.execute(read, [key]).fetchone()
            try:
                conn.execute(write, [state, key])
                ok += 1
            except psycopg.errors.IntegrityError as e:
                if e.sqlstate != "23000":
                    raise
                refused += 1
    done(ok, refused)


def model(table):
    import sqlalchemy as sa
    from sqlalchemy.orm import declarative_base
    from counter_crdt.sqlalchemy import Counter
    Base = declarative_base()

    class Page(Base):
        __tablename__ = table
        id = sa.Column(sa.Integer, primary_key=True)
        views = sa.Column(Counter, nullable=False)
    return Page


URLS = {"psycopg2": "postgresql+psycopg2://", "psycopg": "postgresql+psycopg://",
        "asyncpg": "postgresql+asyncpg://"}


def run_core(driver, table, key, n):
    import sqlalchemy as sa
    from counter_crdt.sqlalchemy import increment
    t = model(table).__table__
    engine = sa.create_engine(URLS[driver], future=True)
    stmt = sa.update(t).where(t.c.id == key).values(views=increment(t.c.views, 1))
    with engine.connect() as conn:
        conn.execute(sa.text("SELECT 1"))
        ready()
        for _ in range(n):
            conn.execute(stmt)
            conn.commit()
    done(n, 0)


def run_orm(driver, table, key, n):
    Page = model(table)
    if driver == "asyncpg":
        from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

        async def run():
            engine = create_async_engine(URLS[driver])
            async with AsyncSession(engine) as session:
                await session.get(Page, key)
                await session.commit()
                ready()
                for _ in range(n):
                    page = await session.get(Page, key)
                    page.views += 1
                    await session.commit()
            await engine.dispose()
        asyncio.run(run())
        done(n, 0)
        return
    import sqlalchemy as sa
    from sqlalchemy.orm import Session
    engine = sa.create_engine(URLS[driver], future=True)
    with Session(engine) as session:
        session.get(Page, key)
        session.commit()
        ready()
        for _ in range(n):
            page = session.get(Page, key)
            page.views += 1
            session.commit()
    done(n, 0)


def run_peewee(table, key, n):
    import os
    import peewee
    from counter_crdt.peewee import CounterField
    db = peewee.PostgresqlDatabase(os.environ["PGDATABASE"])

    class Page(peewee.Model):
        id = peewee.IntegerField(primary_key=True)
        views = CounterField()

        class Meta:
            database = db
            table_name = table
    Page.get_by_id(key)
    ready()
    for _ in range(n):
        page = Page.get_by_id(key)
        page.views += 1
        page.save()
    db.close()
    done(n, 0)


def main(argv):
    # held pending from here, so that a SIGUSR1 sent before sigwait() counts
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    mode, table, key, n = argv[1], argv[2], int(argv[3]), int(argv[4])
    if mode.startswith("core-"):
        run_core(mode[5:], table, key, n)
    elif mode.startswith("orm-"):
        run_orm(mode[4:], table, key, n)
    else:
        {"psycopg": run_psycopg, "psycopg2": run_psycopg2, "asyncpg": run_asyncpg,
         "peewee": run_peewee, "writeback": run_writeback,
         "plus1": lambda *a: run_writeback(*a, plus=1),
         "plus2": lambda *a: run_writeback(*a, plus=2)}[mode](table, key, n)


if __name__ == "__main__":
    main(sys.argv)
