-- Every assignment a class was given, in order, so a student's learning
-- path can say which assignment each run belongs to: the one in force when
-- the run started. classes.assignment_json keeps only the current one. A
-- row with an empty prompt records that the assignment was cleared.
CREATE TABLE class_assignments (
    id       INTEGER PRIMARY KEY,
    class_id TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    set_at   TEXT NOT NULL,
    title    TEXT NOT NULL DEFAULT '',
    prompt   TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX class_assignments_by_class ON class_assignments (class_id, set_at, id);
