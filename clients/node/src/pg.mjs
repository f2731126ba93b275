// ESM entry of src/pg.js (the CommonJS module is the one implementation).
import mod from './pg.js'

export const { registerType, counterOid, increment, quoteTable } = mod
export default mod
