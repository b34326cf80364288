/** test/store/projected-reads.test.ts again, over PortDb (the metadata database in worker threads). */
process.env.TEST_DB = 'port'
await import('./projected-reads.test.ts')
