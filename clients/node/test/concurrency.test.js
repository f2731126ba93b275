'use strict'
// Two application processes, each 1,000 times: read, add one, save.
// Through the drivers (c = c + $1) and through each ORM that loads and saves
// objects (Sequelize's page.save(), TypeORM's repo.save(page)), on one
// server and on a replicated pair (one process on each server): exactly
// 2,000 on every server.  The tables carry the server's write guard.
//   one server: PGHOST, PGPORT, PGDATABASE
//   the pair: PAIR_A and PAIR_B ("host port"), PAIR_DB, with table pages
//   (id, views) replicated both ways and rows 1 to 4 on both.

const test = require('node:test')
const assert = require('node:assert')
const path = require('node:path')
const { spawn } = require('node:child_process')
const pg = require('pg')

const N = 1000
const modes = ['pg', 'postgres', 'sequelize', 'typeorm']

function worker (mode, table, id, env) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [path.join(__dirname, 'worker.js'), mode, String(N), table, String(id)],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', (d) => { out += d })
    p.stderr.on('data', (d) => { err += d })
    p.on('close', (code) => (code === 0 && out === `done ${N}\n` ? resolve() : reject(new Error(`${mode} worker: exit ${code}, ${out} ${err}`))))
  })
}

async function value (env, table, id) {
  const c = new pg.Client({ host: env.PGHOST, port: env.PGPORT, database: env.PGDATABASE })
  await c.connect()
  try {
    const r = await c.query(`SELECT views::bigint AS v FROM ${table} WHERE id = $1`, [id])
    return r.rows[0].v
  } finally {
    await c.end()
  }
}

const here = { PGHOST: process.env.PGHOST, PGPORT: process.env.PGPORT, PGDATABASE: process.env.PGDATABASE }

test('one server: 2 processes x 1,000 per driver and ORM = 2,000 each', async () => {
  const c = new pg.Client()
  await c.connect()
  await c.query('CREATE EXTENSION IF NOT EXISTS counter_crdt')
  await c.query("DROP TABLE IF EXISTS cc_pages; CREATE TABLE cc_pages (id int PRIMARY KEY, views counter_crdt NOT NULL DEFAULT '{}')")
  await c.query('SELECT counter_crdt_guard_writes($1::regclass)', ['cc_pages'])
  await c.query('INSERT INTO cc_pages (id) SELECT generate_series(1, 4)')
  await c.end()
  await Promise.all(modes.flatMap((m, i) => [worker(m, 'cc_pages', i + 1, here), worker(m, 'cc_pages', i + 1, here)]))
  for (const [i, m] of modes.entries()) assert.strictEqual(await value(here, 'cc_pages', i + 1), '2000', m)
})

test('a replicated pair: one process on each server, 2,000 on both', async () => {
  const [ah, ap] = process.env.PAIR_A.split(' ')
  const [bh, bp] = process.env.PAIR_B.split(' ')
  const a = { PGHOST: ah, PGPORT: ap, PGDATABASE: process.env.PAIR_DB }
  const b = { PGHOST: bh, PGPORT: bp, PGDATABASE: process.env.PAIR_DB }
  await Promise.all(modes.flatMap((m, i) => [worker(m, 'pages', i + 1, a), worker(m, 'pages', i + 1, b)]))
  // replication delivers each server's increments to the other: wait for it
  const deadline = Date.now() + 60000
  let seen
  for (;;) {
    seen = []
    for (const env of [a, b]) for (const i of modes.keys()) seen.push(await value(env, 'pages', i + 1))
    if (seen.every((v) => v === '2000') || Date.now() > deadline) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  assert.deepStrictEqual(seen, Array(8).fill('2000'), `on a then b: ${modes.join(', ')}`)
})
