-- The audit log (README "Audit log"): one row per change made through the API and per sign-in, written in the
-- transaction of the change it records (store/libsql/audit-sql.ts). Names and ids are copied, not referenced, so a
-- row still says what was deleted and by whom after both are gone. changed: a JSON array of field names (never a
-- value). Kept RETENTION_AUDIT_DAYS.
CREATE TABLE audit_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time INTEGER NOT NULL,
  tenant_id TEXT NOT NULL,
  user_int_id INTEGER,
  username TEXT,
  email TEXT,
  role TEXT,
  action TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_int_id INTEGER,
  resource_id TEXT,
  resource_name TEXT,
  changed TEXT NOT NULL DEFAULT '[]',
  client_ip TEXT,
  request_id TEXT,
  -- set only inside the transaction that writes the row, until it sees whether the change changed anything
  pending INTEGER
);
CREATE INDEX audit_logs_tenant_time ON audit_logs (tenant_id, time);
CREATE INDEX audit_logs_resource ON audit_logs (tenant_id, resource_type, resource_int_id, time);
CREATE INDEX audit_logs_user ON audit_logs (tenant_id, user_int_id, time);
CREATE INDEX audit_logs_pending ON audit_logs (pending) WHERE pending IS NOT NULL;
