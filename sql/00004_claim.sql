-- jobq schema step 4: claiming jobs under a lease, and renewing leases (heartbeats).

-- +goose Up

-- The one claim implementation, at time p_now (tests move the clock; claim_job passes now()).
-- Queue by queue in the order given, it picks up to the jobs still wanted with
-- FOR UPDATE SKIP LOCKED and LIMIT in a CTE and takes them with one UPDATE, so it never takes more
-- than asked (PostgreSQL bug #15715 is why the pick is not a subquery of the UPDATE's WHERE).
-- +goose StatementBegin
CREATE FUNCTION jobq._claim(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_now timestamptz)
RETURNS SETOF jobq.jobs
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_queue text;
    v_left integer := p_max_jobs;
    v_got integer;
BEGIN
    IF p_worker_id IS NULL OR btrim(p_worker_id) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id is NULL or empty');
    END IF;
    IF p_queues IS NULL OR cardinality(p_queues) = 0 OR array_position(p_queues, NULL) IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queues must be a non-empty array without NULLs');
    END IF;
    IF p_max_jobs IS NULL OR p_max_jobs < 1 OR p_max_jobs > 10000 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('max_jobs %s is outside 1..10000', coalesce(p_max_jobs::text, 'NULL')));
    END IF;
    IF p_lease IS NULL OR p_lease <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('lease %s is not positive', coalesce(p_lease::text, 'NULL')));
    END IF;

    FOREACH v_queue IN ARRAY p_queues LOOP
        RETURN QUERY
        WITH picked AS (
            SELECT j.id
            FROM jobq.jobs j
            WHERE j.state IN ('queued', 'retry_pending')
              AND j.queue = v_queue
              AND j.run_at <= p_now
            ORDER BY j.priority, j.run_at, j.id
            LIMIT v_left
            FOR UPDATE SKIP LOCKED
        )
        UPDATE jobq.jobs j
        SET state            = 'running',
            attempt          = j.attempt + 1,
            locked_by        = p_worker_id,
            lease_token      = gen_random_uuid(),
            claimed_at       = p_now,
            heartbeat_at     = p_now,
            lease_expires_at = p_now + p_lease,
            deadline_at      = p_now + j.timeout,
            updated_at       = p_now
        FROM picked
        WHERE j.id = picked.id
        RETURNING j.*;
        GET DIAGNOSTICS v_got = ROW_COUNT;
        v_left := v_left - v_got;
        EXIT WHEN v_left = 0;
    END LOOP;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._claim(text, text[], integer, interval, timestamptz) IS
    'Private. The claim implementation at time p_now; see jobq.claim_job. Locks the rows it claims (SKIP LOCKED).';

-- Claims up to max_jobs due jobs for worker_id from queues, in the order the queues are listed:
-- a later queue is served only when the earlier ones have no due job left.
-- +goose StatementBegin
CREATE FUNCTION jobq.claim_job(
    worker_id text,
    queues    text[]   DEFAULT ARRAY['default'],
    max_jobs  integer  DEFAULT 1,
    lease     interval DEFAULT '30 seconds'
)
RETURNS SETOF jobq.jobs
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT * FROM jobq._claim(claim_job.worker_id, claim_job.queues, claim_job.max_jobs, claim_job.lease, now());
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.claim_job(text, text[], integer, interval) IS
    'Claims up to max_jobs due jobs (state queued or retry_pending, run_at <= now()) for worker_id, queue by queue in '
    'the order given, each queue in (priority, run_at, id) order. Every claimed job gets state running, attempt + 1, '
    'a fresh lease_token and lease_expires_at = now() + lease (deadline_at = now() + timeout). Caller: the runner '
    '(worker_runtime). Locks the claimed rows with SKIP LOCKED, so it never waits for another claimer. '
    'Errors: JOB.INVALID_ARGUMENT (worker_id, queues, max_jobs outside 1..10000), JOB.LEASE_INVALID.';

-- Renews the leases a worker holds; the one implementation of heartbeats.
-- +goose StatementBegin
CREATE FUNCTION jobq.heartbeat_jobs(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval DEFAULT '30 seconds')
RETURNS TABLE (job_id bigint, lease_expires_at timestamptz)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF heartbeat_jobs.lease IS NULL OR heartbeat_jobs.lease <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('lease %s is not positive', coalesce(heartbeat_jobs.lease::text, 'NULL')));
    END IF;
    IF cardinality(heartbeat_jobs.job_ids) IS DISTINCT FROM cardinality(heartbeat_jobs.lease_tokens) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids and lease_tokens must have the same length');
    END IF;

    -- Locks in id order (complete_jobs and fail_jobs do too), so a heartbeat racing a finish of
    -- the same jobs cannot deadlock.
    RETURN QUERY
    WITH held AS (
        SELECT j.id
        FROM jobq.jobs j
        WHERE j.id = ANY (heartbeat_jobs.job_ids)
          AND j.state = 'running'
          AND j.locked_by = heartbeat_jobs.worker_id
          AND (j.id, j.lease_token) IN (SELECT h.id, h.token FROM unnest(heartbeat_jobs.job_ids, heartbeat_jobs.lease_tokens) AS h(id, token))
        ORDER BY j.id
        FOR UPDATE OF j
    )
    UPDATE jobq.jobs AS j
    SET heartbeat_at     = now(),
        lease_expires_at = now() + heartbeat_jobs.lease,
        updated_at       = now()
    FROM held
    WHERE j.id = held.id
    RETURNING j.id, j.lease_expires_at;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.heartbeat_jobs(text, bigint[], uuid[], interval) IS
    'Renews, in one statement, every lease in (job_ids, lease_tokens) that worker_id still holds: lease_expires_at = '
    'now() + lease. Returns the renewed jobs; a job missing from the result has lost its lease (rescued, canceled, '
    'finished) and its handler must stop. Caller: the runner, once per heartbeat interval. Locks the renewed rows. '
    'Errors: JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT.';

-- Renews one lease. A thin form of heartbeat_jobs that raises instead of returning nothing.
-- +goose StatementBegin
CREATE FUNCTION jobq.heartbeat(worker_id text, job_id bigint, lease_token uuid, lease interval DEFAULT '30 seconds')
RETURNS timestamptz
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_expires timestamptz;
BEGIN
    SELECT h.lease_expires_at INTO v_expires
    FROM jobq.heartbeat_jobs(heartbeat.worker_id, ARRAY[heartbeat.job_id], ARRAY[heartbeat.lease_token], heartbeat.lease) AS h;
    IF v_expires IS NULL THEN
        PERFORM jobq._raise('JOB.LEASE_LOST', format('job %s is not running under this lease token for worker %s',
                                                     heartbeat.job_id, heartbeat.worker_id));
    END IF;
    RETURN v_expires;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.heartbeat(text, bigint, uuid, interval) IS
    'Renews one lease and returns its new expiry. Caller: runners and tests. Locks the job row. '
    'Errors: JOB.LEASE_LOST (the lease is gone), JOB.LEASE_INVALID.';

GRANT EXECUTE ON FUNCTION
    jobq.claim_job(text, text[], integer, interval),
    jobq.heartbeat_jobs(text, bigint[], uuid[], interval),
    jobq.heartbeat(text, bigint, uuid, interval)
TO worker_runtime;

-- +goose Down
DROP FUNCTION jobq.heartbeat(text, bigint, uuid, interval);
DROP FUNCTION jobq.heartbeat_jobs(text, bigint[], uuid[], interval);
DROP FUNCTION jobq.claim_job(text, text[], integer, interval);
DROP FUNCTION jobq._claim(text, text[], integer, interval, timestamptz);
