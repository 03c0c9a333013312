-- The schema of SQLite's 0017_stalls (issue #19): each entry counts its
-- runs in a row whose checks never started and its attempts of a failed
-- check with their failures; every stored queue gets the defaults of
-- checksStartTimeoutMinutes (10) and stallAlertMinutes (60), so no row
-- lacks the keys (they would decode as 0, "off"). Numbered after the
-- replicas' migrations 00003-00005.

-- +goose Up
ALTER TABLE entries ADD COLUMN checks_missing INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN check_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN check_retry_log TEXT COLLATE "C" NOT NULL DEFAULT '';
UPDATE queues
SET settings = jsonb_set(settings::jsonb, '{checks_start_timeout_minutes}', '10')::text
WHERE NOT (settings::jsonb ? 'checks_start_timeout_minutes');
UPDATE queues
SET settings = jsonb_set(settings::jsonb, '{stall_alert_minutes}', '60')::text
WHERE NOT (settings::jsonb ? 'stall_alert_minutes');

-- +goose Down
ALTER TABLE entries DROP COLUMN check_retry_log;
ALTER TABLE entries DROP COLUMN check_attempts;
ALTER TABLE entries DROP COLUMN checks_missing;
