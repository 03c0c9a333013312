-- 0008_app_state: what the process learned about itself and must know at
-- start-up even when GitHub cannot be asked (the App's slug).
CREATE TABLE app_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
