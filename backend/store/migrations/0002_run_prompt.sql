-- Each run keeps its own prompt: a follow-up run in a session asks something
-- other than the session's first prompt.
ALTER TABLE runs ADD COLUMN prompt TEXT NOT NULL DEFAULT '';
