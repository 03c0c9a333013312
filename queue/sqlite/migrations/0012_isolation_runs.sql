-- 0012_isolation_runs: isolation runs (queue setting isolationRuns): a run
-- that tests one entry alone on the target head beside the chain, and on
-- the entry its current isolation run, how many failed, whether one
-- passed, and whether a chain failure was retried on its word.
ALTER TABLE runs ADD COLUMN isolation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN isolation_run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN isolation_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN isolation_passed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN flake_retried INTEGER NOT NULL DEFAULT 0;
