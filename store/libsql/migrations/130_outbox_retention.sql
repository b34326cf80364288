-- Old events (and their delivery log) are deleted after the retention period: found by time.
CREATE INDEX outbox_events_time ON outbox_events (time);
