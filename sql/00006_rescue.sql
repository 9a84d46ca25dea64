-- jobq schema step 6: the sweeper (expired leases and timed-out jobs) and history retention.

-- +goose Up

-- The sweeper at time p_now (tests move the clock; rescue_expired passes now()).
-- Takes at most p_batch_size running jobs whose lease expired (reason orphaned: the worker
-- vanished) or whose deadline passed (reason timed_out: the handler ran longer than the job's
-- timeout). The attempt counts: a job with attempts left goes back to the queue — at once when
-- orphaned, after its backoff when timed out — and one without becomes dead. SKIP LOCKED keeps two
-- sweepers, and a sweeper and a finishing worker, from waiting on each other; the batch bound
-- keeps each call short.
-- +goose StatementBegin
CREATE FUNCTION jobq._rescue(p_batch_size integer, p_now timestamptz)
RETURNS TABLE (job_id bigint, outcome text, reason text, task text, queue text, store_id uuid, attempt integer, locked_by text)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_base constant interval := jobq._setting_interval('backoff_base');
    v_max constant interval := jobq._setting_interval('backoff_max');
BEGIN
    IF p_batch_size IS NULL OR p_batch_size < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('batch_size %s must be at least 1', coalesce(p_batch_size::text, 'NULL')));
    END IF;

    RETURN QUERY
    WITH expired AS (
        SELECT j.id,
               CASE WHEN j.deadline_at <= p_now THEN 'timed_out' ELSE 'orphaned' END AS why,
               CASE WHEN j.deadline_at <= p_now
                    THEN format('timed out: ran longer than its timeout of %s (worker %s)', j.timeout, j.locked_by)
                    ELSE format('orphaned: lease expired at %s without a heartbeat (worker %s)', j.lease_expires_at, j.locked_by)
               END AS err
        FROM jobq.jobs j
        WHERE j.state = 'running'
          AND (j.lease_expires_at <= p_now OR j.deadline_at <= p_now)
        ORDER BY least(j.lease_expires_at, j.deadline_at), j.id
        LIMIT p_batch_size
        FOR UPDATE SKIP LOCKED
    ), dead AS (
        DELETE FROM jobq.jobs AS j
        USING expired e
        WHERE j.id = e.id AND j.attempt >= j.max_attempts
        RETURNING j AS job, e.why, e.err
    ), buried AS (
        INSERT INTO jobq.job_history
        SELECT h.* FROM dead CROSS JOIN LATERAL jobq._to_history(dead.job, 'dead', dead.why, dead.err, NULL) AS h
        RETURNING jobq.job_history.id, jobq.job_history.reason, jobq.job_history.task, jobq.job_history.queue,
                  jobq.job_history.store_id, jobq.job_history.attempt, jobq.job_history.locked_by
    ), requeued AS (
        UPDATE jobq.jobs AS j
        SET state            = 'retry_pending',
            run_at           = CASE WHEN e.why = 'orphaned' THEN p_now
                                    ELSE p_now + jobq.backoff_delay(j.attempt, coalesce(j.backoff_base, v_base), coalesce(j.backoff_max, v_max))
                               END,
            lease_token      = NULL,
            lease_expires_at = NULL,
            deadline_at      = NULL,
            reason           = e.why,
            last_error       = e.err,
            error_code       = NULL,
            updated_at       = p_now
        FROM expired e
        WHERE j.id = e.id AND j.attempt < j.max_attempts
        RETURNING j.id, j.reason, j.task, j.queue, j.store_id, j.attempt, j.locked_by
    )
    SELECT b.id, 'dead'::text, b.reason, b.task, b.queue, b.store_id, b.attempt, b.locked_by FROM buried b
    UNION ALL
    SELECT r.id, 'retry_pending'::text, r.reason, r.task, r.queue, r.store_id, r.attempt, r.locked_by FROM requeued r;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._rescue(integer, timestamptz) IS
    'Private. The sweeper at time p_now; see jobq.rescue_expired.';

-- +goose StatementBegin
CREATE FUNCTION jobq.rescue_expired(batch_size integer DEFAULT 1000)
RETURNS TABLE (job_id bigint, outcome text, reason text, task text, queue text, store_id uuid, attempt integer, locked_by text)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT * FROM jobq._rescue(rescue_expired.batch_size, now());
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.rescue_expired(integer) IS
    'Sweeps at most batch_size running jobs whose lease expired (reason orphaned: back to the queue at once) or whose '
    'timeout passed (reason timed_out: back after its backoff); a job that used max_attempts becomes dead instead. '
    'The old lease token stops working, so the vanished worker''s late writes are refused. Returns one row per job '
    '(outcome retry_pending or dead). Callers: the runners'' leader, jobq.maintain, pg_cron. Locks the swept rows with '
    'SKIP LOCKED. Each row also names the job''s task, queue, store, attempt and the worker that lost it, for logs '
    'and alerts. Errors: JOB.INVALID_ARGUMENT.';

-- Deletes at most batch_size history rows that finished before now() - history_retention.
-- +goose StatementBegin
CREATE FUNCTION jobq.prune_history(batch_size integer DEFAULT 10000)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_cutoff constant timestamptz := now() - jobq._setting_interval('history_retention');
    v_deleted bigint;
BEGIN
    IF prune_history.batch_size IS NULL OR prune_history.batch_size < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('batch_size %s must be at least 1', coalesce(prune_history.batch_size::text, 'NULL')));
    END IF;
    DELETE FROM jobq.job_history AS h
    WHERE h.ctid = ANY (ARRAY(
        SELECT o.ctid FROM jobq.job_history o WHERE o.finished_at < v_cutoff LIMIT prune_history.batch_size));
    GET DIAGNOSTICS v_deleted = ROW_COUNT;
    RETURN v_deleted;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.prune_history(integer) IS
    'Deletes at most batch_size jobq.job_history rows with finished_at before now() - setting history_retention '
    '(default 7 days) and returns how many. Call it until it returns less than batch_size. Callers: jobq.maintain, '
    'operators, pg_cron. Errors: JOB.INVALID_ARGUMENT.';

-- How long the next due job of each queue has waited: the head of the claim order, found through
-- the claim index in one probe per queue, so a scrape costs the same with a million waiting jobs.
-- +goose StatementBegin
CREATE FUNCTION jobq.queue_lag(queues text[] DEFAULT NULL)
RETURNS TABLE (queue text, lag interval)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT q.name, coalesce(pg_catalog.now() - head.run_at, interval '0')
    FROM (
        SELECT DISTINCT u.name FROM unnest(queue_lag.queues) AS u(name) WHERE u.name IS NOT NULL
        UNION
        SELECT DISTINCT j.queue FROM jobq.jobs j WHERE queue_lag.queues IS NULL
    ) AS q
    LEFT JOIN LATERAL (
        SELECT j.run_at
        FROM jobq.jobs j
        WHERE j.state IN ('queued', 'retry_pending') AND j.queue = q.name AND j.run_at <= pg_catalog.now()
        ORDER BY j.priority, j.run_at, j.id
        LIMIT 1
    ) AS head ON true
    ORDER BY q.name
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.queue_lag(text[]) IS
    'Per queue (the given ones, or every queue with a live job when NULL): how long the next job due to be claimed '
    'has waited past its run_at (0 when none is due). Reveals no job content. Callers: runners (metrics), operators.';

GRANT EXECUTE ON FUNCTION jobq.rescue_expired(integer), jobq.prune_history(integer), jobq.queue_lag(text[])
    TO worker_runtime, jobq_operator;

-- +goose Down
DROP FUNCTION jobq.queue_lag(text[]);
DROP FUNCTION jobq.prune_history(integer);
DROP FUNCTION jobq.rescue_expired(integer);
DROP FUNCTION jobq._rescue(integer, timestamptz);
