/** test/store/table-repository.test.ts again, over PortDb (the metadata database in worker threads). */
process.env.TEST_DB = 'port'
await import('./table-repository.test.ts')
