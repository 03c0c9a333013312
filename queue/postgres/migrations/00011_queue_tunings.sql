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
-- A tuning written or removed moves its queue's version (00004), as every
-- write to what the queue's reads return does.
CREATE TRIGGER queue_tunings_version AFTER INSERT OR UPDATE OR DELETE ON queue_tunings
    FOR EACH ROW EXECUTE FUNCTION mq_bump_queue_version();

-- +goose Down
DROP TRIGGER queue_tunings_version ON queue_tunings;
DROP TABLE queue_tunings;
