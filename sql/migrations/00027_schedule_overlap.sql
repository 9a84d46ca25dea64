-- +goose Up
-- "Run now" of a schedule honours its concurrency policy as a cron tick does (issue 34, item 5):
-- under forbid, while a run of the schedule is live, jobq.run_schedule_now refuses with this code
-- and writes nothing.
INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.SCHEDULE_OVERLAP', 'JQ606',
     'The schedule''s concurrency policy is forbid and a run of it is still live (queued, running or waiting for a retry).',
     'Wait until that run has finished, or cancel it (jobq jobs cancel ID); a schedule declared with concurrency_policy replace cancels it for you.');

-- +goose Down
DELETE FROM jobq.error_codes WHERE code = 'JOB.SCHEDULE_OVERLAP';
