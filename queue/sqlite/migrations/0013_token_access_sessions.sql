-- 0013_token_access_sessions: read-only API tokens (a token with read_only
-- set may read but not change anything), and server-side dashboard sessions.
ALTER TABLE api_tokens ADD COLUMN read_only INTEGER NOT NULL DEFAULT 0;

-- Dashboard sessions: a signed-in browser holds a random session id; only
-- its SHA-256 is stored. A session is opened with an API token (token_id)
-- or as a GitHub user (login, and the repositories they could read, a JSON
-- array), never both. It ends at expires_at, or once unused for idle_ns
-- nanoseconds after seen_at (0: no idle limit), or at sign-out (deleted).
CREATE TABLE dashboard_sessions (
    hash       BLOB    PRIMARY KEY,
    token_id   TEXT    NOT NULL,
    login      TEXT    NOT NULL,
    repos      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    idle_ns    INTEGER NOT NULL,
    CHECK ((token_id = '') != (login = ''))
) STRICT;

CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at);
CREATE INDEX dashboard_sessions_token ON dashboard_sessions (token_id) WHERE token_id != '';
