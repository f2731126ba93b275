// node-postgres (pg, pinned by package-lock.json, installed by
// scripts/setup.sh with npm ci) against counter_crdt, as
// test/t/019_clients.pl runs it: one "ok N - what" or "not ok N - what"
// line per check, exit status 1 if any failed.
//
//   PGHOST=... PGPORT=... PGUSER=... PGDATABASE=... node clients.js
//
// node-postgres sends every parameter as text of no type (OID 0, unknown):
// the server gives it the type the query needs.  Beside a counter, in
// c > $1, that type is counter_crdt, so a number fails as a counter state
// (22P02) with a hint: $1::bigint, or c::bigint > $1.
'use strict'

const assert = require('assert')
const { Client } = require('pg')

let nChecks = 0
let nFailed = 0

function check(ok, what, got) {
  nChecks++
  if (ok) {
    console.log(`ok ${nChecks} - ${what}`)
  } else {
    nFailed++
    console.log(`not ok ${nChecks} - ${what}`)
    if (got !== undefined) console.log(`#   got: ${JSON.stringify(got)}`)
  }
}

function same(a, b) {
  try {
    assert.deepStrictEqual(a, b)
    return true
  } catch (e) {
    return false
  }
}

async function keys(client, sql, params) {
  const res = await client.query(sql, params)
  return res.rows.map((r) => r.k)
}

async function main() {
  const client = new Client() // PGHOST, PGPORT, PGUSER, PGDATABASE
  await client.connect()
  await client.query('CREATE EXTENSION IF NOT EXISTS counter_crdt')
  await client.query('DROP TABLE IF EXISTS t')
  await client.query('CREATE TABLE t (k int PRIMARY KEY, c counter_crdt)')
  await client.query('INSERT INTO t SELECT k, NULL::counter_crdt + 0 FROM generate_series(1, 3) k')
  const me = (await client.query('SELECT counter_crdt_node_id()::text AS id')).rows[0].id

  // Increments with bound parameters: in c + $1, $1 is a bigint (the only +
  // of a counter), so numbers, BigInts and their strings all work.
  for (const [delta, k] of [[5, 1], [7, 1], [-2, 1], [100, 2], [50, 2], [3000000000n, 3]]) {
    const res = await client.query('UPDATE t SET c = c + $1 WHERE k = $2', [delta, k])
    check(res.rowCount === 1, `UPDATE t SET c = c + $1 WHERE k = $2 with [${delta}, ${k}]`, res.rowCount)
  }

  // The value: bigint comes back as a string (pg-types), exact.
  let res = await client.query('SELECT k, c::bigint AS v FROM t ORDER BY k')
  let got = res.rows.map((r) => [r.k, r.v])
  check(same(got, [[1, '10'], [2, '150'], [3, '3000000000']]), 'c::bigint reads the values as strings', got)
  check(BigInt(res.rows[2].v) === 3000000000n, 'BigInt(c::bigint) is exact', res.rows[2].v)

  // The state: a type pg does not know comes back as its text.
  res = await client.query('SELECT c FROM t WHERE k = $1', [1])
  check(res.rows[0].c === `{${me}:4:10}`, 'c is the state as text: {writer:clock:value}', res.rows[0].c)

  // An untyped parameter beside a counter is read as a counter state.
  try {
    await client.query('SELECT k FROM t WHERE c > $1', [100])
    check(false, 'WHERE c > $1 with an untyped 100 fails')
    check(false, 'its hint names ::bigint')
  } catch (err) {
    check(err.code === '22P02', 'WHERE c > $1 with an untyped 100 fails with 22P02', err.code)
    check(typeof err.hint === 'string' && err.hint.includes('::bigint'), 'its hint names ::bigint', err.hint)
  }

  // The fixes: give $1 a type, or compare the value.
  got = await keys(client, 'SELECT k FROM t WHERE c > $1::bigint ORDER BY k', [100])
  check(same(got, [2, 3]), 'WHERE c > $1::bigint with 100: keys 2, 3', got)
  got = await keys(client, 'SELECT k FROM t WHERE c::bigint > $1 ORDER BY k', [100])
  check(same(got, [2, 3]), 'WHERE c::bigint > $1 with 100: keys 2, 3', got)
  got = await keys(client, 'SELECT k FROM t WHERE c > $1::bigint ORDER BY k', [2999999999n])
  check(same(got, [3]), 'WHERE c > $1::bigint with 2999999999n: key 3', got)
  got = await keys(client, 'SELECT k FROM t WHERE c > $1::numeric ORDER BY k', ['149.5'])
  check(same(got, [2, 3]), "WHERE c > $1::numeric with '149.5': keys 2, 3", got)

  // Sums: sum(c) is numeric, a string.
  res = await client.query('SELECT sum(c) AS s FROM t')
  check(res.rows[0].s === '3000000160', 'sum(c) is 3000000160', res.rows[0].s)
  res = await client.query('SELECT sum(c) AS s FROM t WHERE c > $1::bigint', [100])
  check(res.rows[0].s === '3000000150', 'sum(c) WHERE c > $1::bigint is 3000000150', res.rows[0].s)

  await client.end()
}

main().then(
  () => {
    console.log(`1..${nChecks}`)
    process.exit(nFailed ? 1 : 0)
  },
  (err) => {
    console.log(`not ok ${nChecks + 1} - the script ran to its end`)
    console.log(`# ${err.stack}`)
    process.exit(1)
  }
)
