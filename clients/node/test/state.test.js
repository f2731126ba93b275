'use strict'
// CounterState against the server: random states in random spellings read
// and printed as the server does, values as c::bigint reads them (22003
// where it fails), refusals where the server refuses, merges, tombstones,
// and folded values that counter_crdt_fold made.

const test = require('node:test')
const assert = require('node:assert')
const { CounterState, CounterStateSyntaxError } = require('counter-crdt')
const { seed, rng, connect, freshSchema } = require('./helpers')

const rand = rng(seed)
const int = (n) => Math.floor(rand() * n)
const pick = (xs) => xs[int(xs.length)]
const ids = Array.from({ length: 6 }, (_, i) => {
  const h = (i * 0x2f3a9c1 + seed).toString(16).padStart(8, '0').slice(-8)
  return `${h}-30ea-3e9a-a5d1-3d0092b783a${i}`
})
ids.push('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff')
const big = [0n, 1n, -1n, 2n ** 62n, -(2n ** 62n), 2n ** 63n - 1n, -(2n ** 63n), 9007199254740993n]

function randomValue () {
  return rand() < 0.3 ? pick(big) : BigInt(int(2001) - 1000)
}

function randomShards () {
  const chosen = [...ids].sort(() => rand() - 0.5).slice(0, int(5))
  return chosen.map((id) => ({ id, clock: rand() < 0.2 ? pick([1n, 2n ** 63n - 1n]) : BigInt(1 + int(50)), value: randomValue() }))
}

// One spelling of the shards among the many the server reads.
function spell (shards, tombstone) {
  const ws = () => pick(['', '', ' ', '\t', '\n ', '  '])
  const cs = (s) => (rand() < 0.5 ? s.toUpperCase() : s)
  if (tombstone) return ws() + pick(['tombstone', 'TOMBSTONE', 'TombStone']) + ws()
  const order = [...shards].sort(() => rand() - 0.5)
  const num = (v) => (v >= 0n && rand() < 0.2 ? '+' + v : String(v))
  return ws() + '{' + ws() + order.map((s) => `${cs(s.id)}${ws()}:${ws()}${num(s.clock)}${ws()}:${ws()}${num(s.value)}`).join(ws() + ',' + ws()) + ws() + '}' + ws()
}

let client
test.before(async () => {
  client = await connect()
  await freshSchema(client, 'cc_state')
  // The server's answer for one text, errors as their SQLSTATE: batchable.
  await client.query(`CREATE FUNCTION try_text(t text) RETURNS text LANGUAGE plpgsql AS $$
    BEGIN RETURN t::counter_crdt::text; EXCEPTION WHEN others THEN RETURN 'ERROR ' || SQLSTATE; END $$`)
  await client.query(`CREATE FUNCTION try_value(t text) RETURNS text LANGUAGE plpgsql AS $$
    BEGIN RETURN coalesce((t::counter_crdt)::bigint::text, 'NULL'); EXCEPTION WHEN others THEN RETURN 'ERROR ' || SQLSTATE; END $$`)
  console.log(`# seed ${seed}`)
})
test.after(() => client.end())

function jsText (t) {
  try {
    return CounterState.parse(t).toString()
  } catch (e) {
    if (e instanceof CounterStateSyntaxError) return 'ERROR 22P02'
    throw e
  }
}

function jsValue (t) {
  let s
  try {
    s = CounterState.parse(t)
  } catch (e) {
    return 'ERROR 22P02'
  }
  try {
    const v = s.value
    return v === null ? 'NULL' : String(v)
  } catch (e) {
    if (e instanceof RangeError) return 'ERROR 22003'
    throw e
  }
}

async function compare (texts, what) {
  const res = await client.query('SELECT try_text(t) AS text, try_value(t) AS value FROM unnest($1::text[]) WITH ORDINALITY AS u(t, i) ORDER BY i', [texts])
  let seen = 0
  texts.forEach((t, i) => {
    assert.strictEqual(jsText(t), res.rows[i].text, `${what}: the text of ${JSON.stringify(t)}`)
    assert.strictEqual(jsValue(t), res.rows[i].value, `${what}: the value of ${JSON.stringify(t)}`)
    if (!res.rows[i].text.startsWith('ERROR')) seen++
  })
  return seen
}

test('random states in random spellings: text and value as the server', async () => {
  const texts = []
  for (let i = 0; i < 400; i++) texts.push(spell(randomShards(), rand() < 0.05))
  texts.push('{}', ' { } ', 'tombstone')
  const ok = await compare(texts, 'valid')
  assert.ok(ok > 380, `most were accepted (${ok}); the rest are duplicate-free by construction`)
  const overflow = texts.filter((t) => jsValue(t) === 'ERROR 22003').length
  assert.ok(overflow > 0, `some sums leave bigint (${overflow})`)
})

test('malformed texts: refused where the server refuses them', async () => {
  const a = ids[0]
  const b = ids[1]
  const texts = [
    '', ' ', '100', '0', '{', '}', '{,}', `{${a}}`, `{${a}:1}`, `{${a}:1:}`, `{${a}:0:5}`, `{${a}:-1:5}`,
    `{${a}:1:5,}`, `{${a}:1:5 ${b}:1:1}`, `{${a}:1:5, ${a}:2:3}`, `{${a.toUpperCase()}:1:5, ${a}:2:3}`,
    `{${a}:1:9223372036854775808}`, `{${a}:1:-9223372036854775809}`, `{${a}:1:-9223372036854775808}`,
    `{${a}:9223372036854775808:1}`, `{${a.slice(1)}:1:1}`, `{${a}0:1:1}`, `{${a.replace(/-/g, '')}:1:1}`,
    `{{${a}:1:1}}`, `{${a}:1:1} x`, `{${a}:1:1} folded {}`, 'tombstone folded {}', 'tomb', 'tombstones',
    `{${a}:1:1}}`, `{${a}: 1 :1.5}`, `{${a}:1:0x10}`, `{${a}:+-1:1}`, `{${a}:1:--1}`, '{} folded', `{${a}:1:1}folded{${b}>${a}:1:1:1:1}`,
    `{${a}:1:1} folded {${b}>${a}:2:1:1:1}`, `{${a}:3:1} folded {${a}>${a}:1:1:1:1}`, `{${a}:3:1} folded {${b}>${a}:1:0:1:1}`,
    `{${a}:3:1} folded {${b}>${a}:1:1:1:1, ${b}>${a}:1:1:1:1}`, `{${a}:3:1, ${b}:1:1} folded {${b}>${a}:1:1:1:1}`,
    `{${a}:3:1, ${b}:2:1} folded {${b}>${a}:1:1:1:1}`, `{${b}:2:1} folded {${b}>${a}:1:1:1:1}`, `{${a}:3:1} folded {${b} > ${a} : 1 : 1 : 7 : 2}`,
    `{${a}:3:1} FOLDED {${b}>${a}:1:1:7:2}`, `{${a}:3:1} folded {${b}>${a}:1:1:7:2} `
  ]
  await compare(texts, 'malformed')
  const refused = texts.filter((t) => jsText(t) === 'ERROR 22P02').length
  assert.ok(refused > 35, `most are refused (${refused})`)
  assert.throws(() => CounterState.parse('100'), (e) => e instanceof CounterStateSyntaxError && /Expected "\{" or "tombstone", found "100" at position 1\./.test(e.detail))
})

test('merges as counter_crdt_merge, tombstones and NULL included', async () => {
  const pairs = []
  for (let i = 0; i < 300; i++) {
    const a = rand() < 0.05 ? 'tombstone' : new CounterState({ shards: randomShards() }).toString()
    const b = rand() < 0.05 ? 'tombstone' : rand() < 0.05 ? null : new CounterState({ shards: randomShards() }).toString()
    pairs.push([a, b])
  }
  const res = await client.query(`SELECT counter_crdt_merge(a::counter_crdt, b::counter_crdt)::text AS m
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(a, b, i) ORDER BY i`, [pairs.map((p) => p[0]), pairs.map((p) => p[1])])
  pairs.forEach(([a, b], i) => {
    const m = CounterState.parse(a).merge(b === null ? null : CounterState.parse(b))
    assert.strictEqual(m.toString(), res.rows[i].m, `merge(${a}, ${b})`)
    assert.ok(m.equals(CounterState.parse(b === null ? a : b).merge(a)), 'merge commutes')
  })
  assert.strictEqual(CounterState.parse('tombstone').value, null)
  assert.strictEqual(CounterState.tombstone().merge('{}').tombstone, true)
})

test('folded values made by counter_crdt_fold: text, value and merges as the server', async () => {
  const texts = []
  const pre = []
  for (let i = 0; i < 120; i++) {
    const shards = randomShards().map((s) => ({ ...s, value: BigInt(int(2001) - 1000), clock: BigInt(1 + int(20)) }))
    if (shards.length < 2) continue
    pre.push(new CounterState({ shards }).toString())
  }
  // fold the first writer into the second, then (sometimes) another into a third
  const res = await client.query(`SELECT s, f1::text AS f1, f2::text AS f2 FROM (
      SELECT s, f1, CASE WHEN n >= 3 THEN counter_crdt_fold(f1 + 0, w[3], w[2]) ELSE f1 END AS f2 FROM (
        SELECT s, n, w, counter_crdt_fold(s::counter_crdt, w[1], w[2]) AS f1 FROM (
          SELECT s, (SELECT array_agg(id ORDER BY id DESC) FROM counter_crdt_shards(s::counter_crdt)) AS w,
                 counter_crdt_writers(s::counter_crdt) AS n
          FROM unnest($1::text[]) WITH ORDINALITY AS u(s, i)) a) b) c`, [pre])
  for (const r of res.rows) texts.push(r.f1, r.f2)
  const folded = texts.filter((t) => CounterState.parse(t).folded)
  assert.ok(folded.length > 100, `the server folded (${folded.length} folded values)`)
  await compare(texts, 'folded')
  // merges of folded values with each other and with the states before the fold
  const a = []
  const b = []
  res.rows.forEach((r, i) => {
    a.push(r.f1, r.s, r.f2)
    b.push(res.rows[(i + 1) % res.rows.length].f2, r.f2, r.s)
  })
  const m = await client.query(`SELECT counter_crdt_merge(a::counter_crdt, b::counter_crdt)::text AS m, try_value(counter_crdt_merge(a::counter_crdt, b::counter_crdt)::text) AS v
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(a, b, i) ORDER BY i`, [a, b])
  a.forEach((x, i) => {
    const js = CounterState.parse(x).merge(CounterState.parse(b[i]))
    assert.strictEqual(js.toString(), m.rows[i].m, `merge(${x}, ${b[i]})`)
    assert.strictEqual(String(js.value), m.rows[i].v, `value of merge(${x}, ${b[i]})`)
  })
  // a fold keeps the total
  for (const r of res.rows) assert.strictEqual(CounterState.parse(r.f2).value, CounterState.parse(r.s).value)
})

test('fold records that tie: the later by avalue, as the server picks', async () => {
  const [a, t1, t2] = ids
  const texts = [
    `{${t1}:5:1, ${t2}:5:1} folded {${a}>${t1}:5:3:7:2, ${a}>${t2}:5:3:9:3}`,
    `{${t1}:5:1, ${t2}:5:1} folded {${a}>${t1}:5:3:9:2, ${a}>${t2}:5:3:7:3}`
  ]
  await compare(texts, 'ties')
  const pairs = [
    [`{${t1}:5:10} folded {${a}>${t1}:5:3:7:7}`, `{${t1}:5:10} folded {${a}>${t1}:5:3:9:9}`],
    [`{${t1}:5:10} folded {${a}>${t1}:5:3:9:7}`, `{${t1}:5:10} folded {${a}>${t1}:5:3:9:8}`],
    [`{${t1}:6:10} folded {${a}>${t1}:5:4:7:7}`, `{${t1}:5:10} folded {${a}>${t1}:5:3:9:9}`],
    [`{${a}:4:2, ${t1}:6:10} folded {${a}>${t1}:5:3:7:7}`, `{${a}:3:1, ${t1}:5:10}`]
  ]
  const res = await client.query(`SELECT counter_crdt_merge(a::counter_crdt, b::counter_crdt)::text AS m, try_value(counter_crdt_merge(a::counter_crdt, b::counter_crdt)::text) AS v
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(a, b, i) ORDER BY i`, [pairs.map((x) => x[0]), pairs.map((x) => x[1])])
  pairs.forEach(([x, y], i) => {
    for (const m of [CounterState.parse(x).merge(y), CounterState.parse(y).merge(x)]) {
      assert.strictEqual(m.toString(), res.rows[i].m, `merge(${x}, ${y})`)
      assert.strictEqual(String(m.value), res.rows[i].v, `value of merge(${x}, ${y})`)
    }
  })
})

test('CounterState as a parameter and from its parts', async () => {
  const s = new CounterState({ shards: [{ id: ids[2].toUpperCase(), clock: 3, value: '12' }, { id: ids[1], clock: 1n, value: -2 }] })
  const res = await client.query('SELECT $1::counter_crdt::text AS t, $1::counter_crdt::bigint AS v', [s])
  assert.strictEqual(res.rows[0].t, s.toString())
  assert.strictEqual(BigInt(res.rows[0].v), s.value)
  assert.strictEqual(s.value, 10n)
  assert.deepStrictEqual(s.shards.map((x) => x.id), [ids[1], ids[2]].sort())
  assert.throws(() => new CounterState({ shards: [{ id: ids[0], clock: 0, value: 1 }] }), CounterStateSyntaxError)
  assert.throws(() => new CounterState({ shards: [{ id: ids[0], clock: 1, value: 2n ** 63n }] }), RangeError)
})
