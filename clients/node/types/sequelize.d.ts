import type { ModelAttributeColumnOptions, QueryInterface, Utils } from 'sequelize'
import { CounterState } from '../index'
/** A counter attribute: reads as a number (a BigInt beyond 2^53). */
export function counterAttribute (options?: Partial<ModelAttributeColumnOptions>): ModelAttributeColumnOptions
/** The hooks that save counters as increments, on a model or on every model of a Sequelize. */
export function install<T extends { addHook: Function }> (modelOrSequelize: T): T
export function increment (column: string, by?: bigint | number | string): Utils.Literal
export function value (column: string): Utils.Literal
export function merge (column: string, state: CounterState | string): Utils.Literal
export function digest (column: string): Utils.Literal
export function createExtension (queryInterface: QueryInterface): Promise<unknown>
export function guardWrites (queryInterface: QueryInterface, table: string): Promise<unknown>
export function columnDefinition (): ModelAttributeColumnOptions
