import type { SQL, AnyColumn } from 'drizzle-orm'
import { CounterState } from '../index'
/** A counter column: reads as CounterState. */
export function counter (name: string): any
export function emptyCounter (): SQL
export function increment (column: AnyColumn | SQL, by?: bigint | number | string): SQL
export function value (column: AnyColumn | SQL): SQL<bigint | null>
export function merge (column: AnyColumn | SQL, state: CounterState | string): SQL
export function digest (column: AnyColumn | SQL): SQL
export function newCounter (n?: bigint | number | string): SQL
export function createExtension (db: { execute: Function }): Promise<unknown>
export function guardWrites (db: { execute: Function }, table: any): Promise<unknown>
