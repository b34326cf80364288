-- The event log's folded blocks (README "Keeping data"): uplink messages older than the current hour move from
-- `events` (the tail, written on the ingest path) into blocks of up to 1,024 messages of one device, compressed
-- (store/libsql/event-blocks.ts). Ids are kept, so list cursors stay valid; lists read the tail and the blocks.
-- n: messages; id0/id1, t0/t1 (msgTime), c0/c1 (createAt): bounds; keys: JSON [[topic, status, ip, reason, n]].
CREATE TABLE event_blocks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  device_int_id INTEGER,
  device_id TEXT NOT NULL,
  device_name TEXT,
  product_int_id INTEGER,
  n INTEGER NOT NULL,
  id0 INTEGER NOT NULL,
  id1 INTEGER NOT NULL,
  t0 INTEGER NOT NULL,
  t1 INTEGER NOT NULL,
  c0 INTEGER NOT NULL,
  c1 INTEGER NOT NULL,
  keys TEXT NOT NULL,
  idx BLOB NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX event_blocks_tenant ON event_blocks (tenant_id, t1);
CREATE INDEX event_blocks_device ON event_blocks (device_int_id, t1);
CREATE INDEX event_blocks_product ON event_blocks (product_int_id, t1);
CREATE TRIGGER devices_delete_event_blocks AFTER DELETE ON devices BEGIN DELETE FROM event_blocks WHERE device_int_id = OLD.id; END;

-- A fold commits only when every message it encoded is still in the tail (none deleted meanwhile): its batch sets
-- ok to that comparison, and the CHECK rolls the whole batch back when it is false.
CREATE TABLE event_fold_guard (id INTEGER PRIMARY KEY CHECK (id = 1), ok INTEGER NOT NULL CHECK (ok = 1));
INSERT INTO event_fold_guard (id, ok) VALUES (1, 1);
