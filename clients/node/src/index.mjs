// ESM entry of src/index.js (the CommonJS module is the one implementation).
import mod from './index.js'

export const { CounterState, CounterStateSyntaxError, CounterStateBinaryError, sql } = mod
export default mod
