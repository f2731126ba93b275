"""CounterState: a counter_crdt value in pure Python.

The text and binary forms are those of the C type (src/core/cc_text.c and
cc_wire.c): what the server prints, this prints; what the server refuses,
this refuses with a ValueError.

    value  := ws ( "tombstone" | shards [ ws "folded" ws folds ] ) ws
    shards := "{" ws [ shard { ws "," ws shard } ] ws "}"
    shard  := uuid ws ":" ws number ws ":" ws number
    folds  := "{" ws fold { ws "," ws fold } ws "}"
    fold   := uuid ws ">" ws uuid ws ":" number ":" number ":" number ":" number
    number := [ "+" | "-" ] digit { digit }        (within bigint)

Keywords in any letter case, ids in any letter case and any order; the
canonical text has ids lower-case and ascending, ", " between shards and
records, " folded " between the two lists.  A fold record (a retired
writer's count moved into a live writer's shard, doc/retiring-writers.md)
reads RETIRED>TARGET:tclock:aclock:avalue:absorbed.
"""
import numbers
import re
import struct
import uuid
from typing import NamedTuple, Optional, Tuple

__all__ = ["CounterState", "Shard", "Fold", "CounterValue", "CounterWriteError", "read_counter"]

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

_SPACE = " \t\n\r\f\v"
_ID_RUN = re.compile(r"[0-9A-Fa-f-]*")
_UUID = re.compile(
    r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z")
_DIGITS = re.compile(r"[0-9]+")
# The canonical text without records: parsed in one match, ids checked after.
_CANONICAL = re.compile(
    r"\{(?:[0-9a-f-]{36}:-?[0-9]+:-?[0-9]+(?:, [0-9a-f-]{36}:-?[0-9]+:-?[0-9]+)*)?\}\Z")
_CANONICAL_SHARD = re.compile(r"([0-9a-f-]{36}):(-?[0-9]+):(-?[0-9]+)")

_WIRE_V1 = 1
_WIRE_V2 = 2
_WIRE_V3 = 3
_FLAG_TOMBSTONE = 0x01
_HEADER = struct.Struct(">BBI")
_SHARD_NUMS = struct.Struct(">qq")
_FOLD_NUMS = struct.Struct(">qqqq")
_COUNT = struct.Struct(">I")
# Version 3 (the compact form): a layout byte, then records of id, clock
# and value big-endian at the widths of the layout's codes (clock in bits
# 0-1, value in bits 2-3; code 0 is 8 bytes, 1 one, 2 two, 3 four), clocks
# unsigned and values two's complement; an 8-byte clock reads as the
# server's int64 (2^63 and more negative, refused as clock < 1).
_LAY_MASK = 0x0F
_COMPACT_HEADER = 2
_CLOCK_CODES = ("q", "B", "H", "I")
_VALUE_CODES = ("q", "b", "h", "i")
_COMPACT = tuple(struct.Struct(">16s" + _CLOCK_CODES[lay & 3] + _VALUE_CODES[lay >> 2])
                 for lay in range(_LAY_MASK + 1))


class Shard(NamedTuple):
    """One writer's shard: its id, its clock (>= 1) and its value."""
    id: uuid.UUID
    clock: int
    value: int


class Fold(NamedTuple):
    """A fold record: target holds `absorbed` of retired's count; retired's
    shard was (aclock, avalue) when target, at clock tclock, last folded it."""
    retired: uuid.UUID
    target: uuid.UUID
    tclock: int
    aclock: int
    avalue: int
    absorbed: int


def _fold_key(f):
    return (f.retired.bytes, f.target.bytes)


def _fold_rank(f):
    # the winner of two records of one key: higher tclock, aclock, avalue,
    # absorbed (cc_fold_b_wins)
    return (f.tclock, f.aclock, f.avalue, f.absorbed)


class _Parser:
    __slots__ = ("s", "pos")

    def __init__(self, s):
        self.s = s
        self.pos = 0

    def skip(self):
        s, n, p = self.s, len(self.s), self.pos
        while p < n and s[p] in _SPACE:
            p += 1
        self.pos = p

    def fail(self, what):
        s, p = self.s, self.pos
        if p >= len(s):
            found = "found end of input"
        else:
            q = 0
            while q < 16 and p + q < len(s) and " " <= s[p + q] <= "~":
                q += 1
            if q == 0:
                found = "found %r at position %d" % (s[p], p + 1)
            else:
                found = 'found "%s%s" at position %d' % (
                    s[p:p + q], "..." if p + q < len(s) else "", p + 1)
        return ValueError("invalid input syntax for type counter_crdt: %s, %s."
                          % (what, found))

    def expect(self, c, context):
        self.skip()
        if self.pos < len(self.s) and self.s[self.pos] == c:
            self.pos += 1
            self.skip()
            return
        raise self.fail('Expected "%s" %s' % (c, context))

    def ident(self, what):
        start = self.pos
        end = _ID_RUN.match(self.s, start).end()
        if end == start:
            raise self.fail("Expected %s" % what)
        text = self.s[start:end]
        if not _UUID.match(text):
            raise ValueError(
                'invalid input syntax for type counter_crdt: invalid writer id "%s%s" '
                "at position %d: expected a uuid such as "
                "7f0cab51-fb72-3e98-bdb4-0404a982865d."
                % (text[:40], "..." if len(text) > 40 else "", start + 1))
        self.pos = end
        return uuid.UUID(text)

    def number(self, what, owner):
        s, i = self.s, self.pos
        start = i
        neg = False
        if i < len(s) and s[i] in "+-":
            neg = s[i] == "-"
            i += 1
        m = _DIGITS.match(s, i)
        if m is None:
            self.pos = i
            raise self.fail("Expected the %s of %s as a whole number" % (what, owner))
        v = int(m.group())
        if neg:
            v = -v
        if not INT64_MIN <= v <= INT64_MAX:
            text = s[start:m.end()]
            raise ValueError(
                'invalid input syntax for type counter_crdt: the %s "%s%s" of %s is '
                "out of range for type bigint."
                % (what, text[:40], "..." if len(text) > 40 else "", owner))
        self.pos = m.end()
        return v

    def keyword(self, kw):
        s, p = self.s, self.pos
        if s[p:p + len(kw)].lower() == kw and s[p:p + len(kw)].isascii():
            self.pos += len(kw)
            return True
        return False


def _parse(text):
    """(shards, folds, tombstone) of the text form, as counter_crdt_in reads it."""
    m = _CANONICAL.match(text)
    if m is not None:
        shards = []
        prev = None
        for sm in _CANONICAL_SHARD.finditer(text):
            ident, clock, value = sm.groups()
            if not _UUID.match(ident):
                shards = None
                break
            clock, value = int(clock), int(value)
            u = uuid.UUID(ident)
            if (clock < 1 or clock > INT64_MAX or not INT64_MIN <= value <= INT64_MAX
                    or (prev is not None and prev >= u.bytes)):
                shards = None
                break
            prev = u.bytes
            shards.append(Shard(u, clock, value))
        if shards is not None:
            return tuple(shards), (), False
    return _parse_slow(text)


def _parse_slow(text):
    p = _Parser(text)
    p.skip()
    tombstone = False
    shards = []
    folds = []
    s = text
    if p.pos < len(s) and s[p.pos] in "tT":
        if not p.keyword("tombstone"):
            raise p.fail('Expected "{" or "tombstone"')
        tombstone = True
    else:
        if p.pos >= len(s) or s[p.pos] != "{":
            raise p.fail('Expected "{" or "tombstone"')
        p.pos += 1
        p.skip()
        if p.pos < len(s) and s[p.pos] == "}":
            p.pos += 1
        else:
            while True:
                ident = p.ident("a writer id")
                owner = "writer %s" % ident
                p.expect(":", "after a writer id")
                clock = p.number("clock", owner)
                p.expect(":", "after a clock")
                value = p.number("value", owner)
                if clock < 1:
                    raise ValueError(
                        "invalid input syntax for type counter_crdt: writer %s has "
                        "clock %d; clocks start at 1." % (ident, clock))
                shards.append(Shard(ident, clock, value))
                p.skip()
                if p.pos < len(s) and s[p.pos] == ",":
                    p.pos += 1
                    p.skip()
                    continue
                if p.pos < len(s) and s[p.pos] == "}":
                    p.pos += 1
                    break
                raise p.fail('Expected "," or "}" after a shard')
    p.skip()
    if p.pos < len(s) and s[p.pos] in "fF":
        at = p.pos
        if p.keyword("folded"):
            if tombstone:
                raise ValueError(
                    "invalid input syntax for type counter_crdt: a tombstone has no "
                    'fold records, found "folded" at position %d.' % (at + 1))
            folds = _parse_folds(p)
            p.skip()
    if p.pos < len(s):
        raise p.fail("Expected end of input")
    shards.sort(key=lambda sh: sh.id.bytes)
    _check_canonical(shards, "invalid input syntax for type counter_crdt")
    folds.sort(key=_fold_key)
    _check_folds(shards, folds, "invalid input syntax for type counter_crdt")
    return tuple(shards), tuple(folds), tombstone


def _parse_folds(p):
    s = p.s
    p.skip()
    if p.pos >= len(s) or s[p.pos] != "{":
        raise p.fail('Expected "{" after "folded"')
    p.pos += 1
    p.skip()
    if p.pos < len(s) and s[p.pos] == "}":
        raise p.fail('Expected a fold record: a value without fold records has no '
                     '"folded" part')
    folds = []
    while True:
        retired = p.ident("the retired writer id of a fold record")
        p.expect(">", "after the retired writer id of a fold record")
        target = p.ident("the target writer id of a fold record")
        p.expect(":", "after the target writer id of a fold record")
        owner = "fold record %s>%s" % (retired, target)
        tclock = p.number("tclock", owner)
        p.expect(":", "after a tclock")
        aclock = p.number("aclock", owner)
        p.expect(":", "after an aclock")
        avalue = p.number("avalue", owner)
        p.expect(":", "after an avalue")
        absorbed = p.number("absorbed", owner)
        folds.append(Fold(retired, target, tclock, aclock, avalue, absorbed))
        p.skip()
        if p.pos < len(s) and s[p.pos] == ",":
            p.pos += 1
            p.skip()
            continue
        if p.pos < len(s) and s[p.pos] == "}":
            p.pos += 1
            return folds
        raise p.fail('Expected "," or "}" after a fold record')


def _check_canonical(shards, prefix):
    """Ids strictly ascending, clocks >= 1 (cc_check_canonical)."""
    prev = None
    for sh in shards:
        if sh.clock < 1:
            raise ValueError("%s: writer %s has clock %d; clocks start at 1."
                             % (prefix, sh.id, sh.clock))
        b = sh.id.bytes
        if prev is not None and prev >= b:
            raise ValueError("%s: writer %s %s." % (
                prefix, sh.id,
                "appears more than once" if prev == b else "is out of ascending order"))
        prev = b


def _latest(records):
    """(aclock, avalue) of the record of the highest aclock, then avalue."""
    aclock, avalue = 0, 0
    for f in records:
        if f.aclock > aclock or (f.aclock == aclock and f.avalue > avalue):
            aclock, avalue = f.aclock, f.avalue
    return aclock, avalue


def _by_retired(folds):
    groups = {}
    for f in folds:
        groups.setdefault(f.retired, []).append(f)
    return groups


def _check_folds(shards, folds, prefix):
    """The records' canonical form and their agreement with the shards
    (cc_fold_check)."""
    if not folds:
        return
    prev = None
    for f in folds:
        name = "%s>%s" % (f.retired, f.target)
        if f.retired == f.target:
            raise ValueError("%s: fold record %s names one writer as retired and target."
                             % (prefix, name))
        if f.tclock < 1 or f.aclock < 1:
            bad = ("tclock", f.tclock) if f.tclock < 1 else ("aclock", f.aclock)
            raise ValueError("%s: fold record %s has %s %d; clocks start at 1."
                             % ((prefix, name) + bad))
        k = _fold_key(f)
        if prev is not None and prev >= k:
            raise ValueError("%s: fold record %s %s." % (
                prefix, name, "appears more than once" if prev == k
                else "is out of ascending (retired, target) order"))
        prev = k
    by_id = {sh.id: sh for sh in shards}
    groups = _by_retired(folds)
    for retired, records in groups.items():
        aclock, _ = _latest(records)
        sh = by_id.get(retired)
        if sh is not None and sh.clock <= aclock:
            raise ValueError(
                "%s: retired writer %s keeps its shard of clock %d, which its fold "
                "records have seen (aclock %d)." % (prefix, retired, sh.clock, aclock))
        for f in records:
            if f.target in groups:
                continue
            t = by_id.get(f.target)
            if t is None:
                raise ValueError("%s: the target of fold record %s>%s has no shard."
                                 % (prefix, f.retired, f.target))
            if t.clock < f.tclock:
                raise ValueError(
                    "%s: fold record %s>%s has tclock %d, newer than its target's "
                    "shard (clock %d)." % (prefix, f.retired, f.target, f.tclock, t.clock))


def _int64(v, what):
    if type(v) is bool or not isinstance(v, int):
        raise TypeError("%s must be an int, not %s" % (what, type(v).__name__))
    if not INT64_MIN <= v <= INT64_MAX:
        raise ValueError("%s %d is out of range for type bigint" % (what, v))
    return int(v)


def _as_uuid(v, what):
    if isinstance(v, uuid.UUID):
        return v
    if isinstance(v, str) and _UUID.match(v):
        return uuid.UUID(v)
    raise ValueError("%s %r is not a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d"
                     % (what, v))


class CounterState:
    """A counter_crdt value: its shards (and fold records), or a tombstone.

    Immutable and hashable; == compares states (as the server's = does).
    CounterState(text) parses the text form; str() prints the canonical text;
    CounterState.from_binary()/to_binary() are the binary form.
    """

    __slots__ = ("_shards", "_folds", "_tombstone", "_hash")

    def __init__(self, text: str = "{}"):
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = _decode_text(text)
        elif not isinstance(text, str):
            raise TypeError("CounterState() takes the text form (str), not %s; "
                            "see CounterState.from_shards()" % type(text).__name__)
        shards, folds, tombstone = _parse(text)
        self._set(shards, folds, tombstone)

    def _set(self, shards, folds, tombstone):
        object.__setattr__(self, "_shards", shards)
        object.__setattr__(self, "_folds", folds)
        object.__setattr__(self, "_tombstone", tombstone)
        object.__setattr__(self, "_hash", None)

    @classmethod
    def _make(cls, shards, folds, tombstone):
        self = object.__new__(cls)
        self._set(tuple(shards), tuple(folds), tombstone)
        return self

    def __setattr__(self, name, value):
        raise AttributeError("CounterState is immutable")

    __delattr__ = __setattr__

    # -- constructors ------------------------------------------------------

    @classmethod
    def parse(cls, text) -> "CounterState":
        """The value of the text form; ValueError for text the server refuses."""
        return cls(text)

    @classmethod
    def empty(cls) -> "CounterState":
        """'{}': a counter that no writer has touched (value 0)."""
        return cls._make((), (), False)

    @classmethod
    def deleted(cls) -> "CounterState":
        """'tombstone': a deleted counter (reads as NULL, wins every merge)."""
        return cls._make((), (), True)

    @classmethod
    def from_shards(cls, shards=(), folds=()) -> "CounterState":
        """A live state from (id, clock, value) triples in any order, and fold
        records (retired, target, tclock, aclock, avalue, absorbed); checked as
        the server checks its text input."""
        prefix = "invalid counter_crdt state"
        sh = [Shard(_as_uuid(s[0], "writer id"), _int64(s[1], "clock"),
                    _int64(s[2], "value")) for s in shards]
        fo = [Fold(_as_uuid(f[0], "retired writer id"), _as_uuid(f[1], "target writer id"),
                   _int64(f[2], "tclock"), _int64(f[3], "aclock"),
                   _int64(f[4], "avalue"), _int64(f[5], "absorbed")) for f in folds]
        sh.sort(key=lambda s: s.id.bytes)
        _check_canonical(sh, prefix)
        fo.sort(key=_fold_key)
        _check_folds(sh, fo, prefix)
        return cls._make(sh, fo, False)

    @classmethod
    def from_binary(cls, data) -> "CounterState":
        """The value of the binary form (counter_crdt_send): format versions
        1 and 2, and the compact version 3 that the server sends when
        counter_crdt.binary_format is 'compact' (1.12); ValueError for bytes
        that counter_crdt_recv refuses."""
        shards, folds, tombstone = _decode_binary(bytes(data))
        return cls._make(shards, folds, tombstone)

    # -- what a state holds ------------------------------------------------

    @property
    def tombstone(self) -> bool:
        """True for a deleted counter."""
        return self._tombstone

    @property
    def shards(self) -> Tuple[Shard, ...]:
        """The shards, in ascending id order (empty for a tombstone)."""
        return self._shards

    @property
    def folds(self) -> Tuple[Fold, ...]:
        """The fold records, in (retired, target) order; usually empty."""
        return self._folds

    @property
    def value(self) -> Optional[int]:
        """The count (what c::bigint reads); None for a tombstone.
        OverflowError when the total leaves bigint, as c::bigint fails."""
        if self._tombstone:
            return None
        total = self._total()
        if not INT64_MIN <= total <= INT64_MAX:
            raise OverflowError("bigint out of range: the total of this counter_crdt "
                                "value is %d" % total)
        return total

    def _total(self):
        total = sum(sh.value for sh in self._shards)
        if self._folds:
            present = {sh.id for sh in self._shards}
            for retired, records in _by_retired(self._folds).items():
                if retired not in present:
                    total += _latest(records)[1]
                total -= sum(f.absorbed for f in records)
        return total

    def __int__(self):
        v = self.value
        if v is None:
            raise ValueError("a tombstone (a deleted counter) has no value; "
                             ".value is None")
        return v

    # -- as a number ------------------------------------------------------
    #
    # state + n and state - n are ints (the value plus n): what an ORM's
    # `page.views += 1` makes of a loaded state, which the adapters then
    # write as an increment of n (views = views + n), never as a state.
    # <, <=, >, >= compare the value with a number, as c > 5 does in SQL.

    def _number(self, op):
        v = self.value
        if v is None:
            raise TypeError("a tombstone (a deleted counter) has no value to %s" % op)
        return v

    def __add__(self, n):
        if type(n) is bool or not isinstance(n, int):
            return NotImplemented
        return self._number("add to") + n

    __radd__ = __add__

    def __sub__(self, n):
        if type(n) is bool or not isinstance(n, int):
            return NotImplemented
        return self._number("subtract from") - n

    def __rsub__(self, n):
        if type(n) is bool or not isinstance(n, int):
            return NotImplemented
        return n - self._number("subtract from")

    def _compare(self, other):
        if isinstance(other, CounterState) or type(other) is bool or not isinstance(
                other, numbers.Real):
            return NotImplemented
        return self._number("compare")

    def __lt__(self, other):
        v = self._compare(other)
        return v if v is NotImplemented else v < other

    def __le__(self, other):
        v = self._compare(other)
        return v if v is NotImplemented else v <= other

    def __gt__(self, other):
        v = self._compare(other)
        return v if v is NotImplemented else v > other

    def __ge__(self, other):
        v = self._compare(other)
        return v if v is NotImplemented else v >= other

    # -- combining ---------------------------------------------------------

    def merge(self, other: "CounterState") -> "CounterState":
        """merge(self, other) as counter_crdt_merge computes it: per writer the
        shard of the higher clock (then the higher value); a tombstone wins;
        fold records merged per (retired, target), a retired writer's shard
        dropped once its records have seen it."""
        if not isinstance(other, CounterState):
            raise TypeError("merge() takes a CounterState, not %s" % type(other).__name__)
        if self._tombstone:
            return self
        if other._tombstone:
            return other
        merged = {}
        for sh in self._shards:
            merged[sh.id] = sh
        for sh in other._shards:
            mine = merged.get(sh.id)
            if mine is None or (sh.clock, sh.value) > (mine.clock, mine.value):
                merged[sh.id] = sh
        folds = {}
        for f in self._folds + other._folds:
            k = _fold_key(f)
            mine = folds.get(k)
            if mine is None or _fold_rank(f) > _fold_rank(mine):
                folds[k] = f
        shards = sorted(merged.values(), key=lambda s: s.id.bytes)
        fold_list = [folds[k] for k in sorted(folds)]
        if fold_list:
            groups = _by_retired(fold_list)
            shards = [sh for sh in shards
                      if sh.id not in groups or sh.clock > _latest(groups[sh.id])[0]]
        result = CounterState._make(shards, fold_list, False)
        if result == self:
            return self
        if result == other:
            return other
        return result

    # -- forms -------------------------------------------------------------

    def __str__(self):
        if self._tombstone:
            return "tombstone"
        text = "{" + ", ".join("%s:%d:%d" % sh for sh in self._shards) + "}"
        if self._folds:
            text += " folded {" + ", ".join(
                "%s>%s:%d:%d:%d:%d" % f for f in self._folds) + "}"
        return text

    def to_text(self) -> str:
        """The canonical text form, as counter_crdt_out prints it."""
        return str(self)

    def to_binary(self) -> bytes:
        """The binary form, as counter_crdt_send writes it under the default
        counter_crdt.binary_format ('portable': version 1, or 2 with fold
        records), which every release reads."""
        folded = bool(self._folds)
        out = [_HEADER.pack(_WIRE_V2 if folded else _WIRE_V1,
                            _FLAG_TOMBSTONE if self._tombstone else 0,
                            len(self._shards))]
        for sh in self._shards:
            out.append(sh.id.bytes)
            out.append(_SHARD_NUMS.pack(sh.clock, sh.value))
        if folded:
            out.append(_COUNT.pack(len(self._folds)))
            for f in self._folds:
                out.append(f.retired.bytes)
                out.append(f.target.bytes)
                out.append(_FOLD_NUMS.pack(f.tclock, f.aclock, f.avalue, f.absorbed))
        return b"".join(out)

    def __bytes__(self):
        return self.to_binary()

    def __repr__(self):
        return "CounterState(%r)" % str(self)

    def __eq__(self, other):
        if not isinstance(other, CounterState):
            return NotImplemented
        return (self._tombstone == other._tombstone and self._shards == other._shards
                and self._folds == other._folds)

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        h = self._hash
        if h is None:
            h = hash((self._tombstone, self._shards, self._folds))
            object.__setattr__(self, "_hash", h)
        return h

    def __reduce__(self):
        return (CounterState, (str(self),))


def _decode_text(data):
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError("invalid input syntax for type counter_crdt: %s" % e) from None


def _decode_binary(buf):
    """(shards, folds, tombstone) of the binary form, checked as
    counter_crdt_recv checks it (cc_decode_header_folded, cc_decode_shards,
    cc_fold_check)."""
    prefix = "incorrect binary data format for type counter_crdt"
    n = len(buf)
    if n >= 1 and buf[0] == _WIRE_V3:
        return _decode_compact(buf, prefix), (), False
    if n < _HEADER.size:
        raise ValueError("%s: the value is %d byte%s long; the header alone takes 6."
                         % (prefix, n, "" if n == 1 else "s"))
    version, flags, count = _HEADER.unpack_from(buf)
    if version not in (_WIRE_V1, _WIRE_V2):
        raise ValueError("%s: format version %d is not supported; this build reads "
                         "versions 1, 2 and 3." % (prefix, version))
    if flags & ~_FLAG_TOMBSTONE:
        raise ValueError("%s: unknown flag bits 0x%02x are set."
                         % (prefix, flags & ~_FLAG_TOMBSTONE))
    tombstone = bool(flags & _FLAG_TOMBSTONE)
    body = n - _HEADER.size
    fcount = 0
    if version == _WIRE_V1:
        if body % 32 != 0 or body // 32 != count:
            raise ValueError("%s: the header announces %d shard%s but %d byte%s of "
                             "shard data follow%s." % (
                                 prefix, count, "" if count == 1 else "s",
                                 body, "" if body == 1 else "s", "s" if body == 1 else ""))
        if tombstone and count != 0:
            raise ValueError("%s: a tombstone has no shards, but %d %s present."
                             % (prefix, count, "is" if count == 1 else "are"))
    else:
        if tombstone:
            raise ValueError("%s: a tombstone has no fold records, but format version "
                             "2 is for values with them." % prefix)
        if body // 32 < count or body - count * 32 < 4:
            raise ValueError("%s: the header announces %d shard%s but the value ends "
                             "before its fold record count (%d byte%s after the header)." % (
                                 prefix, count, "" if count == 1 else "s",
                                 body, "" if body == 1 else "s"))
        rest = body - count * 32 - 4
        (fcount,) = _COUNT.unpack_from(buf, _HEADER.size + count * 32)
        if fcount == 0:
            raise ValueError("%s: the fold record count is 0; format version 2 is for "
                             "values with fold records." % prefix)
        if rest % 64 != 0 or rest // 64 != fcount:
            raise ValueError("%s: the value announces %d fold record%s but %d byte%s "
                             "of record data follow%s." % (
                                 prefix, fcount, "" if fcount == 1 else "s",
                                 rest, "" if rest == 1 else "s", "s" if rest == 1 else ""))
    shards = []
    at = _HEADER.size
    for _ in range(count):
        clock, value = _SHARD_NUMS.unpack_from(buf, at + 16)
        shards.append(Shard(uuid.UUID(bytes=buf[at:at + 16]), clock, value))
        at += 32
    _check_canonical(shards, prefix)
    folds = []
    at += 4
    for _ in range(fcount):
        nums = _FOLD_NUMS.unpack_from(buf, at + 32)
        folds.append(Fold(uuid.UUID(bytes=buf[at:at + 16]),
                          uuid.UUID(bytes=buf[at + 16:at + 32]), *nums))
        at += 64
    _check_folds(shards, folds, prefix)
    return shards, folds, tombstone


def _decode_compact(buf, prefix):
    """The shards of version 3, checked as cc_decode_header_compact and
    cc_decode_shards check them."""
    n = len(buf)
    if n < _COMPACT_HEADER:
        raise ValueError("%s: the value is %d byte%s long; the header of format "
                         "version 3 takes 2." % (prefix, n, "" if n == 1 else "s"))
    lay = buf[1]
    if lay & ~_LAY_MASK:
        raise ValueError("%s: unknown layout bits 0x%02x are set."
                         % (prefix, lay & ~_LAY_MASK))
    record = _COMPACT[lay]
    body = n - _COMPACT_HEADER
    if body % record.size != 0:
        raise ValueError("%s: %d byte%s of shard data %s not a whole number of %d-byte "
                         "records (layout 0x%02x)." % (
                             prefix, body, "" if body == 1 else "s",
                             "is" if body == 1 else "are", record.size, lay))
    shards = [Shard(uuid.UUID(bytes=ident), clock, value) for ident, clock, value
              in record.iter_unpack(memoryview(buf)[_COMPACT_HEADER:])]
    _check_canonical(shards, prefix)
    return shards


def read_counter(v):
    """A counter as a driver returns it, as a CounterState: None stays None,
    a CounterState (a registered adapter's) as it is, bytes as the binary
    form, anything else as the text form."""
    if v is None or isinstance(v, CounterState):
        return v
    if isinstance(v, (bytes, memoryview)):
        return CounterState.from_binary(v)
    return CounterState(v)


class CounterValue(int):
    """The value of a counter as an ORM's field reads it (Django's and
    Peewee's CounterField): an int, with the state it was read from in
    .state (a CounterState).  Arithmetic gives plain ints: `page.views + 1`
    is a number, and saving it is an increment.
    """

    def __new__(cls, state):
        if not isinstance(state, CounterState):
            state = CounterState(state)
        self = int.__new__(cls, state.value)
        self.state = state
        return self

    def __getnewargs__(self):
        return (self.state,)

    def __repr__(self):
        return int.__repr__(self)

    __str__ = __repr__


class CounterWriteError(ValueError):
    """A counter assignment that has no meaning as an increment or a merge."""
