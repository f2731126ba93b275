'use strict'
// TypeORM 0.3: a counter column that reads as a number, and a subscriber
// that closes the read-modify-write trap of repo.save(entity).
//
// TypeORM decides what save() writes by comparing the entity with the row
// as it is at save time, not as the entity loaded it: a counter that went
// from 5 to 6 in the entity while another process took the row to 6 would
// look unchanged, and one left at 5 would write 5 over 6.  So a counter of a
// loaded entity always takes part in save(), and the subscriber writes it as
// `views = views + delta`, the delta from the value the entity loaded (or
// last saved), `views = views` when it did not change, and a CounterState
// assigned as counter_crdt_merge(views, state).

const { CounterState } = require('./state')
const sqlText = require('./sql')

const TYPE = 'counter_crdt'
const loaded = new WeakMap() // entity -> { property: BigInt value as loaded or saved }
const pending = new WeakMap() // entity -> { property: what the application had set }

function asNumber (v) {
  if (v === null || v === undefined) return v
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
}

// What save() hands the driver when no subscriber rewrote the counter: a
// value that refuses to be written (and never equals the row's, so that
// the counter always takes part in save()).
class UnsavedCount {
  constructor (v) {
    this.v = v
  }

  toPostgres () {
    throw new Error(`a counter column is not written as the number ${this.v}: add the counter-crdt subscriber ` +
      '(install(dataSource)) so that save() increments, or write repo.increment(where, column, n)')
  }
}

const transformer = {
  from (raw) {
    if (raw === null || raw === undefined) return raw
    return asNumber(CounterState.from(raw).value)
  },
  to (v) {
    if (v === null || v === undefined || typeof v === 'function') return v
    if (v instanceof CounterState) return v.toString()
    if (v instanceof UnsavedCount) return v
    if (typeof v === 'number' || typeof v === 'bigint') return new UnsavedCount(v)
    if (typeof v === 'string') return CounterState.parse(v).toString()
    return v // a FindOperator and the like
  }
}

/** The options of a counter column: @Column(counterColumn()) or an EntitySchema column. */
function counterColumn (options = {}) {
  return { type: TYPE, nullable: false, default: () => "'{}'", transformer, ...options }
}

function counterColumnsOf (metadata) {
  return metadata.columns.filter((c) => c.type === TYPE)
}

function remember (entity, metadata) {
  const cols = counterColumnsOf(metadata)
  if (!cols.length || !entity) return
  const m = {}
  for (const c of cols) {
    const v = entity[c.propertyName]
    if (typeof v === 'number' || typeof v === 'bigint') m[c.propertyName] = BigInt(v)
  }
  loaded.set(entity, m)
}

class CounterSubscriber {
  afterLoad (entity, event) {
    if (event && event.metadata) remember(entity, event.metadata)
  }

  beforeInsert (event) {
    const entity = event.entity
    const set = {}
    for (const c of counterColumnsOf(event.metadata)) {
      const p = c.propertyName
      const v = entity[p]
      if (v === undefined || typeof v === 'function') continue
      set[p] = v
      if (v instanceof CounterState) entity[p] = () => sqlText.stateLiteral(v)
      else if (v === null) throw new Error(`${event.metadata.name}.${p}: a new counter starts at a number (0), not NULL`)
      else entity[p] = () => sqlText.newCounterSql(typeof v === 'string' ? CounterState.parse(v).value : v)
    }
    if (Object.keys(set).length) pending.set(entity, set)
  }

  beforeUpdate (event) {
    const entity = event.entity
    if (!entity) return
    const was = loaded.get(entity) || {}
    const set = {}
    for (const c of counterColumnsOf(event.metadata)) {
      const p = c.propertyName
      const v = entity[p]
      if (v === undefined || typeof v === 'function') continue
      const col = sqlText.quoteIdent(c.databaseName)
      set[p] = v
      if (v instanceof CounterState || typeof v === 'string') {
        entity[p] = () => sqlText.mergeSql(c.databaseName, CounterState.from(v))
        continue
      }
      if (v === null) throw new Error(`${event.metadata.name}.${p}: a counter is not set to NULL by save(); to delete it assign CounterState.tombstone()`)
      if (!(p in was)) {
        throw new Error(`${event.metadata.name}.${p} is a counter: it is not set to the number ${v}; increment it: ` +
          `repo.increment(where, '${p}', n), { ${p}: increment('${p}', n) } in update(), or load the entity, change it and save() it`)
      }
      const d = sqlText.delta(v) - was[p]
      entity[p] = d === 0n ? () => col : () => `${col} + ${sqlText.deltaLiteral(d)}`
    }
    if (Object.keys(set).length) pending.set(entity, set)
  }

  afterInsert (event) {
    this._restore(event)
  }

  afterUpdate (event) {
    this._restore(event)
  }

  _restore (event) {
    const entity = event.entity
    const set = entity && pending.get(entity)
    if (!set) return
    pending.delete(entity)
    const m = loaded.get(entity) || {}
    for (const p of Object.keys(set)) {
      const v = set[p]
      entity[p] = v instanceof CounterState ? asNumber(v.value) : typeof v === 'string' ? asNumber(CounterState.parse(v).value) : v
      if (typeof entity[p] === 'number' || typeof entity[p] === 'bigint') m[p] = BigInt(entity[p])
    }
    loaded.set(entity, m)
  }
}

/**
 * Before dataSource.initialize(): teaches TypeORM's Postgres driver the
 * counter_crdt type and adds the subscriber.
 */
let registered = false

function install (dataSource) {
  const types = dataSource.driver.supportedDataTypes
  if (!types.includes(TYPE)) types.push(TYPE)
  if (dataSource.isInitialized) {
    if (!dataSource.subscribers.some((s) => s instanceof CounterSubscriber)) dataSource.subscribers.push(new CounterSubscriber())
  } else {
    if (!registered) {
      // what @EventSubscriber() does: TypeORM builds the subscribers it lists
      require('typeorm').EventSubscriber()(CounterSubscriber)
      registered = true
    }
    const subs = dataSource.options.subscribers || []
    if (!subs.includes(CounterSubscriber)) Object.assign(dataSource.options, { subscribers: [...subs, CounterSubscriber] })
  }
  return dataSource
}

module.exports = {
  counterColumn,
  transformer,
  CounterSubscriber,
  install,
  /** `"column" + n::bigint`: repo.update(id, { views: increment('views', 1) }) (or repo.increment). */
  increment (column, by = 1) {
    return () => sqlText.incrementSql(column, by)
  },
  /** `"alias"."column"::bigint` for query builders: where(`${value('p', 'views')} > :n`), orderBy(value('p', 'views')). */
  value (alias, column) {
    return `${sqlText.quoteIdent(alias)}.${sqlText.valueSql(column)}`
  },
  /** counter_crdt_merge("column", 'state'), for repo.update(). */
  merge (column, state) {
    return () => sqlText.mergeSql(column, state)
  },
  /** `counter_crdt_digest("alias"."column")` for query builders. */
  digest (alias, column) {
    return `counter_crdt_digest(${sqlText.quoteIdent(alias)}.${sqlText.quoteIdent(column)})`
  },
  /** In a migration: CREATE EXTENSION IF NOT EXISTS counter_crdt. */
  createExtension (queryRunner) {
    return queryRunner.query(sqlText.CREATE_EXTENSION)
  },
  /** In a migration: the server's write guard on a table (counter_crdt 1.11). */
  guardWrites (queryRunner, table) {
    return queryRunner.query(sqlText.GUARD_WRITES, [sqlText.quoteTable(table)])
  }
}
