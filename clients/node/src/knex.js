'use strict'
// Knex: SQL fragments for increments, values, merges and digests, a column
// in migrations, the extension and the server's write guard.

const sql = require('./sql')
const pg = require('./pg')

module.exports = {
  /** `column + n::bigint`: .update({ views: increment(knex, 'views', 1) }). */
  increment (knex, column, by = 1) {
    return knex.raw(`?? + ${sql.deltaLiteral(by)}`, [column])
  },
  /** `column::bigint`: where(value(knex, 'views'), '>', 10), orderBy(value(...)). */
  value (knex, column) {
    return knex.raw('??::bigint', [column])
  },
  /** `counter_crdt_merge(column, 'state')`: .update({ views: merge(knex, 'views', state) }). */
  merge (knex, column, state) {
    return knex.raw(`counter_crdt_merge(??, ${sql.stateLiteral(state)})`, [column])
  },
  /** `counter_crdt_digest(column)`, a 32-byte Buffer. */
  digest (knex, column) {
    return knex.raw('counter_crdt_digest(??)', [column])
  },
  /** A new counter holding n, for inserts. */
  newCounter (knex, n = 0) {
    return knex.raw(sql.newCounterSql(n))
  },
  /** In createTable: a counter column, NOT NULL, DEFAULT '{}'. */
  counterColumn (table, name) {
    return table.specificType(name, 'counter_crdt').notNullable().defaultTo('{}')
  },
  /** CREATE EXTENSION IF NOT EXISTS counter_crdt. */
  createExtension (knex) {
    return knex.raw(sql.CREATE_EXTENSION)
  },
  /** The server's write guard on a table (counter_crdt 1.11). */
  guardWrites (knex, table) {
    return knex.raw('SELECT counter_crdt_guard_writes(?::regclass)', [sql.quoteTable(table)])
  },
  /** pool: { afterCreate }: each connection reads counters as CounterState. */
  afterCreate (conn, done) {
    pg.registerType(conn).then(() => done(null, conn), (err) => done(err, conn))
  }
}
