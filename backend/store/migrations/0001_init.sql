-- 0001: the history schema.
--
-- Timestamps are UTC text in a fixed-width RFC 3339 form with nanoseconds
-- ("2006-01-02T15:04:05.000000000Z"), so text order is time order and
-- indexes on them sort correctly. Tables are STRICT so a wrong type is an
-- error rather than a silent conversion. Every child table references its
-- parent with ON DELETE CASCADE: deleting a session removes everything
-- under it (foreign_keys is on for every connection, see Open).

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    title      TEXT NOT NULL DEFAULT '',
    prompt     TEXT NOT NULL DEFAULT '',
    mode       TEXT NOT NULL DEFAULT '',
    workdir    TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

-- The history list: most recently updated first, id breaks ties so pages
-- are stable.
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC);

-- Search over title and prompt. A B-tree cannot serve a substring match
-- ('%word%'), a trigram index can: GLOB on these columns is answered from
-- the index when the pattern has a run of 3+ literal characters. The text
-- is case-folded in Go before it is stored and before it is searched, which
-- folds non-ASCII letters too (SQLite's LIKE folds ASCII only: "AÇÃO" would
-- not match "ação"), hence case_sensitive 1 and GLOB rather than LIKE.
-- session_id is not indexed; the delete trigger below scans for it, which
-- is fine for a rare operation on a table of one row per session.
CREATE VIRTUAL TABLE session_search USING fts5 (
    session_id UNINDEXED,
    title,
    prompt,
    tokenize = 'trigram case_sensitive 1'
);

CREATE TRIGGER sessions_search_delete AFTER DELETE ON sessions BEGIN
    DELETE FROM session_search WHERE session_id = old.id;
END;

CREATE TABLE runs (
    id             TEXT PRIMARY KEY,
    session_id     TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    provider       TEXT NOT NULL DEFAULT '',
    model          TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL DEFAULT '',
    max_iterations INTEGER NOT NULL DEFAULT 0,
    reflect        INTEGER NOT NULL DEFAULT 0 CHECK (reflect IN (0, 1)),
    language       TEXT NOT NULL DEFAULT '',
    iterations     INTEGER NOT NULL DEFAULT 0,
    final_code     TEXT NOT NULL DEFAULT '',
    error          TEXT NOT NULL DEFAULT '',
    input_tokens   INTEGER NOT NULL DEFAULT 0,
    output_tokens  INTEGER NOT NULL DEFAULT 0,
    cost_usd       REAL NOT NULL DEFAULT 0,
    started_at     TEXT NOT NULL,
    finished_at    TEXT,            -- NULL while the run has not finished
    duration_ms    INTEGER NOT NULL DEFAULT 0
) STRICT;

-- A session's runs in start order; also the index the cascade from
-- sessions uses.
CREATE INDEX runs_by_session ON runs (session_id, started_at, id);

-- MarkInterrupted runs at every start-up; a partial index keeps it from
-- scanning the whole history for the few runs a crash left behind.
CREATE INDEX runs_running ON runs (id) WHERE status = 'running';

CREATE TABLE iterations (
    run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    n           INTEGER NOT NULL,
    code        TEXT NOT NULL DEFAULT '',
    content     TEXT NOT NULL DEFAULT '',
    exec_status TEXT NOT NULL DEFAULT '',
    exit_code   INTEGER NOT NULL DEFAULT 0,
    stdout      TEXT NOT NULL DEFAULT '',
    stderr      TEXT NOT NULL DEFAULT '',
    truncated   INTEGER NOT NULL DEFAULT 0 CHECK (truncated IN (0, 1)),
    exec_ms     INTEGER NOT NULL DEFAULT 0,
    isolation   TEXT NOT NULL DEFAULT '',
    reflection  TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL DEFAULT '',
    summary     TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, n)
) STRICT;

CREATE TABLE messages (
    id         INTEGER PRIMARY KEY,
    run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    role       TEXT NOT NULL,
    content    TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    UNIQUE (run_id, seq)
) STRICT;

-- payload is the event's JSON, kept byte for byte. It is TEXT rather than
-- BLOB because SQLite's JSON functions read a BLOB as binary JSONB: as text,
-- json_extract(payload, '$.iteration') works when inspecting a database.
CREATE TABLE events (
    run_id  TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    type    TEXT NOT NULL,
    ts      TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) STRICT;
