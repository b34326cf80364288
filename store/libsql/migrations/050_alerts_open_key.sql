-- One open (current) alert per tenant, alert name and device: raising it again increments alertTimes
-- (AlertsRepo.raise upserts on this key). Alerts without a device share the empty device key.
CREATE UNIQUE INDEX current_alerts_open ON current_alerts (tenant_id, alert_name, coalesce(device_id, ''));
