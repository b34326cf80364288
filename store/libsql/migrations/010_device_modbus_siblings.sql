-- Rule: modBusIndex is unique among sibling devices. Siblings are the devices
-- hanging off the same gateway, or off the same parent device; a device connected to the cloud has no siblings.
-- Partial unique indexes make the check atomic (no check-then-insert race).
CREATE UNIQUE INDEX devices_modbus_gateway ON devices (gateway_int_id, mod_bus_index)
  WHERE gateway_int_id IS NOT NULL AND mod_bus_index IS NOT NULL;
CREATE UNIQUE INDEX devices_modbus_parent ON devices (parent_device_int_id, mod_bus_index)
  WHERE parent_device_int_id IS NOT NULL AND mod_bus_index IS NOT NULL;
