-- Progress and output of every attempt (issue 34, item 3).
--
--   jobq.jobs.progress          what the running attempt's handler last reported (a JSON object of
--                               at most 65536 bytes as text), written only by jobq.set_progress,
--                               fenced by the lease token. A failed attempt takes it into its
--                               jobq.job_attempts row and the job starts its next attempt without
--                               one; a finished job takes it into its jobq.job_history row.
--   jobq.job_history            gains what jobq.job_attempts keeps of a failed attempt, for the
--                               job's last attempt (a succeeded one included): progress, output
--                               (the tail of a command's output or an endpoint's answer, at most
--                               16384 characters), log_ref (where its logs are, at most 1000
--                               characters), exit_code (a command's exit status) and
--                               leader_epoch (jobq.leader.epoch when the attempt was recorded).
--                               Pruned with the row.
--   jobq.job_attempts           gains progress, exit_code and leader_epoch.
--
-- jobq.complete_jobs and jobq.fail_jobs gain array arguments with defaults, and jobq._to_history
-- arguments with defaults: sql/functions/ drops the old signatures and defines the new ones,
-- which calls of the old shapes resolve to; not a breaking change.

-- +goose Up
ALTER TABLE jobq.jobs
    ADD COLUMN progress jsonb CHECK (jsonb_typeof(progress) = 'object');
COMMENT ON COLUMN jobq.jobs.progress IS
    'What the running attempt''s handler last reported (jobq.set_progress, fenced by the lease token): a JSON object of at most 65536 bytes. NULL before the first report; a failed attempt takes it into its jobq.job_attempts row and the next attempt starts without one.';

ALTER TABLE jobq.job_history
    ADD COLUMN progress jsonb,
    ADD COLUMN output text CHECK (char_length(output) <= 16384),
    ADD COLUMN log_ref text CHECK (char_length(log_ref) <= 1000),
    ADD COLUMN exit_code integer,
    ADD COLUMN leader_epoch bigint;
COMMENT ON COLUMN jobq.job_history.progress IS 'The last attempt''s progress (jobq.set_progress).';
COMMENT ON COLUMN jobq.job_history.output IS 'The tail of the last attempt''s output (a command''s output, an endpoint''s answer), at most 16384 characters; a succeeded attempt''s too.';
COMMENT ON COLUMN jobq.job_history.log_ref IS 'Where the last attempt''s logs are (at most 1000 characters): the runner''s, else workerId=<worker> jobId=<id> attempt=<n>.';
COMMENT ON COLUMN jobq.job_history.exit_code IS 'The exit status of the last attempt''s command (NULL for other handlers and for a command killed by a signal).';
COMMENT ON COLUMN jobq.job_history.leader_epoch IS 'jobq.leader.epoch when the last attempt was recorded (NULL for a job that never ran).';

ALTER TABLE jobq.job_attempts
    ADD COLUMN progress jsonb,
    ADD COLUMN exit_code integer,
    ADD COLUMN leader_epoch bigint;
COMMENT ON TABLE jobq.job_attempts IS 'Failed attempts of jobs: worker (locked_by), started_at (claimed_at), ended_at, reason (error, timed_out, orphaned, detached, not_retryable, exhausted), error and error_code, the tail of an exec task''s output (output, at most 16384 characters), where the attempt''s logs are (log_ref, at most 1000 characters), its last progress (jobq.set_progress), a command''s exit status (exit_code) and jobq.leader.epoch when it was recorded (leader_epoch). A job''s last attempt, succeeded or not, is also in its jobq.job_history row. Written by jobq.fail_jobs and jobq._rescue; the newest 25 per job are kept; pruned with history by ended_at.';

-- +goose Down
COMMENT ON TABLE jobq.job_attempts IS 'Failed attempts of jobs: worker (locked_by), started_at (claimed_at), ended_at, reason (error, timed_out, orphaned, detached, not_retryable, exhausted), error and error_code, the tail of an exec task''s output (output, at most 16384 characters) and where the attempt''s logs are (log_ref, at most 1000 characters). Written by jobq.fail_jobs and jobq._rescue; the newest 25 per job are kept; pruned with history by ended_at.';
ALTER TABLE jobq.job_attempts DROP COLUMN progress, DROP COLUMN exit_code, DROP COLUMN leader_epoch;
ALTER TABLE jobq.job_history DROP COLUMN progress, DROP COLUMN output, DROP COLUMN log_ref, DROP COLUMN exit_code,
    DROP COLUMN leader_epoch;
ALTER TABLE jobq.jobs DROP COLUMN progress;
