-- 0022_queue_tunings: the settings autoTune put in force for a queue
-- (issue #20), apart from the configured settings (queues.settings), which
-- they never change: one row per queue while a tuning is in force; the
-- values as a JSON document (queue.TunedValues), the values before the
-- last change, its reason and time (unix nanoseconds).
CREATE TABLE queue_tunings (
    queue_id   INTEGER PRIMARY KEY REFERENCES queues (id) ON DELETE CASCADE,
    tuned      TEXT    NOT NULL,
    tuned_from TEXT    NOT NULL,
    reason     TEXT    NOT NULL,
    changed_at INTEGER
) STRICT;
