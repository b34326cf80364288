-- Deleting a device or gateway also deletes its connection logs, uplink messages, downlink messages and alerts
-- (rows keyed by device_int_id), whichever code path deletes it: nothing of a deleted device is left behind.
-- Each trigger is on one line: the migration runner splits statements on semicolons at line ends.
CREATE INDEX current_alerts_device ON current_alerts (device_int_id);
CREATE INDEX history_alerts_device ON history_alerts (device_int_id);
CREATE TRIGGER devices_delete_connect_logs AFTER DELETE ON devices BEGIN DELETE FROM connect_logs WHERE device_int_id = OLD.id; END;
CREATE TRIGGER devices_delete_events AFTER DELETE ON devices BEGIN DELETE FROM events WHERE device_int_id = OLD.id; END;
CREATE TRIGGER devices_delete_control_logs AFTER DELETE ON devices BEGIN DELETE FROM control_logs WHERE device_int_id = OLD.id; END;
CREATE TRIGGER devices_delete_current_alerts AFTER DELETE ON devices BEGIN DELETE FROM current_alerts WHERE device_int_id = OLD.id; END;
CREATE TRIGGER devices_delete_history_alerts AFTER DELETE ON devices BEGIN DELETE FROM history_alerts WHERE device_int_id = OLD.id; END;
