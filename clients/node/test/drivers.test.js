'use strict'
// node-postgres and postgres.js: counters read as CounterState or values,
// written from a CounterState, the untyped-parameter trap and its fixes.

const test = require('node:test')
const assert = require('node:assert')
const pg = require('pg')
const postgres = require('postgres')
const { CounterState } = require('counter-crdt')
const pgc = require('counter-crdt/pg')
const pgjs = require('counter-crdt/postgres')
const { connect, freshSchema } = require('./helpers')

let client
let searchPath
test.before(async () => {
  client = await connect()
  searchPath = await freshSchema(client, 'cc_drivers')
  await client.query("CREATE TABLE t (k int PRIMARY KEY, c counter_crdt NOT NULL DEFAULT '{}')")
  await client.query("INSERT INTO t VALUES (1, DEFAULT), (2, NULL::counter_crdt + 300), (3, 'tombstone')")
})
test.after(() => client.end())

test('node-postgres: a client reads counters as CounterState after registerType', async () => {
  const c = new pg.Client({ options: searchPath })
  await c.connect()
  let res = await c.query('SELECT c FROM t WHERE k = 2')
  assert.strictEqual(typeof res.rows[0].c, 'string', 'before: the text')
  const oid = await pgc.registerType(c)
  const expected = await c.query("SELECT 'counter_crdt'::regtype::oid AS oid")
  assert.strictEqual(oid, Number(expected.rows[0].oid))
  res = await c.query('SELECT k, c FROM t ORDER BY k')
  assert.ok(res.rows[1].c instanceof CounterState)
  assert.strictEqual(res.rows[0].c.value, 0n)
  assert.strictEqual(res.rows[1].c.value, 300n)
  assert.strictEqual(res.rows[2].c.tombstone, true)
  assert.strictEqual(res.rows[2].c.value, null)
  // written back as a parameter: a CounterState is its text
  res = await c.query('SELECT c = $1 AS same FROM t WHERE k = 2', [res.rows[1].c])
  assert.strictEqual(res.rows[0].same, true)
  // the trap: an untyped number beside a counter is read as a state
  await assert.rejects(c.query('SELECT k FROM t WHERE c > $1', [10]), (e) => e.code === '22P02' && /c > \$1::bigint/.test(e.hint))
  res = await c.query('SELECT k FROM t WHERE c > $1::bigint ORDER BY k', [10])
  assert.deepStrictEqual(res.rows.map((r) => r.k), [2])
  // the increment helper types its parameter
  assert.strictEqual(await pgc.increment(c, 't', 'c', { k: 2 }, 5), 305n)
  assert.strictEqual(await pgc.increment(c, 't', 'c', { k: 2 }, '9007199254740993'), 9007199254741298n)
  assert.strictEqual(await pgc.increment(c, 't', 'c', { k: 2 }, -9007199254740993n), 305n)
  assert.strictEqual(await pgc.increment(c, 't', 'c', { k: 99 }, 5), null)
  await assert.rejects(pgc.increment(c, 't', 'c', { k: 2 }, 1.5), TypeError)
  await c.end()
})

test('node-postgres: a pool, every client, and reading values', async () => {
  const pool = new pg.Pool({ options: searchPath, max: 3 })
  await pgc.registerType(pool, { as: 'value' })
  const rows = await Promise.all([1, 2, 3, 1, 2, 3].map((k) => pool.query('SELECT c, k, pg_backend_pid() AS pid FROM t WHERE k = $1', [k])))
  assert.deepStrictEqual(rows.map((r) => r.rows[0].c), [0n, 305n, null, 0n, 305n, null])
  assert.ok(new Set(rows.map((r) => r.rows[0].pid)).size > 1, 'more than one connection of the pool')
  // other types keep their parsers
  const r = await pool.query("SELECT 5::int AS i, '2020-01-02'::date AS d")
  assert.strictEqual(r.rows[0].i, 5)
  assert.ok(r.rows[0].d instanceof Date)
  await pool.end()
})

test('postgres.js: registerType, counterType, the trap refused before it is sent', async () => {
  const sql = postgres({ connection: { search_path: 'cc_drivers, public' }, max: 2 })
  let rows = await sql`SELECT c FROM t WHERE k = 2`
  assert.strictEqual(typeof rows[0].c, 'string')
  const oid = await pgjs.registerType(sql)
  rows = await sql`SELECT k, c FROM t ORDER BY k`
  assert.ok(rows[0].c instanceof CounterState)
  assert.strictEqual(rows[1].c.value, 305n)
  assert.strictEqual(rows[2].c.value, null)
  rows = await sql`SELECT c = ${rows[1].c} AS same FROM t WHERE k = 2`
  assert.strictEqual(rows[0].same, true)
  await assert.rejects(sql`SELECT k FROM t WHERE c > ${10}`, /c > \$\{n\}::bigint/)
  rows = await sql`SELECT k FROM t WHERE c > ${10}::bigint ORDER BY k`
  assert.deepStrictEqual(rows.map((r) => r.k), [2])
  rows = await sql`UPDATE t SET c = c + ${7} WHERE k = 2 RETURNING c`
  assert.strictEqual(rows[0].c.value, 312n)
  await sql.end()
  const sql2 = postgres({ connection: { search_path: 'cc_drivers, public' }, types: { counter: pgjs.counterType(oid, { as: 'value' }) } })
  rows = await sql2`SELECT c FROM t ORDER BY k`
  assert.deepStrictEqual(rows.map((r) => r.c), [0n, 312n, null])
  await sql2.end()
})
