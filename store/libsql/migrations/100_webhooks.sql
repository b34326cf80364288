-- Webhooks and their durable outbox. outbox_events: every announced event a receiver or a live stream may want
-- (its id is the event id receivers de-duplicate on). webhook_deliveries: one row per event and subscribed
-- webhook, created in the transaction that stores the event. claimed_until: a node is sending it (another node
-- may take it over after that time).
CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  enable INTEGER NOT NULL DEFAULT 1,
  secret TEXT NOT NULL,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX webhooks_tenant ON webhooks (tenant_id, enable);
CREATE TABLE outbox_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  type TEXT NOT NULL,
  time INTEGER NOT NULL,
  device_id TEXT,
  data TEXT NOT NULL
);
CREATE INDEX outbox_events_tenant ON outbox_events (tenant_id, id);
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id INTEGER NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_try_at INTEGER,
  claimed_until INTEGER,
  response_code INTEGER,
  last_error TEXT,
  duration_ms INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_try_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
