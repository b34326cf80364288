-- Schedules: commands to a device (kind 'device') or a group (kind 'group') published at times of their own.
-- schedule_type 1 once at crontab_time (epoch ms), 2 every interval_minute minutes, 3 at each match of the 5-field
-- cron expression `cron`. next_run_at is the due time a node fires next (NULL: nothing due, e.g. a once schedule
-- that has fired, or a disabled one); a node claims a due time by moving next_run_at on with a compare-and-set,
-- so each due time fires once however many nodes share this database. last_run_at is the due time fired last.
-- Deleting the device or group deletes its schedules (one trigger each, each on one line: the migration runner
-- splits statements on semicolons at line ends).
CREATE TABLE schedules (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('device', 'group')),
  device_int_id INTEGER,
  device_id TEXT,
  group_int_id INTEGER,
  group_id TEXT,
  schedule_name TEXT NOT NULL,
  schedule_type INTEGER NOT NULL CHECK (schedule_type IN (1, 2, 3)),
  crontab_time INTEGER,
  interval_minute INTEGER,
  cron TEXT,
  topic TEXT,
  payload TEXT NOT NULL,
  qos INTEGER,
  timeout INTEGER,
  ttl INTEGER,
  need_ack INTEGER,
  enable INTEGER NOT NULL DEFAULT 1,
  next_run_at INTEGER,
  last_run_at INTEGER,
  last_task_id TEXT,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX schedules_due ON schedules (enable, next_run_at);
CREATE INDEX schedules_tenant ON schedules (tenant_id, kind, create_at);
CREATE INDEX schedules_device ON schedules (device_int_id) WHERE device_int_id IS NOT NULL;
CREATE INDEX schedules_group ON schedules (group_int_id) WHERE group_int_id IS NOT NULL;
CREATE TRIGGER devices_delete_schedules AFTER DELETE ON devices BEGIN DELETE FROM schedules WHERE device_int_id = OLD.id; END;
CREATE TRIGGER groups_delete_schedules AFTER DELETE ON groups BEGIN DELETE FROM schedules WHERE group_int_id = OLD.id; END;
