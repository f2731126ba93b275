#!/usr/bin/python3
# psycopg 3 (Debian's python3-psycopg) against counter_crdt, as
# test/t/019_clients.pl runs it: one "ok N - what" or "not ok N - what" line
# per check, exit status 1 if any failed.
#
#   CLIENTS_DSN='host=... port=... dbname=postgres' \
#   CLIENTS_DSN_B='host=... port=... dbname=postgres' /usr/bin/python3 clients.py
#
# CLIENTS_DSN is the server of the checks of one server (increments with
# bound parameters, the value, the state as text and in binary, filters,
# sums); CLIENTS_DSN_B a second server, for a binary COPY of counters from
# one server into the other, which merges them.  Each server gets a fresh
# table t (k int primary key, c counter_crdt).
import os
import re
import struct
import sys
import uuid
from decimal import Decimal

import psycopg
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.types import TypeInfo

n_checks = 0
n_failed = 0


def check(ok, what, got=None):
    global n_checks, n_failed
    n_checks += 1
    if ok:
        print(f"ok {n_checks} - {what}")
    else:
        n_failed += 1
        print(f"not ok {n_checks} - {what}")
        if got is not None:
            print(f"#   got: {got!r}")
    sys.stdout.flush()


def fresh_table(conn):
    conn.execute("CREATE EXTENSION IF NOT EXISTS counter_crdt")
    conn.execute("DROP TABLE IF EXISTS t, staging")
    conn.execute("CREATE TABLE t (k int PRIMARY KEY, c counter_crdt)")
    conn.execute("INSERT INTO t SELECT k, NULL::counter_crdt + 0 FROM generate_series(1, 3) k")


def rows(conn, sql, params=None, **kw):
    return conn.execute(sql, params, **kw).fetchall()


# A counter state in the binary form, sent as such (%b): recv reads it.
class CounterState(bytes):
    pass


def decode_v1(data):
    """The binary form, version 1 (src/core/cc_wire.h): shards (id, clock, value)."""
    version, flags, count = struct.unpack_from(">BBI", data, 0)
    shards = [
        (str(uuid.UUID(bytes=data[6 + 32 * i : 22 + 32 * i])),)
        + struct.unpack_from(">qq", data, 22 + 32 * i)
        for i in range(count)
    ]
    return version, flags, shards, len(data) == 6 + 32 * count


a = psycopg.connect(os.environ["CLIENTS_DSN"], autocommit=True)
fresh_table(a)
me = a.execute("SELECT counter_crdt_node_id()::text").fetchone()[0]

# What psycopg sends a Python int, a Decimal and a float as: the smallest
# integer type that holds the int, numeric beyond bigint; float8.
for value, sent in [
    (7, "smallint"),
    (40000, "integer"),
    (3_000_000_000, "bigint"),
    (10**20, "numeric"),
    (Decimal("149.5"), "numeric"),
    (149.5, "double precision"),
]:
    got = a.execute("SELECT pg_typeof(%s)::text", [value]).fetchone()[0]
    check(got == sent, f"a Python {type(value).__name__} {value} is sent as {sent}", got)

# Increments with bound parameters.
for delta, k in [(5, 1), (7, 1), (-2, 1), (100, 2), (50, 2), (3_000_000_000, 3)]:
    cur = a.execute("UPDATE t SET c = c + %s WHERE k = %s", [delta, k])
    check(cur.rowcount == 1, f"UPDATE t SET c = c + {delta} WHERE k = {k}", cur.rowcount)

# The value, and the state as text.
got = rows(a, "SELECT k, c::bigint FROM t ORDER BY k")
check(got == [(1, 10), (2, 150), (3, 3_000_000_000)], "c::bigint reads the values as int", got)
got = a.execute("SELECT c FROM t WHERE k = %s", [1]).fetchone()[0]
check(got == "{%s:4:10}" % me, "c in text is the state, a str: {writer:clock:value}", got)

# The state in binary: bytes, the binary form of send (version 1 here).
state = a.execute("SELECT c FROM t WHERE k = %s", [1], binary=True).fetchone()[0]
check(isinstance(state, bytes), "c in binary results is bytes", type(state))
got = a.execute("SELECT counter_crdt_send(c) FROM t WHERE k = 1").fetchone()[0]
check(state == got, "the bytes are counter_crdt_send(c)", (state, got))
check(decode_v1(state) == (1, 0, [(me, 4, 10)], True),
      "the bytes decode as version 1: one shard (writer, 4, 10)", decode_v1(state))

# Sent back as a parameter in binary: the server reads it with recv.
info = TypeInfo.fetch(a, "counter_crdt")


class CounterStateDumper(Dumper):
    format = Format.BINARY
    oid = info.oid

    def dump(self, obj):
        return bytes(obj)


a.adapters.register_dumper(CounterState, CounterStateDumper)
got = a.execute("SELECT %b::bigint, %b::text, (SELECT c FROM t WHERE k = 1) = %b",
                [CounterState(state)] * 3).fetchone()
check(got == (10, "{%s:4:10}" % me, True),
      "the bytes sent back in binary are the same counter", got)
try:
    a.execute("SELECT %b::text", [CounterState(state[:-1])])
    check(False, "a truncated binary state is refused")
except psycopg.Error as e:
    check(e.sqlstate == "22P03", "a truncated binary state is refused with 22P03", e.sqlstate)

# Filters, with each type psycopg sends: c > %s works for all of them.
for bound, keys in [
    (100, [2, 3]),                # smallint
    (40000, [3]),                 # integer
    (2_999_999_999, [3]),         # bigint
    (3_000_000_000, []),          # bigint, not greater
    (10**20, []),                 # numeric
    (Decimal("149.5"), [2, 3]),   # numeric
    (Decimal("-1e30"), [1, 2, 3]),
    (149.5, [2, 3]),              # double precision
    (150.0, [3]),                 # double precision, 150 is not greater
]:
    got = [r[0] for r in rows(a, "SELECT k FROM t WHERE c > %s ORDER BY k", [bound])]
    check(got == keys, f"WHERE c > %s with {bound!r}: keys {keys}", got)
got = [r[0] for r in rows(a, "SELECT k FROM t WHERE c > %s ORDER BY k", [100], binary=True)]
check(got == [2, 3], "WHERE c > %s with binary results", got)

# Sums: sum(c) is numeric, a Decimal; the other aggregates read values too.
got = a.execute("SELECT sum(c) FROM t").fetchone()[0]
check(got == Decimal(3_000_000_160) and isinstance(got, Decimal), "sum(c) is Decimal 3000000160", got)
got = a.execute("SELECT sum(c) FROM t WHERE c > %s", [100]).fetchone()[0]
check(got == Decimal(3_000_000_150), "sum(c) WHERE c > %s is 3000000150", got)
got = a.execute("SELECT sum(c) FROM t", binary=True).fetchone()[0]
check(got == Decimal(3_000_000_160), "sum(c) in binary results is Decimal 3000000160", got)

# A binary COPY of counters from one server into another, merged there.
b = psycopg.connect(os.environ["CLIENTS_DSN_B"], autocommit=True)
fresh_table(b)
b.execute("INSERT INTO t VALUES (4, NULL::counter_crdt + 4)")
b.execute("UPDATE t SET c = c + %s WHERE k = %s", [1000, 1])
b_me = b.execute("SELECT counter_crdt_node_id()::text").fetchone()[0]
check(b_me != me, "the two servers write under different ids", (me, b_me))


def copy_binary(src, dst):
    """COPY t from src into dst's staging table, block by block, as bytes."""
    dst.execute("DROP TABLE IF EXISTS staging")
    dst.execute("CREATE TABLE staging (k int, c counter_crdt)")
    n = 0
    with src.cursor().copy("COPY (SELECT k, c FROM t) TO STDOUT (FORMAT BINARY)") as out:
        with dst.cursor().copy("COPY staging FROM STDIN (FORMAT BINARY)") as into:
            for block in out:
                n += len(block)
                into.write(block)
    return n


MERGE = """INSERT INTO t SELECT k, c FROM staging
  ON CONFLICT (k) DO UPDATE SET c = counter_crdt_merge(t.c, excluded.c)"""

n = copy_binary(a, b)
check(n > 0, "COPY ... TO STDOUT (FORMAT BINARY) sends blocks", n)
got = rows(b, "SELECT k, c::text FROM staging ORDER BY k")
want = rows(a, "SELECT k, c::text FROM t ORDER BY k")
check(got == want, "the states arrive as they are on the first server", got)
b.execute(MERGE)
want_b = [(1, 1010), (2, 150), (3, 3_000_000_000), (4, 4)]
got = rows(b, "SELECT k, c::bigint FROM t ORDER BY k")
check(got == want_b, "merged: each writer's increments counted once", got)
before = rows(b, "SELECT k, c::text FROM t ORDER BY k")
b.execute(MERGE)
copy_binary(a, b)
b.execute(MERGE)
got = rows(b, "SELECT k, c::text FROM t ORDER BY k")
check(got == before, "merging the same states again changes nothing (idempotent)", got)
got = b.execute("SELECT sum(c) FROM t").fetchone()[0]
check(got == Decimal(3_000_001_164), "sum(c) of the merged table is 3000001164", got)
got = rows(b, "SELECT c::text FROM t WHERE k = 1")[0][0]
got = sorted(re.findall(r"([0-9a-f-]{36}):(\d+):(-?\d+)", got))
want = sorted([(me, "4", "10"), (b_me, "2", "1000")])
check(got == want, "k = 1 has both writers' shards", got)

# And back: the first server merges the second's states; both agree.
copy_binary(b, a)
a.execute(MERGE)
got = rows(a, "SELECT k, c::text FROM t ORDER BY k")
check(got == before, "merged back, the first server holds the same states", got)

print(f"1..{n_checks}")
sys.exit(1 if n_failed else 0)
