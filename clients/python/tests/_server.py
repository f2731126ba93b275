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


# The binary form as counter_crdt_recv reads it, beside the package's reading.
PREFIX = "incorrect binary data format for type counter_crdt: "


class Raw(bytes):
    """Bytes sent as a counter_crdt in binary, unchecked (register_raw)."""


def register_raw(conn):
    """Lets a psycopg 3 connection send Raw bytes as a counter_crdt
    parameter in binary: the server reads them with counter_crdt_recv."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format
    oid = conn.execute("SELECT 'counter_crdt'::regtype::oid").fetchone()[0]

    class RawDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj):
            return bytes(obj)
    RawDumper.oid = oid
    conn.adapters.register_dumper(Raw, RawDumper)


def server_reads(conn, raw):
    """The server's canonical text of the bytes, or "refused: " and the
    detail of its error (conn: autocommit, register_raw)."""
    import psycopg
    try:
        return conn.execute("SELECT %b::text", [Raw(raw)]).fetchone()[0]
    except psycopg.errors.InvalidBinaryRepresentation as e:
        return "refused: " + e.diag.message_detail


def package_reads(raw):
    """The same from CounterState.from_binary: its error's text after the
    prefix, as the server's detail (which starts upper-case)."""
    from counter_crdt import CounterState
    try:
        return str(CounterState.from_binary(raw))
    except ValueError as e:
        m = str(e)
        if not m.startswith(PREFIX):
            return "refused without the prefix: " + m
        m = m[len(PREFIX):]
        return "refused: " + m[:1].upper() + m[1:]
