-- 0009_estimates_test_prs: what positions, ETAs and test PRs need.
-- Recent successful runs of a queue, for its typical CI duration (ETAs).
CREATE INDEX runs_finished ON runs (queue_id, status, finished_at);

-- When each entry's surfaces were last written: position and ETA changes
-- alone are written at most once per refresh interval.
ALTER TABLE surfaces ADD COLUMN written_at INTEGER;

-- run_surfaces: the draft test PR of each run (createPrsForTestingBranches),
-- driven like the entries' surfaces: want is bumped when the run starts or
-- ends, done is the want the reconciler brought GitHub up to.
CREATE TABLE run_surfaces (
    run_id          TEXT    PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    queue_id        INTEGER NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    want            INTEGER NOT NULL,
    done            INTEGER NOT NULL,
    pr_number       INTEGER NOT NULL,
    pr_hash         TEXT    NOT NULL,
    creating        INTEGER NOT NULL,
    closed          INTEGER NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at INTEGER,
    last_error      TEXT    NOT NULL
) STRICT;

CREATE INDEX run_surfaces_due ON run_surfaces (next_attempt_at, run_id) WHERE want > done;
