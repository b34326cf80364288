-- change_id: the token of the write transaction that last moved a command. The outbox events of a batch of
-- compare-and-set transitions are stored (in the same transaction) only for the rows that carry its token, i.e.
-- the commands that actually moved.
ALTER TABLE control_logs ADD COLUMN change_id TEXT;
