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
function foldProblem (shards, folds) {
  const byId = new Map(shards.map((s) => [s.id, s]))
  for (let i = 0; i < folds.length; i++) {
    const f = folds[i]
    const name = foldKey(f)
    if (f.retired === f.target) return `Fold record ${name} names one writer as retired and target.`
    if (f.tclock < 1n) return `Fold record ${name} has tclock ${f.tclock}; clocks start at 1.`
    if (f.aclock < 1n) return `Fold record ${name} has aclock ${f.aclock}; clocks start at 1.`
    if (i > 0 && foldKey(folds[i - 1]) === name) return `Fold record ${name} appears more than once.`
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

module.exports = { CounterState, CounterStateSyntaxError, INT64_MIN, INT64_MAX }
