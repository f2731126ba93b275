'use strict'
// What the tests share: a pg client on the server of the environment
// (PGHOST, PGPORT, PGDATABASE as libpq reads them), a fresh schema per test
// file, and a seeded random generator (COUNTER_CRDT_SEED, printed).

const pg = require('pg')

const seed = Number(process.env.COUNTER_CRDT_SEED || Date.now() % 1000000)

function rng (s = seed) {
  let x = s >>> 0 || 1
  return () => {
    x ^= x << 13; x >>>= 0
    x ^= x >>> 17
    x ^= x << 5; x >>>= 0
    return x / 4294967296
  }
}

async function connect (env = {}) {
  const client = new pg.Client({ host: env.host || process.env.PGHOST, port: env.port || process.env.PGPORT, database: env.database || process.env.PGDATABASE })
  await client.connect()
  return client
}

// A schema of its own for a test file, first on the search_path of every
// connection made with `options`.
async function freshSchema (client, name) {
  await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)
  await client.query(`CREATE SCHEMA ${name}`)
  await client.query('CREATE EXTENSION IF NOT EXISTS counter_crdt SCHEMA public')
  await client.query(`SET search_path = ${name}, public`)
  return `-c search_path=${name},public`
}

module.exports = { seed, rng, connect, freshSchema }
