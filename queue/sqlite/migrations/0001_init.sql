-- 0001_init: the initial schema of the merge queue store.
-- Times are INTEGER unix nanoseconds (UTC); NULL is the zero time.
-- Booleans are INTEGER 0/1. Lists and settings are JSON text.

CREATE TABLE queues (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    host          TEXT    NOT NULL,
    owner         TEXT    NOT NULL,
    name          TEXT    NOT NULL,
    branch        TEXT    NOT NULL,
    state         TEXT    NOT NULL,
    settings      TEXT    NOT NULL,
    created_at    INTEGER,
    updated_at    INTEGER,
    next_seq      INTEGER NOT NULL,
    paused_reason TEXT    NOT NULL,
    UNIQUE (host, owner, name, branch)
) STRICT;

CREATE TABLE entries (
    id                         TEXT    PRIMARY KEY,
    queue_id                   INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    pr_number                  INTEGER NOT NULL,
    pr_sha                     TEXT    NOT NULL,
    pr_title                   TEXT    NOT NULL,
    pr_body                    TEXT    NOT NULL,
    pr_author                  TEXT    NOT NULL,
    pr_head_sha                TEXT    NOT NULL,
    pr_base_branch             TEXT    NOT NULL,
    pr_open                    INTEGER NOT NULL,
    pr_draft                   INTEGER NOT NULL,
    pr_merged                  INTEGER NOT NULL,
    pr_merge_commit_sha        TEXT    NOT NULL,
    pr_mergeable_state         TEXT    NOT NULL,
    pr_mergeable               INTEGER,
    pr_read_at                 INTEGER,
    state                      TEXT    NOT NULL,
    state_reason               TEXT    NOT NULL,
    state_reason_detail        TEXT    NOT NULL,
    state_changed_at           INTEGER,
    priority_value             INTEGER NOT NULL,
    priority_name              TEXT    NOT NULL,
    used_default_priority_name INTEGER NOT NULL,
    no_batch                   INTEGER NOT NULL,
    direct                     INTEGER NOT NULL,
    submitter                  TEXT    NOT NULL,
    source                     TEXT    NOT NULL,
    submitted_at               INTEGER,
    admitted_at                INTEGER,
    concluded_at               INTEGER,
    seq                        INTEGER NOT NULL,
    run_id                     TEXT    NOT NULL,
    blocked_by                 TEXT    NOT NULL,
    merge_intent               INTEGER NOT NULL,
    merge_attempts             INTEGER NOT NULL,
    next_attempt_at            INTEGER,
    restarts                   INTEGER NOT NULL,
    status_comment_id          INTEGER NOT NULL,
    check_run_id               INTEGER NOT NULL,
    UNIQUE (queue_id, pr_number)
) STRICT;

-- Active entries in queue order (ListActiveEntries).
CREATE INDEX entries_active ON entries (queue_id, priority_value, seq, submitted_at, pr_number)
    WHERE state NOT IN ('merged', 'failed', 'cancelled');

CREATE TABLE runs (
    id              TEXT    PRIMARY KEY,
    queue_id        INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    entry_ids       TEXT    NOT NULL,
    pr_numbers      TEXT    NOT NULL,
    pr_shas         TEXT    NOT NULL,
    ahead           TEXT    NOT NULL,
    base_sha        TEXT    NOT NULL,
    branch          TEXT    NOT NULL,
    sha             TEXT    NOT NULL,
    required_checks TEXT    NOT NULL,
    bisection       INTEGER NOT NULL,
    status          TEXT    NOT NULL,
    failure_reason  TEXT    NOT NULL,
    failure_detail  TEXT    NOT NULL,
    created_at      INTEGER,
    started_at      INTEGER,
    finished_at     INTEGER,
    closed          INTEGER NOT NULL
) STRICT;

CREATE INDEX runs_open ON runs (queue_id, created_at) WHERE closed = 0;
CREATE INDEX runs_sha ON runs (sha);

CREATE TABLE checks (
    host       TEXT NOT NULL,
    owner      TEXT NOT NULL,
    name       TEXT NOT NULL,
    sha        TEXT NOT NULL,
    kind       TEXT NOT NULL,
    check_name TEXT NOT NULL,
    state      TEXT NOT NULL,
    raw        TEXT NOT NULL,
    url        TEXT NOT NULL,
    updated_at INTEGER,
    PRIMARY KEY (host, owner, name, sha, kind, check_name)
) STRICT, WITHOUT ROWID;

CREATE TABLE merges (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    queue_id   INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    entry_id   TEXT    NOT NULL,
    pr_number  INTEGER NOT NULL,
    run_id     TEXT    NOT NULL,
    before_sha TEXT    NOT NULL,
    after_sha  TEXT    NOT NULL,
    at         INTEGER
) STRICT;

CREATE INDEX merges_queue ON merges (queue_id, id);

CREATE TABLE deliveries (
    id          TEXT    PRIMARY KEY,
    event       TEXT    NOT NULL,
    payload     BLOB,
    received_at INTEGER,
    attempts    INTEGER NOT NULL,
    done        INTEGER NOT NULL,
    error       TEXT    NOT NULL
) STRICT;

CREATE INDEX deliveries_pending ON deliveries (received_at) WHERE done = 0;

CREATE TABLE api_tokens (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    hash       BLOB NOT NULL,
    repos      TEXT NOT NULL,
    owners     TEXT NOT NULL,
    created_at INTEGER,
    expires_at INTEGER,
    revoked_at INTEGER
) STRICT;

CREATE UNIQUE INDEX api_tokens_hash ON api_tokens (hash);
CREATE INDEX api_tokens_name ON api_tokens (name);
