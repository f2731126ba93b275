#!/usr/bin/env python3
#
# make_seeds.py
#	  Writes the committed seed corpora of the fuzz harnesses,
#	  test/fuzz/corpus/{fuzz_text,fuzz_binary,fuzz_algebra,fuzz_stored}/, and
#	  the seeds with fold records of fuzz_json (its others were written by
#	  hand), so that the binary seeds can be read (here) and rebuilt rather
#	  than trusted as opaque files.  Run from anywhere: python3 test/fuzz/make_seeds.py
#
# Each seed is one meaningful case, valid or deliberately invalid; libFuzzer
# mutates from there.

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MAX = 2**63 - 1
MIN = -(2**63)

SPEC1 = "0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90"
SPEC2 = "7f0cab51-fb72-3e98-bdb4-0404a982865d"
ZERO = "00000000-0000-0000-0000-000000000000"
ONE = "00000000-0000-0000-0000-000000000001"
LOW_EDGE = "7fffffff-ffff-ffff-ffff-ffffffffffff"
HIGH_EDGE = "80000000-0000-0000-0000-000000000000"
ALL_ONES = "ffffffff-ffff-ffff-ffff-ffffffffffff"


def write(harness, name, data):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def uuid_bytes(u):
    return bytes.fromhex(u.replace("-", ""))


# --- text: counter_crdt_in ------------------------------------------------

def text_seeds():
    t = "fuzz_text"
    write(t, "spec_example", "{%s:3:42, %s:1:-5}" % (SPEC1, SPEC2))
    write(t, "spec_example_loose",
          " { 7F0CAB51-FB72-3E98-BDB4-0404A982865D : +1 : -005 ,"
          "0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:003:42 } ")
    write(t, "empty", "{}")
    write(t, "empty_spaced", " \t{ \n } \r\n")
    write(t, "tombstone", "tombstone")
    write(t, "tombstone_mixed_case", "  TombStone\n")
    write(t, "bigint_edges", "{%s:%d:%d, %s:1:%d}" % (ONE, MAX, MIN, ALL_ONES, MAX))
    write(t, "signed_boundary_ids", "{%s:1:1, %s:2:-1, %s:1:0}"
          % (HIGH_EDGE, LOW_EDGE, ZERO))
    # rejected
    write(t, "bad_duplicate_id", "{%s:1:1, %s:2:2}" % (SPEC1, SPEC1.upper()))
    write(t, "bad_clock_zero", "{%s:0:1}" % SPEC1)
    write(t, "bad_value_overflow", "{%s:1:%d}" % (SPEC1, MAX + 1))
    write(t, "bad_clock_overflow", "{%s:%d:0}" % (SPEC1, MAX + 1))
    write(t, "bad_uuid", "{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e9:1:1}")
    write(t, "bad_trailing_comma", "{%s:1:1,}" % SPEC1)
    write(t, "bad_trailing_text", "{} tombstone")
    write(t, "bad_embedded_nul", b"{}\x00")
    write(t, "bad_truncated_keyword", "tombston")


# --- fold records (src/core/cc_fold.h): RETIRED>TARGET and four numbers ---
#
# FOLD_EX: LOW_EDGE's shard holds all of HIGH_EDGE's count (100), folded
# when HIGH_EDGE's shard was at clock 5.

FOLD_EX_SHARDS = [(LOW_EDGE, 4, 110)]
FOLD_EX = [(HIGH_EDGE, LOW_EDGE, 4, 5, 100, 100)]
FOLD_TWO_SHARDS = [(LOW_EDGE, 5, 300)]
FOLD_TWO = [(HIGH_EDGE, LOW_EDGE, 4, 5, 100, 100), (ALL_ONES, LOW_EDGE, 5, 2, 200, 200)]


def text_value(shards, folds):
    out = "{" + ", ".join("%s:%d:%d" % sh for sh in shards) + "}"
    if folds:
        out += " folded {" + ", ".join("%s>%s:%d:%d:%d:%d" % f for f in folds) + "}"
    return out


def text_fold_seeds():
    t = "fuzz_text"
    write(t, "fold_example", text_value(FOLD_EX_SHARDS, FOLD_EX))
    write(t, "fold_two_unsorted", text_value(FOLD_TWO_SHARDS, FOLD_TWO[::-1]))
    write(t, "fold_loose",
          " { 7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF : 4 : 110 }FoLdEd{ "
          "80000000-0000-0000-0000-000000000000 > 7fffffff-ffff-ffff-ffff-ffffffffffff"
          " : +4 : 05 : 100 : 100 } ")
    # a target that is retired itself; a retired writer that wrote again
    write(t, "fold_chain", text_value([(LOW_EDGE, 2, 7)],
                                      [(HIGH_EDGE, ONE, 4, 1, 5, 5), (ONE, LOW_EDGE, 2, 3, 7, 7)]))
    write(t, "fold_late_shard", text_value([(LOW_EDGE, 4, 110), (HIGH_EDGE, 6, 103)], FOLD_EX))
    write(t, "fold_edges", text_value([(LOW_EDGE, MAX, MIN)], [(HIGH_EDGE, LOW_EDGE, MAX, 1, MIN, MAX)]))
    # rejected
    write(t, "bad_fold_empty", text_value(FOLD_EX_SHARDS, []) + " folded {}")
    write(t, "bad_fold_tombstone", "tombstone folded {%s>%s:4:5:100:100}" % (HIGH_EDGE, LOW_EDGE))
    write(t, "bad_fold_repeated", text_value(FOLD_EX_SHARDS, FOLD_EX + FOLD_EX))
    write(t, "bad_fold_self", text_value(FOLD_EX_SHARDS, [(LOW_EDGE, LOW_EDGE, 4, 5, 100, 100)]))
    write(t, "bad_fold_no_target_shard", text_value(FOLD_EX_SHARDS, [(HIGH_EDGE, ALL_ONES, 4, 5, 100, 100)]))
    write(t, "bad_fold_tclock_newer", text_value(FOLD_EX_SHARDS, [(HIGH_EDGE, LOW_EDGE, 5, 5, 100, 100)]))
    write(t, "bad_fold_seen_shard", text_value([(LOW_EDGE, 4, 110), (HIGH_EDGE, 5, 100)], FOLD_EX))
    write(t, "bad_fold_aclock_zero", text_value(FOLD_EX_SHARDS, [(HIGH_EDGE, LOW_EDGE, 4, 0, 100, 100)]))


def json_value(shards, folds):
    out = []
    if folds:
        out.append('"folds": [' + ", ".join(
            '{"aclock": %d, "avalue": %d, "target": "%s", "tclock": %d, "retired": "%s", "absorbed": %d}'
            % (ac, av, t, tc, r, ab) for r, t, tc, ac, av, ab in folds) + "]")
    out.append('"shards": [' + ", ".join(
        '{"id": "%s", "clock": %d, "value": %d}' % sh for sh in shards) + "]")
    return "{" + ", ".join(out) + "}"


def json_fold_seeds():
    j = "fuzz_json"
    write(j, "fold_example", json_value(FOLD_EX_SHARDS, FOLD_EX))
    write(j, "fold_two", json_value(FOLD_TWO_SHARDS, FOLD_TWO))
    write(j, "fold_reader_order",
          '{"shards": [{"id": "%s", "clock": 4, "value": 110}], "folds": [{"retired": "%s", '
          '"target": "%s", "tclock": 4, "aclock": 5, "avalue": 100, "absorbed": 100}]}'
          % (LOW_EDGE, HIGH_EDGE.upper(), LOW_EDGE))
    # rejected
    write(j, "bad_fold_empty", '{"folds": [], "shards": [{"id": "%s", "clock": 4, "value": 110}]}' % LOW_EDGE)
    write(j, "bad_fold_tombstone", '{"tombstone": true, "folds": %s}'
          % json_value([], FOLD_EX)[len('{"folds": '):json_value([], FOLD_EX).index(', "shards"')])
    write(j, "bad_fold_missing_key",
          '{"folds": [{"aclock": 5, "avalue": 100, "target": "%s", "tclock": 4, "retired": "%s"}], '
          '"shards": [{"id": "%s", "clock": 4, "value": 110}]}' % (LOW_EDGE, HIGH_EDGE, LOW_EDGE))
    write(j, "bad_fold_repeated", json_value(FOLD_EX_SHARDS, FOLD_EX + FOLD_EX))


# --- binary: counter_crdt_recv and the aggregate's deserialize -------------

def wire(shards, tombstone=False, version=1, flags=None, count=None):
    if flags is None:
        flags = 1 if tombstone else 0
    if count is None:
        count = len(shards)
    out = bytes([version, flags]) + struct.pack(">I", count)
    for u, clock, value in shards:
        out += uuid_bytes(u) + struct.pack(">qq", clock, value)
    return out


def wire_folded(shards, folds, version=2, flags=0, count=None, fcount=None):
    out = wire(shards, version=version, flags=flags, count=count)
    out += struct.pack(">I", len(folds) if fcount is None else fcount)
    for r, t, tc, ac, av, ab in folds:
        out += uuid_bytes(r) + uuid_bytes(t) + struct.pack(">qqqq", tc, ac, av, ab)
    return out


# The width codes of a layout (src/core/cc_stored.h): 0 = 8 bytes, 1 = 1,
# 2 = 2, 3 = 4.
WIDTH = {0: 8, 1: 1, 2: 2, 3: 4}


def narrowest(shards):
    def cc(c):
        return 1 if c < 2**8 else 2 if c < 2**16 else 3 if c < 2**32 else 0

    def vc(v):
        return (1 if -2**7 <= v < 2**7 else 2 if -2**15 <= v < 2**15
                else 3 if -2**31 <= v < 2**31 else 0)

    def wider(a, b):
        return 0 if a == 0 or b == 0 else max(a, b)
    c = v = 1
    for _, clock, value in shards:
        c = wider(c, cc(clock))
        v = wider(v, vc(value))
    return c | v << 2


def wire_compact(shards, layout=None):
    # version 3: version, layout, records of id, clock (unsigned) and value
    # (two's complement), big-endian, at the layout's widths
    if layout is None:
        layout = narrowest(shards)
    cw, vw = WIDTH[layout & 3], WIDTH[(layout >> 2) & 3]
    out = bytes([3, layout])
    for u, clock, value in shards:
        out += uuid_bytes(u) + (clock % 2**(8 * cw)).to_bytes(cw, "big") + \
            (value % 2**(8 * vw)).to_bytes(vw, "big")
    return out


def binary_compact_seeds():
    b = "fuzz_binary"
    write(b, "compact_example", wire_compact([(SPEC1, 3, 42), (SPEC2, 1, -5)]))
    write(b, "compact_empty", wire_compact([]))
    write(b, "compact_edges_1", wire_compact([(ONE, 255, -128), (ALL_ONES, 1, 127)]))
    write(b, "compact_edges_2", wire_compact([(ONE, 65535, -32768), (ALL_ONES, 256, 128)]))
    write(b, "compact_edges_4", wire_compact([(ONE, 2**32 - 1, -2**31), (ALL_ONES, 65536, 2**31 - 1)]))
    write(b, "compact_edges_8", wire_compact([(ONE, MAX, MIN), (ALL_ONES, 2**32, MAX)]))
    write(b, "compact_wider_layout", wire_compact([(SPEC1, 3, 42), (SPEC2, 1, -5)], layout=0x0F))
    write(b, "compact_all_wide", wire_compact([(LOW_EDGE, 1, 1), (HIGH_EDGE, 2, -1)], layout=0))
    # rejected
    write(b, "bad_compact_layout_bit", wire_compact([(SPEC1, 3, 42)], layout=0x15))
    write(b, "bad_compact_layout_alone", bytes([3, 0x80]))
    write(b, "bad_compact_version_alone", bytes([3]))
    write(b, "bad_compact_partial", wire_compact([(SPEC1, 3, 42), (SPEC2, 1, -5)])[:-1])
    write(b, "bad_compact_extra", wire_compact([(SPEC1, 3, 42)]) + b"\0")
    write(b, "bad_compact_clock_zero", wire_compact([(SPEC1, 0, 1)]))
    write(b, "bad_compact_clock_2_63", wire_compact([(SPEC1, 2**63, 1)], layout=0x04))
    write(b, "bad_compact_descending", wire_compact([(HIGH_EDGE, 1, 1), (LOW_EDGE, 1, 1)]))
    write(b, "bad_compact_duplicate", wire_compact([(SPEC1, 1, 1), (SPEC1, 2, 2)]))


def binary_fold_seeds():
    b = "fuzz_binary"
    write(b, "fold_example", wire_folded(FOLD_EX_SHARDS, FOLD_EX))
    write(b, "fold_two", wire_folded(FOLD_TWO_SHARDS, FOLD_TWO))
    write(b, "fold_late_shard", wire_folded([(LOW_EDGE, 4, 110), (HIGH_EDGE, 6, 103)], FOLD_EX))
    # rejected
    write(b, "bad_fold_count_zero", wire_folded(FOLD_EX_SHARDS, []))
    write(b, "bad_fold_count_huge", wire_folded(FOLD_EX_SHARDS, FOLD_EX, fcount=0xffffffff))
    write(b, "bad_fold_tombstone", wire_folded([], FOLD_EX, flags=1))
    write(b, "bad_fold_order", wire_folded(FOLD_TWO_SHARDS, FOLD_TWO[::-1]))
    write(b, "bad_fold_tclock_newer", wire_folded(FOLD_EX_SHARDS, [(HIGH_EDGE, LOW_EDGE, 5, 5, 100, 100)]))
    write(b, "bad_fold_partial", wire_folded(FOLD_EX_SHARDS, FOLD_EX)[:-1])
    write(b, "bad_fold_version_3", wire_folded(FOLD_EX_SHARDS, FOLD_EX, version=3))


def binary_seeds():
    b = "fuzz_binary"
    write(b, "spec_example", wire([(SPEC1, 3, 42), (SPEC2, 1, -5)]))
    write(b, "empty", wire([]))
    write(b, "tombstone", wire([], tombstone=True))
    write(b, "bigint_edges", wire([(ONE, MAX, MIN), (ALL_ONES, 1, MAX)]))
    write(b, "signed_boundary_ids", wire([(LOW_EDGE, 1, 1), (HIGH_EDGE, 2, -1)]))
    # rejected
    write(b, "bad_short_header", bytes([1, 0, 0]))
    write(b, "bad_version_2", wire([], version=2))
    write(b, "bad_unknown_flag", wire([], flags=0x02))
    write(b, "bad_tombstone_with_shard", wire([(SPEC1, 1, 1)], tombstone=True))
    write(b, "bad_count_too_high", wire([(SPEC1, 1, 1)], count=2))
    write(b, "bad_count_huge", wire([], count=0xffffffff))
    write(b, "bad_partial_shard", wire([(SPEC1, 1, 1)])[:-1])
    write(b, "bad_clock_zero", wire([(SPEC1, 0, 1)]))
    write(b, "bad_clock_negative", wire([(SPEC1, MIN, 1)]))
    write(b, "bad_duplicate_id", wire([(SPEC1, 1, 1), (SPEC1, 2, 2)]))
    write(b, "bad_descending_ids", wire([(HIGH_EDGE, 1, 1), (LOW_EDGE, 1, 1)]))


# --- stored: the bytes of a value in a table (src/core/cc_stored.c) -------
#
# Native byte order, as the server stores them; the seeds are written for a
# little-endian machine (on another they are still valid inputs, of other
# numbers).

def stored_v1(shards, flags=0, reserved=b"\0\0"):
    out = bytes([1, flags]) + reserved
    for u, clock, value in shards:
        out += uuid_bytes(u) + struct.pack("<qq", clock, value)
    return out


def stored_v2(shards, flags=None, total=None, narrow=None, reserved=b"\0\0",
              tombstone=False):
    s = sum(v for _, _, v in shards)
    fits = all(0 <= c < 2**32 and -2**31 <= v < 2**31 for _, c, v in shards)
    if narrow is None:
        narrow = bool(shards) and fits and not tombstone
    overflow = not (MIN <= s <= MAX)
    if flags is None:
        flags = 1 if tombstone else (2 if overflow else 0) | (4 if narrow else 0)
    if total is None:
        total = 0 if tombstone or overflow else s
    out = bytes([2, flags]) + reserved + struct.pack("<q", total)
    for u, clock, value in shards:
        if narrow:
            out += uuid_bytes(u) + struct.pack("<Ii", clock, value)
        else:
            out += uuid_bytes(u) + struct.pack("<qq", clock, value)
    return out


def width(x, signed):
    if signed:
        for b in (1, 2, 4):
            if -2**(8 * b - 1) <= x < 2**(8 * b - 1):
                return b
        return 8
    if x < 0:
        return 8
    for b in (1, 2, 4):
        if x < 2**(8 * b):
            return b
    return 8


CODE = {8: 0, 1: 1, 2: 2, 4: 3}
PACK = {(1, False): "<B", (2, False): "<H", (4, False): "<I", (8, False): "<q",
        (1, True): "<b", (2, True): "<h", (4, True): "<i", (8, True): "<q"}


def stored_v3(shards, cw=None, vw=None, kept=None, total=None):
    """Version 3 (1.12): 3, layout (clock code | value code << 2 | 0x10 kept),
    the total when kept, then id, clock, value at those widths."""
    if cw is None:
        cw = max([1] + [width(c, False) for _, c, _ in shards])
    if vw is None:
        vw = max([1] + [width(v, True) for _, _, v in shards])
    if kept is None:
        kept = len(shards) > 16
    out = bytes([3, CODE[cw] | CODE[vw] << 2 | (0x10 if kept else 0)])
    if kept:
        out += struct.pack("<q", sum(v for _, _, v in shards) if total is None else total)
    for u, clock, value in shards:
        out += (uuid_bytes(u) + struct.pack(PACK[(cw, False)], clock) +
                struct.pack(PACK[(vw, True)], value))
    return out


def stored_seeds():
    s = "fuzz_stored"
    spec = [(SPEC1, 3, 42), (SPEC2, 1, -5)]
    write(s, "v3_empty", stored_v3([]))
    write(s, "v3_spec_example", stored_v3(spec))
    write(s, "v3_edges_1_2", stored_v3(
        [(ONE, 255, -128), (LOW_EDGE, 256, 127), (HIGH_EDGE, 65535, -32768)]))
    write(s, "v3_edges_4_8", stored_v3(
        [(ONE, 2**32 - 1, -2**31), (LOW_EDGE, 2**32, 2**31), (HIGH_EDGE, 7, -1)]))
    write(s, "v3_kept_total", stored_v3(
        [("%032x" % (i + 1), i + 1, i - 9) for i in range(17)]))
    write(s, "v3_not_narrowest", stored_v3(spec, cw=4, vw=8))
    write(s, "v3_kept_but_few", stored_v3(spec, kept=True))
    write(s, "bad_v3_flag", bytes([3, 0x25]))
    write(s, "bad_v3_short_total", stored_v3(spec, kept=True)[:9])
    write(s, "bad_v3_partial", stored_v3(spec)[:-1])
    spec = [(SPEC1, 3, 42), (SPEC2, 1, -5)]
    write(s, "v2_empty", stored_v2([]))
    write(s, "v2_tombstone", stored_v2([], tombstone=True))
    write(s, "v2_narrow_spec_example", stored_v2(spec))
    write(s, "v2_narrow_edges", stored_v2(
        [(ONE, 2**32 - 1, -2**31), (LOW_EDGE, 1, 2**31 - 1), (HIGH_EDGE, 7, -1)]))
    write(s, "v2_wide_clock", stored_v2([(ONE, 2**32, 1), (ALL_ONES, 1, 1)]))
    write(s, "v2_wide_value", stored_v2([(ONE, 1, 2**31), (ALL_ONES, 1, -2**31 - 1)]))
    write(s, "v2_overflow", stored_v2([(ONE, 1, MAX), (ALL_ONES, 1, 1)]))
    write(s, "v2_sum_wraps_back", stored_v2(
        [(ZERO, 1, MAX), (ONE, 1, MAX), (ALL_ONES, 1, MIN)]))
    write(s, "v2_wide_but_fits", stored_v2(spec, narrow=False))
    write(s, "v1_spec_example", stored_v1(spec))
    write(s, "v1_empty", stored_v1([]))
    write(s, "v1_tombstone", stored_v1([], flags=1))
    write(s, "v1_bigint_edges", stored_v1([(ONE, MAX, MIN), (ALL_ONES, 1, MAX)]))
    write(s, "v1_overflow", stored_v1([(ONE, 1, MAX), (ALL_ONES, 1, MAX)]))
    # accepted by the opener, but not a state the glue writes
    write(s, "odd_total_wrong", stored_v2(spec, total=7))
    write(s, "odd_clock_zero", stored_v2([(SPEC1, 0, 1)]))
    write(s, "odd_descending_ids", stored_v1([(HIGH_EDGE, 1, 1), (LOW_EDGE, 1, 1)]))
    # rejected
    write(s, "bad_short", bytes([2, 0, 0]))
    write(s, "bad_v2_short_total", stored_v2([])[:11])
    write(s, "bad_version_4", bytes([4]) + stored_v2([])[1:])
    write(s, "bad_reserved", stored_v2(spec, reserved=b"\0\1"))
    write(s, "bad_v1_flag", stored_v1([], flags=2))
    write(s, "bad_v2_flag", stored_v2([], flags=16))
    # fold records (flag 0x08): count, 4 zero bytes, 64-byte records, wide shards
    rec = (uuid_bytes(SPEC2) + uuid_bytes(SPEC1) +
           struct.pack("<qqqq", 4, 1, -5, -5))
    folded = (bytes([2, 8, 0, 0]) + struct.pack("<q", 42) +
              struct.pack("<II", 1, 0) + rec +
              uuid_bytes(SPEC1) + struct.pack("<qq", 4, 37))
    write(s, "v2_folded", folded)
    write(s, "bad_folded_count_zero", folded[:12] + struct.pack("<II", 0, 0) + folded[20:])
    write(s, "bad_folded_count_big", folded[:12] + struct.pack("<II", 2, 0) + folded[20:])
    write(s, "bad_folded_pad", folded[:12] + struct.pack("<II", 1, 1) + folded[20:])
    write(s, "bad_folded_narrow", bytes([2, 12]) + folded[2:])
    write(s, "bad_folded_short", folded[:16])
    write(s, "bad_narrow_partial", stored_v2(spec)[:-1])
    write(s, "bad_wide_partial", stored_v2(spec, narrow=False)[:-8])
    write(s, "bad_tombstone_shard", stored_v2([(SPEC1, 1, 1)], flags=1, narrow=False))
    write(s, "bad_tombstone_total", stored_v2([], tombstone=True, total=1))
    write(s, "bad_overflow_total", stored_v2([(ONE, 1, MAX), (ALL_ONES, 1, 1)], total=5))


# --- algebra: the structured input of fuzz_algebra.c ----------------------

POOL = {
    ZERO: 0, ONE: 1, LOW_EDGE: 2, HIGH_EDGE: 3,
    "80000000-0000-0000-0000-000000000001": 4, ALL_ONES: 5,
    "ffffffff-ffff-ffff-ffff-fffffffffffe": 6,
    "7f111111-1111-1111-1111-111111111111": 7,
    "81111111-1111-1111-1111-111111111111": 8,
    SPEC1: 9, SPEC2: 10,
    "00000000-0000-0000-7fff-ffffffffffff": 11,
    "00000000-0000-0000-8000-000000000000": 12,
}
CLOCKS = [1, 1, 2, 3, MAX, MAX - 1]
VALUES = [0, 1, -1, 2, -2, 3, MAX, MIN, MAX - 1, MIN + 1]


def a_id(u):
    if u in POOL:
        return bytes([POOL[u]])
    return bytes([0xf0]) + uuid_bytes(u)


def a_clock(c):
    if c in CLOCKS:
        return bytes([CLOCKS.index(c)])
    return bytes([6]) + struct.pack(">q", c)


def a_value(v):
    if v in VALUES:
        return bytes([VALUES.index(v)])
    return bytes([10]) + struct.pack(">q", v)


def a_state(shards):
    out = bytes([len(shards)])
    for u, clock, value in shards:
        out += a_id(u) + a_clock(clock) + a_value(value)
    return out


def algebra(tombstones=(), subtract=False, delta=0, a=(), b=(), c=(),
            writer=ZERO, writer_of_a=None):
    ctl = (0x08 if subtract else 0)
    for i in tombstones:
        ctl |= 0x80 | (1 << i)
    out = bytes([ctl]) + a_value(delta) + a_state(a) + a_state(b) + a_state(c)
    if writer_of_a is not None:
        out += bytes([0xc0 + writer_of_a])
    else:
        out += a_id(writer)
    return out


def algebra_seeds():
    g = "fuzz_algebra"
    write(g, "all_empty", b"")
    write(g, "spec_replicas", algebra(
        delta=1,
        a=[(SPEC1, 3, 42), (SPEC2, 1, -5)],
        b=[(SPEC1, 3, 43), (SPEC2, 2, -5)],
        c=[(SPEC1, 2, 100)],
        writer_of_a=0))
    write(g, "shared_ids_ties", algebra(
        delta=-2,
        a=[(SPEC1, 1, 1), (SPEC2, 2, 0), (ONE, 1, 3)],
        b=[(SPEC1, 1, 2), (SPEC2, 2, -1), (HIGH_EDGE, 1, 0)],
        c=[(SPEC2, 3, 5), (ONE, 1, 3)],
        writer=HIGH_EDGE))
    write(g, "signed_boundary_ids", algebra(
        delta=3,
        a=[(LOW_EDGE, 1, 1), (HIGH_EDGE, 2, 2),
           ("80000000-0000-0000-0000-000000000001", 1, -1)],
        b=[(ZERO, 1, 0), (ONE, 1, 1), (ALL_ONES, 1, 2)],
        c=[("00000000-0000-0000-7fff-ffffffffffff", 1, 1),
           ("00000000-0000-0000-8000-000000000000", 1, 1), (ONE, 2, 2)],
        writer="00000000-0000-0000-8000-000000000000"))
    write(g, "tombstone_b", algebra(
        tombstones=(1,), delta=1,
        a=[(SPEC1, 1, 1)], b=[(SPEC2, 1, 1)], c=[(SPEC2, 2, 2)],
        writer=SPEC2))
    write(g, "clock_overflow", algebra(
        delta=1, a=[(SPEC1, MAX, 0)], b=[(SPEC1, MAX - 1, 5)],
        writer_of_a=0))
    write(g, "value_overflow", algebra(
        delta=1, a=[(SPEC1, 1, MAX)], b=[(SPEC2, 1, MAX)], writer_of_a=0))
    write(g, "subtract_int64_min", algebra(
        subtract=True, delta=MIN, a=[(SPEC1, 1, 0)], writer=SPEC2))
    write(g, "sum_wraps_cancel", algebra(
        delta=-1, a=[(ZERO, 1, MAX), (ONE, 1, MAX), (ALL_ONES, 1, MIN)],
        b=[(ZERO, 2, MAX), (SPEC1, 1, MAX)], writer=ONE))
    write(g, "raw_fields", algebra(
        delta=123456789012,
        a=[("0123abcd-4567-89ef-0123-456789abcdef", 4242424242, -77)],
        b=[("0123abcd-4567-89ef-0123-456789abcdef", 4242424242, -76)],
        c=[("fedcba98-7654-3210-fedc-ba9876543210", 17, 1 << 40)],
        writer="fedcba98-7654-3210-fedc-ba9876543210"))


if __name__ == "__main__":
    text_seeds()
    text_fold_seeds()
    json_fold_seeds()
    binary_seeds()
    binary_fold_seeds()
    binary_compact_seeds()
    algebra_seeds()
    stored_seeds()
