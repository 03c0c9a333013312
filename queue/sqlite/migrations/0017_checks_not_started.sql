-- 0017_checks_not_started: a run whose required checks never start
-- (queue setting checksStartTimeoutMinutes, default 10) is tested once more,
-- then pauses the queue. Each entry counts its runs in a row whose checks
-- never started; every stored queue gets the setting's default, so no row
-- lacks the key (it would decode as 0, "off").
ALTER TABLE entries ADD COLUMN checks_missing INTEGER NOT NULL DEFAULT 0;
UPDATE queues
SET settings = json_set(settings, '$.checks_start_timeout_minutes', 10)
WHERE json_type(settings, '$.checks_start_timeout_minutes') IS NULL;
