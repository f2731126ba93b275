'use strict'
// One application process of the concurrency tests: N times, through one
// driver or ORM, read the row's counter, add one, save.
//   node worker.js MODE N TABLE ID      (connection: PGHOST, PGPORT, PGDATABASE)
// MODE: pg, postgres (c = c + $1), sequelize, typeorm (load, views += 1, save).
// Prints "done N" at the end.

const [mode, n, table, id] = [process.argv[2], Number(process.argv[3]), process.argv[4], Number(process.argv[5])]

async function main () {
  if (mode === 'pg') {
    const pg = require('pg')
    const c = new pg.Client()
    await c.connect()
    for (let i = 0; i < n; i++) await c.query(`UPDATE ${table} SET views = views + $1 WHERE id = $2`, [1, id])
    await c.end()
  } else if (mode === 'postgres') {
    const sql = require('postgres')({ max: 1 })
    for (let i = 0; i < n; i++) await sql`UPDATE ${sql(table)} SET views = views + ${1} WHERE id = ${id}`
    await sql.end()
  } else if (mode === 'sequelize') {
    const { Sequelize, DataTypes } = require('sequelize')
    const cs = require('counter-crdt/sequelize')
    const sequelize = new Sequelize(process.env.PGDATABASE, process.env.PGUSER || '', '', {
      dialect: 'postgres', host: process.env.PGHOST, port: process.env.PGPORT, logging: false
    })
    cs.install(sequelize)
    const Page = sequelize.define('Page', { views: cs.counterAttribute() }, { tableName: table, timestamps: false })
    for (let i = 0; i < n; i++) {
      const page = await Page.findByPk(id)
      page.views += 1
      await page.save()
    }
    await sequelize.close()
  } else if (mode === 'typeorm') {
    const { DataSource, EntitySchema } = require('typeorm')
    const ct = require('counter-crdt/typeorm')
    const Page = new EntitySchema({
      name: 'Page',
      tableName: table,
      columns: { id: { type: Number, primary: true }, views: ct.counterColumn() }
    })
    const ds = new DataSource({
      type: 'postgres', host: process.env.PGHOST, port: Number(process.env.PGPORT), database: process.env.PGDATABASE, entities: [Page]
    })
    ct.install(ds)
    await ds.initialize()
    const repo = ds.getRepository(Page)
    for (let i = 0; i < n; i++) {
      const page = await repo.findOneBy({ id })
      page.views += 1
      await repo.save(page)
    }
    await ds.destroy()
  } else {
    throw new Error(`unknown mode ${mode}`)
  }
  console.log(`done ${n}`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
