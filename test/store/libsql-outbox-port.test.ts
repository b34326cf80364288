/** test/store/libsql-outbox.test.ts again, over PortDb (the metadata database in worker threads). */
process.env.TEST_DB = 'port'
await import('./libsql-outbox.test.ts')
