-- Alert rules: a condition over a product's data points (or a no-data period), evaluated per device.
CREATE TABLE alert_rules (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  rule_name TEXT NOT NULL,
  product_int_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  device_int_ids TEXT,
  condition TEXT,
  alert_severity INTEGER NOT NULL,
  for_seconds INTEGER NOT NULL DEFAULT 0,
  clear_condition TEXT,
  clear_for_seconds INTEGER NOT NULL DEFAULT 0,
  no_data_seconds INTEGER,
  alert_content TEXT,
  enable INTEGER NOT NULL DEFAULT 1,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE UNIQUE INDEX alert_rules_name ON alert_rules (tenant_id, rule_name);
CREATE INDEX alert_rules_product ON alert_rules (product_int_id, enable);
-- A condition seen but not yet held for forSeconds (phase 'raise') or clearForSeconds (phase 'clear'), per
-- (rule, device): `since` is when it began to hold, so that the wait survives a restart.
CREATE TABLE alert_states (
  rule_id INTEGER NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
  device_int_id INTEGER NOT NULL,
  phase TEXT NOT NULL,
  since INTEGER NOT NULL,
  detail TEXT,
  PRIMARY KEY (rule_id, device_int_id)
);
ALTER TABLE current_alerts ADD COLUMN rule_id INTEGER;
ALTER TABLE current_alerts ADD COLUMN ack_at INTEGER;
ALTER TABLE current_alerts ADD COLUMN ack_user TEXT;
ALTER TABLE history_alerts ADD COLUMN rule_id INTEGER;
ALTER TABLE history_alerts ADD COLUMN ack_at INTEGER;
ALTER TABLE history_alerts ADD COLUMN ack_user TEXT;
-- At most one open alert per (rule, device); alerts without a rule (the built-in limit and fault alerts) keep
-- the former key (tenant, alert name, device).
DROP INDEX current_alerts_open;
CREATE UNIQUE INDEX current_alerts_open ON current_alerts (tenant_id, coalesce(rule_id, 0), iif(rule_id IS NULL, alert_name, ''), coalesce(device_id, ''));
CREATE INDEX current_alerts_rule ON current_alerts (rule_id);
