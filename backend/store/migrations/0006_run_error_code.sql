-- A run's error in words the frontend chooses: the stable code of the
-- error (service.Code, e.g. 'provider.auth') and its parameters as a JSON
-- object of strings. error keeps the English text. Runs recorded before
-- have no code ('' and '{}'), and the frontend shows their text as it is.
ALTER TABLE runs ADD COLUMN error_code TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN error_params TEXT NOT NULL DEFAULT '{}';
