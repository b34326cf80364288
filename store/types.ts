/**
 * Ports of the stores. The service's handlers, ingest and query talk only to these interfaces;
 * store/libsql and store/influx implement them, and createStores (store/index.ts, called by src/service.ts)
 * picks them. The list and page types live in store/list.ts, the metadata port in store/metadata.ts.
 */

export * from './list.ts'
export * from './metadata.ts'
