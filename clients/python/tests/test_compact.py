"""The compact binary form (format version 3, since 1.12): what the server
sends when counter_crdt.binary_format is 'compact', read through psycopg 3's
binary results (rows, arrays, binary COPY) and asyncpg's binary codec, equals
the text form, in every layout at its widths' edges; a tombstone and a folded
value still come as versions 1 and 2.  Bytes of version 3 that the server
refuses, the package refuses with the server's words."""
import asyncio
import random
import unittest
import uuid

import asyncpg

import counter_crdt.asyncpg
from counter_crdt import CounterState
from counter_crdt.psycopg import CounterBinaryLoader, register

import _server

A = "0ddd454a-30ea-3e9a-a5d1-3d0092b783a6"
B = "7ddd454a-30ea-3e9a-a5d1-3d0092b783a6"
T = "7fffffff-ffff-ffff-ffff-ffffffffffff"
R = "80000000-0000-0000-0000-000000000000"
FOLDED = "{%s:4:110} folded {%s>%s:4:5:100:100}" % (T, R, T)

# Width codes (src/core/cc_wire.h): 0 is 8 bytes, 1 one, 2 two, 3 four; a
# layout byte has the clock's code in bits 0-1, the value's in bits 2-3.
WIDTH = {0: 8, 1: 1, 2: 2, 3: 4}
# The clocks and values of each width code that the narrower codes do not
# hold, its edges: the narrowest layout of a state is the codes of its
# largest clock and of its values' range.
CLOCKS = {1: (1, 255), 2: (256, 65535), 3: (65536, 2 ** 32 - 1), 0: (2 ** 32, 2 ** 63 - 1)}
VALUES = {1: (-128, 127), 2: (-129, 128, -32768, 32767),
          3: (-32769, 32768, -2 ** 31, 2 ** 31 - 1),
          0: (-2 ** 31 - 1, 2 ** 31, -2 ** 63, 2 ** 63 - 1)}


def cases():
    """(text, wire version, layout) of the values the tests read: the empty
    value, each clock code with each value code at their edges (B's small
    shard beside, T's in three-writer ones), a tombstone and a folded value."""
    out = [("{}", 3, 0x05)]
    for c in (1, 2, 3, 0):
        for v in (1, 2, 3, 0):
            for clock in CLOCKS[c]:
                for value in VALUES[v]:
                    out.append(("{%s:%d:%d, %s:1:-1}" % (A, clock, value, B), 3, c | v << 2))
            out.append(("{%s:%d:%d, %s:%d:%d, %s:1:0}" % (
                A, CLOCKS[c][0], VALUES[v][0], B, CLOCKS[c][1], VALUES[v][-1], T), 3, c | v << 2))
    out.append(("tombstone", 1, None))
    out.append((FOLDED, 2, None))
    return out


CASES = cases()


def fits(x, width, signed):
    bits = 8 * width
    return -(1 << bits - 1) <= x < (1 << bits - 1) if signed else 0 <= x < (1 << bits)


def records(lay, *shards):
    """Version 3 bytes of (id, clock, value) in layout lay, unchecked;
    numbers that the layout does not hold cut to their low bytes."""
    cw, vw = WIDTH[lay & 3], WIDTH[lay >> 2 & 3]
    return bytes([3, lay]) + b"".join(
        uuid.UUID(str(i)).bytes + (c & ((1 << 8 * cw) - 1)).to_bytes(cw, "big")
        + (v & ((1 << 8 * vw) - 1)).to_bytes(vw, "big") for i, c, v in shards)


def compact(state, lay):
    return records(lay, *state.shards)


def holds(state, lay):
    return all(fits(sh.clock, WIDTH[lay & 3], False) and fits(sh.value, WIDTH[lay >> 2 & 3], True)
               for sh in state.shards)


def setUpModule():
    with _server.connect() as conn:
        conn.execute("DROP TABLE IF EXISTS compact_cases")
        conn.execute("CREATE TABLE compact_cases (k int PRIMARY KEY, c counter_crdt)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO compact_cases VALUES (%s, %s::text::counter_crdt)",
                            [(k, text) for k, (text, _, _) in enumerate(CASES)])


class Recording(CounterBinaryLoader):
    """The package's binary loader, keeping the bytes it was given."""
    seen = []

    def load(self, data):
        Recording.seen.append(bytes(data))
        return super().load(data)


class Psycopg3(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.conn = _server.connect()
        register(cls.conn)
        oid = cls.conn.execute("SELECT 'counter_crdt'::regtype::oid").fetchone()[0]
        cls.conn.adapters.register_loader(oid, Recording)
        cls.conn.execute("SET counter_crdt.binary_format = 'compact'")
        cls.texts = [r[0] for r in cls.conn.execute("SELECT c::text FROM compact_cases ORDER BY k")]

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def setUp(self):
        Recording.seen.clear()

    def check_seen(self, label):
        """The loader got each case in its wire version and layout."""
        self.assertEqual(len(Recording.seen), len(CASES), label)
        for raw, (text, version, lay) in zip(Recording.seen, CASES):
            self.assertEqual(raw[0], version, "%s: %s" % (label, text))
            if lay is not None:
                self.assertEqual(raw[1], lay, "%s: %s" % (label, text))

    def test_send(self):
        rows = self.conn.execute("SELECT c::text, counter_crdt_send(c) FROM compact_cases ORDER BY k").fetchall()
        for (text, raw), (case, version, lay) in zip(rows, CASES):
            self.assertEqual(CounterState(text), CounterState(case))
            self.assertEqual(raw[0], version, text)
            if lay is not None:
                self.assertEqual(raw[1], lay, text)
            self.assertEqual(str(CounterState.from_binary(raw)), text)
        self.assertEqual(sum(1 for _, v, _ in CASES if v == 3), len(CASES) - 2)
        self.assertEqual({lay for _, v, lay in CASES if v == 3}, set(range(16)))
        # the setting is what makes them version 3
        with _server.connect() as portable:
            portable.execute("SET counter_crdt.binary_format = 'portable'")
            firsts = {r[0] for r in portable.execute(
                "SELECT get_byte(counter_crdt_send(c), 0) FROM compact_cases")}
        self.assertEqual(firsts, {1, 2})

    def test_binary_rows(self):
        rows = self.conn.execute("SELECT c FROM compact_cases ORDER BY k", binary=True).fetchall()
        self.check_seen("rows")
        for (state,), text in zip(rows, self.texts):
            self.assertIsInstance(state, CounterState)
            self.assertEqual(str(state), text)
            self.assertEqual(state, CounterState(text))

    def test_binary_array(self):
        (states,) = self.conn.execute("SELECT array_agg(c ORDER BY k) FROM compact_cases",
                                      binary=True).fetchone()
        self.check_seen("array")
        self.assertEqual([str(s) for s in states], self.texts)

    def test_binary_copy(self):
        with self.conn.cursor() as cur:
            with cur.copy("COPY (SELECT k, c FROM compact_cases ORDER BY k) TO STDOUT (FORMAT binary)") as copy:
                copy.set_types(["int4", "counter_crdt"])
                rows = list(copy.rows())
        self.check_seen("binary COPY")
        self.assertEqual([str(c) for _, c in rows], self.texts)


class Asyncpg(unittest.TestCase):
    def test_binary_codec(self):
        async def run():
            conn = await asyncpg.connect(**_server.asyncpg_args())
            try:
                await counter_crdt.asyncpg.register(conn)
                await conn.execute("SET counter_crdt.binary_format = 'compact'")
                rows = await conn.fetch("SELECT c, c::text, counter_crdt_send(c) "
                                        "FROM compact_cases ORDER BY k")
                array = await conn.fetchval("SELECT array_agg(c ORDER BY k) FROM compact_cases")
                # the bytes asyncpg hands the codec: the package's decoder,
                # with a record of what it got
                seen = []

                def decoder(data):
                    seen.append(bytes(data))
                    return CounterState.from_binary(data)
                schema = await conn.fetchval(
                    "SELECT typnamespace::regnamespace::text FROM pg_type "
                    "WHERE oid = 'counter_crdt'::regtype")
                await conn.set_type_codec("counter_crdt", schema=schema, format="binary",
                                          encoder=CounterState.to_binary, decoder=decoder)
                again = await conn.fetch("SELECT c FROM compact_cases ORDER BY k")
                return rows, array, seen, again
            finally:
                await conn.close()
        rows, array, seen, again = asyncio.run(run())
        self.assertEqual(len(rows), len(CASES))
        for (state, text, raw), (case, version, lay) in zip(rows, CASES):
            self.assertIsInstance(state, CounterState)
            self.assertEqual(str(state), text)
            self.assertEqual(state, CounterState(case))
            self.assertEqual(raw[0], version, text)
        self.assertEqual([str(s) for s in array], [r[1] for r in rows])
        self.assertEqual([(raw[0], raw[1] if raw[0] == 3 else None) for raw in seen],
                         [(version, lay) for _, version, lay in CASES])
        self.assertEqual([r[0] for r in again], [r[0] for r in rows])


class Refusals(unittest.TestCase):
    """Bytes against counter_crdt_recv: the value read, or the refusal in the
    server's words (cc_decode_header_compact, cc_decode_shards)."""

    @classmethod
    def setUpClass(cls):
        cls.conn = _server.connect()
        register(cls.conn)
        _server.register_raw(cls.conn)
        cls.rng = random.Random(20261129)

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def same(self, raw, refused=None):
        theirs = _server.server_reads(self.conn, raw)
        if refused is not None:
            self.assertEqual(theirs.startswith("refused: "), refused, "bytes %s: %s" % (raw.hex(), theirs))
        self.assertEqual(_server.package_reads(raw), theirs, "bytes %s" % raw.hex())
        return theirs

    def test_bad_bytes(self):
        a = uuid.UUID(A).bytes
        bad = [b"\x03", b"\x04" + b"\0" * 5, b"\xff" + b"\0" * 5, b"\x00" * 6, b"\x04\x05",
               b"\x03\x00\x01", b"\x03\x05" + a + b"\x01",
               b"\x03\x04" + a + b"\x80" + b"\0" * 7 + b"\x01",     # clock 2^63
               b"\x03\x04" + a + b"\xff" * 8 + b"\x01"]              # clock 2^64 - 1
        bad += [b"\x03" + bytes([bit | 0x05]) + a + b"\x01\x01" for bit in (0x10, 0x20, 0x40, 0x80)]
        bad.append(b"\x03\xf5")
        for lay in range(16):
            rec = records(lay, (A, 1, 1), (B, 2, -2))
            bad += [rec[:-1], rec + b"\0", rec[:3],                     # partial records
                    records(lay, (B, 2, -2), (A, 1, 1)),                # descending ids
                    records(lay, (A, 1, 1), (A, 2, -2)),                # an id twice
                    records(lay, (A, 1, 1), (B, 0, -2)),                # clock 0
                    records(lay, (A, 0, 0))]
        # version 1 and 2 wordings that the server's have
        f = CounterState(FOLDED).to_binary()
        bad += [b"\x01\x00\x00\x00\x00\x00\x07", f[:41], f[:43]]
        for raw in bad:
            with self.subTest(bytes=raw.hex()):
                self.same(raw, refused=True)

    def test_good_bytes(self):
        """Bytes the server takes, a wider layout than it writes included."""
        for lay in range(16):
            for text in ("{}", "{%s:1:1}" % A, "{%s:1:-1, %s:1:0}" % (A, B)):
                with self.subTest(layout=lay, text=text):
                    self.assertEqual(self.same(compact(CounterState(text), lay), refused=False),
                                     text)

    def rand_state(self):
        rng = self.rng
        ids = sorted(rng.sample([A, B, T, R, str(uuid.UUID(int=rng.getrandbits(128)))],
                                rng.randrange(0, 5)))
        pick = lambda table: rng.choice(table[rng.choice([0, 1, 2, 3])])
        shards = [(i, pick(CLOCKS), pick(VALUES) + rng.choice([0, 0, 1, -1])) for i in ids]
        return CounterState.from_shards([(i, c, max(min(v, 2 ** 63 - 1), -2 ** 63))
                                         for i, c, v in shards])

    def test_every_layout_random(self):
        """Random states in all 16 layouts: the layouts that hold a state give
        the state; the others, numbers cut to their low bytes, give what the
        server makes of them (clock 0 refused, a sign flipped ...)."""
        for _ in range(30):
            s = self.rand_state()
            for lay in range(16):
                raw = compact(s, lay)
                theirs = self.same(raw)
                if holds(s, lay):
                    self.assertEqual(theirs, str(s), "layout 0x%02x" % lay)

    def test_mutated_random(self):
        """What the server sends under 'compact', bytes changed, inserted,
        deleted."""
        self.conn.execute("SET counter_crdt.binary_format = 'compact'")
        rng = self.rng
        for _ in range(150):
            s = self.rand_state()
            raw = bytearray(self.conn.execute("SELECT counter_crdt_send(%b)", [s]).fetchone()[0])
            self.assertEqual(raw[0], 3)
            for _ in range(rng.randrange(1, 3)):
                k = rng.randrange(len(raw) + 1)
                op = rng.random()
                if op < 0.5 and raw:
                    raw[min(k, len(raw) - 1)] = rng.choice([0, 1, 3, 0x0f, 0x10, 0x7f, 0x80, 0xff,
                                                            rng.randrange(256)])
                elif op < 0.75:
                    raw.insert(k, rng.choice([0, 1, 3, 255]))
                elif raw:
                    del raw[min(k, len(raw) - 1)]
            self.same(bytes(raw))


if __name__ == "__main__":
    unittest.main()
