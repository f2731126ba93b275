"""The adapters of psycopg 3, psycopg2 and asyncpg: counters read as
CounterState, written as CounterState, incremented with c = c + n."""
import asyncio
import unittest

import asyncpg
import psycopg
import psycopg2

import counter_crdt.asyncpg
import counter_crdt.psycopg
import counter_crdt.psycopg2
from counter_crdt import CounterState

import _server

FOLDED = ("{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded "
          "{80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}")


def setUpModule():
    with _server.connect() as conn:
        conn.execute("DROP TABLE IF EXISTS drv")
        conn.execute("CREATE TABLE drv (k int PRIMARY KEY, c counter_crdt)")


def fresh(k):
    with _server.connect() as conn:
        conn.execute("DELETE FROM drv WHERE k = %s", [k])
        conn.execute("INSERT INTO drv VALUES (%s, NULL::counter_crdt + 0)", [k])


class Psycopg3(unittest.TestCase):
    def test_read_write_increment(self):
        fresh(1)
        with psycopg.connect(_server.dsn(), autocommit=True) as conn:
            counter_crdt.psycopg.register(conn)
            conn.execute("UPDATE drv SET c = c + %s WHERE k = %s", [5, 1])
            (s,) = conn.execute("SELECT c FROM drv WHERE k = 1").fetchone()
            self.assertIsInstance(s, CounterState)
            self.assertEqual(s.value, 5)
            (b,) = conn.execute("SELECT c FROM drv WHERE k = 1", binary=True).fetchone()
            self.assertEqual(b, s)
            for fmt in ("%s", "%t", "%b"):
                (same, text) = conn.execute(
                    "SELECT c = " + fmt + ", " + fmt + "::text FROM drv WHERE k = 1", [s, s]).fetchone()
                self.assertTrue(same, fmt)
                self.assertEqual(text, str(s), fmt)
            f = CounterState(FOLDED)
            self.assertEqual(conn.execute("SELECT %b::text", [f]).fetchone()[0], FOLDED)
            self.assertEqual(conn.execute("SELECT %s::counter_crdt", [FOLDED]).fetchone()[0], f)
            (arr,) = conn.execute("SELECT ARRAY[c, 'tombstone'] FROM drv WHERE k = 1").fetchone()
            self.assertEqual(arr, [s, CounterState.deleted()])
            conn.execute("UPDATE drv SET c = counter_crdt_merge(c, %s) WHERE k = 1",
                         [CounterState.deleted()])
            self.assertIsNone(conn.execute("SELECT c FROM drv WHERE k = 1").fetchone()[0].value)

    def test_async(self):
        async def run():
            async with await psycopg.AsyncConnection.connect(_server.dsn()) as conn:
                await counter_crdt.psycopg.register_async(conn)
                cur = await conn.execute("SELECT NULL::counter_crdt + 3")
                return (await cur.fetchone())[0]
        self.assertEqual(asyncio.run(run()).value, 3)

    def test_no_extension(self):
        with psycopg.connect(_server.dsn(), autocommit=True) as conn:
            conn.execute("CREATE SCHEMA IF NOT EXISTS empty_path")
            conn.execute("SET search_path = empty_path")
            self.assertRaises(LookupError, counter_crdt.psycopg.register, conn)


class Psycopg2(unittest.TestCase):
    def test_read_write_increment(self):
        fresh(2)
        conn = psycopg2.connect(_server.dsn())
        try:
            counter_crdt.psycopg2.register(conn)
            cur = conn.cursor()
            cur.execute("UPDATE drv SET c = c + %s WHERE k = %s", (7, 2))
            cur.execute("SELECT c, ARRAY[c] FROM drv WHERE k = 2")
            s, arr = cur.fetchone()
            self.assertIsInstance(s, CounterState)
            self.assertEqual(s.value, 7)
            self.assertEqual(arr, [s])
            cur.execute("SELECT c = %s, %s::text FROM drv WHERE k = 2", (s, CounterState(FOLDED)))
            self.assertEqual(cur.fetchone(), (True, FOLDED))
            cur.execute("UPDATE drv SET c = counter_crdt_merge(c, %s) WHERE k = 2", (s,))
            cur.execute("SELECT c FROM drv WHERE k = 2")
            self.assertEqual(cur.fetchone()[0], s)
            conn.commit()
            other = psycopg2.connect(_server.dsn())      # not registered there
            ocur = other.cursor()
            ocur.execute("SELECT c FROM drv WHERE k = 2")
            self.assertIsInstance(ocur.fetchone()[0], str)
            other.close()
        finally:
            conn.close()


class Asyncpg(unittest.TestCase):
    def test_read_write_increment(self):
        fresh(3)

        async def run(fmt):
            conn = await asyncpg.connect(**_server.asyncpg_args())
            try:
                await counter_crdt.asyncpg.register(conn, format=fmt)
                await conn.execute("UPDATE drv SET c = c + $1 WHERE k = $2", 4, 3)
                s = await conn.fetchval("SELECT c FROM drv WHERE k = 3")
                same = await conn.fetchval("SELECT c = $1 FROM drv WHERE k = 3", s)
                folded = await conn.fetchval("SELECT $1::counter_crdt::text", CounterState(FOLDED))
                with self.assertRaisesRegex(asyncpg.exceptions.DataError, "takes a CounterState"):
                    await conn.fetchval("SELECT $1::counter_crdt", 5)
                return s, same, folded
            finally:
                await conn.close()
        for fmt, total in (("binary", 4), ("text", 8)):
            s, same, folded = asyncio.run(run(fmt))
            self.assertIsInstance(s, CounterState, fmt)
            self.assertEqual(s.value, total, fmt)
            self.assertTrue(same, fmt)
            self.assertEqual(folded, FOLDED, fmt)


if __name__ == "__main__":
    unittest.main()
