'use strict'
// CounterState: a counter_crdt value in JavaScript, read and printed in the
// text form of the C type (src/core/cc_text.c): `{}`, `{id:clock:value, ...}`
// with ids lower-case and ascending, `tombstone`, and for a counter that
// folded retired writers ` folded {retired>target:tclock:aclock:avalue:absorbed, ...}`
// after the shards.  Input is parsed as the server parses it (white space
// around every token, ids and keywords in any case and any order) and
// refused where the server refuses it; output is canonical, so that
// `CounterState.parse(text).toString()` is what `text::counter_crdt::text`
// prints.  Merge, value and the checks follow src/core/cc_algebra.c and
// cc_fold.c; numbers are BigInts, exact.
//
// The binary form (counter_crdt_send/recv, src/core/cc_wire.h) is read in
// its three versions: 1 (shards), 2 (shards and fold records) and the
// compact 3 (shards at narrow widths, sent under counter_crdt.binary_format
// = 'compact'), and refused where counter_crdt_recv refuses it, with its
// detail; toBinary() writes version 1, or 2 with fold records.

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The text the server refuses, with its reason (the server's detail). */
class CounterStateSyntaxError extends SyntaxError {
  constructor (text, detail) {
    super(`invalid input syntax for type counter_crdt: "${text}": ${detail}`)
    this.name = 'CounterStateSyntaxError'
    this.text = text
    this.detail = detail
  }
}

/** Bytes that counter_crdt_recv refuses (22P03), with the server's detail. */
class CounterStateBinaryError extends TypeError {
  constructor (detail) {
    super(`invalid external representation of type counter_crdt: ${detail}`)
    this.name = 'CounterStateBinaryError'
    this.code = '22P03'
    this.detail = detail
  }
}

function isSpace (c) {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v'
}

function isIdChar (c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c === '-'
}

class Parser {
  constructor (text) {
    this.s = text
    this.pos = 0
  }

  fail (detail) {
    throw new CounterStateSyntaxError(this.s, detail)
  }

  found () {
    if (this.pos >= this.s.length) return ', found end of input.'
    let q = ''
    while (q.length < 16 && this.pos + q.length < this.s.length) {
      const c = this.s.charCodeAt(this.pos + q.length)
      if (c < 0x20 || c >= 0x7f) break
      q += this.s[this.pos + q.length]
    }
    if (q === '') return `, found a byte that is not printable ASCII at position ${this.pos + 1}.`
    return `, found "${q}${this.pos + q.length < this.s.length ? '...' : ''}" at position ${this.pos + 1}.`
  }

  syntax (what) {
    this.fail(what + this.found())
  }

  space () {
    while (this.pos < this.s.length && isSpace(this.s[this.pos])) this.pos++
  }

  peek () {
    return this.s[this.pos]
  }

  expect (c, context) {
    this.space()
    if (this.s[this.pos] === c) {
      this.pos++
      this.space()
      return
    }
    this.syntax(`Expected "${c}" ${context}`)
  }

  keyword (kw) {
    if (this.s.length - this.pos < kw.length) return false
    if (this.s.substr(this.pos, kw.length).toLowerCase() !== kw) return false
    this.pos += kw.length
    return true
  }

  id (what) {
    const start = this.pos
    let end = start
    while (end < this.s.length && isIdChar(this.s[end])) end++
    if (end === start) this.syntax(`Expected ${what}`)
    const text = this.s.slice(start, end).toLowerCase()
    if (!UUID_RE.test(text)) {
      const shown = this.s.slice(start, Math.min(end, start + 40))
      this.fail(`Invalid writer id "${shown}${end - start > 40 ? '...' : ''}" at position ${start + 1}: expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d.`)
    }
    this.pos = end
    return text
  }

  int64 (what, owner) {
    const start = this.pos
    let i = this.pos
    if (this.s[i] === '+' || this.s[i] === '-') i++
    if (!(this.s[i] >= '0' && this.s[i] <= '9')) {
      this.pos = i
      this.syntax(`Expected the ${what} of ${owner()} as a whole number`)
    }
    while (this.s[i] >= '0' && this.s[i] <= '9') i++
    const v = BigInt(this.s.slice(start, i))
    if (v < INT64_MIN || v > INT64_MAX) {
      const shown = this.s.slice(start, Math.min(i, start + 40))
      this.fail(`The ${what} "${shown}${i - start > 40 ? '...' : ''}" of ${owner()} is out of range for type bigint.`)
    }
    this.pos = i
    return v
  }
}

function cmp (a, b) {
  return a < b ? -1 : a > b ? 1 : 0
}

function foldKey (f) {
  return f.retired + '>' + f.target
}

// The fold record b wins over a (cc_fold_b_wins): higher tclock, then
// aclock, avalue, absorbed.
function foldBWins (a, b) {
  if (b.tclock !== a.tclock) return b.tclock > a.tclock
  if (b.aclock !== a.aclock) return b.aclock > a.aclock
  if (b.avalue !== a.avalue) return b.avalue > a.avalue
  return b.absorbed > a.absorbed
}

// The latest of a retired writer's records: highest aclock, then avalue.
function latest (records) {
  let aclock = 0n
  let avalue = 0n
  for (const f of records) {
    if (f.aclock > aclock || (f.aclock === aclock && f.avalue > avalue)) {
      aclock = f.aclock
      avalue = f.avalue
    }
  }
  return { aclock, avalue }
}

function groupByRetired (folds) {
  const m = new Map()
  for (const f of folds) {
    if (!m.has(f.retired)) m.set(f.retired, [])
    m.get(f.retired).push(f)
  }
  return m
}

// The checks of cc_fold_check(): the sentence of the first failure, or null.
// asLaid: records as they came (the binary form), their order checked, not made.
function foldProblem (shards, folds, asLaid = false) {
  const byId = new Map(shards.map((s) => [s.id, s]))
  for (let i = 0; i < folds.length; i++) {
    const f = folds[i]
    const name = foldKey(f)
    if (f.retired === f.target) return `Fold record ${name} names one writer as retired and target.`
    if (f.tclock < 1n) return `Fold record ${name} has tclock ${f.tclock}; clocks start at 1.`
    if (f.aclock < 1n) return `Fold record ${name} has aclock ${f.aclock}; clocks start at 1.`
    if (i > 0 && foldKey(folds[i - 1]) === name) return `Fold record ${name} appears more than once.`
    if (asLaid && i > 0 && foldKey(folds[i - 1]) > name) return `Fold record ${name} is out of ascending (retired, target) order.`
  }
  const groups = groupByRetired(folds)
  for (const [retired, records] of groups) {
    const { aclock } = latest(records)
    const own = byId.get(retired)
    if (own && own.clock <= aclock) {
      return `Retired writer ${retired} keeps its shard of clock ${own.clock}, which its fold records have seen (aclock ${aclock}).`
    }
    for (const f of records) {
      if (groups.has(f.target)) continue
      const t = byId.get(f.target)
      if (!t) return `The target of fold record ${foldKey(f)} has no shard.`
      if (t.clock < f.tclock) return `Fold record ${foldKey(f)} has tclock ${f.tclock}, newer than its target's shard (clock ${t.clock}).`
    }
  }
  return null
}

function freezeShard (id, clock, value) {
  return Object.freeze({ id, clock, value })
}

function toInt64 (x, what) {
  const v = typeof x === 'bigint' ? x : BigInt(x)
  if (v < INT64_MIN || v > INT64_MAX) throw new RangeError(`${what} ${v} is out of range for type bigint`)
  return v
}

// The binary form (cc_wire.h).
const WIRE_V1 = 1
const WIRE_V2 = 2
const WIRE_V3 = 3
const FLAG_TOMBSTONE = 0x01
const HEADER = 6
const SHARD_SIZE = 32
const FOLD_SIZE = 64
const LAY_MASK = 0x0f
// width code -> bytes: 0 is 8, 1 one, 2 two, 3 four (cc_lay_width)
const WIDTHS = [8, 1, 2, 4]
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

const plural = (n, one, many) => (n === 1 ? one : many)

function readId (b, at) {
  let h = ''
  for (let i = 0; i < 16; i++) {
    h += HEX[b[at + i]]
    if (i === 3 || i === 5 || i === 7 || i === 9) h += '-'
  }
  return h
}

function writeId (b, at, id) {
  const hex = id.replace(/-/g, '')
  for (let i = 0; i < 16; i++) b[at + i] = parseInt(hex.substr(2 * i, 2), 16)
}

// The unsigned big-endian number of width code at b[at] (cc_get_be_width);
// an 8-byte one as the server's int64 (2^63 and more negative).
function readWidth (view, at, code, signed) {
  switch (code) {
    case 0: return view.getBigInt64(at)
    case 1: return BigInt(signed ? view.getInt8(at) : view.getUint8(at))
    case 2: return BigInt(signed ? view.getInt16(at) : view.getUint16(at))
    default: return BigInt(signed ? view.getInt32(at) : view.getUint32(at))
  }
}

// cc_check_canonical: clocks >= 1, ids strictly ascending.
function shardsProblem (shards) {
  for (let i = 0; i < shards.length; i++) {
    const s = shards[i]
    if (s.clock < 1n) return `Writer ${s.id} has clock ${s.clock}; clocks start at 1.`
    if (i > 0 && shards[i - 1].id >= s.id) {
      return `Writer ${s.id} ${shards[i - 1].id === s.id ? 'appears more than once' : 'is out of ascending order'}.`
    }
  }
  return null
}

function decodeCompact (b, view) {
  const len = b.length
  if (len < 2) throw new CounterStateBinaryError(`The value is ${len} ${plural(len, 'byte', 'bytes')} long; the header of format version 3 takes 2.`)
  const lay = b[1]
  if (lay & ~LAY_MASK) throw new CounterStateBinaryError(`Unknown layout bits 0x${HEX[lay & ~LAY_MASK]} are set.`)
  const cw = WIDTHS[lay & 3]
  const vw = WIDTHS[(lay >> 2) & 3]
  const size = 16 + cw + vw
  const body = len - 2
  if (body % size !== 0) {
    throw new CounterStateBinaryError(`${body} ${plural(body, 'byte', 'bytes')} of shard data ${plural(body, 'is', 'are')} not a whole number of ${size}-byte records (layout 0x${HEX[lay]}).`)
  }
  const shards = []
  for (let at = 2; at < len; at += size) {
    shards.push(freezeShard(readId(b, at), readWidth(view, at + 16, lay & 3, false), readWidth(view, at + 16 + cw, (lay >> 2) & 3, true)))
  }
  const problem = shardsProblem(shards)
  if (problem) throw new CounterStateBinaryError(problem)
  return shards
}

// The state of the binary form, checked as counter_crdt_recv checks it
// (cc_decode_header_folded, cc_decode_shards, cc_fold_check).
function decodeBinary (b) {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  const len = b.length
  if (len >= 1 && b[0] === WIRE_V3) return makeState(decodeCompact(b, view), [], false)
  if (len < HEADER) throw new CounterStateBinaryError(`The value is ${len} ${plural(len, 'byte', 'bytes')} long; the header alone takes 6.`)
  const version = b[0]
  const flags = b[1]
  if (version !== WIRE_V1 && version !== WIRE_V2) {
    throw new CounterStateBinaryError(`Format version ${version} is not supported; this build reads versions 1, 2 and 3.`)
  }
  if (flags & ~FLAG_TOMBSTONE) throw new CounterStateBinaryError(`Unknown flag bits 0x${HEX[flags & ~FLAG_TOMBSTONE]} are set.`)
  const tombstone = (flags & FLAG_TOMBSTONE) !== 0
  const count = view.getUint32(2)
  const body = len - HEADER
  let fcount = 0
  if (version === WIRE_V1) {
    if (body % SHARD_SIZE !== 0 || body / SHARD_SIZE !== count) {
      throw new CounterStateBinaryError(`The header announces ${count} ${plural(count, 'shard', 'shards')} but ${body} ${plural(body, 'byte', 'bytes')} of shard data ${plural(body, 'follows', 'follow')}.`)
    }
    if (tombstone && count !== 0) throw new CounterStateBinaryError(`A tombstone has no shards, but ${count} ${plural(count, 'is', 'are')} present.`)
  } else {
    if (tombstone) throw new CounterStateBinaryError('A tombstone has no fold records, but format version 2 is for values with them.')
    if (Math.floor(body / SHARD_SIZE) < count || body - count * SHARD_SIZE < 4) {
      throw new CounterStateBinaryError(`The header announces ${count} ${plural(count, 'shard', 'shards')} but the value ends before its fold record count (${body} ${plural(body, 'byte', 'bytes')} after the header).`)
    }
    const rest = body - count * SHARD_SIZE - 4
    fcount = view.getUint32(HEADER + count * SHARD_SIZE)
    if (fcount === 0) throw new CounterStateBinaryError('The fold record count is 0; format version 2 is for values with fold records.')
    if (rest % FOLD_SIZE !== 0 || rest / FOLD_SIZE !== fcount) {
      throw new CounterStateBinaryError(`The value announces ${fcount} fold ${plural(fcount, 'record', 'records')} but ${rest} ${plural(rest, 'byte', 'bytes')} of record data ${plural(rest, 'follows', 'follow')}.`)
    }
  }
  if (tombstone) return TOMBSTONE
  const shards = []
  let at = HEADER
  for (let i = 0; i < count; i++, at += SHARD_SIZE) {
    shards.push(freezeShard(readId(b, at), view.getBigInt64(at + 16), view.getBigInt64(at + 24)))
  }
  let problem = shardsProblem(shards)
  if (problem) throw new CounterStateBinaryError(problem)
  const folds = []
  at += 4
  for (let i = 0; i < fcount; i++, at += FOLD_SIZE) {
    folds.push(Object.freeze({
      retired: readId(b, at),
      target: readId(b, at + 16),
      tclock: view.getBigInt64(at + 32),
      aclock: view.getBigInt64(at + 40),
      avalue: view.getBigInt64(at + 48),
      absorbed: view.getBigInt64(at + 56)
    }))
  }
  if (fcount) {
    problem = foldProblem(shards, folds, true)
    if (problem) throw new CounterStateBinaryError(problem)
  }
  return makeState(shards, folds, false)
}

// A checked state from frozen, canonical parts.
function makeState (shards, folds, tombstone) {
  const s = Object.create(CounterState.prototype)
  s._tombstone = tombstone
  s._shards = Object.freeze(shards)
  s._folds = Object.freeze(folds)
  return Object.freeze(s)
}

class CounterState {
  /**
   * A state from its parts: { shards: [{id, clock, value}], folds: [...], tombstone }.
   * Ids in any case and order; refused (a CounterStateSyntaxError, as the
   * server refuses its text) when it is not a value the type accepts.
   */
  constructor ({ shards = [], folds = [], tombstone = false } = {}) {
    if (tombstone) {
      if (shards.length || folds.length) throw new TypeError('a tombstone has neither shards nor fold records')
      this._tombstone = true
      this._shards = Object.freeze([])
      this._folds = Object.freeze([])
      Object.freeze(this)
      return
    }
    const sh = shards.map((s) => {
      const id = String(s.id).toLowerCase()
      if (!UUID_RE.test(id)) throw new TypeError(`invalid writer id ${s.id}`)
      return freezeShard(id, toInt64(s.clock, 'clock'), toInt64(s.value, 'value'))
    })
    sh.sort((a, b) => cmp(a.id, b.id))
    const fo = folds.map((f) => {
      const retired = String(f.retired).toLowerCase()
      const target = String(f.target).toLowerCase()
      if (!UUID_RE.test(retired) || !UUID_RE.test(target)) throw new TypeError(`invalid writer id in fold record ${f.retired}>${f.target}`)
      return Object.freeze({
        retired,
        target,
        tclock: toInt64(f.tclock, 'tclock'),
        aclock: toInt64(f.aclock, 'aclock'),
        avalue: toInt64(f.avalue, 'avalue'),
        absorbed: toInt64(f.absorbed, 'absorbed')
      })
    })
    fo.sort((a, b) => cmp(foldKey(a), foldKey(b)))
    this._tombstone = false
    this._shards = Object.freeze(sh)
    this._folds = Object.freeze(fo)
    const problem = this._problem()
    if (problem) throw new CounterStateSyntaxError(this._format(), problem)
    Object.freeze(this)
  }

  _problem () {
    for (let i = 0; i < this._shards.length; i++) {
      const s = this._shards[i]
      if (s.clock < 1n) return `Writer ${s.id} has clock ${s.clock}; clocks start at 1.`
      if (i > 0 && this._shards[i - 1].id === s.id) return `Writer ${s.id} appears more than once.`
    }
    return this._folds.length ? foldProblem(this._shards, this._folds) : null
  }

  /** Parses the text form, as `'...'::counter_crdt` does. */
  static parse (text) {
    if (typeof text !== 'string') throw new TypeError('CounterState.parse takes a string')
    const p = new Parser(text)
    const shards = []
    const folds = []
    let tombstone = false
    p.space()
    const c = p.peek()
    if (c === 't' || c === 'T') {
      if (!p.keyword('tombstone')) p.syntax('Expected "{" or "tombstone"')
      tombstone = true
    } else {
      if (c !== '{') p.syntax('Expected "{" or "tombstone"')
      p.pos++
      p.space()
      if (p.peek() === '}') {
        p.pos++
      } else {
        for (;;) {
          const id = p.id('a writer id')
          const owner = () => `writer ${id}`
          p.expect(':', 'after a writer id')
          const clock = p.int64('clock', owner)
          p.expect(':', 'after a clock')
          const value = p.int64('value', owner)
          shards.push({ id, clock, value })
          p.space()
          if (p.peek() === ',') { p.pos++; p.space(); continue }
          if (p.peek() === '}') { p.pos++; break }
          p.syntax('Expected "," or "}" after a shard')
        }
      }
    }
    p.space()
    if (p.peek() === 'f' || p.peek() === 'F') {
      const at = p.pos
      if (p.keyword('folded')) {
        if (tombstone) p.fail(`A tombstone has no fold records, found "folded" at position ${at + 1}.`)
        p.space()
        if (p.peek() !== '{') p.syntax('Expected "{" after "folded"')
        p.pos++
        p.space()
        if (p.peek() === '}') p.syntax('Expected a fold record: a value without fold records has no "folded" part')
        for (;;) {
          const retired = p.id('the retired writer id of a fold record')
          p.expect('>', 'after the retired writer id of a fold record')
          const target = p.id('the target writer id of a fold record')
          const owner = () => `fold record ${retired}>${target}`
          p.expect(':', 'after the target writer id of a fold record')
          const tclock = p.int64('tclock', owner)
          p.expect(':', 'after a tclock')
          const aclock = p.int64('aclock', owner)
          p.expect(':', 'after an aclock')
          const avalue = p.int64('avalue', owner)
          p.expect(':', 'after an avalue')
          const absorbed = p.int64('absorbed', owner)
          folds.push({ retired, target, tclock, aclock, avalue, absorbed })
          p.space()
          if (p.peek() === ',') { p.pos++; p.space(); continue }
          if (p.peek() === '}') { p.pos++; break }
          p.syntax('Expected "," or "}" after a fold record')
        }
        p.space()
      }
    }
    if (p.pos < text.length) p.syntax('Expected end of input')
    try {
      return tombstone ? TOMBSTONE : new CounterState({ shards, folds })
    } catch (e) {
      if (e instanceof CounterStateSyntaxError) throw new CounterStateSyntaxError(text, e.detail)
      throw e
    }
  }

  /**
   * Reads the binary form (a Buffer or Uint8Array), as counter_crdt_recv
   * does: versions 1 and 2, and the compact version 3 that a session with
   * counter_crdt.binary_format = 'compact' is sent; a
   * CounterStateBinaryError (the server's detail) for bytes it refuses.
   */
  static fromBinary (buf) {
    if (!(buf instanceof Uint8Array)) throw new TypeError('CounterState.fromBinary takes a Buffer or Uint8Array')
    return decodeBinary(buf)
  }

  /** A state, or null for null/undefined: from text or a CounterState. */
  static from (x) {
    if (x === null || x === undefined) return null
    if (x instanceof CounterState) return x
    if (typeof x === 'string') return CounterState.parse(x)
    throw new TypeError(`a counter_crdt state is its text or a CounterState, not ${typeof x} ${x}: to count, increment (c = c + n)`)
  }

  /** The empty counter, `{}` (value 0). */
  static empty () {
    return EMPTY
  }

  /** The deleted counter, `tombstone` (value null). */
  static tombstone () {
    return TOMBSTONE
  }

  get tombstone () {
    return this._tombstone
  }

  /** [{id, clock, value}], ascending id; none for a tombstone. */
  get shards () {
    return this._shards
  }

  /** [{retired, target, tclock, aclock, avalue, absorbed}], in (retired, target) order. */
  get folds () {
    return this._folds
  }

  get folded () {
    return this._folds.length > 0
  }

  /**
   * The value, as `c::bigint` reads it: a BigInt, null for a tombstone;
   * a RangeError where the server fails with 22003 (outside bigint).
   */
  get value () {
    if (this._tombstone) return null
    let total = 0n
    for (const s of this._shards) total += s.value
    const shardIds = new Set(this._shards.map((s) => s.id))
    for (const [retired, records] of groupByRetired(this._folds)) {
      if (!shardIds.has(retired)) total += latest(records).avalue
      for (const f of records) total -= f.absorbed
    }
    if (total < INT64_MIN || total > INT64_MAX) throw new RangeError(`the value ${total} of the counter is out of range for type bigint`)
    return total
  }

  /** counter_crdt_merge(this, other): per writer the higher clock, a tombstone wins, null is the identity. */
  merge (other) {
    if (other === null || other === undefined) return this
    other = CounterState.from(other)
    if (this._tombstone) return this
    if (other._tombstone) return other
    const byId = new Map()
    for (const s of this._shards) byId.set(s.id, s)
    for (const s of other._shards) {
      const a = byId.get(s.id)
      if (!a || s.clock > a.clock || (s.clock === a.clock && s.value > a.value)) byId.set(s.id, s)
    }
    const byKey = new Map()
    for (const f of this._folds) byKey.set(foldKey(f), f)
    for (const f of other._folds) {
      const a = byKey.get(foldKey(f))
      if (!a || foldBWins(a, f)) byKey.set(foldKey(f), f)
    }
    const folds = [...byKey.values()]
    let shards = [...byId.values()]
    if (folds.length) {
      const groups = groupByRetired(folds)
      shards = shards.filter((s) => !groups.has(s.id) || s.clock > latest(groups.get(s.id)).aclock)
    }
    return new CounterState({ shards, folds })
  }

  /** The same state (the server's `=` on states). */
  equals (other) {
    other = CounterState.from(other)
    return other !== null && this.toString() === other.toString()
  }

  _format () {
    if (this._tombstone) return 'tombstone'
    let t = '{' + this._shards.map((s) => `${s.id}:${s.clock}:${s.value}`).join(', ') + '}'
    if (this._folds.length) {
      t += ' folded {' + this._folds.map((f) => `${f.retired}>${f.target}:${f.tclock}:${f.aclock}:${f.avalue}:${f.absorbed}`).join(', ') + '}'
    }
    return t
  }

  /** The canonical text, as the server prints it. */
  toString () {
    return this._format()
  }

  /**
   * The binary form, as counter_crdt_send writes it under the default
   * counter_crdt.binary_format ('portable'): version 1, or 2 with fold
   * records, which every release reads.  A Buffer.
   */
  toBinary () {
    const n = this._shards.length
    const nf = this._folds.length
    const b = Buffer.alloc(HEADER + n * SHARD_SIZE + (nf ? 4 + nf * FOLD_SIZE : 0))
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
    b[0] = nf ? WIRE_V2 : WIRE_V1
    b[1] = this._tombstone ? FLAG_TOMBSTONE : 0
    view.setUint32(2, n)
    let at = HEADER
    for (const s of this._shards) {
      writeId(b, at, s.id)
      view.setBigInt64(at + 16, s.clock)
      view.setBigInt64(at + 24, s.value)
      at += SHARD_SIZE
    }
    if (nf) {
      view.setUint32(at, nf)
      at += 4
      for (const f of this._folds) {
        writeId(b, at, f.retired)
        writeId(b, at + 16, f.target)
        view.setBigInt64(at + 32, f.tclock)
        view.setBigInt64(at + 40, f.aclock)
        view.setBigInt64(at + 48, f.avalue)
        view.setBigInt64(at + 56, f.absorbed)
        at += FOLD_SIZE
      }
    }
    return b
  }

  /** node-postgres writes a parameter through this: the text. */
  toPostgres () {
    return this._format()
  }

  toJSON () {
    return this._format()
  }

  [Symbol.for('nodejs.util.inspect.custom')] () {
    return `CounterState <${this._format()}>`
  }
}

const EMPTY = new CounterState()
const TOMBSTONE = new CounterState({ tombstone: true })

module.exports = { CounterState, CounterStateSyntaxError, CounterStateBinaryError, INT64_MIN, INT64_MAX }
