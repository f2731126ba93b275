// ESM entry of src/knex.js (the CommonJS module is the one implementation).
import mod from './knex.js'

export const { increment, value, merge, digest, newCounter, counterColumn, createExtension, guardWrites, afterCreate } = mod
export default mod
