-- The time (epoch ms) of a device's or gateway's last uplink or connect. Ingest writes it at most once a minute
-- per device, in one statement per flush (ingest/last-seen.ts), never once per message.
ALTER TABLE devices ADD COLUMN last_seen_at INTEGER;
