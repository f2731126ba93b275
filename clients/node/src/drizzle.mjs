// ESM entry of src/drizzle.js (the CommonJS module is the one implementation).
import mod from './drizzle.js'

export const { counter, emptyCounter, increment, value, merge, digest, newCounter, createExtension, guardWrites } = mod
export default mod
