-- 0015_command_claims: which webhook delivery acted on each PR-comment
-- command, identified by the comment and its updated_at. A signed comment
-- webhook replayed under a new delivery id finds its command claimed and
-- changes nothing. Rows are a few dozen bytes per command and are kept:
-- a captured webhook can be replayed at any time.
CREATE TABLE command_claims (
    host        TEXT    NOT NULL,
    owner       TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    comment_id  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    delivery_id TEXT    NOT NULL,
    claimed_at  INTEGER NOT NULL,
    PRIMARY KEY (host, owner, name, comment_id, updated_at)
) STRICT;
