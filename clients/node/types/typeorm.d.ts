import type { DataSource, ColumnOptions, QueryRunner, ValueTransformer, EntitySubscriberInterface } from 'typeorm'
import { CounterState } from '../index'
/** The options of a counter column (reads as a number). */
export function counterColumn (options?: Partial<ColumnOptions>): ColumnOptions
export const transformer: ValueTransformer
export class CounterSubscriber implements EntitySubscriberInterface {}
/** Before dataSource.initialize(): the type and the subscriber that saves counters as increments. */
export function install (dataSource: DataSource): DataSource
export function increment (column: string, by?: bigint | number | string): () => string
export function value (alias: string, column: string): string
export function merge (column: string, state: CounterState | string): () => string
export function digest (alias: string, column: string): string
export function createExtension (queryRunner: QueryRunner | DataSource): Promise<unknown>
export function guardWrites (queryRunner: QueryRunner | DataSource, table: string): Promise<unknown>
