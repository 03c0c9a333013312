-- The schema of SQLite's 0022_queue_tunings (issue #20): the settings
-- autoTune put in force for a queue, apart from the configured ones.

-- +goose Up
CREATE TABLE queue_tunings (
    queue_id   BIGINT PRIMARY KEY REFERENCES queues (id) ON DELETE CASCADE,
    tuned      TEXT COLLATE "C" NOT NULL,
    tuned_from TEXT COLLATE "C" NOT NULL,
    reason     TEXT COLLATE "C" NOT NULL,
    changed_at BIGINT
);

-- +goose Down
DROP TABLE queue_tunings;
