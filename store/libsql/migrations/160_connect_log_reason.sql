-- Why a refused connection (status 2) was refused: `unknown device`, `bad credentials`, `certificate required`,
-- `blocked`, `unsupported protocol`. Null for connects and disconnects (and refusals logged before this column).
ALTER TABLE connect_logs ADD COLUMN reason TEXT;
