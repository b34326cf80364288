-- Counts of a tenant's devices and gateways per product, kept by triggers, so that a list's total and the overview do
-- not walk an index of the tenant (0.24 ms per 10,000 devices: ~25 ms a request with 1,000,000). One row per
-- (tenant, kind, product): `n` rows, `online` of them with device_status 1, `blocked` of them blocked. Every
-- write of devices runs in the one writer, so the tenant's hot rows cost no contention. The triggers keep one line
-- each (the migration runner splits statements at a `;` ending a line).
CREATE TABLE device_counts (
  tenant_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  product_int_id INTEGER NOT NULL,
  n INTEGER NOT NULL DEFAULT 0,
  online INTEGER NOT NULL DEFAULT 0,
  blocked INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, kind, product_int_id)
) WITHOUT ROWID;
INSERT INTO device_counts (tenant_id, kind, product_int_id, n, online, blocked)
  SELECT tenant_id, kind, product_int_id, count(*), sum(device_status IS 1), sum(blocked IS 1)
  FROM devices GROUP BY tenant_id, kind, product_int_id;
CREATE TRIGGER device_counts_insert AFTER INSERT ON devices BEGIN INSERT INTO device_counts (tenant_id, kind, product_int_id, n, online, blocked) VALUES (NEW.tenant_id, NEW.kind, NEW.product_int_id, 1, NEW.device_status IS 1, NEW.blocked IS 1) ON CONFLICT (tenant_id, kind, product_int_id) DO UPDATE SET n = n + 1, online = online + excluded.online, blocked = blocked + excluded.blocked; END;
CREATE TRIGGER device_counts_delete AFTER DELETE ON devices BEGIN UPDATE device_counts SET n = n - 1, online = online - (OLD.device_status IS 1), blocked = blocked - (OLD.blocked IS 1) WHERE tenant_id = OLD.tenant_id AND kind = OLD.kind AND product_int_id = OLD.product_int_id; END;
CREATE TRIGGER device_counts_update AFTER UPDATE OF tenant_id, kind, product_int_id, device_status, blocked ON devices WHEN OLD.tenant_id IS NOT NEW.tenant_id OR OLD.kind IS NOT NEW.kind OR OLD.product_int_id IS NOT NEW.product_int_id OR (OLD.device_status IS 1) IS NOT (NEW.device_status IS 1) OR (OLD.blocked IS 1) IS NOT (NEW.blocked IS 1) BEGIN UPDATE device_counts SET n = n - 1, online = online - (OLD.device_status IS 1), blocked = blocked - (OLD.blocked IS 1) WHERE tenant_id = OLD.tenant_id AND kind = OLD.kind AND product_int_id = OLD.product_int_id; INSERT INTO device_counts (tenant_id, kind, product_int_id, n, online, blocked) VALUES (NEW.tenant_id, NEW.kind, NEW.product_int_id, 1, NEW.device_status IS 1, NEW.blocked IS 1) ON CONFLICT (tenant_id, kind, product_int_id) DO UPDATE SET n = n + 1, online = online + excluded.online, blocked = blocked + excluded.blocked; END;
