-- An alert's opening is announced (its alert.raised outbox row written) in the transaction that opens it:
-- the opening inserts announced = 0, and the same transaction stores the outbox row of every unannounced alert
-- and sets announced = 1 (store/libsql/alerts.ts). Rows inserted otherwise are never announced.
ALTER TABLE current_alerts ADD COLUMN announced INTEGER NOT NULL DEFAULT 1;
CREATE INDEX current_alerts_unannounced ON current_alerts (id) WHERE announced = 0;
