-- The process executing a run (an id from backend/owner). Several loopforge
-- processes share one history; only runs whose owner is gone are recovered
-- as interrupted. Runs recorded before this column have '' (owner unknown,
-- treated as gone).
ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_running_owner ON runs (owner) WHERE status = 'running';
