'use strict'
// Drizzle (pg-core): a column type reading CounterState, expressions for
// increments, values, merges and digests, the extension and the server's
// write guard.

const { CounterState } = require('./state')
const sqlText = require('./sql')

function d () {
  return require('drizzle-orm')
}

let counterType = null

/** counter('views').notNull().default(emptyCounter()): reads as CounterState, writes a CounterState. */
function counter (name) {
  if (counterType === null) {
    counterType = require('drizzle-orm/pg-core').customType({
      dataType () {
        return 'counter_crdt'
      },
      fromDriver (v) {
        return CounterState.from(v)
      },
      toDriver (v) {
        if (v instanceof CounterState) return v.toString()
        throw new TypeError(`a counter column is written with increment(column, n) or merge(column, state), not ${typeof v} ${String(v)}`)
      }
    })
  }
  return counterType(name)
}

function tableName (table) {
  return typeof table === 'string' ? table : d().getTableName(table)
}

module.exports = {
  counter,
  /** `'{}'`, the default of a new counter. */
  emptyCounter () {
    return d().sql`'{}'`
  },
  /** `column + n::bigint`: .set({ views: increment(pages.views, 1) }). */
  increment (column, by = 1) {
    const { sql } = d()
    return sql`${column} + ${sql.raw(sqlText.deltaLiteral(by))}`
  },
  /** `column::bigint` as a BigInt: where(gt(value(pages.views), 10)), orderBy(value(pages.views)). */
  value (column) {
    const { sql } = d()
    return sql`${column}::bigint`.mapWith((v) => (v === null ? null : BigInt(v)))
  },
  /** `counter_crdt_merge(column, 'state')`. */
  merge (column, state) {
    const { sql } = d()
    return sql`counter_crdt_merge(${column}, ${sql.raw(sqlText.stateLiteral(state))})`
  },
  /** `counter_crdt_digest(column)`. */
  digest (column) {
    const { sql } = d()
    return sql`counter_crdt_digest(${column})`
  },
  /** A new counter holding n, for inserts. */
  newCounter (n = 0) {
    return d().sql.raw(sqlText.newCounterSql(n))
  },
  /** CREATE EXTENSION IF NOT EXISTS counter_crdt. */
  createExtension (db) {
    return db.execute(d().sql.raw(sqlText.CREATE_EXTENSION))
  },
  /** The server's write guard on a table (a drizzle table or its name; counter_crdt 1.11). */
  guardWrites (db, table) {
    return db.execute(d().sql`SELECT counter_crdt_guard_writes(${sqlText.quoteTable(tableName(table))}::regclass)`)
  }
}
