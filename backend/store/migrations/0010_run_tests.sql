-- A run's tests (backend/judge) and how its last judged program fared:
-- tests is the suite as YAML ('' = the run had none, as every earlier
-- run), tests_passed and tests_total the final iteration's counts (0 and 0
-- when nothing was judged). The per-test verdicts are in the run's tested
-- events.
ALTER TABLE runs ADD COLUMN tests TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN tests_passed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN tests_total INTEGER NOT NULL DEFAULT 0;
