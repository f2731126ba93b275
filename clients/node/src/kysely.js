'use strict'
// Kysely: expressions for increments, values, merges and digests, the
// column type in migrations, the extension and the server's write guard.

const sqlText = require('./sql')

function k () {
  return require('kysely').sql
}

module.exports = {
  /** The column's data type: addColumn('views', counterCrdt, (c) => c.notNull().defaultTo(emptyCounter())). */
  get counterCrdt () {
    return k()`counter_crdt`
  },
  /** `'{}'`, the default of a new counter. */
  emptyCounter () {
    return k()`'{}'`
  },
  /** `column + n::bigint`: .set({ views: increment('views', 1) }). */
  increment (column, by = 1) {
    const sql = k()
    return sql`${sql.ref(column)} + ${sql.raw(sqlText.deltaLiteral(by))}`
  },
  /** `column::bigint`, the value: where(value('views'), '>', 10), orderBy(value('views')). */
  value (column) {
    const sql = k()
    return sql`${sql.ref(column)}::bigint`
  },
  /** `counter_crdt_merge(column, 'state')`. */
  merge (column, state) {
    const sql = k()
    return sql`counter_crdt_merge(${sql.ref(column)}, ${sql.raw(sqlText.stateLiteral(state))})`
  },
  /** `counter_crdt_digest(column)`. */
  digest (column) {
    const sql = k()
    return sql`counter_crdt_digest(${sql.ref(column)})`
  },
  /** A new counter holding n, for inserts. */
  newCounter (n = 0) {
    return k().raw(sqlText.newCounterSql(n))
  },
  /** CREATE EXTENSION IF NOT EXISTS counter_crdt. */
  createExtension (db) {
    return k()`CREATE EXTENSION IF NOT EXISTS counter_crdt`.execute(db)
  },
  /** The server's write guard on a table (counter_crdt 1.11). */
  guardWrites (db, table) {
    return k()`SELECT counter_crdt_guard_writes(${sqlText.quoteTable(table)}::regclass)`.execute(db)
  }
}
