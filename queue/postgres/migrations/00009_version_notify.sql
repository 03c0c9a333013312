-- Each bump of a queue's write version (00004) notifies, at commit, the
-- replicas listening on the schema's channel ("mq_versions <schema>", cut
-- to 63 bytes as PostgreSQL cuts identifiers), with the queue's ID: a
-- replica serves the versions from memory and reads one again only when
-- told it moved (queue/postgres/versions.go), instead of one query per read.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION mq_notify_queue_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(left('mq_versions ' || current_schema(), 63), NEW.queue_id::text);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER queue_versions_notify AFTER INSERT OR UPDATE ON queue_versions
    FOR EACH ROW EXECUTE FUNCTION mq_notify_queue_version();

-- +goose Down
DROP TRIGGER queue_versions_notify ON queue_versions;
DROP FUNCTION mq_notify_queue_version();
