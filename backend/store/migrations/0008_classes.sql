-- The classroom server (`loopforge class`): a class, the students who joined
-- it with its code, and which class and student each session belongs to.
--
-- limits_json and assignment_json hold the instructor's settings as JSON
-- ('' = no assignment): they change as a whole and are only read whole.
-- A student's token is stored as its sha256 (hex), never as itself; a
-- removed student keeps its row (removed_at set) so its sessions keep their
-- name, and its token is refused from then on.
CREATE TABLE classes (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    ended_at        TEXT,            -- NULL while the class is open
    limits_json     TEXT NOT NULL DEFAULT '{}',
    assignment_json TEXT NOT NULL DEFAULT '',
    paused          INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    spotlight       TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX classes_by_created ON classes (created_at DESC, id DESC);

CREATE TABLE students (
    id         TEXT PRIMARY KEY,
    class_id   TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    joined_at  TEXT NOT NULL,
    removed_at TEXT                  -- NULL while the student is in the class
) STRICT;

CREATE INDEX students_by_class ON students (class_id, joined_at, id);

-- NULL for every session outside a class (all those written before this
-- migration).
ALTER TABLE sessions ADD COLUMN class_id TEXT REFERENCES classes (id) ON DELETE SET NULL;
ALTER TABLE sessions ADD COLUMN student_id TEXT REFERENCES students (id) ON DELETE SET NULL;
CREATE INDEX sessions_by_class ON sessions (class_id, student_id) WHERE class_id IS NOT NULL;
CREATE INDEX sessions_by_student ON sessions (student_id, updated_at DESC) WHERE student_id IS NOT NULL;
