import type { Knex } from 'knex'
import { CounterState } from '../index'
export function increment (knex: Knex, column: string, by?: bigint | number | string): Knex.Raw
export function value (knex: Knex, column: string): Knex.Raw
export function merge (knex: Knex, column: string, state: CounterState | string): Knex.Raw
export function digest (knex: Knex, column: string): Knex.Raw
export function newCounter (knex: Knex, n?: bigint | number | string): Knex.Raw
export function counterColumn (table: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder
export function createExtension (knex: Knex): Knex.Raw
export function guardWrites (knex: Knex, table: string): Knex.Raw
export function afterCreate (conn: any, done: (err: Error | null, conn: any) => void): void
