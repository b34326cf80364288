-- A user's tokens carry the version current when they were issued; a password or role change bumps it.
ALTER TABLE users ADD COLUMN token_version INTEGER NOT NULL DEFAULT 0;

-- Tokens revoked before they expire (logout); a row is kept until the token would have expired anyway.
CREATE TABLE revoked_tokens (
  jti TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);

-- Failed logins per email and client address: the window's count and the lock in force (login throttling).
CREATE TABLE login_failures (
  email TEXT NOT NULL COLLATE NOCASE,
  address TEXT NOT NULL,
  failures INTEGER NOT NULL,
  window_start INTEGER NOT NULL,
  locked_until INTEGER NOT NULL DEFAULT 0,
  lockouts INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (email, address)
);

-- Whether a task's file holds credentials (a device export made by an admin or user holds tokens).
ALTER TABLE task_files ADD COLUMN secrets INTEGER NOT NULL DEFAULT 1;
CREATE INDEX task_files_tenant ON task_files (tenant_id, create_at);
