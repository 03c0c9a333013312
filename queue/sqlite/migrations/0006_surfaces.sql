-- 0006_surfaces: GitHub's side of the queue driven from durable state.
-- surfaces: per entry, what the reconciler last wrote (sticky comment, check
-- run, state label) and the change count it brought GitHub up to; an entry
-- is due while want > done. The comment and check run ids move here from
-- entries; active entries are refreshed once after the upgrade.
CREATE TABLE surfaces (
    entry_id           TEXT    PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
    queue_id           INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    want               INTEGER NOT NULL,
    done               INTEGER NOT NULL,
    comment_id         INTEGER NOT NULL,
    comment_hash       TEXT    NOT NULL,
    check_run_id       INTEGER NOT NULL,
    check_run_sha      TEXT    NOT NULL,
    check_run_hash     TEXT    NOT NULL,
    check_run_open     INTEGER NOT NULL,
    state_label        TEXT    NOT NULL,
    comment_creating   INTEGER NOT NULL,
    check_run_creating INTEGER NOT NULL,
    attempts           INTEGER NOT NULL,
    next_attempt_at    INTEGER,
    last_error         TEXT    NOT NULL
) STRICT;

CREATE INDEX surfaces_due ON surfaces (next_attempt_at, entry_id) WHERE want > done;

INSERT INTO surfaces (entry_id, queue_id, want, done, comment_id, comment_hash, check_run_id, check_run_sha,
                      check_run_hash, check_run_open, state_label, comment_creating, check_run_creating,
                      attempts, next_attempt_at, last_error)
SELECT id, queue_id,
       CASE WHEN state IN ('merged', 'failed', 'cancelled') THEN 0 ELSE 1 END, 0,
       status_comment_id, '', check_run_id, pr_sha, '',
       CASE WHEN state IN ('merged', 'failed', 'cancelled') OR check_run_id = 0 THEN 0 ELSE 1 END,
       '', 0, 0, 0, NULL, ''
FROM entries
WHERE status_comment_id != 0 OR check_run_id != 0 OR state NOT IN ('merged', 'failed', 'cancelled');

ALTER TABLE entries DROP COLUMN status_comment_id;
ALTER TABLE entries DROP COLUMN check_run_id;

-- notices: one-off writes to a PR (replies, mentions, alerts, reactions,
-- label removals), idempotent by key, delivered by the reconciler.
CREATE TABLE notices (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    key             TEXT    NOT NULL UNIQUE,
    host            TEXT    NOT NULL,
    owner           TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    pr_number       INTEGER NOT NULL,
    kind            TEXT    NOT NULL,
    body            TEXT    NOT NULL,
    comment_id      INTEGER NOT NULL,
    created_at      INTEGER,
    attempted       INTEGER NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at INTEGER,
    last_error      TEXT    NOT NULL,
    done_at         INTEGER
) STRICT;

CREATE INDEX notices_due ON notices (next_attempt_at, id) WHERE done_at IS NULL;

-- refs: every branch the queue creates, recorded before it is created.
CREATE TABLE refs (
    host       TEXT    NOT NULL COLLATE NOCASE,
    owner      TEXT    NOT NULL COLLATE NOCASE,
    name       TEXT    NOT NULL COLLATE NOCASE,
    ref        TEXT    NOT NULL,
    queue_id   INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    run_id     TEXT    NOT NULL,
    created_at INTEGER,
    PRIMARY KEY (host, owner, name, ref)
) STRICT;
