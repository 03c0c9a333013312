-- Outgoing notifications (SPEC §8) are read from the event log, which is
-- written in the same transaction as every entry state change: the log is
-- the durable outbox. Each configured target keeps its own cursor (the last
-- event delivered or given up on) and retry state, so a slow or failing
-- target delays only itself and nothing recorded is skipped on a restart.
CREATE TABLE notification_cursors (
    target          TEXT    PRIMARY KEY, -- kind + " " + URL
    last_event_id   INTEGER NOT NULL,
    attempts        INTEGER NOT NULL,    -- failed attempts at the next event
    next_attempt_at INTEGER,             -- unix ms; NULL = now
    last_error      TEXT    NOT NULL
) STRICT;
