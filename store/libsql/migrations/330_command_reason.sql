-- Why a command ended without reaching its device, or was taken back (docs/commands.md): `device offline, no ttl`,
-- `device blocked`, `device deleted`, `ttl ran out`, `no acknowledgement within the timeout`, `canceled by <user>`
-- (`canceled`), `publish failed`. Null while a command moves normally (and for rows written before this column).
ALTER TABLE control_logs ADD COLUMN status_reason TEXT;
