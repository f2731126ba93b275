// ESM entry of src/state.js (the CommonJS module is the one implementation).
import mod from './state.js'

export const { CounterState, CounterStateSyntaxError, CounterStateBinaryError, INT64_MIN, INT64_MAX } = mod
export default mod
