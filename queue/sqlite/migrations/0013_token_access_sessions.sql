-- 0013_token_access_sessions: read-only API tokens (a token with read_only
-- set may read but not change anything).
ALTER TABLE api_tokens ADD COLUMN read_only INTEGER NOT NULL DEFAULT 0;
