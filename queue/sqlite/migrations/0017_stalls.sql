-- 0017_stalls: never stall in silence (issue #19). A run whose required
-- checks never start (queue setting checksStartTimeoutMinutes, default 10)
-- is tested once more, then pauses the queue: each entry counts its runs in
-- a row whose checks never started. A queue where nothing happens raises a
-- stall alert (stallAlertMinutes, default 60). Every stored queue gets both
-- settings' defaults, so no row lacks the keys (they would decode as 0,
-- "off").
ALTER TABLE entries ADD COLUMN checks_missing INTEGER NOT NULL DEFAULT 0;
-- A run that failed on a check is tried again (checkRetries): each entry
-- counts its attempts and keeps their failures.
ALTER TABLE entries ADD COLUMN check_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN check_retry_log TEXT NOT NULL DEFAULT '';
UPDATE queues
SET settings = json_set(settings, '$.checks_start_timeout_minutes', 10)
WHERE json_type(settings, '$.checks_start_timeout_minutes') IS NULL;
UPDATE queues
SET settings = json_set(settings, '$.stall_alert_minutes', 60)
WHERE json_type(settings, '$.stall_alert_minutes') IS NULL;
