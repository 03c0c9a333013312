-- 0011_merges_before: the engine reads the merge log from the oldest base
-- of a run in progress on (ListMergesFrom), however long ago that was,
-- without scanning the queue's whole log.
CREATE INDEX merges_before ON merges (queue_id, before_sha, id);
