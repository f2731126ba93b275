'use strict'
// counter-crdt: CounterState, and the integrations by name
// (require('counter-crdt/pg'), '/postgres', '/knex', '/kysely', '/sequelize',
// '/typeorm', '/drizzle'), each loading its library only when used.

const { CounterState, CounterStateSyntaxError, CounterStateBinaryError } = require('./state')
const sql = require('./sql')

module.exports = { CounterState, CounterStateSyntaxError, CounterStateBinaryError, sql }
