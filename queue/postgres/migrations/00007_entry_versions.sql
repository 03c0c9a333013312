-- The schema of SQLite's 0019_entry_versions (issue #18): each entry row
-- carries a version, and SaveEntry is compare-and-set on it, so that a
-- replica's save of an entry it read before another replica saved it
-- changes nothing. Rows stored before start at version 1. A PR's merge is
-- recorded once in the merge log.

-- +goose Up
ALTER TABLE entries ADD COLUMN version BIGINT NOT NULL DEFAULT 1;
-- A PR's queue merge is recorded once (duplicates of that race dropped,
-- the first kept).
DELETE FROM merges WHERE pr_number > 0 AND id NOT IN
  (SELECT MIN(id) FROM merges WHERE pr_number > 0 GROUP BY queue_id, pr_number);
CREATE UNIQUE INDEX merges_once ON merges (queue_id, pr_number) WHERE pr_number > 0;

-- +goose Down
DROP INDEX merges_once;
ALTER TABLE entries DROP COLUMN version;
