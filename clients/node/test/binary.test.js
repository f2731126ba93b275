'use strict'
// The binary form against the server: what counter_crdt_send writes
// (versions 1 and 2, and the compact 3 under counter_crdt.binary_format =
// 'compact'), read by CounterState.fromBinary as the text form reads; the
// bytes toBinary writes are the server's; bytes that counter_crdt_recv
// refuses, refused with its detail; and node-postgres's binary: true
// results through registerType, as far as node-postgres keeps their bytes.

const test = require('node:test')
const assert = require('node:assert')
const { CounterState, CounterStateBinaryError } = require('counter-crdt')
const pgc = require('counter-crdt/pg')
const pg = require('pg')
const { seed, rng, connect, freshSchema } = require('./helpers')

const rand = rng(seed + 31)
const int = (n) => Math.floor(rand() * n)
const pick = (xs) => xs[int(xs.length)]

const A = '0ddd454a-30ea-3e9a-a5d1-3d0092b783a6'
const B = '7ddd454a-30ea-3e9a-a5d1-3d0092b783a6'
const T = '7fffffff-ffff-ffff-ffff-ffffffffffff'
const R = '80000000-0000-0000-0000-000000000000'
// ids whose bytes are ASCII: states of them and of small numbers are valid
// UTF-8, which node-postgres's binary results keep
const ASCII = ['30303030-3030-3030-3030-303030303030', '41424344-4546-4748-494a-4b4c4d4e4f50', '61626364-6566-6768-696a-6b6c6d6e6f70']
const IDS = [A, B, T, R, ...ASCII, '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']

// Width codes (cc_wire.h): 0 is 8 bytes, 1 one, 2 two, 3 four; a layout has
// the clock's code in bits 0-1, the value's in bits 2-3.  The edges of each
// code that the narrower ones do not hold.
const WIDTH = [8, 1, 2, 4]
const CLOCKS = { 1: [1n, 255n], 2: [256n, 65535n], 3: [65536n, 2n ** 32n - 1n], 0: [2n ** 32n, 2n ** 63n - 1n] }
const VALUES = {
  1: [-128n, 127n],
  2: [-129n, 128n, -32768n, 32767n],
  3: [-32769n, 32768n, -(2n ** 31n), 2n ** 31n - 1n],
  0: [-(2n ** 31n) - 1n, 2n ** 31n, -(2n ** 63n), 2n ** 63n - 1n]
}

function clockCode (c) {
  return c <= 255n ? 1 : c <= 65535n ? 2 : c <= 2n ** 32n - 1n ? 3 : 0
}

function valueCode (v) {
  return v >= -128n && v <= 127n ? 1 : v >= -32768n && v <= 32767n ? 2 : v >= -(2n ** 31n) && v < 2n ** 31n ? 3 : 0
}

// The narrowest layout of a state (cc_stored_narrowest): the code of its
// largest clock and of its widest value; none, one byte each.
function narrowest (state) {
  const order = [1, 2, 3, 0]
  let c = 1
  let v = 1
  for (const s of state.shards) {
    if (order.indexOf(clockCode(s.clock)) > order.indexOf(c)) c = clockCode(s.clock)
    if (order.indexOf(valueCode(s.value)) > order.indexOf(v)) v = valueCode(s.value)
  }
  return c | (v << 2)
}

function idBytes (id) {
  return Buffer.from(id.replace(/-/g, ''), 'hex')
}

// n bytes big-endian of x, cut to its low bytes (two's complement)
function be (x, n) {
  const b = Buffer.alloc(n)
  let u = BigInt.asUintN(8 * n, BigInt(x))
  for (let i = n - 1; i >= 0; i--) { b[i] = Number(u & 0xffn); u >>= 8n }
  return b
}

// Version 3 bytes of [id, clock, value] in layout lay, unchecked.
function records (lay, ...shards) {
  const cw = WIDTH[lay & 3]
  const vw = WIDTH[(lay >> 2) & 3]
  return Buffer.concat([Buffer.from([3, lay]), ...shards.map(([id, c, v]) => Buffer.concat([idBytes(id), be(c, cw), be(v, vw)]))])
}

// Version 1 or 2 bytes, unchecked: flags, shards, then (folds given) records.
function portable (flags, shards, folds, counts = {}) {
  const parts = [Buffer.from([folds ? 2 : 1, flags]), be(counts.n ?? shards.length, 4)]
  for (const [id, c, v] of shards) parts.push(idBytes(id), be(c, 8), be(v, 8))
  if (folds) {
    parts.push(be(counts.nf ?? folds.length, 4))
    for (const [r, t, ...nums] of folds) parts.push(idBytes(r), idBytes(t), ...nums.map((x) => be(x, 8)))
  }
  return Buffer.concat(parts)
}

function randomState () {
  const ids = [...IDS].sort(() => rand() - 0.5).slice(0, int(5))
  const num = (table) => pick(table[pick([0, 1, 2, 3])])
  return new CounterState({ shards: ids.map((id) => ({ id, clock: rand() < 0.5 ? BigInt(1 + int(200)) : num(CLOCKS), value: rand() < 0.3 ? BigInt(int(2001) - 1000) : num(VALUES) })) })
}

// Valid UTF-8 without U+FFFD: node-postgres keeps these bytes.
function survivesUtf8 (b) {
  return Buffer.from(b.toString('utf8')).equals(b) && b.indexOf(Buffer.from([0xef, 0xbf, 0xbd])) === -1
}

let client
let searchPath
let texts   // the canonical texts of the table's states, by k (a Map)
test.before(async () => {
  client = await connect()
  searchPath = await freshSchema(client, 'cc_binary')
  await client.query('SET counter_crdt.binary_format = \'portable\'')
  const cases = ['{}', 'tombstone', `{${A}:1:-1}`]
  // each clock code with each value code at their edges: all 16 layouts
  for (const c of [1, 2, 3, 0]) {
    for (const v of [1, 2, 3, 0]) {
      for (const clock of CLOCKS[c]) for (const value of VALUES[v]) cases.push(`{${A}:${clock}:${value}, ${B}:1:-1}`)
      cases.push(`{${A}:${CLOCKS[c][0]}:${VALUES[v][0]}, ${B}:${CLOCKS[c][1]}:${VALUES[v].at(-1)}, ${T}:1:0}`)
    }
  }
  // states that node-postgres's binary results keep whole
  for (let i = 0; i < 40; i++) {
    const ids = ASCII.filter(() => rand() < 0.6)
    cases.push(new CounterState({ shards: ids.map((id) => ({ id, clock: BigInt(1 + int(127)), value: BigInt(int(128)) })) }).toString())
  }
  for (let i = 0; i < 250; i++) cases.push(rand() < 0.03 ? 'tombstone' : randomState().toString())
  await client.query('CREATE TABLE t (k int PRIMARY KEY, c counter_crdt)')
  await client.query('INSERT INTO t SELECT i, s::counter_crdt FROM unnest($1::text[]) WITH ORDINALITY AS u(s, i)', [cases])
  // folded values, as counter_crdt_fold makes them (state.test.js): the
  // first writer into the second, sometimes a third into the second as well
  const pre = []
  for (let i = 0; i < 60; i++) {
    const ids = [...IDS].sort(() => rand() - 0.5).slice(0, 2 + int(3))
    pre.push(new CounterState({ shards: ids.map((id) => ({ id, clock: BigInt(1 + int(20)), value: BigInt(int(2001) - 1000) })) }).toString())
  }
  await client.query(`INSERT INTO t SELECT 10000 + i, CASE WHEN n >= 3 THEN counter_crdt_fold(f + 0, w[3], w[2]) ELSE f END FROM (
      SELECT i, n, w, counter_crdt_fold(s::counter_crdt, w[1], w[2]) AS f FROM (
        SELECT i, s, (SELECT array_agg(id ORDER BY id DESC) FROM counter_crdt_shards(s::counter_crdt)) AS w, counter_crdt_writers(s::counter_crdt) AS n
        FROM unnest($1::text[]) WITH ORDINALITY AS u(s, i)) a) b`, [pre])
  const res = await client.query('SELECT k, c::text AS text FROM t ORDER BY k')
  texts = new Map(res.rows.map((r) => [r.k, r.text]))
})
test.after(() => client.end())

// The server's send of every state, under a setting of binary_format.
async function sent (format) {
  await client.query(`SET counter_crdt.binary_format = '${format}'`)
  try {
    const res = await client.query('SELECT k, c::text AS text, counter_crdt_send(c) AS bin FROM t ORDER BY k')
    return res.rows
  } finally {
    await client.query('SET counter_crdt.binary_format = \'portable\'')
  }
}

test('portable binary form: fromBinary reads what counter_crdt_send writes, toBinary writes it', async () => {
  const rows = await sent('portable')
  const seen = { 1: 0, 2: 0, tombstone: 0 }
  for (const { text, bin } of rows) {
    const s = CounterState.fromBinary(bin)
    assert.strictEqual(s.toString(), text, `fromBinary(${bin.toString('hex')})`)
    assert.ok(s.equals(CounterState.parse(text)))
    assert.strictEqual(CounterState.fromBinary(new Uint8Array(bin)).toString(), text, 'a Uint8Array as a Buffer')
    assert.deepStrictEqual(CounterState.parse(text).toBinary(), bin, `toBinary of ${text}`)
    assert.strictEqual(bin[0], s.folded ? 2 : 1, `version of ${text}`)
    if (s.tombstone) { seen.tombstone++; assert.deepStrictEqual([...bin], [1, 1, 0, 0, 0, 0]) }
    seen[bin[0]]++
  }
  assert.ok(seen[2] > 20, `folded values, version 2 (${seen[2]})`)
  assert.ok(seen.tombstone > 0 && seen[1] > 250, `tombstones and version 1 (${JSON.stringify(seen)})`)
  const f = CounterState.parse(rows.find((r) => r.bin[0] === 2).text)
  assert.strictEqual(CounterState.fromBinary(f.toBinary()).value, f.value)
})

test('compact binary form: version 3 in the narrowest layout, read as the text', async () => {
  const rows = await sent('compact')
  const layouts = new Set()
  let v3 = 0
  for (const { text, bin } of rows) {
    const s = CounterState.parse(text)
    assert.strictEqual(CounterState.fromBinary(bin).toString(), text, `fromBinary(${bin.toString('hex')})`)
    if (s.tombstone || s.folded) {
      assert.strictEqual(bin[0], s.tombstone ? 1 : 2, `${text}: no version 3 form`)
      assert.deepStrictEqual(bin, s.toBinary())
      continue
    }
    v3++
    const lay = narrowest(s)
    assert.strictEqual(bin[0], 3, text)
    assert.strictEqual(bin[1], lay, `layout of ${text}`)
    assert.strictEqual(bin.length, 2 + s.shards.length * (16 + WIDTH[lay & 3] + WIDTH[lay >> 2]), `length of ${text}`)
    assert.deepStrictEqual(bin, records(lay, ...s.shards.map((x) => [x.id, x.clock, x.value])), `bytes of ${text}`)
    layouts.add(lay)
  }
  assert.strictEqual(layouts.size, 16, 'every layout was sent')
  assert.ok(v3 > 300, `version 3 values (${v3})`)
  assert.deepStrictEqual([...rows[0].bin], [3, 0x05], '{} is two bytes')
})

test('node-postgres binary: true: CounterState where node-postgres keeps the bytes, refused where it loses them', async () => {
  for (const format of ['portable', 'compact']) {
    const rows = await sent(format)
    const c = new pg.Client({ options: searchPath })
    await c.connect()
    try {
      await pgc.registerType(c)
      await c.query(`SET counter_crdt.binary_format = '${format}'`)
      const whole = []
      const lost = []
      for (const r of rows) (survivesUtf8(r.bin) ? whole : lost).push(r.k)
      const bin = new Map(rows.map((r) => [r.k, r.bin]))
      assert.ok(whole.length > 40 && lost.length > 100, `${format}: both kinds (${whole.length} whole, ${lost.length} lost)`)
      const res = await c.query({ text: 'SELECT c FROM t WHERE k = ANY($1) ORDER BY k', values: [whole], binary: true })
      assert.strictEqual(res.fields[0].format, 'binary')
      assert.strictEqual(res.rows.length, whole.length)
      res.rows.forEach((r, j) => {
        assert.ok(r.c instanceof CounterState, `${format}: k ${whole[j]}`)
        assert.strictEqual(r.c.toString(), texts.get(whole[j]), `${format}: k ${whole[j]}`)
      })
      for (const k of lost.slice(0, 60)) {
        await assert.rejects(c.query({ text: 'SELECT c FROM t WHERE k = $1', values: [k], binary: true }),
          /brianc\/node-postgres#3495/, `${format}: k ${k}, ${bin.get(k).toString('hex')}`)
      }
      // the text form as before
      const text = await c.query('SELECT c FROM t ORDER BY k')
      assert.deepStrictEqual(text.rows.map((r) => r.c.toString()), [...texts.values()])
    } finally {
      await c.end()
    }
  }
  // a pool, as values: on the client registerType used and on new ones
  const pool = new pg.Pool({ options: searchPath, max: 3 })
  try {
    await pgc.registerType(pool, { as: 'value' })
    const [k, text] = [...texts].find(([, t]) => t.startsWith(`{${ASCII[0]}:`))
    const res = await Promise.all([1, 2, 3, 4, 5, 6].map(() => pool.query({ text: 'SELECT c, pg_backend_pid()::text AS pid FROM t WHERE k = $1', values: [k], binary: true })))
    assert.ok(new Set(res.map((r) => String(r.rows[0].pid))).size > 1, 'more than one connection of the pool')
    for (const r of res) assert.strictEqual(r.rows[0].c, CounterState.parse(text).value)
  } finally {
    await pool.end()
  }
})

// The server's verdict on bytes: its text of them, or "refused: " and its detail.
async function serverReads (raw) {
  try {
    const res = await client.query('SELECT $1::counter_crdt::text AS t', [raw])
    return res.rows[0].t
  } catch (e) {
    if (e.code !== '22P03') throw e
    return 'refused: ' + e.detail
  }
}

function packageReads (raw) {
  try {
    return CounterState.fromBinary(raw).toString()
  } catch (e) {
    if (!(e instanceof CounterStateBinaryError)) throw e
    assert.strictEqual(e.message, 'invalid external representation of type counter_crdt: ' + e.detail)
    return 'refused: ' + e.detail
  }
}

async function same (raw, refused) {
  const theirs = await serverReads(raw)
  if (refused !== undefined) assert.strictEqual(theirs.startsWith('refused: '), refused, `bytes ${raw.toString('hex')}: ${theirs}`)
  assert.strictEqual(packageReads(raw), theirs, `bytes ${raw.toString('hex')}`)
  return theirs
}

test('bytes that counter_crdt_recv refuses: refused with its detail', async () => {
  const a = idBytes(A)
  const z = Buffer.alloc(8)
  const bad = [
    Buffer.from([3]), Buffer.alloc(0), Buffer.from([1]), Buffer.from([1, 0, 0, 0, 0]), Buffer.from('040000000000', 'hex'),
    Buffer.from('ff0000000000', 'hex'), Buffer.from('000000000000', 'hex'), Buffer.from('0405', 'hex'),
    Buffer.from('030001', 'hex'), Buffer.concat([Buffer.from('0305', 'hex'), a, Buffer.from([1])]),
    Buffer.concat([Buffer.from('0304', 'hex'), a, Buffer.from('8000000000000000', 'hex'), Buffer.from([1])]), // clock 2^63
    Buffer.concat([Buffer.from('0304', 'hex'), a, Buffer.alloc(8, 0xff), Buffer.from([1])]), // clock 2^64 - 1
    Buffer.from('03f5', 'hex'),
    // versions 1 and 2
    Buffer.from('01000000000007', 'hex'), Buffer.from('010200000000', 'hex'), Buffer.from('018100000000', 'hex'),
    portable(0, [[A, 1, 1]], null, { n: 2 }), portable(0, [[A, 1, 1], [B, 1, 1]], null, { n: 1 }),
    portable(1, [[A, 1, 1]]), portable(1, [[A, 1, 1], [B, 1, 1]]), Buffer.concat([portable(0, [[A, 1, 1]]), z.subarray(0, 1)]),
    portable(0, [[B, 1, 1], [A, 1, 1]]), portable(0, [[A, 1, 1], [A, 2, 1]]), portable(0, [[A, 0, 1]]),
    portable(0, [[A, 1, 1], [B, -5, 1]]), portable(0, [[A, 2n ** 63n, 1]]), portable(0, [[A, 1, 1], [B, 1, 1], [B, 1, 1]]),
    portable(1, [], [[A, B, 1, 1, 1, 1]]), portable(0, [[B, 1, 1]], []),
    portable(0, [[B, 1, 1]], [[A, B, 1, 1, 1, 1]], { nf: 2 }), portable(0, [[B, 1, 1]], [[A, B, 1, 1, 1, 1]], { n: 3 }),
    portable(0, [[B, 1, 1]], [[A, B, 1, 1, 1, 1]]).subarray(0, 40), portable(0, [[B, 1, 1]], [[A, B, 1, 1, 1, 1]]).subarray(0, 41),
    portable(0, [[B, 1, 1]], [[A, B, 1, 1, 1, 1]]).subarray(0, 43), Buffer.concat([portable(0, [[B, 1, 1]], [[A, B, 1, 1, 1, 1]]), z]),
    portable(0, [[B, 0, 1]], [[A, B, 1, 1, 1, 1]]), portable(0, [[B, 1, 1], [A, 1, 1]], [[A, B, 1, 1, 1, 1]]),
    // fold records (cc_fold_check)
    portable(0, [[B, 3, 1]], [[B, B, 1, 1, 1, 1]]), portable(0, [[B, 3, 1]], [[A, B, 0, 1, 1, 1]]),
    portable(0, [[B, 3, 1]], [[A, B, 1, 0, 1, 1]]), portable(0, [[B, 3, 1]], [[A, B, 0, 0, 1, 1]]),
    portable(0, [[B, 3, 1]], [[A, B, -1n, 1, 1, 1]]), portable(0, [[B, 3, 1]], [[A, B, 1, 2n ** 63n, 1, 1]]),
    portable(0, [[B, 3, 1], [T, 3, 1]], [[A, B, 1, 1, 1, 1], [A, B, 1, 1, 1, 1]]),
    portable(0, [[B, 3, 1], [T, 3, 1]], [[A, T, 1, 1, 1, 1], [A, B, 1, 1, 1, 1]]),
    portable(0, [[B, 3, 1], [T, 3, 1]], [[R, B, 1, 1, 1, 1], [A, T, 1, 1, 1, 1]]),
    portable(0, [[B, 3, 1], [T, 3, 1]], [[A, T, 1, 1, 1, 1], [A, B, 1, 1, 1, 1], [B, B, 1, 1, 1, 1]]),
    portable(0, [[A, 1, 1], [B, 3, 1]], [[A, B, 1, 1, 1, 1]]), portable(0, [[A, 2, 1], [B, 3, 1]], [[A, B, 1, 2, 1, 1]]),
    portable(0, [[B, 3, 1]], [[A, T, 1, 1, 1, 1]]), portable(0, [[B, 3, 1]], [[A, B, 4, 1, 1, 1]])
  ]
  for (const bit of [0x10, 0x20, 0x40, 0x80]) bad.push(Buffer.concat([Buffer.from([3, bit | 0x05]), a, Buffer.from([1, 1])]))
  for (let lay = 0; lay < 16; lay++) {
    const rec = records(lay, [A, 1, 1], [B, 2, -2])
    bad.push(rec.subarray(0, -1), Buffer.concat([rec, Buffer.from([0])]), rec.subarray(0, 3),
      records(lay, [B, 2, -2], [A, 1, 1]), records(lay, [A, 1, 1], [A, 2, -2]),
      records(lay, [A, 1, 1], [B, 0, -2]), records(lay, [A, 0, 0]))
  }
  for (const raw of bad) await same(raw, true)
  // the wordings of one and many
  const details = new Set()
  for (const raw of bad) details.add(packageReads(raw).replace(/[0-9a-f-]{36}|\d+/g, '#'))
  assert.ok(details.size >= 25, `many kinds of refusal (${details.size})`)
})

test('bytes that counter_crdt_recv takes: every layout, values at their edges', async () => {
  for (let lay = 0; lay < 16; lay++) {
    for (const text of ['{}', `{${A}:1:1}`, `{${A}:1:-1, ${B}:1:0}`, `{${A}:200:-100, ${B}:1:127}`]) {
      const s = CounterState.parse(text)
      assert.strictEqual(await same(records(lay, ...s.shards.map((x) => [x.id, x.clock, x.value])), false), text, `layout 0x${lay.toString(16)}`)
    }
  }
  // a layout too narrow for its numbers: their low bytes, as the server reads them
  for (let i = 0; i < 40; i++) {
    const s = randomState()
    for (let lay = 0; lay < 16; lay++) await same(records(lay, ...s.shards.map((x) => [x.id, x.clock, x.value])))
  }
  // folded values and tombstones written by toBinary
  await same(CounterState.tombstone().toBinary(), false)
  const f = CounterState.parse(`{${T}:4:110} folded {${R}>${T}:4:5:100:100}`)
  assert.strictEqual(await same(f.toBinary(), false), f.toString())
  // a target that is retired itself needs no shard of its own (cc_fold_check)
  const chain = portable(0, [[A, 5, 1], [B, 3, 1]], [[A, B, 1, 1, 1, 1], [T, A, 9, 1, 1, 1]])
  assert.ok(CounterState.fromBinary(chain).folded)
  await same(chain, false)
})

test('what the server sends, bytes changed, inserted, deleted: the server\'s verdict', async () => {
  let refused = 0
  for (const format of ['compact', 'portable']) {
    const rows = await sent(format)
    for (let i = 0; i < 150; i++) {
      const raw = [...pick(rows).bin]
      for (let j = 0, m = 1 + int(2); j < m; j++) {
        const k = int(raw.length + 1)
        const op = rand()
        if (op < 0.5 && raw.length) raw[Math.min(k, raw.length - 1)] = pick([0, 1, 2, 3, 0x0f, 0x10, 0x7f, 0x80, 0xff, int(256)])
        else if (op < 0.75) raw.splice(k, 0, pick([0, 1, 3, 255]))
        else if (raw.length) raw.splice(Math.min(k, raw.length - 1), 1)
      }
      if ((await same(Buffer.from(raw))).startsWith('refused: ')) refused++
    }
  }
  assert.ok(refused > 100, `most were refused (${refused})`)
})
