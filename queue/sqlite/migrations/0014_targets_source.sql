-- 0014_targets_source: who uploaded a PR's impacted targets, an API token
-- ('token') or the CI run of a PR from a fork ('fork_run'). A fork run's
-- upload never replaces a token's targets for the same head SHA. Targets
-- stored before this was kept count as a token's: the safe side.
ALTER TABLE targets ADD COLUMN source TEXT NOT NULL DEFAULT 'token';
