-- Retention (README "Keeping data"): a product may keep its raw values and its uplink events for a number of days
-- other than the service's settings (null = the setting). `job_leases` lets one service process run a periodic job
-- (the retention job) at a time: a process claims the row when its lease has run out and the job is due.
ALTER TABLE products ADD COLUMN raw_retention_days INTEGER;
ALTER TABLE products ADD COLUMN event_retention_days INTEGER;
CREATE TABLE job_leases (
  name TEXT PRIMARY KEY,
  claimed_until INTEGER NOT NULL DEFAULT 0,
  next_run_at INTEGER NOT NULL DEFAULT 0,
  last_result TEXT
);
-- The retention job deletes a product's old events by a range of this index (null: events of no product), so a
-- step never walks rows it keeps.
CREATE INDEX events_product ON events (product_int_id, msg_time);
