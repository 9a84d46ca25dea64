-- jobq schema step 2: private helpers the public functions share — errors, settings, backoff,
-- and the mapping of a live job to its history row.

-- +goose Up

-- Functions the migrator creates are not executable by PUBLIC: each public function is granted
-- to the roles that may call it, by name, in the migration that creates it. Doing this through
-- default privileges means there is never a moment in which a new function is open to PUBLIC.
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- Raises the catalogued error p_code with p_detail appended to its message.
-- Callers: every jobq function that refuses input. Locks nothing. Never returns.
-- +goose StatementBegin
CREATE FUNCTION jobq._raise(p_code text, p_detail text)
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_error jobq.error_codes;
BEGIN
    SELECT * INTO v_error FROM jobq.error_codes e WHERE e.code = p_code;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'jobq internal error: % is not in jobq.error_codes', p_code;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = v_error.sqlstate,
        MESSAGE = v_error.code || ': ' || p_detail,
        HINT = v_error.hint;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._raise(text, text) IS
    'Private. Raises the jobq.error_codes entry p_code (its SQLSTATE and hint) with p_detail. Never returns.';

-- Reads an interval setting. Callers: fail_jobs, rescue_expired, prune_history.
-- +goose StatementBegin
CREATE FUNCTION jobq._setting_interval(p_name text)
RETURNS interval
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.value::interval FROM jobq.settings s WHERE s.name = p_name AND s.kind = 'interval'
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._setting_interval(text) IS
    'Private. The value of interval setting p_name from jobq.settings, NULL when there is none.';

-- The deterministic part of the backoff: min(cap, base * 2^(attempt-1)).
-- +goose StatementBegin
CREATE FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval)
RETURNS interval
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    -- Compared in seconds first: base * 2^(n-1) as an interval overflows long before n is large.
    SELECT CASE
        WHEN extract(epoch FROM p_base)::double precision * power(2::double precision, least(greatest(p_attempt, 1) - 1, 1000))
             >= extract(epoch FROM p_max)::double precision
        THEN p_max
        ELSE p_base * power(2::double precision, least(greatest(p_attempt, 1) - 1, 1000))
    END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.backoff_ceiling(integer, interval, interval) IS
    'Upper bound of the retry delay after attempt p_attempt: min(p_max, p_base * 2^(p_attempt-1)). Pure; locks nothing.';

-- The retry delay after a failed attempt: the ceiling with "equal jitter", uniformly in
-- [ceiling/2, ceiling], so retries of many jobs that failed together spread out.
-- +goose StatementBegin
CREATE FUNCTION jobq.backoff_delay(p_attempt integer, p_base interval, p_max interval)
RETURNS interval
LANGUAGE sql
VOLATILE
PARALLEL RESTRICTED
AS $$
    SELECT jobq.backoff_ceiling(p_attempt, p_base, p_max) * (0.5 + random() / 2)
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.backoff_delay(integer, interval, interval) IS
    'Retry delay after attempt p_attempt: backoff_ceiling(...) * (0.5 + random()/2). Callers: fail_jobs, rescue_expired.';

-- The history row of a live job that ends now in p_state. A new error replaces the job's last
-- error together with its code (NULL when none is given); without one, both are kept.
-- SETOF so the planner inlines it.
-- +goose StatementBegin
CREATE FUNCTION jobq._to_history(p_job jobq.jobs, p_state text, p_reason text, p_error text, p_error_code text)
RETURNS SETOF jobq.job_history
LANGUAGE sql
STABLE
AS $$
    SELECT p_job.id, p_job.task, p_job.queue, p_job.payload, p_job.store_id, p_job.priority, p_job.run_at,
           p_state, p_job.attempt, p_job.max_attempts, p_job.job_key, p_job.job_key_mode, p_job.locked_by, p_job.lease_token,
           p_job.claimed_at, p_job.heartbeat_at, p_job.lease_expires_at, p_job.timeout, p_job.deadline_at,
           p_job.backoff_base, p_job.backoff_max, p_reason,
           coalesce(p_error, p_job.last_error),
           CASE WHEN p_error IS NOT NULL THEN p_error_code ELSE p_job.error_code END,
           p_job.created_at, pg_catalog.now(), pg_catalog.now()
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._to_history(jobq.jobs, text, text, text, text) IS
    'Private. Maps a live job that ends now in p_state (succeeded, dead, canceled) to its jobq.job_history row.';

GRANT EXECUTE ON FUNCTION jobq.backoff_ceiling(integer, interval, interval), jobq.backoff_delay(integer, interval, interval)
    TO worker_runtime, jobq_app, jobq_operator;

-- +goose Down
DROP FUNCTION jobq._to_history(jobq.jobs, text, text, text, text);
DROP FUNCTION jobq.backoff_delay(integer, interval, interval);
DROP FUNCTION jobq.backoff_ceiling(integer, interval, interval);
DROP FUNCTION jobq._setting_interval(text);
DROP FUNCTION jobq._raise(text, text);
ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO PUBLIC;
