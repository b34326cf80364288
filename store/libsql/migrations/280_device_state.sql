-- Devices' state documents (README "Desired state"): one row a device once either side was written. desired,
-- reported and delta are JSON texts of objects; desired_keys / reported_keys map each side's top-level keys to the
-- epoch ms of their last change. change_id: the token of the write transaction that last wrote the row, so that
-- the outbox event of a write is stored only when its compare-and-set on `version` succeeded.
CREATE TABLE device_states (
  device_int_id INTEGER PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  device_id TEXT NOT NULL,
  desired TEXT NOT NULL,
  reported TEXT NOT NULL,
  delta TEXT NOT NULL,
  desired_keys TEXT NOT NULL,
  reported_keys TEXT NOT NULL,
  version INTEGER NOT NULL,
  desired_version INTEGER NOT NULL,
  reported_version INTEGER NOT NULL,
  desired_at INTEGER,
  reported_at INTEGER,
  change_id TEXT
);
-- stateDelta of device lists (`?stateDelta=1`): a column of the device row, kept by triggers only when the delta turns
-- empty or not empty, so a list filters on an index and reads no JSON
ALTER TABLE devices ADD COLUMN state_delta INTEGER NOT NULL DEFAULT 0;
CREATE INDEX devices_state_delta ON devices (tenant_id, state_delta);
CREATE TRIGGER device_states_delta_insert AFTER INSERT ON device_states WHEN NEW.delta != '{}' BEGIN UPDATE devices SET state_delta = 1 WHERE id = NEW.device_int_id; END;
CREATE TRIGGER device_states_delta_update AFTER UPDATE OF delta ON device_states WHEN (OLD.delta = '{}') != (NEW.delta = '{}') BEGIN UPDATE devices SET state_delta = (NEW.delta != '{}') WHERE id = NEW.device_int_id; END;
CREATE TRIGGER devices_delete_state AFTER DELETE ON devices BEGIN DELETE FROM device_states WHERE device_int_id = OLD.id; END;

-- A group's or a product's desired patch, applied to its devices in id order by whichever node claims the job
-- (claimed_until); after_device is the last device done, so a node that stops leaves the rest to the next claim.
CREATE TABLE state_jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  scope TEXT NOT NULL,
  scope_int_id INTEGER NOT NULL,
  patch TEXT NOT NULL,
  after_device INTEGER NOT NULL DEFAULT 0,
  total INTEGER NOT NULL DEFAULT 0,
  changed INTEGER NOT NULL DEFAULT 0,
  unchanged INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  claimed_until INTEGER NOT NULL DEFAULT 0,
  done INTEGER NOT NULL DEFAULT 0,
  create_at INTEGER NOT NULL
);
CREATE INDEX state_jobs_open ON state_jobs (done, id);
