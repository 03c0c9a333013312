-- Per-queue leases: which replica decides for a queue, until when, and the
-- fencing token its writes carry (see queue/postgres/leases.go).

-- +goose Up
CREATE TABLE queue_leases (
    queue_id   BIGINT PRIMARY KEY REFERENCES queues (id) ON DELETE CASCADE,
    holder     TEXT COLLATE "C" NOT NULL,
    -- token grows by one each time the lease changes hands: a write
    -- carrying an older one is refused.
    token      BIGINT NOT NULL,
    expires_at BIGINT NOT NULL -- unix ns
);

-- +goose Down
DROP TABLE queue_leases;
