'use strict'
// The SQL that every integration writes, in one place: identifiers quoted
// as PostgreSQL quotes them, deltas checked to be bigints and written as
// `n::bigint` (never an untyped parameter beside a counter: doc/clients.md),
// states written as their canonical text, which holds no quote.

const { CounterState, INT64_MIN, INT64_MAX } = require('./state')

const CREATE_EXTENSION = 'CREATE EXTENSION IF NOT EXISTS counter_crdt'

function quoteIdent (name) {
  if (typeof name !== 'string' || name === '') throw new TypeError('an identifier is a non-empty string')
  return '"' + name.replace(/"/g, '""') + '"'
}

/** A table name as regclass reads it: 'name' or 'schema.name' (or ['schema', 'name']), each part quoted. */
function quoteTable (table) {
  const parts = Array.isArray(table) ? table : String(table).split('.')
  return parts.map(quoteIdent).join('.')
}

/** A whole number as a BigInt within bigint, or a TypeError/RangeError. */
function delta (n) {
  let v
  if (typeof n === 'bigint') v = n
  else if (typeof n === 'number' && Number.isInteger(n)) v = BigInt(n)
  else if (typeof n === 'string' && /^[+-]?[0-9]+$/.test(n.trim())) v = BigInt(n.trim())
  else throw new TypeError(`a counter is incremented by a whole number, not ${typeof n} ${String(n)}`)
  if (v < INT64_MIN || v > INT64_MAX) throw new RangeError(`the increment ${v} is out of range for type bigint`)
  return v
}

/** `n::bigint`, n checked: safe to put into SQL text. */
function deltaLiteral (n) {
  const v = delta(n)
  return v < 0n ? `(${v})::bigint` : `${v}::bigint`
}

/** `'{...}'::counter_crdt`: the canonical text holds no quote. */
function stateLiteral (state) {
  const s = CounterState.from(state)
  if (s === null) return 'NULL::counter_crdt'
  return `'${s.toString()}'::counter_crdt`
}

/** A new counter holding n: `'{}'` for 0, else `NULL::counter_crdt + n`. */
function newCounterSql (n = 0) {
  const v = delta(n)
  return v === 0n ? "'{}'::counter_crdt" : `(NULL::counter_crdt + ${deltaLiteral(v)})`
}

/** `"col" + n::bigint`. */
function incrementSql (column, n = 1) {
  return `${quoteIdent(column)} + ${deltaLiteral(n)}`
}

/** `counter_crdt_merge("col", 'state'::counter_crdt)`. */
function mergeSql (column, state) {
  return `counter_crdt_merge(${quoteIdent(column)}, ${stateLiteral(state)})`
}

/** Reads a counter column's value as the driver reads a bigint. */
function valueSql (column) {
  return `${quoteIdent(column)}::bigint`
}

module.exports = {
  CREATE_EXTENSION,
  GUARD_WRITES: 'SELECT counter_crdt_guard_writes($1::regclass)',
  TYPE_OID: "SELECT to_regtype('counter_crdt')::oid AS oid",
  quoteIdent,
  quoteTable,
  delta,
  deltaLiteral,
  stateLiteral,
  newCounterSql,
  incrementSql,
  mergeSql,
  valueSql
}
