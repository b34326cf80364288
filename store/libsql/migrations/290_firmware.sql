-- Firmware packages (README "Firmware"): one row a package of a product, its bytes in DATA_DIR/firmware/<file>. The
-- file is complete and in place before its row is written, so a row always names a whole file; a file without a row
-- (an upload cut short after the rename) is removed at start-up.
CREATE TABLE firmware (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  firmware_id TEXT NOT NULL,
  product_int_id INTEGER NOT NULL REFERENCES products(id),
  version TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  description TEXT,
  file TEXT NOT NULL,
  user_int_id INTEGER,
  create_at INTEGER NOT NULL,
  update_at INTEGER,
  UNIQUE (tenant_id, firmware_id),
  UNIQUE (product_int_id, version)
);
CREATE INDEX firmware_tenant ON firmware (tenant_id, create_at);
