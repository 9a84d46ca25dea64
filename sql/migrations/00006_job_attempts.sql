-- jobq schema, area 6: attempt history — one row per failed attempt of a job, so a job's detail
-- shows every attempt and not only its last_error.
--
--   jobq.job_attempts   written by jobq.fail_jobs (error, not_retryable, exhausted) and by
--                       jobq._rescue (timed_out, orphaned) in the statement that ends the attempt;
--                       at most the newest 25 attempts of a job are kept; pruned with history
--                       (jobq.prune_history, jobq.maintain) by ended_at. A succeeded attempt has no
--                       row: the job's jobq.job_history row holds it.
--   Row security: policies live in sql/functions/70_tenancy.sql with the others.

-- +goose Up
CREATE TABLE jobq.job_attempts (
    job_id     bigint NOT NULL,
    attempt    integer NOT NULL,
    store_id   uuid,
    task       text NOT NULL,
    queue      text NOT NULL,
    worker     text,
    started_at timestamptz,
    ended_at   timestamptz NOT NULL,
    reason     text NOT NULL,
    error      text,
    error_code text,
    PRIMARY KEY (job_id, attempt)
);
COMMENT ON TABLE jobq.job_attempts IS 'Failed attempts of jobs: worker (locked_by), started_at (claimed_at), ended_at, reason (error, timed_out, orphaned, not_retryable, exhausted), error and error_code. Written by jobq.fail_jobs and jobq._rescue; the newest 25 per job are kept; pruned with history by ended_at.';
-- Retention: pruned in ended_at order with history.
CREATE INDEX job_attempts_ended_idx ON jobq.job_attempts (ended_at);
ALTER TABLE jobq.job_attempts ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_attempts FORCE ROW LEVEL SECURITY;
GRANT SELECT ON jobq.job_attempts TO jobq_operator, jobq_app;

-- +goose Down
DROP TABLE jobq.job_attempts;
