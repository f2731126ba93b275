'use strict'
// node-postgres: counters read as CounterState (or as their value), written
// from a CounterState; increments with a typed parameter.

const { CounterState } = require('./state')
const sql = require('./sql')

function parserFor (as) {
  if (as === 'state' || as === undefined) return (text) => CounterState.parse(text)
  if (as === 'value') return (text) => CounterState.parse(text).value
  throw new TypeError(`registerType: "as" is 'state' or 'value', not ${as}`)
}

// node-postgres (8.23.1 and before) decodes every field of a row as UTF-8
// and hands a binary column's parser Buffer.from(that string)
// (brianc/node-postgres#3495): bytes that are not UTF-8 arrive as EF BF BD,
// U+FFFD, and are lost.  Bytes without EF BF BD came through exactly; with
// it, they are refused rather than read as another state.
const LOST = Buffer.from([0xef, 0xbf, 0xbd])

/** A counter of a binary result column, from the bytes node-postgres gives. */
function fromPgBinary (buf) {
  if (buf.indexOf(LOST) !== -1) {
    throw new Error('node-postgres decoded this binary counter_crdt as UTF-8, which loses bytes ' +
      '(brianc/node-postgres#3495): read counters in text (without binary: true)')
  }
  return CounterState.fromBinary(buf)
}

function binaryParserFor (as) {
  if (as === 'value') return (buf) => fromPgBinary(buf).value
  return fromPgBinary
}

/** The OID of counter_crdt in the database of a client or pool (by the search_path). */
async function counterOid (queryable) {
  const res = await queryable.query(sql.TYPE_OID)
  const oid = res.rows[0] && res.rows[0].oid
  if (oid === null || oid === undefined) {
    throw new Error('counter_crdt is not installed in this database: CREATE EXTENSION counter_crdt')
  }
  return Number(oid)
}

/**
 * Teaches a pg.Client, or every client of a pg.Pool (call it before the
 * pool's first query), to read counter_crdt columns as CounterState
 * ({ as: 'value' }: as the value, a BigInt), in text and in binary results
 * (binary: true; refused where node-postgres lost bytes). Returns the
 * type's OID.
 */
async function registerType (clientOrPool, options = {}) {
  const parse = parserFor(options.as)
  const parseBinary = binaryParserFor(options.as)
  const set = (c, oid) => {
    c.setTypeParser(oid, 'text', parse)
    c.setTypeParser(oid, 'binary', parseBinary)
  }
  if (typeof clientOrPool.setTypeParser === 'function') {
    const oid = await counterOid(clientOrPool)
    set(clientOrPool, oid)
    return oid
  }
  if (clientOrPool && clientOrPool.options && typeof clientOrPool.connect === 'function') {
    const pool = clientOrPool
    const client = await pool.connect()
    let oid
    try {
      oid = await counterOid(client)
      set(client, oid)
    } finally {
      client.release()
    }
    const fallback = pool.options.types || require('pg').types
    pool.options.types = {
      getTypeParser (id, format) {
        if (id === oid && (format === undefined || format === 'text')) return parse
        if (id === oid && format === 'binary') return parseBinary
        return fallback.getTypeParser(id, format)
      }
    }
    for (const c of pool._clients || []) {
      if (c && typeof c.setTypeParser === 'function') set(c, oid)
    }
    return oid
  }
  throw new TypeError('registerType takes a pg.Client or a pg.Pool')
}

/**
 * UPDATE table SET column = column + $1::bigint WHERE key = ... RETURNING
 * the new value (a BigInt), or null when no row matched.
 * where: { keyColumn: value, ... }.
 */
async function increment (queryable, table, column, where, by = 1) {
  const keys = Object.keys(where || {})
  if (keys.length === 0) throw new TypeError('increment: give the row\'s key, e.g. { id: 1 }')
  const c = sql.quoteIdent(column)
  const cond = keys.map((k, i) => `${sql.quoteIdent(k)} = $${i + 2}`).join(' AND ')
  const text = `UPDATE ${quoteTable(table)} SET ${c} = ${c} + $1::bigint WHERE ${cond} RETURNING ${c}::bigint AS value`
  const res = await queryable.query(text, [String(sql.delta(by)), ...keys.map((k) => where[k])])
  return res.rows.length ? (res.rows[0].value === null ? null : BigInt(res.rows[0].value)) : null
}

const quoteTable = sql.quoteTable

module.exports = { registerType, counterOid, increment, quoteTable }
