-- jobq schema step 5: ending an attempt — complete, fail (retry or dead), snooze.
-- Every write here is fenced by the lease token of the claim: a zombie worker whose lease was
-- rescued, or whose job was canceled, changes nothing and is told so.

-- +goose Up

-- Completes the attempts (job_ids[i], lease_tokens[i]) that are still running under those
-- tokens: each job moves to jobq.job_history as succeeded, in one statement.
-- +goose StatementBegin
CREATE FUNCTION jobq.complete_jobs(job_ids bigint[], lease_tokens uuid[])
RETURNS TABLE (job_id bigint, outcome text)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF cardinality(complete_jobs.job_ids) IS DISTINCT FROM cardinality(complete_jobs.lease_tokens) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids and lease_tokens must have the same length');
    END IF;

    -- The rows are found through the primary key with id = ANY, so they are locked in id order, as
    -- heartbeat_jobs locks them: a heartbeat and a finish of the same jobs cannot deadlock.
    RETURN QUERY
    WITH done AS (
        DELETE FROM jobq.jobs AS j
        WHERE j.id = ANY (complete_jobs.job_ids)
          AND j.state = 'running'
          AND (j.id, j.lease_token) IN (SELECT c.id, c.token FROM unnest(complete_jobs.job_ids, complete_jobs.lease_tokens) AS c(id, token))
        RETURNING j AS job
    ), moved AS (
        INSERT INTO jobq.job_history
        SELECT h.* FROM done CROSS JOIN LATERAL jobq._to_history(done.job, 'succeeded', NULL, NULL, NULL) AS h
        RETURNING jobq.job_history.id, jobq.job_history.lease_token
    )
    -- A complete that already succeeded under this token (a retry whose first reply was lost)
    -- reports succeeded again: completing is idempotent per lease.
    SELECT c.id,
           CASE WHEN m.id IS NOT NULL THEN 'succeeded'
                WHEN EXISTS (SELECT 1 FROM jobq.job_history h
                             WHERE h.id = c.id AND h.lease_token = c.token AND h.state = 'succeeded') THEN 'succeeded'
                ELSE 'lease_lost' END
    FROM unnest(complete_jobs.job_ids, complete_jobs.lease_tokens) WITH ORDINALITY AS c(id, token, ord)
    LEFT JOIN moved m ON m.id = c.id AND m.lease_token = c.token
    ORDER BY c.ord;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.complete_jobs(bigint[], uuid[]) IS
    'Completes many attempts in one statement. Returns one row per input lease, in input order: outcome succeeded '
    '(moved to jobq.job_history now, or earlier under the same token: completing is idempotent per lease) or '
    'lease_lost (not running under that token: rescued, canceled or finished otherwise; nothing changed). Caller: the runner. Locks (in id order) and deletes the completed rows. Errors: JOB.INVALID_ARGUMENT.';

-- Completes one attempt; raises JOB.LEASE_LOST instead of reporting it.
-- +goose StatementBegin
CREATE FUNCTION jobq.complete_job(job_id bigint, lease_token uuid)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM jobq.complete_jobs(ARRAY[complete_job.job_id], ARRAY[complete_job.lease_token]) AS c
        WHERE c.outcome = 'succeeded'
    ) THEN
        PERFORM jobq._raise('JOB.LEASE_LOST', format('job %s is not running under this lease token', complete_job.job_id));
    END IF;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.complete_job(bigint, uuid) IS
    'Completes one attempt (the job moves to history as succeeded). Caller: runners, tests. '
    'Errors: JOB.LEASE_LOST when the job is not running under lease_token (nothing changes).';

-- Fails the attempts (job_ids[i], lease_tokens[i]) still running under those tokens. A job goes
-- back to the queue as retry_pending after its backoff, unless retryable[i] is false
-- (dead, reason not_retryable) or it has used max_attempts (dead, reason exhausted).
-- retry_in[i], when given, replaces the computed backoff for that job (e.g. a Retry-After).
-- +goose StatementBegin
CREATE FUNCTION jobq.fail_jobs(
    job_ids      bigint[],
    lease_tokens uuid[],
    errors       text[],
    error_codes  text[]     DEFAULT NULL,
    retryable    boolean[]  DEFAULT NULL,
    retry_in     interval[] DEFAULT NULL
)
RETURNS TABLE (job_id bigint, outcome text, run_at timestamptz)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_base constant interval := jobq._setting_interval('backoff_base');
    v_max constant interval := jobq._setting_interval('backoff_max');
    v_n constant integer := coalesce(cardinality(fail_jobs.job_ids), 0);
BEGIN
    IF cardinality(fail_jobs.lease_tokens) IS DISTINCT FROM v_n
       OR coalesce(cardinality(fail_jobs.errors), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.error_codes), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.retryable), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.retry_in), v_n) <> v_n THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids, lease_tokens, errors, error_codes, retryable and retry_in must have the same length');
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(fail_jobs.retry_in) AS r(d) WHERE r.d < interval '0') THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', 'retry_in must not be negative');
    END IF;

    RETURN QUERY
    WITH input AS (
        SELECT f.id, f.token, left(f.err, 10000) AS err, f.code, coalesce(f.retryable, true) AS retryable, f.retry_in, f.ord
        FROM unnest(fail_jobs.job_ids, fail_jobs.lease_tokens, fail_jobs.errors, fail_jobs.error_codes,
                    fail_jobs.retryable, fail_jobs.retry_in) WITH ORDINALITY AS f(id, token, err, code, retryable, retry_in, ord)
    ), dead AS (
        DELETE FROM jobq.jobs AS j
        USING input f
        WHERE j.id = ANY (fail_jobs.job_ids)
          AND j.id = f.id AND j.lease_token = f.token AND j.state = 'running'
          AND (NOT f.retryable OR j.attempt >= j.max_attempts)
        RETURNING j AS job, f.err, f.code, CASE WHEN f.retryable THEN 'exhausted' ELSE 'not_retryable' END AS why
    ), buried AS (
        INSERT INTO jobq.job_history
        SELECT h.* FROM dead CROSS JOIN LATERAL jobq._to_history(dead.job, 'dead', dead.why, dead.err, dead.code) AS h
        RETURNING jobq.job_history.id, jobq.job_history.lease_token
    ), retried AS (
        UPDATE jobq.jobs AS j
        SET state            = 'retry_pending',
            run_at           = now() + coalesce(f.retry_in,
                                   jobq.backoff_delay(j.attempt, coalesce(j.backoff_base, v_base), coalesce(j.backoff_max, v_max))),
            lease_token      = NULL,
            lease_expires_at = NULL,
            deadline_at      = NULL,
            reason           = 'error',
            last_error       = f.err,
            error_code       = f.code,
            updated_at       = now()
        FROM input f
        WHERE j.id = ANY (fail_jobs.job_ids)
          AND j.id = f.id AND j.lease_token = f.token AND j.state = 'running'
          AND f.retryable AND j.attempt < j.max_attempts
        RETURNING j.id, f.token, j.run_at
    )
    SELECT f.id,
           CASE WHEN r.id IS NOT NULL THEN 'retry_pending' WHEN b.id IS NOT NULL THEN 'dead' ELSE 'lease_lost' END,
           r.run_at
    FROM input f
    LEFT JOIN retried r ON r.id = f.id AND r.token = f.token
    LEFT JOIN buried b ON b.id = f.id AND b.lease_token = f.token
    ORDER BY f.ord;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.fail_jobs(bigint[], uuid[], text[], text[], boolean[], interval[]) IS
    'Fails many attempts in one statement. Returns one row per input lease, in input order: outcome retry_pending (with '
    'the new run_at = now() + retry_in[i] or backoff_delay(attempt, backoff_base, backoff_max)), dead (moved to '
    'jobq.job_history; reason not_retryable or exhausted) or lease_lost (nothing changed). errors[i] is kept as '
    'last_error (first 10,000 characters). Caller: the runner. Locks the failed rows. Errors: JOB.INVALID_ARGUMENT '
    '(array lengths), JOB.LEASE_INVALID (negative retry_in).';

-- Fails one attempt; raises JOB.LEASE_LOST instead of reporting it. Returns the job's new state.
-- +goose StatementBegin
CREATE FUNCTION jobq.fail_job(
    job_id     bigint,
    lease_token uuid,
    error      text,
    error_code text     DEFAULT NULL,
    retryable  boolean  DEFAULT true,
    retry_in   interval DEFAULT NULL
)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_outcome text;
BEGIN
    SELECT f.outcome INTO v_outcome
    FROM jobq.fail_jobs(ARRAY[fail_job.job_id], ARRAY[fail_job.lease_token], ARRAY[fail_job.error],
                        ARRAY[fail_job.error_code], ARRAY[fail_job.retryable], ARRAY[fail_job.retry_in]) AS f;
    IF v_outcome = 'lease_lost' THEN
        PERFORM jobq._raise('JOB.LEASE_LOST', format('job %s is not running under this lease token', fail_job.job_id));
    END IF;
    RETURN v_outcome;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.fail_job(bigint, uuid, text, text, boolean, interval) IS
    'Fails one attempt and returns the job''s new state: retry_pending or dead. Caller: runners, tests. '
    'Errors: JOB.LEASE_LOST (nothing changes), JOB.INVALID_ARGUMENT.';

-- Puts running jobs back in the queue to run after delay, without using an attempt: a handler
-- that asks to run later, or a runner that hands its jobs back when it shuts down.
-- +goose StatementBegin
CREATE FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval DEFAULT '0 seconds')
RETURNS TABLE (job_id bigint, outcome text, run_at timestamptz)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF snooze_jobs.delay IS NULL OR snooze_jobs.delay < interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('delay %s must be zero or positive', coalesce(snooze_jobs.delay::text, 'NULL')));
    END IF;
    IF cardinality(snooze_jobs.job_ids) IS DISTINCT FROM cardinality(snooze_jobs.lease_tokens) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids and lease_tokens must have the same length');
    END IF;

    RETURN QUERY
    WITH back AS (
        UPDATE jobq.jobs AS j
        SET state            = 'queued',
            run_at           = now() + snooze_jobs.delay,
            attempt          = j.attempt - 1,
            lease_token      = NULL,
            lease_expires_at = NULL,
            deadline_at      = NULL,
            updated_at       = now()
        FROM unnest(snooze_jobs.job_ids, snooze_jobs.lease_tokens) AS s(id, token)
        WHERE j.id = ANY (snooze_jobs.job_ids)
          AND j.id = s.id AND j.lease_token = s.token AND j.state = 'running'
        RETURNING j.id, s.token, j.run_at, j.queue
    ), woken AS (
        SELECT count(pg_notify('jobq', q.queue)) AS n
        FROM (SELECT DISTINCT b.queue FROM back b WHERE snooze_jobs.delay = interval '0') AS q
    )
    SELECT s.id, CASE WHEN b.id IS NULL THEN 'lease_lost' ELSE 'queued' END, b.run_at
    FROM unnest(snooze_jobs.job_ids, snooze_jobs.lease_tokens) WITH ORDINALITY AS s(id, token, ord)
    LEFT JOIN back b ON b.id = s.id AND b.token = s.token
    CROSS JOIN woken
    ORDER BY s.ord;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.snooze_jobs(bigint[], uuid[], interval) IS
    'Returns running jobs to the queue (state queued, run_at = now() + delay) without counting the attempt; a zero '
    'delay wakes the queue''s runners. One row per input lease, in order: queued (with run_at) or lease_lost. '
    'Callers: the runner (snoozing handlers; handing jobs back at shutdown). Locks the rows. '
    'Errors: JOB.LEASE_INVALID (negative delay), JOB.INVALID_ARGUMENT.';

-- Snoozes one job; raises JOB.LEASE_LOST instead of reporting it.
-- +goose StatementBegin
CREATE FUNCTION jobq.snooze(job_id bigint, lease_token uuid, delay interval)
RETURNS timestamptz
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_run_at timestamptz;
BEGIN
    SELECT s.run_at INTO v_run_at
    FROM jobq.snooze_jobs(ARRAY[snooze.job_id], ARRAY[snooze.lease_token], snooze.delay) AS s;
    IF v_run_at IS NULL THEN
        PERFORM jobq._raise('JOB.LEASE_LOST', format('job %s is not running under this lease token', snooze.job_id));
    END IF;
    RETURN v_run_at;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.snooze(bigint, uuid, interval) IS
    'Returns one running job to the queue after delay without counting the attempt; returns the new run_at. '
    'Errors: JOB.LEASE_LOST, JOB.LEASE_INVALID (negative delay).';

GRANT EXECUTE ON FUNCTION
    jobq.complete_jobs(bigint[], uuid[]),
    jobq.complete_job(bigint, uuid),
    jobq.fail_jobs(bigint[], uuid[], text[], text[], boolean[], interval[]),
    jobq.fail_job(bigint, uuid, text, text, boolean, interval),
    jobq.snooze_jobs(bigint[], uuid[], interval),
    jobq.snooze(bigint, uuid, interval)
TO worker_runtime;

-- +goose Down
DROP FUNCTION jobq.snooze(bigint, uuid, interval);
DROP FUNCTION jobq.snooze_jobs(bigint[], uuid[], interval);
DROP FUNCTION jobq.fail_job(bigint, uuid, text, text, boolean, interval);
DROP FUNCTION jobq.fail_jobs(bigint[], uuid[], text[], text[], boolean[], interval[]);
DROP FUNCTION jobq.complete_job(bigint, uuid);
DROP FUNCTION jobq.complete_jobs(bigint[], uuid[]);
