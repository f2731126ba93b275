// Types of counter-crdt: CounterState and the SQL text helpers.

export interface Shard {
  readonly id: string
  readonly clock: bigint
  readonly value: bigint
}

export interface FoldRecord {
  readonly retired: string
  readonly target: string
  readonly tclock: bigint
  readonly aclock: bigint
  readonly avalue: bigint
  readonly absorbed: bigint
}

export interface CounterStateParts {
  shards?: Array<{ id: string; clock: bigint | number | string; value: bigint | number | string }>
  folds?: Array<{ retired: string; target: string; tclock: bigint | number | string; aclock: bigint | number | string; avalue: bigint | number | string; absorbed: bigint | number | string }>
  tombstone?: boolean
}

/** The text the server would refuse, with the reason (`detail`). */
export class CounterStateSyntaxError extends SyntaxError {
  readonly text: string
  readonly detail: string
}

/** Bytes that counter_crdt_recv refuses (SQLSTATE 22P03), with the server's `detail`. */
export class CounterStateBinaryError extends TypeError {
  readonly code: '22P03'
  readonly detail: string
}

/** A counter_crdt value, immutable. */
export class CounterState {
  constructor (parts?: CounterStateParts)
  /** Parses the text form as `'...'::counter_crdt` does; throws CounterStateSyntaxError. */
  static parse (text: string): CounterState
  /**
   * Reads the binary form (counter_crdt_send): versions 1 and 2, and the
   * compact version 3 (counter_crdt.binary_format = 'compact'); throws
   * CounterStateBinaryError where counter_crdt_recv refuses the bytes.
   */
  static fromBinary (buf: Uint8Array): CounterState
  static from (x: CounterState | string): CounterState
  static from (x: null | undefined): null
  static empty (): CounterState
  static tombstone (): CounterState
  readonly tombstone: boolean
  readonly shards: readonly Shard[]
  readonly folds: readonly FoldRecord[]
  readonly folded: boolean
  /** `c::bigint`: null for a tombstone; RangeError outside bigint. */
  readonly value: bigint | null
  /** counter_crdt_merge(this, other). */
  merge (other: CounterState | string | null | undefined): CounterState
  equals (other: CounterState | string | null | undefined): boolean
  toString (): string
  /** The binary form: version 1, or 2 with fold records (a Buffer in Node.js). */
  toBinary (): Uint8Array
  toPostgres (): string
  toJSON (): string
}

export declare const sql: {
  CREATE_EXTENSION: string
  GUARD_WRITES: string
  TYPE_OID: string
  quoteIdent (name: string): string
  delta (n: bigint | number | string): bigint
  deltaLiteral (n: bigint | number | string): string
  stateLiteral (state: CounterState | string | null): string
  newCounterSql (n?: bigint | number | string): string
  incrementSql (column: string, n?: bigint | number | string): string
  mergeSql (column: string, state: CounterState | string): string
  valueSql (column: string): string
}
