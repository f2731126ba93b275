// ESM entry of src/typeorm.js (the CommonJS module is the one implementation).
import mod from './typeorm.js'

export const { counterColumn, transformer, CounterSubscriber, install, increment, value, merge, digest, createExtension, guardWrites } = mod
export default mod
