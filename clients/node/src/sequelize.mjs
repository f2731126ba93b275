// ESM entry of src/sequelize.js (the CommonJS module is the one implementation).
import mod from './sequelize.js'

export const { counterAttribute, install, increment, value, merge, digest, createExtension, guardWrites, columnDefinition } = mod
export default mod
