-- A job's result (issue 35, item 2).
--
--   jobq.job_history.result     what the succeeded attempt's handler returned, any JSON value (an
--                               object, an array, a string, a number, true/false or JSON null),
--                               given to jobq.complete_job / jobq.complete_jobs with the lease
--                               token that fences it; NULL when it returned none (and for a job
--                               that did not succeed). Read by jobq.job_result and
--                               jobq.parent_results under the callers' store; pruned with the row.
--   setting max_result_bytes    the largest result accepted, in bytes of its JSON text.
--   JOB.RESULT_TOO_LARGE        the error of a result above it (nothing is written).
--
-- jobq.complete_jobs gains a results array, jobq.complete_job a result and jobq._to_history a
-- p_result, each with a default: sql/functions/ drops the old signatures and defines the new
-- ones, which calls of the old shapes resolve to; not a breaking change. The notification of an
-- ended job (channel jobq_done) is a trigger of sql/functions/41_results.sql.

-- +goose Up
ALTER TABLE jobq.job_history ADD COLUMN result jsonb;
COMMENT ON COLUMN jobq.job_history.result IS
    'What the succeeded attempt returned (jobq.complete_job''s result, at most setting max_result_bytes as JSON text): any JSON value; NULL when none was given or the job did not succeed. Read with jobq.job_result(id).';

INSERT INTO jobq.settings (name, kind, value, description) VALUES
    ('max_result_bytes', 'integer', '65536',
     'Largest job result accepted by jobq.complete_job / complete_jobs, in bytes of its JSON text; 1 to 268435456.');

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.RESULT_TOO_LARGE', 'JQ710',
     'The job''s result is larger than the setting max_result_bytes (bytes of its JSON text).',
     'Store large data elsewhere and return a reference to it, or raise max_result_bytes with jobq.set_setting.');

-- +goose Down
-- The trigger of sql/functions/41_results.sql goes with the column (and its function, so that the
-- first migration's Down, which drops every function, finds nothing depending on one).
DROP TRIGGER IF EXISTS job_history_notify_done ON jobq.job_history;
DROP FUNCTION IF EXISTS jobq._notify_done();
DELETE FROM jobq.error_codes WHERE code = 'JOB.RESULT_TOO_LARGE';
DELETE FROM jobq.settings WHERE name = 'max_result_bytes';
ALTER TABLE jobq.job_history DROP COLUMN result;
