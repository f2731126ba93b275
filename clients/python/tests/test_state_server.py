"""CounterState against the server, on random states: the text and binary
forms (what each prints, what each refuses), values, merges; tombstones and
folded values made by counter_crdt_fold on the server."""
import random
import unittest
import uuid

import psycopg

from counter_crdt import CounterState
from counter_crdt.psycopg import register

import _server

ROUNDS = 150
IDS = [str(uuid.UUID(int=random.Random(i).getrandbits(128))) for i in range(5)] + [
    "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "7fffffff-ffff-ffff-ffff-ffffffffffff", "80000000-0000-0000-0000-000000000000"]
NUMBERS = [0, 1, -1, 2, 5, 100, -7, 2 ** 63 - 1, -2 ** 63, 2 ** 62, -2 ** 62]


def rand_state(rng):
    if rng.random() < 0.05:
        return "tombstone"
    shards = {}
    for _ in range(rng.randrange(0, 5)):
        shards[rng.choice(IDS)] = (rng.choice([1, 2, 3, rng.randrange(1, 2 ** 63)]),
                                   rng.choice(NUMBERS + [rng.randrange(-1000, 1000)]))
    return shards


def text_of(shards, rng):
    """A text of the shards as a user may write it: any order, case, spaces."""
    if shards == "tombstone":
        return rng.choice(["tombstone", " TOMBSTONE ", "Tombstone"])
    items = list(shards.items())
    rng.shuffle(items)
    ws = lambda: rng.choice(["", "", " ", "\t", "\n "])
    parts = []
    for i, (c, v) in items:
        i = i.upper() if rng.random() < 0.3 else i
        v = ("+%d" % v) if v >= 0 and rng.random() < 0.2 else str(v)
        parts.append(ws() + i + ws() + ":" + ws() + str(c) + ws() + ":" + ws() + v + ws())
    return ws() + "{" + ",".join(parts) + "}" + ws()


def mutate(text, rng):
    chars = list(text)
    for _ in range(rng.randrange(1, 3)):
        k = rng.randrange(0, len(chars) + 1)
        op = rng.random()
        c = rng.choice("{}:,-+0123456789abcdefABCDEF xtomb>folded\x0b\x1f\u00e9")
        if op < 0.4 and chars:
            chars[min(k, len(chars) - 1)] = c
        elif op < 0.7:
            chars.insert(k, c)
        elif chars:
            del chars[min(k, len(chars) - 1)]
    return "".join(chars)


class AgainstServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.conn = _server.connect()
        register(cls.conn)
        _server.register_raw(cls.conn)
        cls.rng = random.Random(20261128)

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def server_text(self, text):
        """The server's canonical text of the input, or None when refused."""
        try:
            return self.conn.execute("SELECT %s::text::counter_crdt::text", [text]).fetchone()[0]
        except psycopg.errors.DataError:
            return None
        except psycopg.errors.InvalidTextRepresentation:
            return None

    def ours(self, text):
        try:
            return str(CounterState(text))
        except ValueError:
            return None

    def check_full(self, state, label):
        """Text, binary and value of a state against the server's."""
        conn = self.conn
        row = conn.execute("SELECT x::text, counter_crdt_send(x) FROM (SELECT %t::counter_crdt AS x) s",
                           [state]).fetchone()
        self.assertEqual(row[0], str(state), label)
        self.assertEqual(bytes(row[1]), state.to_binary(), label)
        # the binary form read back by the server (recv), and the server's by us
        back = conn.execute("SELECT %b::text", [state]).fetchone()[0]
        self.assertEqual(back, str(state), label)
        self.assertEqual(CounterState.from_binary(row[1]), state, label)
        try:
            v = conn.execute("SELECT %t::counter_crdt::bigint", [state]).fetchone()[0]
        except psycopg.errors.NumericValueOutOfRange:
            self.assertRaises(OverflowError, lambda: state.value)
        else:
            self.assertEqual(state.value, v, label)

    def test_text_random(self):
        rng = self.rng
        for n in range(ROUNDS):
            shards = rand_state(rng)
            text = text_of(shards, rng)
            for t in (text, mutate(text, rng)):
                theirs = self.server_text(t)
                self.assertEqual(self.ours(t), theirs, "input %r" % t)
                if theirs is not None:
                    self.check_full(CounterState(t), "input %r" % t)

    def test_binary_random(self):
        rng = self.rng
        for n in range(ROUNDS):
            shards = rand_state(rng)
            s = CounterState(text_of(shards, rng)) if self.ours(text_of(shards, rng)) else None
            if s is None:
                continue
            raw = bytearray(s.to_binary())
            for _ in range(rng.randrange(1, 3)):
                k = rng.randrange(len(raw) + 1)
                op = rng.random()
                if op < 0.5 and raw:
                    raw[min(k, len(raw) - 1)] = rng.randrange(256)
                elif op < 0.75:
                    raw.insert(k, rng.choice([0, 1, 2, 255]))
                elif raw:
                    del raw[min(k, len(raw) - 1)]
            # the value, or the refusal in the server's words
            self.assertEqual(_server.package_reads(bytes(raw)),
                             _server.server_reads(self.conn, bytes(raw)), "bytes %s" % bytes(raw).hex())

    def test_merge_random(self):
        rng = self.rng
        states = []
        while len(states) < 40:
            t = text_of(rand_state(rng), rng)
            if self.ours(t) is not None:
                states.append(CounterState(t))
        for _ in range(ROUNDS):
            a, b = rng.choice(states), rng.choice(states)
            theirs = self.conn.execute("SELECT counter_crdt_merge(%b, %b)::text", [a, b]).fetchone()[0]
            self.assertEqual(str(a.merge(b)), theirs, "merge(%s, %s)" % (a, b))

    def test_folded_random(self):
        """Fold records made by the server: folds of random writers into
        others, merged with copies from before the fold and with later
        writes; forms, values and merges as the server has them."""
        rng = self.rng
        made = []
        for _ in range(ROUNDS // 3):
            shards = {i: (rng.randrange(1, 6), rng.randrange(-100, 1000))
                      for i in rng.sample(IDS, rng.randrange(2, 6))}
            base = CounterState.from_shards([(i, c, v) for i, (c, v) in shards.items()])
            ids = list(shards)
            state = base
            for _ in range(rng.randrange(1, 4)):
                retired, target = rng.sample(ids + [rng.choice(IDS)], 2)
                if retired == target:
                    continue
                try:
                    state = self.conn.execute(
                        "SELECT counter_crdt_fold(%b, %s::uuid, %s::uuid)",
                        [state, retired, target]).fetchone()[0]
                except (psycopg.errors.InvalidParameterValue, psycopg.errors.NumericValueOutOfRange):
                    continue
                if rng.random() < 0.5:
                    # a late write of the retired writer, merged in
                    later = CounterState.from_shards(
                        [(retired, rng.randrange(1, 9), rng.randrange(0, 500))])
                    state = self.conn.execute("SELECT counter_crdt_merge(%b, %b)",
                                              [state, later]).fetchone()[0]
            self.check_full(state, "folded %s" % state)
            made.append(state)
            made.append(base)
        self.assertTrue(any(s.folds for s in made), "some states have fold records")
        for _ in range(ROUNDS):
            a, b = rng.choice(made), rng.choice(made)
            theirs = self.conn.execute("SELECT counter_crdt_merge(%b, %b)::text", [a, b]).fetchone()[0]
            self.assertEqual(str(a.merge(b)), theirs, "merge(%s, %s)" % (a, b))
        # tombstones win over folded states
        f = next(s for s in made if s.folds)
        self.assertEqual(f.merge(CounterState.deleted()), CounterState.deleted())
        self.assertEqual(self.conn.execute("SELECT counter_crdt_merge(%b, 'tombstone')::text",
                                           [f]).fetchone()[0], "tombstone")


if __name__ == "__main__":
    unittest.main()
