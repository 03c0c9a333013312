-- The schema of SQLite's 0020_check_reruns (issue #19 item 3): a check
-- run's id, check suite id and App slug on its result; on a run, the ids
-- of the check runs it re-ran in place.

-- +goose Up
ALTER TABLE checks ADD COLUMN check_run_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE checks ADD COLUMN check_suite_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE checks ADD COLUMN app TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN rerun_check_ids TEXT COLLATE "C" NOT NULL DEFAULT 'null';

-- +goose Down
ALTER TABLE runs DROP COLUMN rerun_check_ids;
ALTER TABLE checks DROP COLUMN app;
ALTER TABLE checks DROP COLUMN check_suite_id;
ALTER TABLE checks DROP COLUMN check_run_id;
