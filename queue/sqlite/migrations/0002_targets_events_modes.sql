-- Mode switching (switching_modes), impacted targets, bisection runs, and
-- the per-queue event log of entry state changes.
ALTER TABLE queues ADD COLUMN pending_mode TEXT NOT NULL DEFAULT '';
ALTER TABLE queues ADD COLUMN resume_state TEXT NOT NULL DEFAULT '';

ALTER TABLE entries ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN vouched INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN merge_base TEXT NOT NULL DEFAULT '';

ALTER TABLE runs ADD COLUMN parent TEXT NOT NULL DEFAULT '';

-- Listing entries newest first (listPullRequests): activity time is when
-- an entry ended, or when it was submitted while active.
CREATE INDEX entries_activity ON entries (queue_id, coalesce(concluded_at, submitted_at) DESC, id DESC);

CREATE TABLE targets (
    queue_id   INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    pr_number  INTEGER NOT NULL,
    sha        TEXT    NOT NULL,
    all_       INTEGER NOT NULL,
    list       TEXT    NOT NULL,
    updated_at INTEGER,
    PRIMARY KEY (queue_id, pr_number)
) STRICT;

CREATE TABLE events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    queue_id  INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    entry_id  TEXT    NOT NULL,
    pr_number INTEGER NOT NULL,
    at        INTEGER,
    from_     TEXT    NOT NULL,
    to_       TEXT    NOT NULL,
    reason    TEXT    NOT NULL,
    detail    TEXT    NOT NULL,
    run_id    TEXT    NOT NULL
) STRICT;

CREATE INDEX events_queue_at ON events (queue_id, at);
