-- A user an admin disabled (`enable` 0) cannot sign in and their tokens stop working; enabling them again lets them
-- sign in anew (docs/security.md). A tenant always keeps one enabled admin.
ALTER TABLE users ADD COLUMN enable INTEGER NOT NULL DEFAULT 1;
