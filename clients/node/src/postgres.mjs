// ESM entry of src/postgres.js (the CommonJS module is the one implementation).
import mod from './postgres.js'

export const { registerType, counterType, serialize } = mod
export default mod
