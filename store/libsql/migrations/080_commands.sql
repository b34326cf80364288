-- Commands: every control log of a device is a durable command with a lifecycle (command_status), stored before
-- it is published. A group command is the group's own row; its members' commands point at it (parent_id).
-- dispatch_at: when a node should try to send a queued command (NULL: it waits for the device to connect);
-- claimed_until: a node is sending it (another node may take it over after that time).
ALTER TABLE control_logs ADD COLUMN command_status TEXT;
ALTER TABLE control_logs ADD COLUMN qos INTEGER;
ALTER TABLE control_logs ADD COLUMN timeout_ms INTEGER;
ALTER TABLE control_logs ADD COLUMN expires_at INTEGER;
ALTER TABLE control_logs ADD COLUMN dispatch_at INTEGER;
ALTER TABLE control_logs ADD COLUMN claimed_until INTEGER;
ALTER TABLE control_logs ADD COLUMN deadline_at INTEGER;
ALTER TABLE control_logs ADD COLUMN sent_at INTEGER;
ALTER TABLE control_logs ADD COLUMN delivered_at INTEGER;
ALTER TABLE control_logs ADD COLUMN responded_at INTEGER;
ALTER TABLE control_logs ADD COLUMN response_code INTEGER;
ALTER TABLE control_logs ADD COLUMN response_payload TEXT;
ALTER TABLE control_logs ADD COLUMN schedule_id INTEGER;
ALTER TABLE control_logs ADD COLUMN parent_id INTEGER;
ALTER TABLE control_logs ADD COLUMN need_ack INTEGER;
CREATE INDEX control_logs_dispatch ON control_logs (dispatch_at) WHERE command_status = 'queued' AND dispatch_at IS NOT NULL;
CREATE INDEX control_logs_device_queue ON control_logs (device_int_id, id) WHERE command_status = 'queued';
CREATE INDEX control_logs_expiry ON control_logs (expires_at) WHERE command_status = 'queued' AND expires_at IS NOT NULL;
CREATE INDEX control_logs_deadline ON control_logs (deadline_at) WHERE command_status = 'sent' AND deadline_at IS NOT NULL;
CREATE INDEX control_logs_parent ON control_logs (parent_id, command_status) WHERE parent_id IS NOT NULL;
CREATE TABLE idempotency_keys (
  tenant_id TEXT NOT NULL,
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  answer TEXT,
  create_at INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, scope, key)
);
