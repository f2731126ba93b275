import type { RawBuilder, Kysely } from 'kysely'
import { CounterState } from '../index'
export const counterCrdt: RawBuilder<unknown>
export function emptyCounter (): RawBuilder<unknown>
export function increment (column: string, by?: bigint | number | string): RawBuilder<unknown>
export function value (column: string): RawBuilder<string>
export function merge (column: string, state: CounterState | string): RawBuilder<unknown>
export function digest (column: string): RawBuilder<Buffer>
export function newCounter (n?: bigint | number | string): RawBuilder<unknown>
export function createExtension (db: Kysely<any>): Promise<unknown>
export function guardWrites (db: Kysely<any>, table: string): Promise<unknown>
