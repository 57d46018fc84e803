-- The text a run gave its generated code on standard input (what input()
-- reads), kept with the run so its history shows and replays what the code
-- was given. '' = none (the code read EOF), as for every earlier run.
ALTER TABLE runs ADD COLUMN stdin TEXT NOT NULL DEFAULT '';
