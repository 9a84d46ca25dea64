-- jobq schema, area 8: seed 002's continuation of a detached worker, and what each attempt leaves
-- behind for whoever investigates it.
--
--   jobq.continuations  one row per running job of a detached worker that has not yet confirmed it
--                       goes on (CONFIRMING): written by jobq.detach_worker, deleted by
--                       jobq.confirm_continuation (confirmed), by jobq._rescue (deadline passed:
--                       the attempt fails with reason detached) and by jobq.maintain (rows whose
--                       lease ended otherwise). Keyed by job and lease token, so a row left over
--                       from an earlier lease never applies to a new one; the claim path never
--                       reads or writes it. Not readable by any runtime role (only the engine's
--                       SECURITY DEFINER functions use it); operators see it through the audit log.
--   jobq.jobs.reason    gains detached (a job requeued after an unconfirmed continuation).
--   jobq.job_attempts   gains output (the tail of an exec task's output, at most 16384 characters)
--                       and log_ref (where the attempt's logs are, at most 1000 characters); both
--                       are pruned with the row, with history.
--   jobq.settings       continuation_retry_count (3) and continuation_retry_interval (0.3 s): a
--                       detached worker has count x interval to confirm each running job.

-- +goose Up
CREATE TABLE jobq.continuations (
    job_id      bigint PRIMARY KEY,
    lease_token uuid NOT NULL,
    worker      text NOT NULL,
    started_at  timestamptz NOT NULL,
    confirm_by  timestamptz NOT NULL
);
COMMENT ON TABLE jobq.continuations IS 'Running jobs of detached workers in CONFIRMING: the lease (job_id, lease_token) is not reassigned before confirm_by; jobq.confirm_continuation lets it go on, jobq._rescue fails it with reason detached after confirm_by. Written only by jobq functions.';

ALTER TABLE jobq.jobs DROP CONSTRAINT jobs_reason_check;
ALTER TABLE jobq.jobs ADD CONSTRAINT jobs_reason_check CHECK (reason IN ('error', 'timed_out', 'orphaned', 'detached', 'not_retryable', 'exhausted', 'skipped', 'canceled', 'deleted', 'replaced', 'requeued')) NOT VALID;
ALTER TABLE jobq.jobs VALIDATE CONSTRAINT jobs_reason_check;

ALTER TABLE jobq.job_attempts
    ADD COLUMN output text CHECK (char_length(output) <= 16384),
    ADD COLUMN log_ref text CHECK (char_length(log_ref) <= 1000);
COMMENT ON TABLE jobq.job_attempts IS 'Failed attempts of jobs: worker (locked_by), started_at (claimed_at), ended_at, reason (error, timed_out, orphaned, detached, not_retryable, exhausted), error and error_code, the tail of an exec task''s output (output, at most 16384 characters) and where the attempt''s logs are (log_ref, at most 1000 characters). Written by jobq.fail_jobs and jobq._rescue; the newest 25 per job are kept; pruned with history by ended_at.';

INSERT INTO jobq.settings (name, kind, value, description) VALUES
    ('continuation_retry_count', 'integer', '3', 'How many times a detached worker tries to confirm that its running jobs go on (1 to 100); with continuation_retry_interval it makes the confirmation deadline.'),
    ('continuation_retry_interval', 'interval', '0.3 seconds', 'The wait between a detached worker''s confirmation attempts (up to 1 minute); a running job of a detached worker is CONFIRMING for continuation_retry_count x continuation_retry_interval.');

-- +goose Down
DELETE FROM jobq.settings WHERE name IN ('continuation_retry_count', 'continuation_retry_interval');
ALTER TABLE jobq.job_attempts DROP COLUMN output, DROP COLUMN log_ref;
COMMENT ON TABLE jobq.job_attempts IS 'Failed attempts of jobs: worker (locked_by), started_at (claimed_at), ended_at, reason (error, timed_out, orphaned, not_retryable, exhausted), error and error_code. Written by jobq.fail_jobs and jobq._rescue; the newest 25 per job are kept; pruned with history by ended_at.';
UPDATE jobq.jobs SET reason = 'orphaned' WHERE reason = 'detached';
ALTER TABLE jobq.jobs DROP CONSTRAINT jobs_reason_check;
ALTER TABLE jobq.jobs ADD CONSTRAINT jobs_reason_check CHECK (reason IN ('error', 'timed_out', 'orphaned', 'not_retryable', 'exhausted', 'skipped', 'canceled', 'deleted', 'replaced', 'requeued'));
DROP TABLE jobq.continuations;
