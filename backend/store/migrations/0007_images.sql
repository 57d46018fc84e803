-- The pictures a run's programs left behind (matplotlib figures, image files
-- written to the run dir), by iteration, in the order the sandbox found them.
-- The sandbox has checked the bytes (PNG, JPEG, GIF or an SVG without active
-- content) and bounded them (a few per execution, a few MiB in all).
CREATE TABLE images (
    run_id    TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    iteration INTEGER NOT NULL,
    position  INTEGER NOT NULL,
    name      TEXT NOT NULL,
    mime      TEXT NOT NULL,
    width     INTEGER NOT NULL DEFAULT 0,
    height    INTEGER NOT NULL DEFAULT 0,
    data      BLOB NOT NULL,
    PRIMARY KEY (run_id, iteration, name)
) STRICT;
