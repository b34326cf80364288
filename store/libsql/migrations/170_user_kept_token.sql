-- The one token (by jti) issued under an older token version that still works: the token a user changed their own
-- password with keeps working while their other tokens are revoked. Any other bump of token_version clears it.
ALTER TABLE users ADD COLUMN kept_jti TEXT;
