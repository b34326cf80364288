-- Refused connections are logged once per client id and address per window: `attempts` counts the refusals folded
-- into a row (1 for every other row). The partial index finds the refused row a later refusal is counted into.
ALTER TABLE connect_logs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
CREATE INDEX connect_logs_refused ON connect_logs (device_id, msg_time) WHERE connect_status = 2;
