-- The event log's index by device, kept apart from the ingest path (README "The event log: compact blocks"). An
-- index of `events` on (device_int_id, msg_time) put each device of a commit on a page of its own: a commit of 200
-- uplinks of 200 devices rewrote 200 index pages into the WAL, 1.8-4.9 KB a message against ~0.45 KB without that
-- index, and more as the tail grew. Ingest now appends rows only; `event_devices` is filled from them in id order by
-- the indexer (store/libsql/event-devices.ts), each device's new entries together, up to `event_device_mark.upto`.
-- Rows above the mark are read by a scan of that short id range (about 2 s of uplinks).
CREATE TABLE event_devices (
  device_int_id INTEGER NOT NULL,
  msg_time INTEGER NOT NULL,
  id INTEGER NOT NULL,
  PRIMARY KEY (device_int_id, msg_time, id)
) WITHOUT ROWID;
CREATE TABLE event_device_mark (one INTEGER PRIMARY KEY CHECK (one = 1), upto INTEGER NOT NULL);
INSERT INTO event_devices (device_int_id, msg_time, id) SELECT device_int_id, msg_time, id FROM events WHERE device_int_id IS NOT NULL;
INSERT INTO event_device_mark (one, upto) SELECT 1, coalesce(max(id), 0) FROM events;
-- a deleted tail row (fold, retention, a deleted device) takes its entry along; ingest never deletes
CREATE TRIGGER events_delete_device_entry AFTER DELETE ON events WHEN OLD.device_int_id IS NOT NULL BEGIN DELETE FROM event_devices WHERE device_int_id = OLD.device_int_id AND msg_time = OLD.msg_time AND id = OLD.id; END;
-- a deleted device's tail rows: the indexed ones by their entries, the rest by the short range above the mark
DROP TRIGGER devices_delete_events;
CREATE TRIGGER devices_delete_events AFTER DELETE ON devices BEGIN DELETE FROM events WHERE id IN (SELECT id FROM event_devices WHERE device_int_id = OLD.id); DELETE FROM events WHERE id > (SELECT upto FROM event_device_mark) AND device_int_id = OLD.id; END;
DROP INDEX events_device;
