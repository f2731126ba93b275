export interface Queryable { query (text: string, values?: unknown[]): Promise<{ rows: any[] }> }
/** Teaches a pg.Client or pg.Pool to read counters as CounterState ({ as: 'value' }: as a BigInt), in text and binary (binary: true) results. Returns the OID. */
export function registerType (clientOrPool: Queryable, options?: { as?: 'state' | 'value' }): Promise<number>
export function counterOid (queryable: Queryable): Promise<number>
/** UPDATE table SET column = column + $1::bigint WHERE ... RETURNING the new value (null: no row). */
export function increment (queryable: Queryable, table: string | string[], column: string, where: Record<string, unknown>, by?: bigint | number | string): Promise<bigint | null>
export function quoteTable (table: string | string[]): string
