-- Notification cursors were keyed by kind + " " + URL, and a chat webhook's
-- URL is its credential: the database held it in clear. A target is now
-- named by kind + " sha256:" + the hex SHA-256 of its URL (app/notify,
-- TargetKey), which tells targets apart without revealing them. Each cursor
-- keeps its position and retry state, so delivery resumes where it was; its
-- last error is cleared, as text an older version wrote may quote the URL.
-- The writer runs with secure_delete, so the old keys' bytes are zeroed.
UPDATE notification_cursors
SET target = substr(target, 1, instr(target, ' ')) || 'sha256:' || mq_sha256_hex(substr(target, instr(target, ' ') + 1)),
    last_error = ''
WHERE instr(target, ' ') > 0 AND substr(target, instr(target, ' ') + 1, 7) <> 'sha256:';
