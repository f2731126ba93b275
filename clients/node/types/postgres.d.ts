import { CounterState } from '../index'
/** The entry of postgres.js's `types` option for a known OID. */
export function counterType (oid: number, options?: { as?: 'state' | 'value' }): { to: number; from: number[]; serialize: (x: CounterState | string) => string; parse: (x: string) => any }
/** Looks up the OID and sets the parser and serializer on a running `sql`. */
export function registerType (sql: any, options?: { as?: 'state' | 'value' }): Promise<number>
export function serialize (x: CounterState | string): string
