-- The devices list sorts by name and by last seen and filters by product (the console offers all three). Measured
-- with 100,000 devices, page 1000 of 20: by lastSeenAt ~400 ms -> ~60 ms, by deviceName ~130 ms -> ~60 ms. The
-- product index keeps the planner off the two sort indexes for a product filter (with only those it walked every
-- row of the tenant: ~650 ms); last_seen_at is written at most once a minute per device, so its index costs little.
CREATE INDEX devices_tenant_name ON devices (tenant_id, kind, device_name);
CREATE INDEX devices_tenant_seen ON devices (tenant_id, kind, last_seen_at);
CREATE INDEX devices_tenant_product ON devices (tenant_id, kind, product_int_id, create_at);
