-- Per-queue write versions kept by the database, so that every replica's
-- read model sees every replica's writes (see queue/postgres/versions.go):
-- each committed write to a queue's row, entries, runs, targets or events
-- bumps the queue's version in its own transaction; queue_id 0 counts the
-- writes that may touch every queue (a queue created or deleted).

-- +goose Up
CREATE TABLE queue_versions (
    queue_id BIGINT PRIMARY KEY,
    version  BIGINT NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION mq_bump_queue_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    qid BIGINT;
    was BIGINT;
BEGIN
    IF TG_TABLE_NAME = 'queues' THEN
        IF TG_OP = 'UPDATE' THEN
            qid := NEW.id;
        ELSE
            qid := 0;
        END IF;
    ELSIF TG_OP = 'DELETE' THEN
        qid := OLD.queue_id;
    ELSE
        qid := NEW.queue_id;
        IF TG_OP = 'UPDATE' THEN
            was := OLD.queue_id;
        END IF;
    END IF;
    INSERT INTO queue_versions (queue_id, version) VALUES (qid, 1)
        ON CONFLICT (queue_id) DO UPDATE SET version = queue_versions.version + 1;
    IF was IS NOT NULL AND was <> qid THEN
        INSERT INTO queue_versions (queue_id, version) VALUES (was, 1)
            ON CONFLICT (queue_id) DO UPDATE SET version = queue_versions.version + 1;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER queues_version AFTER INSERT OR UPDATE OR DELETE ON queues
    FOR EACH ROW EXECUTE FUNCTION mq_bump_queue_version();
CREATE TRIGGER entries_version AFTER INSERT OR UPDATE OR DELETE ON entries
    FOR EACH ROW EXECUTE FUNCTION mq_bump_queue_version();
CREATE TRIGGER runs_version AFTER INSERT OR UPDATE OR DELETE ON runs
    FOR EACH ROW EXECUTE FUNCTION mq_bump_queue_version();
CREATE TRIGGER targets_version AFTER INSERT OR UPDATE OR DELETE ON targets
    FOR EACH ROW EXECUTE FUNCTION mq_bump_queue_version();
CREATE TRIGGER events_version AFTER INSERT OR UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION mq_bump_queue_version();

-- +goose Down
DROP TRIGGER events_version ON events;
DROP TRIGGER targets_version ON targets;
DROP TRIGGER runs_version ON runs;
DROP TRIGGER entries_version ON entries;
DROP TRIGGER queues_version ON queues;
DROP FUNCTION mq_bump_queue_version();
DROP TABLE queue_versions;
