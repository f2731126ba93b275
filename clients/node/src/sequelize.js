'use strict'
// Sequelize 6: a counter attribute that reads as a number, and hooks that
// close the read-modify-write trap.  `page.views += 1; await page.save()`
// saves `views = views + 1` (the delta from the value the instance loaded),
// an untouched counter is not written, a CounterState assigned is saved as
// counter_crdt_merge(views, state), and a number given to a bulk
// Model.update() is refused with an error naming the increment.

const { CounterState } = require('./state')
const sqlText = require('./sql')

const MARK = Symbol.for('counter-crdt.sequelize.attribute')
const LOADED = Symbol.for('counter-crdt.sequelize.written')

function S () {
  return require('sequelize')
}

// The number a counter reads as: a Number while it is a safe integer, a
// BigInt beyond; null for a tombstone.
function asNumber (v) {
  if (v === null || v === undefined) return v
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
}

// The value of what an instance holds for a counter: its state's text (as
// read), a CounterState, or a number (assigned, or restored after a save).
function valueOf (raw) {
  if (raw === null || raw === undefined) return raw
  if (typeof raw === 'number' || typeof raw === 'bigint') return BigInt(raw)
  if (raw instanceof CounterState) return raw.value
  if (typeof raw === 'string') return CounterState.parse(raw).value
  return undefined // a literal: a default not yet written
}

/**
 * The attribute of a counter column: sequelize.define('Page', { views: counterAttribute() }).
 * Reads as a number (a BigInt beyond 2^53); a new instance starts at 0.
 */
function counterAttribute (options = {}) {
  const attr = {
    type: 'COUNTER_CRDT',
    allowNull: false,
    defaultValue: S().literal("'{}'"),
    ...options,
    get (key) {
      const raw = this.getDataValue(key)
      const v = valueOf(raw)
      return v === undefined ? 0 : asNumber(v)
    }
  }
  attr[MARK] = true
  return attr
}

function counterKeys (model) {
  return Object.keys(model.rawAttributes).filter((k) => model.rawAttributes[k][MARK])
}

function fieldOf (model, key) {
  return model.rawAttributes[key].field || key
}

// What an instance's counter is written as, for an update (from the value
// it loaded) or an insert.
function writeExpr (model, key, cur, prev, isNew) {
  const { literal } = S()
  const col = sqlText.quoteIdent(fieldOf(model, key))
  if (cur instanceof CounterState) return literal(isNew ? sqlText.stateLiteral(cur) : sqlText.mergeSql(fieldOf(model, key), cur))
  if (typeof cur === 'string') return writeExpr(model, key, CounterState.parse(cur), prev, isNew)
  if (typeof cur === 'number' || typeof cur === 'bigint') {
    if (isNew) return literal(sqlText.newCounterSql(cur))
    const base = valueOf(prev)
    if (base === null || base === undefined) {
      throw new Error(`${model.name}.${key}: the counter was not loaded (or is a tombstone), so the change cannot be saved as an increment: use ${model.name}.increment('${key}', { by: n, where })`)
    }
    const d = sqlText.delta(cur) - base
    return literal(d === 0n ? col : `${col} + ${sqlText.deltaLiteral(d)}`)
  }
  if (cur === null) {
    throw new Error(`${model.name}.${key}: a counter is not set to NULL by save(); to delete it write the state 'tombstone' (CounterState.tombstone())`)
  }
  return cur // a literal given by the application
}

function beforeSave (instance, options) {
  const model = instance.constructor
  const keys = counterKeys(model)
  if (!keys.length) return
  const isNew = instance.isNewRecord
  const fields = options.fields || []
  const written = {}
  for (const key of keys) {
    if (!fields.includes(key)) continue
    const cur = instance.dataValues[key]
    if (isNew && cur instanceof S().Utils.SequelizeMethod) continue
    written[key] = cur
    instance.dataValues[key] = writeExpr(model, key, cur, instance._previousDataValues[key], isNew)
  }
  if (Object.keys(written).length) {
    instance[LOADED] = written
    // the new state comes back: the instance then holds what the row holds
    options.returning = true
  }
}

function afterSave (instance) {
  const written = instance[LOADED]
  if (!written) return
  delete instance[LOADED]
  const { SequelizeMethod } = S().Utils
  for (const key of Object.keys(written)) {
    if (instance.dataValues[key] instanceof SequelizeMethod) instance.dataValues[key] = written[key]
  }
}

function beforeBulkUpdate (options) {
  const model = options.model
  const keys = counterKeys(model)
  const { SequelizeMethod } = S().Utils
  for (const key of keys) {
    if (!options.attributes || !(key in options.attributes)) continue
    const v = options.attributes[key]
    if (v instanceof SequelizeMethod) continue
    if (v instanceof CounterState || typeof v === 'string') {
      options.attributes[key] = S().literal(sqlText.mergeSql(fieldOf(model, key), CounterState.from(v)))
      continue
    }
    throw new Error(`${model.name}.${key} is a counter: ${model.name}.update() does not set it to ${String(v)}; ` +
      `increment it with ${model.name}.increment('${key}', { by: n, where }) or { ${key}: increment('${key}', n) }`)
  }
}

/**
 * Installs the hooks on a model with counter attributes (or on every model
 * of a Sequelize instance, defined before or after).
 */
function install (modelOrSequelize) {
  const target = modelOrSequelize
  target.addHook('beforeCreate', 'counterCrdt', beforeSave)
  target.addHook('beforeUpdate', 'counterCrdt', beforeSave)
  target.addHook('afterCreate', 'counterCrdt', afterSave)
  target.addHook('afterUpdate', 'counterCrdt', afterSave)
  target.addHook('beforeBulkUpdate', 'counterCrdt', beforeBulkUpdate)
  return target
}

module.exports = {
  counterAttribute,
  install,
  /** `"column" + n::bigint`: Page.update({ views: increment('views', 1) }, { where }). */
  increment (column, by = 1) {
    return S().literal(sqlText.incrementSql(column, by))
  },
  /** `"column"::bigint`: where(value('views'), Op.gt, 10), order: [[value('views'), 'DESC']]. */
  value (column) {
    return S().literal(sqlText.valueSql(column))
  },
  /** counter_crdt_merge("column", 'state'). */
  merge (column, state) {
    return S().literal(sqlText.mergeSql(column, state))
  },
  /** counter_crdt_digest("column"). */
  digest (column) {
    return S().literal(`counter_crdt_digest(${sqlText.quoteIdent(column)})`)
  },
  /** In a migration: CREATE EXTENSION IF NOT EXISTS counter_crdt. */
  createExtension (queryInterface) {
    return queryInterface.sequelize.query(sqlText.CREATE_EXTENSION)
  },
  /** In a migration: the server's write guard on a table (counter_crdt 1.11). */
  guardWrites (queryInterface, table) {
    return queryInterface.sequelize.query('SELECT counter_crdt_guard_writes(:t::regclass)', { replacements: { t: sqlText.quoteTable(table) } })
  },
  /** The column of a migration's createTable / addColumn. */
  columnDefinition () {
    return { type: 'COUNTER_CRDT', allowNull: false, defaultValue: S().literal("'{}'") }
  }
}
