// ESM entry of src/kysely.js (the CommonJS module is the one implementation).
import mod from './kysely.js'

export const { counterCrdt, emptyCounter, increment, value, merge, digest, newCounter, createExtension, guardWrites } = mod
export default mod
