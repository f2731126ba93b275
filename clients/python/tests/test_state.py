"""CounterState without a server: forms, value, merge, errors."""
import pickle
import unittest
import uuid

from counter_crdt import CounterState, Fold, Shard, merge

A = "0ddd454a-30ea-3e9a-a5d1-3d0092b783a6"
B = "7ddd454a-30ea-3e9a-a5d1-3d0092b783a6"
T = "7fffffff-ffff-ffff-ffff-ffffffffffff"
R = "80000000-0000-0000-0000-000000000000"
FOLDED = "{%s:4:110} folded {%s>%s:4:5:100:100}" % (T, R, T)


class TextForm(unittest.TestCase):
    def test_canonical_output(self):
        s = CounterState(" { %s : 3 : +12 ,\t%s:1:-5 }\n" % (B.upper(), A))
        self.assertEqual(str(s), "{%s:1:-5, %s:3:12}" % (A, B))
        self.assertEqual(s.shards, (Shard(uuid.UUID(A), 1, -5), Shard(uuid.UUID(B), 3, 12)))
        self.assertEqual(s.value, 7)
        self.assertEqual(int(s), 7)

    def test_empty_and_tombstone(self):
        self.assertEqual(str(CounterState("{}")), "{}")
        self.assertEqual(CounterState(), CounterState.empty())
        self.assertEqual(CounterState.empty().value, 0)
        t = CounterState(" TombStone ")
        self.assertTrue(t.tombstone)
        self.assertEqual(str(t), "tombstone")
        self.assertIsNone(t.value)
        self.assertEqual(t, CounterState.deleted())
        self.assertRaises(ValueError, int, t)
        self.assertFalse(CounterState.empty().tombstone)

    def test_folded(self):
        s = CounterState(FOLDED)
        self.assertEqual(str(s), FOLDED)
        self.assertEqual(s.value, 110)
        self.assertEqual(s.folds, (Fold(uuid.UUID(R), uuid.UUID(T), 4, 5, 100, 100),))
        # a fold not finished: T holds 50 of R's 100; the total counts all 100
        self.assertEqual(CounterState("{%s:4:50} folded {%s>%s:4:5:100:50}" % (T, R, T)).value, 100)
        # R wrote again after the fold: it adds 3
        self.assertEqual(CounterState("{%s:4:110, %s:6:103} folded {%s>%s:4:5:100:100}"
                                      % (T, R, R, T)).value, 113)

    def test_refused(self):
        for bad in ["", "0", "5", "{", "{}x", "{} folded {}", "tombstone folded {%s>%s:1:1:1:1}" % (R, T),
                    "{%s:0:1}" % A, "{%s:1:1, %s:2:2}" % (A, A), "{%s:1:9223372036854775808}" % A,
                    "{%s:1:1,}" % A, "{%s}" % A, "{%s:1}" % A, "{%s1:1:1}" % A,
                    "{{%s}:1:1}" % A, "{%s:1:1}" % A.replace("-", ""), "{%s:1:1.5}" % A,
                    "{%s:1:1_0}" % A, "{%s:1:\u0661}" % A, "tombstones", "{} folded",
                    "{%s:4:110} folded {%s>%s:4:6:100:100, %s>%s:4:5:1:1}" % (T, R, T, R, T),
                    "{%s:4:110} folded {%s>%s:4:5:100:100}" % (T, T, T),
                    "{%s:4:110} folded {%s>%s:5:5:100:100}" % (T, R, T),
                    "{%s:4:110, %s:5:1} folded {%s>%s:4:5:100:100}" % (T, R, R, T),
                    "{} folded {%s>%s:4:5:100:100}" % (R, T)]:
            with self.subTest(bad=bad):
                self.assertRaises(ValueError, CounterState, bad)

    def test_error_names_the_problem(self):
        with self.assertRaisesRegex(ValueError, "appears more than once"):
            CounterState("{%s:1:1, %s:2:2}" % (A, A))
        with self.assertRaisesRegex(ValueError, 'found "5" at position 1'):
            CounterState("5")

    def test_bigint_bounds(self):
        s = CounterState("{%s:9223372036854775807:-9223372036854775808}" % A)
        self.assertEqual(s.value, -2 ** 63)
        over = CounterState("{%s:1:9223372036854775807, %s:1:1}" % (A, B))
        self.assertRaises(OverflowError, lambda: over.value)
        self.assertEqual(CounterState("{%s:1:9223372036854775807, %s:1:-1}" % (A, B)).value,
                         2 ** 63 - 2)


class BinaryForm(unittest.TestCase):
    def test_layout(self):
        s = CounterState("{%s:3:12}" % B)
        self.assertEqual(s.to_binary().hex(),
                         "0100000000017ddd454a30ea3e9aa5d13d0092b783a6"
                         "0000000000000003000000000000000c")
        self.assertEqual(bytes(CounterState.deleted()).hex(), "010100000000")
        self.assertEqual(bytes(CounterState.empty()).hex(), "010000000000")

    def test_round_trip(self):
        for text in ["{}", "tombstone", "{%s:1:-5, %s:3:12}" % (A, B), FOLDED]:
            s = CounterState(text)
            self.assertEqual(CounterState.from_binary(s.to_binary()), s)
            self.assertEqual(CounterState.from_binary(memoryview(s.to_binary())), s)
        self.assertEqual(CounterState(FOLDED).to_binary()[0], 2)

    def test_refused(self):
        good = CounterState("{%s:1:-5, %s:3:12}" % (A, B)).to_binary()
        swapped = good[:6] + good[38:70] + good[6:38]
        for bad in [b"", good[:5], b"\x04" + good[1:], good[:1] + b"\x02" + good[2:],
                    good[:-1], good + b"\0", b"\x01\x01\x00\x00\x00\x01" + good[6:38],
                    swapped, good[:6] + good[6:22] + b"\0" * 8 + good[30:],
                    b"\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00"]:
            with self.subTest(bad=bad.hex()):
                self.assertRaises(ValueError, CounterState.from_binary, bad)


    def test_messages(self):
        # the details of counter_crdt_recv (cc_decode_header_any), word for word
        f = CounterState(FOLDED).to_binary()
        for bad, message in [
                (b"\x01\x00\x00\x00\x00\x00\x07",
                 "the header announces 0 shards but 1 byte of shard data follows."),
                (f[:41], "the header announces 1 shard but the value ends before its fold "
                         "record count (35 bytes after the header)."),
                (f[:43], "the value announces 1 fold record but 1 byte of record data follows."),
                (b"\x00" * 6, "format version 0 is not supported; this build reads versions "
                               "1, 2 and 3.")]:
            with self.subTest(bad=bad.hex()):
                with self.assertRaises(ValueError) as e:
                    CounterState.from_binary(bad)
                self.assertEqual(str(e.exception),
                                 "incorrect binary data format for type counter_crdt: " + message)


# Version 3 (src/core/cc_wire.h), built here from the byte map: width code 0
# is 8 bytes, 1 one, 2 two, 3 four; clock code in bits 0-1, value code in
# bits 2-3.
WIDTH = {0: 8, 1: 1, 2: 2, 3: 4}
V3 = "incorrect binary data format for type counter_crdt: "


def compact(lay, *shards):
    cw, vw = WIDTH[lay & 3], WIDTH[lay >> 2 & 3]
    return bytes([3, lay]) + b"".join(
        uuid.UUID(i).bytes + c.to_bytes(cw, "big") + v.to_bytes(vw, "big", signed=True)
        for i, c, v in shards)


class CompactForm(unittest.TestCase):
    def test_bytes_by_hand(self):
        # what the server sends for {B:300:-129} under binary_format 'compact'
        s = CounterState.from_binary(bytes.fromhex(
            "030a7ddd454a30ea3e9aa5d13d0092b783a6012cff7f"))
        self.assertEqual(str(s), "{%s:300:-129}" % B)
        # clock 255 and value -128 in one byte each; 0xff is 255 as a clock
        s = CounterState.from_binary(bytes.fromhex("0305") + uuid.UUID(A).bytes + b"\xff\x80"
                                     + uuid.UUID(B).bytes + b"\x01\x7f")
        self.assertEqual(str(s), "{%s:255:-128, %s:1:127}" % (A, B))
        # clock code 3 (4 bytes), value code 2 (2 bytes): 0x0b; the other way: 0x0e
        body = uuid.UUID(A).bytes + b"\x00\x01\x00\x00\x80\x00"
        self.assertEqual(str(CounterState.from_binary(b"\x03\x0b" + body)),
                         "{%s:65536:-32768}" % A)
        self.assertEqual(str(CounterState.from_binary(b"\x03\x0e" + body)),
                         "{%s:1:32768}" % A)
        # 8-byte fields: a clock of 2^63 - 1, the value -2^63
        s = CounterState.from_binary(b"\x03\x00" + uuid.UUID(A).bytes + b"\x7f" + b"\xff" * 7
                                     + b"\x80" + b"\x00" * 7)
        self.assertEqual(s.shards, (Shard(uuid.UUID(A), 2 ** 63 - 1, -2 ** 63),))

    def test_empty(self):
        for lay in range(16):
            s = CounterState.from_binary(bytes([3, lay]))
            self.assertEqual(s, CounterState.empty(), "layout 0x%02x" % lay)
            self.assertFalse(s.tombstone)       # byte 1 is the layout, not flags
        self.assertEqual(CounterState.from_binary(b"\x03\x05").to_binary(), b"\x01\x00" + b"\0" * 4)

    def test_every_layout_at_its_edges(self):
        clocks = {1: (1, 255), 2: (256, 65535), 3: (65536, 2 ** 32 - 1), 0: (2 ** 32, 2 ** 63 - 1)}
        values = {1: (-128, 127), 2: (-32768, -129, 128, 32767),
                  3: (-2 ** 31, -32769, 32768, 2 ** 31 - 1),
                  0: (-2 ** 63, -2 ** 31 - 1, 2 ** 31, 2 ** 63 - 1)}
        for c in range(4):
            for v in range(4):
                lay = c | v << 2
                for clock in clocks[c]:
                    for value in values[v]:
                        shards = [(A, clock, value), (B, 1, -1), (T, clock, -value - 1 if value < 0 else value)]
                        s = CounterState.from_binary(compact(lay, *shards))
                        self.assertEqual(s, CounterState.from_shards(shards),
                                         "layout 0x%02x, clock %d, value %d" % (lay, clock, value))
                        # a wider layout reads the same; the package writes version 1
                        self.assertEqual(CounterState.from_binary(compact(0, *shards)), s)
                        self.assertEqual(s.to_binary()[0], 1)

    def test_refused(self):
        a, b = uuid.UUID(A).bytes, uuid.UUID(B).bytes
        cases = [
            (b"\x03", "the value is 1 byte long; the header of format version 3 takes 2."),
            (b"\x03\x10", "unknown layout bits 0x10 are set."),
            (b"\x03\x85" + a + b"\x01\x01", "unknown layout bits 0x80 are set."),
            (b"\x03\xff", "unknown layout bits 0xf0 are set."),
            (b"\x03\x00\x01", "1 byte of shard data is not a whole number of 32-byte records "
                              "(layout 0x00)."),
            (b"\x03\x05" + a + b"\x01", "17 bytes of shard data are not a whole number of "
                                        "18-byte records (layout 0x05)."),
            (b"\x03\x0f" + a + b"\x01" * 9, "25 bytes of shard data are not a whole number of "
                                            "24-byte records (layout 0x0f)."),
            (compact(5, (B, 1, 1), (A, 1, 1)), "writer %s is out of ascending order." % A),
            (compact(0, (A, 1, 1), (A, 2, 1)), "writer %s appears more than once." % A),
            (b"\x03\x04" + a + b"\x80" + b"\0" * 7 + b"\x01",
             "writer %s has clock -9223372036854775808; clocks start at 1." % A),
            (b"\x03\x04" + a + b"\xff" * 8 + b"\x01",
             "writer %s has clock -1; clocks start at 1." % A),
            (b"\x04" + b"\0" * 5, "format version 4 is not supported; this build reads "
                                  "versions 1, 2 and 3."),
            (b"\x04\x00", "the value is 2 bytes long; the header alone takes 6."),
        ]
        for c in range(4):
            cases.append((compact(c | 4, (A, 1, 1), (B, 0, 1)),
                          "writer %s has clock 0; clocks start at 1." % B))
        for bad, message in cases:
            with self.subTest(bad=bad.hex()):
                with self.assertRaises(ValueError) as e:
                    CounterState.from_binary(bad)
                self.assertEqual(str(e.exception), V3 + message)

class Merge(unittest.TestCase):
    def test_rules(self):
        a = CounterState("{%s:2:5, %s:1:1}" % (A, B))
        b = CounterState("{%s:1:50, %s:1:3}" % (A, B))
        m = a.merge(b)
        self.assertEqual(str(m), "{%s:2:5, %s:1:3}" % (A, B))   # higher clock; equal: higher value
        self.assertEqual(m, b.merge(a))
        self.assertEqual(m.merge(m), m)
        self.assertEqual(merge(a, CounterState.deleted()), CounterState.deleted())
        self.assertEqual(CounterState.deleted().merge(a), CounterState.deleted())
        self.assertEqual(a.merge(CounterState.empty()), a)

    def test_folded(self):
        f = CounterState(FOLDED)
        late = CounterState("{%s:5:100}" % R)    # R's shard at the clock the record saw
        self.assertEqual(f.merge(late), f)
        later = CounterState("{%s:6:103}" % R)
        self.assertEqual(f.merge(later).value, 113)


class Value(unittest.TestCase):
    def test_immutable_hashable(self):
        s = CounterState("{%s:3:12}" % B)
        self.assertRaises(AttributeError, setattr, s, "_shards", ())
        self.assertEqual(hash(s), hash(CounterState("{%s:3:12}" % B.upper())))
        self.assertEqual(len({s, CounterState(str(s)), CounterState.empty()}), 2)
        self.assertEqual(pickle.loads(pickle.dumps(s)), s)
        self.assertNotEqual(s, CounterState("{%s:3:12}" % A))   # same value, other state
        self.assertNotEqual(s, 12)

    def test_as_number(self):
        s = CounterState("{%s:3:12}" % B)
        v = s
        v += 1
        self.assertEqual(v, 13)
        self.assertEqual(s - 2, 10)
        self.assertTrue(s > 11 and s >= 12 and s < 13 and s <= 12)
        self.assertFalse(s > 12)
        self.assertRaises(TypeError, lambda: CounterState.deleted() + 1)
        self.assertRaises(TypeError, lambda: s < s)

    def test_from_shards(self):
        s = CounterState.from_shards([(B, 3, 12), (uuid.UUID(A), 1, -5)])
        self.assertEqual(str(s), "{%s:1:-5, %s:3:12}" % (A, B))
        self.assertRaises(ValueError, CounterState.from_shards, [(A, 0, 1)])
        self.assertRaises(ValueError, CounterState.from_shards, [(A, 1, 2 ** 63)])
        self.assertRaises(ValueError, CounterState.from_shards, [(A, 1, 1), (A, 2, 2)])


if __name__ == "__main__":
    unittest.main()
