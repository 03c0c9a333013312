-- The replicas sharing the schema, each with when it was last seen
-- (Heartbeat, every LeaseTTL/3 beside its lease renewal, in Unix
-- nanoseconds as the leases' times): the live ones divide the queues by
-- rendezvous hashing (app/replicas.go), and one that stops beating is
-- replaced. Rows of replicas gone for an hour are deleted by the heartbeats.

-- +goose Up
CREATE TABLE replicas (
    name    TEXT   PRIMARY KEY,
    seen_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE replicas;
