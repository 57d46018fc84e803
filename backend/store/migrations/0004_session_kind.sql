-- What a session's runs work on, kept apart from its mode (script,
-- workspace or compare): 'script' (code run in the sandbox) or 'workspace'
-- (a project edited in place). A comparison has either kind; before this
-- column a workspace comparison was only recognisable by its runs, whose
-- language is 'diff' (the patch they made), so existing rows take the kind
-- from that rule.
ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'script' CHECK (kind IN ('script', 'workspace'));
UPDATE sessions SET kind = 'workspace'
    WHERE mode = 'workspace' OR EXISTS (SELECT 1 FROM runs WHERE runs.session_id = sessions.id AND runs.language = 'diff');
