-- Deleting a device or gateway also removes its group memberships, policy and certificate bindings and subscriptions,
-- whichever code path deletes it (these rows reference devices(id) and would otherwise block the delete).
-- Each trigger is on one line: the migration runner splits statements on semicolons at line ends.
CREATE TRIGGER devices_unlink_groups BEFORE DELETE ON devices BEGIN DELETE FROM group_devices WHERE device_int_id = OLD.id; END;
CREATE TRIGGER devices_unlink_policies BEFORE DELETE ON devices BEGIN DELETE FROM policy_devices WHERE device_int_id = OLD.id; END;
CREATE TRIGGER devices_unlink_subscriptions BEFORE DELETE ON devices BEGIN DELETE FROM device_subscriptions WHERE device_int_id = OLD.id; END;
CREATE TRIGGER devices_unlink_certs BEFORE DELETE ON devices BEGIN DELETE FROM cert_devices WHERE device_int_id = OLD.id; END;
