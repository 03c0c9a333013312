-- Claims of the shared inbox and outbox, so that several replicas on one
-- database process each webhook delivery, and deliver to each notification
-- target, one at a time (see queue/sqlstore/claims.go).

-- +goose Up
-- held_until: no replica claims the delivery before (unix ns; 0: free).
ALTER TABLE deliveries ADD COLUMN held_until BIGINT NOT NULL DEFAULT 0;
DROP INDEX deliveries_pending;
CREATE INDEX deliveries_pending ON deliveries (received_at, rowid) WHERE done = 0;

-- holder delivers to the target until held_until (unix ns).
ALTER TABLE notification_cursors ADD COLUMN holder TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE notification_cursors ADD COLUMN held_until BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE notification_cursors DROP COLUMN held_until;
ALTER TABLE notification_cursors DROP COLUMN holder;
DROP INDEX deliveries_pending;
CREATE INDEX deliveries_pending ON deliveries (received_at) WHERE done = 0;
ALTER TABLE deliveries DROP COLUMN held_until;
