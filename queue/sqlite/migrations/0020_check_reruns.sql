-- 0020_check_reruns: re-running a failed check in place (issue #19 item 3).
-- A check run's result keeps its id, its check suite's id and its App's
-- slug (how to re-run it: GitHub Actions' failed jobs, or its suite
-- re-requested); a run keeps the ids of the check runs it re-ran, whose
-- earlier results are not its attempt's.
ALTER TABLE checks ADD COLUMN check_run_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE checks ADD COLUMN check_suite_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE checks ADD COLUMN app TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN rerun_check_ids TEXT NOT NULL DEFAULT 'null';
