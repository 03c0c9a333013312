-- GitHub compares host, owner and repository names case-insensitively: a
-- queue is one per repository and branch whatever the spelling, and check
-- results are stored under the folded (lower-case) repository.
CREATE UNIQUE INDEX queues_key_nocase ON queues (host COLLATE NOCASE, owner COLLATE NOCASE, name COLLATE NOCASE, branch);

UPDATE OR REPLACE checks SET host = lower(host), owner = lower(owner), name = lower(name);
