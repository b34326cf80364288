-- Firmware rollouts (README "Firmware"): a package sent to a set of devices fixed when the rollout is made, paced
-- at rate_per_minute (ramped up) by whichever node claims the rollout (claim_token, claimed_until); next_at is the
-- time of the next notification slot. firmware_id / version are kept beside firmware_int_id so a finished rollout
-- still names its package once the package is deleted (a package in use by an open rollout is not). change_id, on both tables: the
-- token of the transaction that last changed the row, so the outbox events of a change are built from the rows it
-- changed, in that transaction.
CREATE TABLE firmware_rollouts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  rollout_id TEXT NOT NULL,
  firmware_int_id INTEGER,
  firmware_id TEXT NOT NULL,
  version TEXT NOT NULL,
  product_int_id INTEGER NOT NULL,
  target TEXT NOT NULL,
  group_int_id INTEGER,
  from_versions TEXT,
  rate_per_minute INTEGER NOT NULL,
  ramp_up TEXT,
  abort_failed_percent INTEGER,
  abort_min_finished INTEGER NOT NULL,
  timeout_minutes INTEGER NOT NULL,
  retries INTEGER NOT NULL,
  status TEXT NOT NULL,
  total INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  claim_token TEXT,
  claimed_until INTEGER NOT NULL DEFAULT 0,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  finished_at INTEGER,
  change_id TEXT,
  UNIQUE (tenant_id, rollout_id)
);
CREATE INDEX firmware_rollouts_tenant ON firmware_rollouts (tenant_id, create_at);
CREATE INDEX firmware_rollouts_open ON firmware_rollouts (status, claimed_until)
  WHERE status IN ('running', 'paused');
CREATE INDEX firmware_rollouts_firmware ON firmware_rollouts (firmware_int_id);

-- One device of a rollout. attempt counts the notifications (a retry is the next attempt); notified_at is when its
-- slot was taken, delivered_at when ota/notify was published to it (an offline device's waits for its connection;
-- the timeout, deadline, counts from delivery). cancel_sent_at: when ota/cancel was published after a cancel or an
-- abort of a device notified already.
CREATE TABLE firmware_rollout_devices (
  rollout_int_id INTEGER NOT NULL REFERENCES firmware_rollouts(id),
  device_int_id INTEGER NOT NULL,
  tenant_id TEXT NOT NULL,
  status TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  from_version TEXT,
  progress INTEGER,
  error TEXT,
  notified_at INTEGER,
  delivered_at INTEGER,
  deadline INTEGER,
  cancel_sent_at INTEGER,
  update_at INTEGER NOT NULL,
  change_id TEXT,
  PRIMARY KEY (rollout_int_id, device_int_id)
) WITHOUT ROWID;
CREATE INDEX firmware_rollout_devices_status ON firmware_rollout_devices (rollout_int_id, status, device_int_id);
CREATE INDEX firmware_rollout_devices_device ON firmware_rollout_devices (device_int_id, rollout_int_id);
CREATE INDEX firmware_rollout_devices_deadline ON firmware_rollout_devices (rollout_int_id, deadline)
  WHERE deadline IS NOT NULL;
CREATE TRIGGER devices_delete_rollout_rows AFTER DELETE ON devices BEGIN DELETE FROM firmware_rollout_devices WHERE device_int_id = OLD.id; END;
-- a product's devices by softVersion: the versions in its fleet with their counts, a rollout's fromVersions
CREATE INDEX devices_product_soft_version ON devices (product_int_id, soft_version);
