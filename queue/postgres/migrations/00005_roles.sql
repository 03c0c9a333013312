-- Roles: work of which one replica at a time does all there is (the
-- surface reconciler), held as the notification targets are (see
-- queue/sqlstore/claims.go, ClaimRole).

-- +goose Up
CREATE TABLE roles (
    name       TEXT COLLATE "C" PRIMARY KEY,
    holder     TEXT COLLATE "C" NOT NULL,
    held_until BIGINT NOT NULL -- unix ns
);

-- +goose Down
DROP TABLE roles;
