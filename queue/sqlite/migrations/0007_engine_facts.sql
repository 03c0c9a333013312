-- 0007_engine_facts: engine inputs that lived in the process now live in
-- the entry: when the queue last read the PR itself, the last direct-merge
-- check, a pending merge conflict and its probe (JSON, '' when none), and
-- a cancellation asked for while a merge was in flight.
ALTER TABLE entries ADD COLUMN pr_checked_at INTEGER;
ALTER TABLE entries ADD COLUMN direct_base TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN direct_contains INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN conflict TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN cancel_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN cancel_detail TEXT NOT NULL DEFAULT '';
