-- jobq schema step 20: completing and heartbeating many jobs costs the same per job at any batch size.
--
-- complete_jobs and heartbeat_jobs matched their (id, lease_token) pairs with a semi-join that the
-- planner ran as a nested loop over the unnested arrays: quadratic in the batch (a batch of 100
-- compared 5,000 pairs, and complete_jobs joined its result back with 10,000 more). Each pair now
-- finds its row through the primary key, and complete_jobs reads its outcomes back from
-- jobq.job_history by primary key in a second statement, which also covers a complete repeated
-- under the same token. Behaviour, locks, results and errors are unchanged.

-- +goose Up

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.complete_jobs(job_ids bigint[], lease_tokens uuid[])
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

    -- Each (id, token) pair finds its row through the primary key, pairs in id order, so the rows
    -- are locked in id order as heartbeat_jobs locks them: a heartbeat and a finish of the same
    -- jobs cannot deadlock.
    WITH done AS (
        DELETE FROM jobq.jobs AS j
        USING (SELECT c.id, c.token
               FROM unnest(complete_jobs.job_ids, complete_jobs.lease_tokens) AS c(id, token)
               ORDER BY c.id) AS c
        WHERE j.id = c.id
          AND j.lease_token = c.token
          AND j.state = 'running'
        RETURNING j AS job
    )
    INSERT INTO jobq.job_history
    SELECT h.* FROM done CROSS JOIN LATERAL jobq._to_history(done.job, 'succeeded', NULL, NULL, NULL) AS h;

    -- The outcome of each pair is read back from history: succeeded under this token now, or
    -- earlier (a retry whose first reply was lost): completing is idempotent per lease.
    RETURN QUERY
    SELECT c.id,
           CASE WHEN h.lease_token = c.token AND h.state = 'succeeded' THEN 'succeeded' ELSE 'lease_lost' END
    FROM unnest(complete_jobs.job_ids, complete_jobs.lease_tokens) WITH ORDINALITY AS c(id, token, ord)
    LEFT JOIN jobq.job_history h ON h.id = c.id
    ORDER BY c.ord;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.heartbeat_jobs(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval DEFAULT '30 seconds')
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

    -- Each (id, token) pair finds its row through the primary key. Locks in id order
    -- (complete_jobs and fail_jobs do too), so a heartbeat racing a finish of the same jobs
    -- cannot deadlock.
    RETURN QUERY
    WITH held AS (
        SELECT j.id
        FROM unnest(heartbeat_jobs.job_ids, heartbeat_jobs.lease_tokens) AS h(id, token)
        JOIN jobq.jobs j ON j.id = h.id AND j.lease_token = h.token
        WHERE j.state = 'running'
          AND j.locked_by = heartbeat_jobs.worker_id
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

-- +goose Down

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.complete_jobs(job_ids bigint[], lease_tokens uuid[])
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.heartbeat_jobs(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval DEFAULT '30 seconds')
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
