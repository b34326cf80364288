/** test/store/record-tables.test.ts again, over PortDb (the metadata database in worker threads). */
process.env.TEST_DB = 'port'
await import('./record-tables.test.ts')
