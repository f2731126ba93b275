'use strict'
// postgres.js (the `postgres` package): counters read as CounterState (or
// their value), written from a CounterState.

const { CounterState } = require('./state')
const sqlText = require('./sql')

function serialize (x) {
  if (x instanceof CounterState) return x.toString()
  if (typeof x === 'string') return CounterState.parse(x).toString()
  throw new TypeError(`a counter_crdt parameter is a CounterState, not ${typeof x} ${String(x)}: ` +
    'to compare or add a number write ${n}::bigint (c > ${n}::bigint, c + ${n}::bigint)')
}

function parserFor (as) {
  if (as === 'state' || as === undefined) return (text) => CounterState.parse(text)
  if (as === 'value') return (text) => CounterState.parse(text).value
  throw new TypeError(`"as" is 'state' or 'value', not ${as}`)
}

/**
 * The entry of postgres.js's `types` option for a type OID that you know:
 * postgres({ types: { counter_crdt: counterType(oid) } }).
 */
function counterType (oid, options = {}) {
  return { to: oid, from: [oid], serialize, parse: parserFor(options.as) }
}

/** Looks up the OID and sets the parser and serializer on a running `sql`. */
async function registerType (sql, options = {}) {
  const rows = await sql.unsafe(sqlText.TYPE_OID)
  const oid = rows[0] && rows[0].oid
  if (oid === null || oid === undefined) {
    throw new Error('counter_crdt is not installed in this database: CREATE EXTENSION counter_crdt')
  }
  const n = Number(oid)
  sql.options.parsers[n] = parserFor(options.as)
  sql.options.serializers[n] = serialize
  return n
}

module.exports = { registerType, counterType, serialize }
