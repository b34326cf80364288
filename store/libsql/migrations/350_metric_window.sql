-- An aggregate metric's own window (`aggregateInterval`: 5m, 1h, 1d, 1mo ...): metrics_data aggregates it per this
-- window when the request names no `interval`. Null: the range's default window (docs/telemetry-queries.md).
ALTER TABLE metrics ADD COLUMN aggregate_interval TEXT;
