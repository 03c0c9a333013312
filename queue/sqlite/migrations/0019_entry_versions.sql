-- 0019_entry_versions: each entry row carries a version, and SaveEntry is
-- compare-and-set on it (issue #18): a replica that saves an entry it read
-- before another replica saved it changes nothing instead of undoing that
-- save (a merged entry set back to merging made the queue record its merge
-- twice). Rows stored before start at version 1.
ALTER TABLE entries ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
-- A PR's queue merge is recorded once in its queue's merge log (a second
-- record is a no-op): duplicates recorded by that race are dropped, the
-- first kept.
DELETE FROM merges WHERE pr_number > 0 AND id NOT IN
  (SELECT MIN(id) FROM merges WHERE pr_number > 0 GROUP BY queue_id, pr_number);
CREATE UNIQUE INDEX merges_once ON merges (queue_id, pr_number) WHERE pr_number > 0;
