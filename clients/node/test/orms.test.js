'use strict'
// Each ORM and query builder against the server: its migration helpers
// (the extension, a counter column, the write guard), increments, value
// comparisons and ordering, merges and digests; the save of a loaded object
// as an increment (Sequelize, TypeORM), and the guard refusing a stale state
// written by hand.

const test = require('node:test')
const assert = require('node:assert')
const { CounterState } = require('counter-crdt')
const { connect } = require('./helpers')

const conn = { host: process.env.PGHOST, port: Number(process.env.PGPORT), database: process.env.PGDATABASE }
let client
let stale // a state of row 1 read before its increments

test.before(async () => {
  client = await connect()
})
test.after(() => client.end())

// The same checks for every ORM, on table NAME (id, views), with rows 1, 2, 3
// made by the ORM: views 0, 5, 12 after `bump`.
async function checkTable (name, what) {
  const rows = (await client.query(`SELECT id, views::bigint AS v, views::text AS s FROM ${name} ORDER BY id`)).rows
  assert.deepStrictEqual(rows.map((r) => [r.id, r.v]), [[1, '0'], [2, '5'], [3, '12']], `${what}: the values`)
  await assert.rejects(client.query(`UPDATE ${name} SET views = '{}' WHERE id = 3`),
    (e) => e.code === '23000' && /views = views \+ n/.test(e.hint), `${what}: the migration put the write guard on ${name}`)
  const guard = await client.query("SELECT count(*) AS n FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname = 'counter_crdt_write_guard'", [name])
  assert.strictEqual(guard.rows[0].n, '1', `${what}: one guard trigger`)
  return rows
}

const other = CounterState.parse('{00000000-0000-0000-0000-0000000000aa:4:100}')

test('Knex', async () => {
  const knex = require('knex')({ client: 'pg', connection: conn, pool: { min: 0, max: 2, afterCreate: require('counter-crdt/knex').afterCreate } })
  const ck = require('counter-crdt/knex')
  await ck.createExtension(knex)
  await knex.schema.dropTableIfExists('k_pages')
  await knex.schema.createTable('k_pages', (t) => {
    t.integer('id').primary()
    ck.counterColumn(t, 'views')
  })
  await ck.guardWrites(knex, 'k_pages')
  await knex('k_pages').insert([{ id: 1 }, { id: 2, views: ck.newCounter(knex, 5) }, { id: 3, views: ck.newCounter(knex, 2) }])
  await knex('k_pages').where({ id: 3 }).update({ views: ck.increment(knex, 'views', 10) })
  await checkTable('k_pages', 'knex')
  const rows = await knex('k_pages').select('id', 'views').where(ck.value(knex, 'views'), '>', 3).orderBy(ck.value(knex, 'views'), 'desc')
  assert.deepStrictEqual(rows.map((r) => r.id), [3, 2])
  assert.ok(rows[0].views instanceof CounterState, 'afterCreate: counters read as CounterState')
  assert.strictEqual(rows[0].views.value, 12n)
  await knex('k_pages').where({ id: 2 }).update({ views: ck.merge(knex, 'views', other) })
  const [m] = await knex('k_pages').select('views', knex.raw('? AS d', [ck.digest(knex, 'views')])).where({ id: 2 })
  assert.strictEqual(m.views.value, 105n)
  const d = await client.query('SELECT counter_crdt_digest(views) AS d FROM k_pages WHERE id = 2')
  assert.ok(m.d.equals(d.rows[0].d), 'the digest')
  await knex.destroy()
})

test('Kysely', async () => {
  const { Kysely, PostgresDialect } = require('kysely')
  const { Pool } = require('pg')
  const ky = require('counter-crdt/kysely')
  const pool = new Pool(conn)
  await require('counter-crdt/pg').registerType(pool)
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) })
  await ky.createExtension(db)
  await db.schema.dropTable('y_pages').ifExists().execute()
  await db.schema.createTable('y_pages').addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('views', ky.counterCrdt, (c) => c.notNull().defaultTo(ky.emptyCounter())).execute()
  await ky.guardWrites(db, 'y_pages')
  await db.insertInto('y_pages').values([{ id: 1 }, { id: 2, views: ky.newCounter(5) }, { id: 3, views: ky.newCounter(2) }]).execute()
  await db.updateTable('y_pages').set({ views: ky.increment('views', 10) }).where('id', '=', 3).execute()
  await checkTable('y_pages', 'kysely')
  const rows = await db.selectFrom('y_pages').select(['id', 'views']).where(ky.value('views'), '>', 3).orderBy(ky.value('views'), 'desc').execute()
  assert.deepStrictEqual(rows.map((r) => r.id), [3, 2])
  assert.strictEqual(rows[0].views.value, 12n)
  await db.updateTable('y_pages').set({ views: ky.merge('views', other) }).where('id', '=', 2).execute()
  const m = await db.selectFrom('y_pages').select(['views', ky.digest('views').as('d')]).where('id', '=', 2).executeTakeFirst()
  assert.strictEqual(m.views.value, 105n)
  assert.strictEqual(m.d.length, 32)
  await db.destroy()
})

test('Drizzle', async () => {
  const { drizzle } = require('drizzle-orm/node-postgres')
  const { pgTable, integer } = require('drizzle-orm/pg-core')
  const { eq, gt, desc } = require('drizzle-orm')
  const dz = require('counter-crdt/drizzle')
  const { Pool } = require('pg')
  const pool = new Pool(conn)
  const db = drizzle(pool)
  const pages = pgTable('d_pages', { id: integer('id').primaryKey(), views: dz.counter('views').notNull().default(dz.emptyCounter()) })
  await dz.createExtension(db)
  await client.query("DROP TABLE IF EXISTS d_pages; CREATE TABLE d_pages (id integer PRIMARY KEY, views counter_crdt NOT NULL DEFAULT '{}')")
  await dz.guardWrites(db, pages)
  await db.insert(pages).values([{ id: 1 }, { id: 2, views: dz.newCounter(5) }, { id: 3, views: dz.newCounter(2) }])
  await db.update(pages).set({ views: dz.increment(pages.views, 10) }).where(eq(pages.id, 3))
  await checkTable('d_pages', 'drizzle')
  const rows = await db.select({ id: pages.id, views: pages.views, value: dz.value(pages.views) }).from(pages)
    .where(gt(dz.value(pages.views), 3)).orderBy(desc(dz.value(pages.views)))
  assert.deepStrictEqual(rows.map((r) => [r.id, r.value]), [[3, 12n], [2, 5n]])
  assert.ok(rows[0].views instanceof CounterState)
  await assert.rejects(db.update(pages).set({ views: 7 }).where(eq(pages.id, 2)), /increment\(column, n\)/)
  await db.update(pages).set({ views: dz.merge(pages.views, other) }).where(eq(pages.id, 2))
  const [m] = await db.select({ views: pages.views, d: dz.digest(pages.views) }).from(pages).where(eq(pages.id, 2))
  assert.strictEqual(m.views.value, 105n)
  assert.strictEqual(m.d.length, 32)
  await pool.end()
})

test('Sequelize', async () => {
  const { Sequelize, DataTypes, Op } = require('sequelize')
  const cs = require('counter-crdt/sequelize')
  const sequelize = new Sequelize(conn.database, process.env.PGUSER || '', '', { dialect: 'postgres', host: conn.host, port: conn.port, logging: false })
  cs.install(sequelize)
  const qi = sequelize.getQueryInterface()
  await cs.createExtension(qi)
  await qi.dropTable('s_pages')
  await qi.createTable('s_pages', { id: { type: DataTypes.INTEGER, primaryKey: true }, views: cs.columnDefinition() })
  await cs.guardWrites(qi, 's_pages')
  const Page = sequelize.define('Page', { id: { type: DataTypes.INTEGER, primaryKey: true }, views: cs.counterAttribute() }, { tableName: 's_pages', timestamps: false })
  const p1 = await Page.create({ id: 1 })
  assert.strictEqual(p1.views, 0)
  await Page.create({ id: 2, views: 5 })
  const p3 = await Page.create({ id: 3, views: 2 })
  stale = (await client.query('SELECT views::text AS s FROM s_pages WHERE id = 3')).rows[0].s
  // another process increments meanwhile; the save adds its own delta
  await client.query('UPDATE s_pages SET views = views + 4 WHERE id = 3')
  p3.views += 6
  await p3.save()
  assert.strictEqual(p3.views, 12, 'the instance holds the row\'s new value')
  await checkTable('s_pages', 'sequelize')
  // untouched: not written
  const before = (await client.query('SELECT xmin FROM s_pages WHERE id = 1')).rows[0].xmin
  const p = await Page.findByPk(1)
  await p.save()
  assert.strictEqual((await client.query('SELECT xmin FROM s_pages WHERE id = 1')).rows[0].xmin, before, 'an unchanged instance writes nothing')
  const rows = await Page.findAll({ where: { views: { [Op.gt]: 3 } }, order: [[cs.value('views'), 'DESC']] })
  assert.deepStrictEqual(rows.map((r) => [r.id, r.views]), [[3, 12], [2, 5]])
  await assert.rejects(Page.update({ views: 7 }, { where: { id: 2 } }), /Page.increment\('views'/)
  await Page.update({ views: cs.increment('views', 3) }, { where: { id: 2 } })
  await Page.update({ views: cs.merge('views', other) }, { where: { id: 2 } })
  const q = await Page.findByPk(2)
  assert.strictEqual(q.views, 108)
  q.views = CounterState.parse(stale) // an old state assigned: merged, nothing lost
  await q.save()
  assert.strictEqual((await Page.findByPk(2)).views, 108)
  const [d] = await Page.findAll({ attributes: [[cs.digest('views'), 'd']], where: { id: 2 }, raw: true })
  assert.strictEqual(d.d.length, 32)
  await sequelize.close()
})

test('TypeORM', async () => {
  const { DataSource, EntitySchema } = require('typeorm')
  const ct = require('counter-crdt/typeorm')
  const Page = new EntitySchema({ name: 'Page', tableName: 't_pages', columns: { id: { type: Number, primary: true }, views: ct.counterColumn() } })
  const ds = new DataSource({ type: 'postgres', ...conn, entities: [Page] })
  ct.install(ds)
  await ds.initialize()
  const qr = ds.createQueryRunner()
  await ct.createExtension(qr)
  await qr.query("DROP TABLE IF EXISTS t_pages; CREATE TABLE t_pages (id integer PRIMARY KEY, views counter_crdt NOT NULL DEFAULT '{}')")
  await ct.guardWrites(qr, 't_pages')
  await qr.release()
  const repo = ds.getRepository(Page)
  await repo.save([{ id: 1 }, { id: 2, views: 5 }, { id: 3, views: 2 }])
  const p3 = await repo.findOneBy({ id: 3 })
  await client.query('UPDATE t_pages SET views = views + 4 WHERE id = 3')
  p3.views += 6
  await repo.save(p3)
  await checkTable('t_pages', 'typeorm')
  // an entity whose counter is untouched does not lower it, whatever the row holds now
  const p2 = await repo.findOneBy({ id: 2 })
  await client.query('UPDATE t_pages SET views = views + 1 WHERE id = 2')
  await repo.save(p2)
  assert.strictEqual((await repo.findOneBy({ id: 2 })).views, 6)
  await client.query('UPDATE t_pages SET views = views - 1 WHERE id = 2')
  const rows = await repo.createQueryBuilder('p').where(`${ct.value('p', 'views')} > :n`, { n: 3 }).orderBy(ct.value('p', 'views'), 'DESC').getMany()
  assert.deepStrictEqual(rows.map((r) => [r.id, r.views]), [[3, 12], [2, 5]])
  await assert.rejects(repo.update({ id: 2 }, { views: 7 }), /repo.increment\(where, 'views', n\)/)
  await repo.update({ id: 2 }, { views: ct.increment('views', 3) })
  await repo.update({ id: 2 }, { views: ct.merge('views', other) })
  assert.strictEqual((await repo.findOneBy({ id: 2 })).views, 108)
  const d = await repo.createQueryBuilder('p').select(ct.digest('p', 'views'), 'd').where('p.id = 2').getRawOne()
  assert.strictEqual(d.d.length, 32)
  await ds.destroy()
})
