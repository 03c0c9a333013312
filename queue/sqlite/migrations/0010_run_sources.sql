-- 0010_run_sources: what the REST API reports to newer clients.
-- Where a run's required checks came from: the queue's requiredStatuses
-- ('merge_instance') or branch protection ('branch_protection'); '' for
-- runs recorded before it was kept.
ALTER TABLE runs ADD COLUMN required_source TEXT NOT NULL DEFAULT '';

-- An entry's latest event (which names the run that decided it), found
-- without reading the queue's whole log.
CREATE INDEX events_entry ON events (entry_id, id);
