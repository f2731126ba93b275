"""The server the tests run against: COUNTER_CRDT_TEST_DSN, a libpq
connection string (a database where the test may create tables and the
extension)."""
import os

DSN = os.environ.get("COUNTER_CRDT_TEST_DSN")


def dsn():
    if not DSN:
        raise RuntimeError("set COUNTER_CRDT_TEST_DSN to a libpq connection string "
                           "of a throwaway database")
    return DSN


def connect():
    """A psycopg 3 connection in autocommit, with the extension created."""
    import psycopg
    conn = psycopg.connect(dsn(), autocommit=True)
    conn.execute("SET client_min_messages = warning")
    conn.execute("CREATE EXTENSION IF NOT EXISTS counter_crdt")
    return conn


def has_guard(conn):
    return conn.execute(
        "SELECT to_regprocedure('counter_crdt_guard_writes(regclass)') IS NOT NULL"
    ).fetchone()[0]


def asyncpg_args():
    """The DSN as asyncpg.connect()'s keyword arguments."""
    from psycopg.conninfo import conninfo_to_dict
    d = conninfo_to_dict(dsn())
    args = {k: d[k] for k in ("host", "port", "user", "password") if k in d}
    if "dbname" in d:
        args["database"] = d["dbname"]
    return args
