-- The event stage (store/libsql/event-stage.ts): with the embedded telemetry store, an uplink's event is committed
-- with its values in the telemetry file and moved into `events` afterwards. `through` is the last stage row moved
-- from the stage named `epoch` (one a telemetry file), written in the move's transaction: a move is never repeated.
-- `mark` is the last event id before a move's rows, for the move's own statements.
CREATE TABLE event_moves (epoch INTEGER PRIMARY KEY, through INTEGER NOT NULL, mark INTEGER NOT NULL DEFAULT 0);
