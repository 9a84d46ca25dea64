-- jobq schema step 15: a drained or detached worker claims nothing, enforced by the engine.
--
-- Step 13 let operators drain or detach a worker, and the runner obeys at its next heartbeat; in
-- between it could still claim (even the very job detach_worker had just rescued from it). The
-- claim now checks the worker's registered state itself. Workers that never registered (direct
-- SQL callers) are unaffected.

-- +goose Up

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._claim(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_now timestamptz)
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
    -- A registered worker that an operator drained or detached claims nothing, from the moment
    -- of the drain or detach (not only from its next heartbeat).
    IF EXISTS (SELECT 1 FROM jobq.workers w WHERE w.id = p_worker_id AND w.state IN ('draining', 'detached')) THEN
        RETURN;
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
    'Private. The claim implementation at time p_now; see jobq.claim_job. Claims nothing for a registered worker that '
    'is draining or detached. Locks the rows it claims (SKIP LOCKED).';

-- +goose Down

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._claim(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_now timestamptz)
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
