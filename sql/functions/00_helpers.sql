-- jobq engine, helpers. The building blocks every other area uses: errors, settings, the limits
-- and their bounds checks, saturating time arithmetic, the retry backoff, the wake-up of runners,
-- and the history row of a job that ends.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Raises the catalogued error p_code with p_detail appended to its message.
-- Callers: every jobq function that refuses input. Locks nothing. Never returns.
CREATE OR REPLACE FUNCTION jobq._raise(p_code text, p_detail text)
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
COMMENT ON FUNCTION jobq._raise(text,text) IS
    'Private. Raises the jobq.error_codes entry p_code (its SQLSTATE and hint) with p_detail. Never returns.';

-- _log_ref, the default log reference complete_jobs, fail_jobs and the sweeper wrote into every
-- row that ended without one, is now jobq.default_log_ref (62_lists.sql), computed on read.
DROP FUNCTION IF EXISTS jobq._log_ref(text,bigint,integer);

-- Reads an interval setting (backoff_base, backoff_max, history_retention, worker_timeout).
-- Callers: jobq.fail_jobs, jobq._rescue, jobq.prune_history, jobq._maintain.
-- plpgsql, as every setting reader here: a SQL function whose body reads a table is never
-- inlined, and is parsed and planned again at each transaction that calls it (about 60 µs); this
-- one's statement is planned once a session (pgtap/lifecycle/the_lifecycle_plans_no_helper_again_at_each_call).
CREATE OR REPLACE FUNCTION jobq._setting_interval(p_name text)
RETURNS interval
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN (SELECT s.value::interval FROM jobq.settings s WHERE s.name = p_name AND s.kind = 'interval');
END
$$;
COMMENT ON FUNCTION jobq._setting_interval(text) IS
    'Private. The value of interval setting p_name from jobq.settings, NULL when there is none.';

-- The settings a runner applies, as one JSON object {name: value}.
CREATE OR REPLACE FUNCTION jobq._settings_json()
RETURNS jsonb
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(jsonb_object_agg(s.name, s.value), '{}') FROM jobq.settings s
$$;
COMMENT ON FUNCTION jobq._settings_json() IS
    'Private. Every setting as {name: value}.';

-- The numeric limits of the API, by name: text lengths in characters, counts, integer ranges.
CREATE OR REPLACE FUNCTION jobq._limit(p_name text)
RETURNS bigint
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT CASE p_name
        WHEN 'task'              THEN 100         -- characters (the task name rule)
        WHEN 'queue'             THEN 200         -- characters; indexed (jobs_claim_idx)
        WHEN 'job_key'           THEN 500         -- characters; indexed (jobs_job_key_idx)
        WHEN 'worker_id'         THEN 200         -- characters; indexed (workers_pkey)
        WHEN 'node'              THEN 200         -- characters
        WHEN 'version'           THEN 200         -- characters
        WHEN 'error_code'        THEN 200         -- characters
        WHEN 'error'             THEN 10000       -- characters kept of an error text (longer is truncated)
        WHEN 'slot_key'          THEN 100         -- characters
        WHEN 'setting_value'     THEN 1000        -- characters
        WHEN 'max_attempts'      THEN 1000
        WHEN 'batch'             THEN 10000       -- elements of a batch array; claim_job's max_jobs
        WHEN 'enqueue_many'      THEN 100000      -- elements of enqueue_many's jobs
        WHEN 'sweep'             THEN 100000      -- batch_size / max_jobs of rescue_expired, prune_history, requeue_dead
        WHEN 'queues'            THEN 1000        -- elements of a queue list
        WHEN 'tasks'             THEN 1000        -- elements of a claim's list of tasks
        WHEN 'concurrency'       THEN 10000
        WHEN 'running'           THEN 1000000
        WHEN 'min_payload_bytes' THEN 1024        -- lowest value of setting max_payload_bytes
        WHEN 'max_payload_bytes' THEN 268435456   -- highest value of setting max_payload_bytes (256 MiB)
        WHEN 'progress_bytes'    THEN 65536       -- bytes of a job's progress as JSON text (jobq.set_progress)
        WHEN 'dependencies'      THEN 10000       -- parents of one job (depends_on and depends_on_refs)
    END
$$;
COMMENT ON FUNCTION jobq._limit(text) IS
    'Private. The numeric limit p_name of the API (task, queue, job_key, worker_id, node, version, error_code, error, slot_key, setting_value: characters; max_attempts, batch, enqueue_many, sweep, queues, tasks, concurrency, running, min_payload_bytes, max_payload_bytes, progress_bytes, dependencies), NULL for an unknown name. Immutable: a call with a constant folds to a constant.';

-- The interval limits of the API, by name.
CREATE OR REPLACE FUNCTION jobq._limit_interval(p_name text)
RETURNS interval
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT CASE p_name
        WHEN 'lease'             THEN interval '1 day'       -- claim_job, heartbeat(_jobs), setting default_lease
        WHEN 'ttl'               THEN interval '1 day'       -- acquire_leadership, runner interval settings
        WHEN 'timeout'           THEN interval '7 days'
        WHEN 'backoff'           THEN interval '30 days'     -- backoff_base, backoff_max
        WHEN 'delay'             THEN interval '365 days'    -- snooze delay, fail retry_in
        WHEN 'backfill_window'   THEN interval '7 days'
        WHEN 'jitter'            THEN interval '1 day'
        WHEN 'history_retention' THEN interval '3650 days'
    END
$$;
COMMENT ON FUNCTION jobq._limit_interval(text) IS
    'Private. The largest interval p_name accepts (lease, ttl, timeout, backoff, delay, backfill_window, jitter, history_retention), NULL for an unknown name. Immutable.';

-- Timestamps an API argument may take: finite, from 1970 to the end of year 9999 (UTC).
CREATE OR REPLACE FUNCTION jobq._ts_in_range(p_value timestamptz)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT p_value >= '1970-01-01 00:00:00+00'::timestamptz AND p_value < '10000-01-01 00:00:00+00'::timestamptz
$$;
COMMENT ON FUNCTION jobq._ts_in_range(timestamp with time zone) IS
    'Private. Whether p_value is a timestamp the API accepts: from 1970-01-01 00:00 UTC to 9999-12-31 23:59:59.999999 UTC (infinity and -infinity are outside). NULL for NULL.';

-- p_ts + p_delta that never raises: +-infinity where PostgreSQL would say "timestamp out of
-- range", for any storable values, so no stored interval can stop a claim, sweep or maintain.
-- PostgreSQL adds the months, then the days, then the time of the interval, so each partial sum is
-- checked too (epochs as doubles, with margins far wider than their rounding).
CREATE OR REPLACE FUNCTION jobq._ts_add(p_ts timestamptz, p_delta interval)
RETURNS timestamptz
LANGUAGE sql
STABLE
PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN p_ts IS NULL OR p_delta IS NULL THEN NULL
        WHEN NOT pg_catalog.isfinite(p_ts) THEN p_ts
        WHEN pg_catalog.date_part('epoch', p_ts) + pg_catalog.date_part('epoch', p_delta) NOT BETWEEN -2.1e11 AND 9.2e12
          OR pg_catalog.date_part('epoch', p_ts) + pg_catalog.date_part('epoch', pg_catalog.date_trunc('month', p_delta))
             NOT BETWEEN -2.1e11 AND 9.2e12
          OR pg_catalog.date_part('epoch', p_ts) + pg_catalog.date_part('epoch', pg_catalog.date_trunc('day', p_delta))
             NOT BETWEEN -2.1e11 AND 9.2e12
        THEN CASE WHEN pg_catalog.date_part('epoch', p_delta) > 0 THEN 'infinity'::timestamptz ELSE '-infinity'::timestamptz END
        ELSE p_ts + p_delta
    END
$$;
COMMENT ON FUNCTION jobq._ts_add(timestamp with time zone,interval) IS
    'Private. p_ts + p_delta, saturating at infinity or -infinity where PostgreSQL would raise "timestamp out of range" (an infinite p_ts stays as it is). Raises nothing; NULL for NULL. Inlined. Callers: claim, rescue, fail, maintain, prune_history.';

-- p_later - p_earlier, saturating at +-200000 years (an interval holds about 292000 years of
-- microseconds): never "cannot subtract infinite timestamps" nor "interval out of range".
CREATE OR REPLACE FUNCTION jobq._ts_diff(p_later timestamptz, p_earlier timestamptz)
RETURNS interval
LANGUAGE sql
STABLE
PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN p_later IS NULL OR p_earlier IS NULL THEN NULL
        WHEN p_later = p_earlier THEN interval '0'
        WHEN NOT pg_catalog.isfinite(p_later) OR NOT pg_catalog.isfinite(p_earlier)
          OR abs(pg_catalog.date_part('epoch', p_later) - pg_catalog.date_part('epoch', p_earlier)) >= 6.3e12
        THEN CASE WHEN p_later > p_earlier THEN interval '200000 years' ELSE interval '-200000 years' END
        ELSE p_later - p_earlier
    END
$$;
COMMENT ON FUNCTION jobq._ts_diff(timestamp with time zone,timestamp with time zone) IS
    'Private. p_later - p_earlier, saturating at 200000 years either way (infinite timestamps included); 0 for equal ones. Raises nothing; NULL for NULL. Inlined. Caller: jobq.queue_lag.';

-- The payload limit, setting max_payload_bytes. Callers skip it for payloads of up to 1 KiB, the
-- setting's lowest value.
CREATE OR REPLACE FUNCTION jobq._max_payload_bytes()
RETURNS integer
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN coalesce((SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'max_payload_bytes'), 1048576);
END
$$;
COMMENT ON FUNCTION jobq._max_payload_bytes() IS
    'Private. The setting max_payload_bytes (1048576 when the row is missing).';

-- The result limit, setting max_result_bytes: the largest result a completion keeps, in bytes of
-- its JSON text. Callers: jobq.complete_jobs (only when it is given results), jobq.complete_job.
CREATE OR REPLACE FUNCTION jobq._max_result_bytes()
RETURNS bigint
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN coalesce((SELECT s.value::bigint FROM jobq.settings s WHERE s.name = 'max_result_bytes'), 65536);
END
$$;
COMMENT ON FUNCTION jobq._max_result_bytes() IS
    'Private. The setting max_result_bytes (65536 when the row is missing).';

-- Refuses a text longer than p_max characters. Like every bounds check below (docs/limits.md), it
-- passes NULL (the caller decides what NULL means) and returns its value, or raises the catalogued
-- error with a message that starts with p_name (e.g. 'job 3: queue').
CREATE OR REPLACE FUNCTION jobq._check_text(p_name text, p_value text, p_max integer)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF char_length(p_value) > p_max THEN
        PERFORM jobq._raise('JOB.VALUE_TOO_LONG', format('%s is %s characters long; the limit is %s', p_name, char_length(p_value), p_max));
    END IF;
    RETURN p_value;
END
$$;
COMMENT ON FUNCTION jobq._check_text(text,text,integer) IS
    'Private. Returns p_value when it has at most p_max characters (NULL passes); raises JOB.VALUE_TOO_LONG naming p_name otherwise.';

-- Refuses a name that an argument must give: NULL or blank (empty or spaces only) is
-- JOB.INVALID_ARGUMENT, longer than p_max characters JOB.VALUE_TOO_LONG; returns the value. The one
-- rule behind the worker id and queue name checks (jobq._check_worker_id, jobq._check_queue_name).
CREATE OR REPLACE FUNCTION jobq._check_name(p_name text, p_value text, p_max integer)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_value IS NULL OR btrim(p_value) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('%s is NULL or empty', p_name));
    END IF;
    RETURN jobq._check_text(p_name, p_value, p_max);
END
$$;
COMMENT ON FUNCTION jobq._check_name(text,text,integer) IS
    'Private. Returns p_value when it is neither NULL nor blank and has at most p_max characters; raises JOB.INVALID_ARGUMENT (NULL or blank: "<p_name> is NULL or empty") or JOB.VALUE_TOO_LONG naming p_name otherwise. Callers: jobq._check_worker_id, jobq._check_queue_name.';

-- Refuses an interval that is not positive (zero is allowed with p_zero_ok) or above p_max: leases,
-- timeouts, backoffs, delays, schedule windows. Passes NULL and returns its value.
CREATE OR REPLACE FUNCTION jobq._check_interval(p_name text, p_value interval, p_max interval, p_zero_ok boolean DEFAULT false)
RETURNS interval
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_zero_ok AND p_value < interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('%s %s must be zero or positive', p_name, p_value));
    ELSIF NOT p_zero_ok AND p_value <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('%s %s is not positive', p_name, p_value));
    ELSIF p_value > p_max THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('%s %s is above the limit of %s', p_name, p_value, p_max));
    END IF;
    RETURN p_value;
END
$$;
COMMENT ON FUNCTION jobq._check_interval(text,interval,interval,boolean) IS
    'Private. Returns p_value when it is positive (zero too with p_zero_ok) and at most p_max (NULL passes); raises JOB.LEASE_INVALID (not positive) or JOB.OUT_OF_RANGE (above p_max) naming p_name otherwise.';

-- Refuses an integer outside p_min..p_max, with p_code (JOB.OUT_OF_RANGE unless the caller names
-- another, as max_attempts does). Passes NULL and returns its value.
CREATE OR REPLACE FUNCTION jobq._check_int(p_name text, p_value bigint, p_min bigint, p_max bigint, p_code text DEFAULT 'JOB.OUT_OF_RANGE')
RETURNS bigint
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_value < p_min OR p_value > p_max THEN
        PERFORM jobq._raise(p_code, format('%s %s is outside %s..%s', p_name, p_value, p_min, p_max));
    END IF;
    RETURN p_value;
END
$$;
COMMENT ON FUNCTION jobq._check_int(text,bigint,bigint,bigint,text) IS
    'Private. Returns p_value when it is within p_min..p_max (NULL passes); raises p_code (default JOB.OUT_OF_RANGE; JOB.MAX_ATTEMPTS_INVALID for max_attempts) naming p_name otherwise.';

-- Refuses a timestamp the API does not take (jobq._ts_in_range: finite, from 1970 to the end of
-- 9999 UTC). Passes NULL and returns its value.
CREATE OR REPLACE FUNCTION jobq._check_timestamp(p_name text, p_value timestamptz)
RETURNS timestamptz
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT jobq._ts_in_range(p_value) THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('%s %s is outside 1970-01-01 .. 9999-12-31 (UTC)', p_name, p_value));
    END IF;
    RETURN p_value;
END
$$;
COMMENT ON FUNCTION jobq._check_timestamp(text,timestamp with time zone) IS
    'Private. Returns p_value when it is finite and from 1970-01-01 to 9999-12-31 UTC (NULL passes); raises JOB.OUT_OF_RANGE naming p_name otherwise.';

-- Refuses an array of more than p_max elements (a batch, a queue list); returns its number of
-- elements, NULL for NULL.
CREATE OR REPLACE FUNCTION jobq._check_length(p_name text, p_value anyarray, p_max integer)
RETURNS integer
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF cardinality(p_value) > p_max THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('%s has %s elements; the limit is %s', p_name, cardinality(p_value), p_max));
    END IF;
    RETURN cardinality(p_value);
END
$$;
COMMENT ON FUNCTION jobq._check_length(text,anyarray,integer) IS
    'Private. Returns the number of elements of p_value when it is at most p_max (NULL passes, returning NULL); raises JOB.OUT_OF_RANGE naming p_name otherwise.';

-- Refuses a lease the engine does not grant: NULL, zero or negative, or above the limit. The one
-- home of that check for claim_job, heartbeat_jobs and confirm_continuation; the bounds are
-- jobq._check_interval's, which passes NULL, so NULL is refused here.
CREATE OR REPLACE FUNCTION jobq._check_lease(p_lease interval)
RETURNS interval
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_lease IS NULL THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', 'lease NULL is not positive');
    END IF;
    RETURN jobq._check_interval('lease', p_lease, jobq._limit_interval('lease'));
END
$$;
COMMENT ON FUNCTION jobq._check_lease(interval) IS
    'Private. Returns p_lease when it is positive and at most the lease limit (docs/limits.md); raises JOB.LEASE_INVALID (NULL, zero or negative) or JOB.OUT_OF_RANGE (above the limit) otherwise. Used by jobq._claim, jobq.heartbeat_jobs, jobq.confirm_continuation.';

-- Refuses a batch of leases whose job_ids and lease_tokens differ in length, or that holds more
-- than the batch limit. The one home of that check for the batch functions on leases.
CREATE OR REPLACE FUNCTION jobq._check_lease_batch(p_job_ids bigint[], p_lease_tokens uuid[])
RETURNS integer
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF cardinality(p_job_ids) IS DISTINCT FROM cardinality(p_lease_tokens) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids and lease_tokens must have the same length');
    END IF;
    RETURN jobq._check_length('job_ids', p_job_ids, jobq._limit('batch')::integer);
END
$$;
COMMENT ON FUNCTION jobq._check_lease_batch(bigint[],uuid[]) IS
    'Private. Returns the number of leases when job_ids and lease_tokens have the same length and it is at most the batch limit (NULL arrays pass, returning NULL); raises JOB.INVALID_ARGUMENT (lengths differ) or JOB.OUT_OF_RANGE (above the limit) otherwise. Used by jobq.heartbeat_jobs, jobq.complete_jobs, jobq.snooze_jobs, jobq.confirm_continuation.';

-- Refuses a payload whose stored size is above setting max_payload_bytes; a payload of up to 1 KiB
-- passes without reading the setting. Passes NULL and returns its value.
CREATE OR REPLACE FUNCTION jobq._check_payload(p_name text, p_value jsonb)
RETURNS jsonb
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_column_size(p_value) > 1024 AND pg_column_size(p_value) > jobq._max_payload_bytes() THEN
        PERFORM jobq._raise('JOB.PAYLOAD_TOO_LARGE', format('%s is %s bytes; the limit is %s (setting max_payload_bytes)',
                                                            p_name, pg_column_size(p_value), jobq._max_payload_bytes()));
    END IF;
    RETURN p_value;
END
$$;
COMMENT ON FUNCTION jobq._check_payload(text,jsonb) IS
    'Private. Returns p_value when its jsonb form (pg_column_size) is at most setting max_payload_bytes (NULL passes); raises JOB.PAYLOAD_TOO_LARGE naming p_name otherwise.';

-- The upper bound of the retry delay after attempt p_attempt: min(p_max, p_base * 2^(n-1)). Its
-- arguments are checked; the exponent stops at 100 (2^100 seconds is far beyond any backoff), so
-- no argument overflows the double arithmetic.
CREATE OR REPLACE FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval)
RETURNS interval
LANGUAGE plpgsql
IMMUTABLE
PARALLEL SAFE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_exponent integer;
BEGIN
    IF p_base IS NULL OR p_max IS NULL THEN
        RETURN NULL;
    END IF;
    -- The checks of jobq._check_interval, written out: this function runs as its caller, and
    -- runtime roles execute no private helper but jobq._raise.
    IF p_base <= interval '0' OR p_max <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('%s is not positive',
            CASE WHEN p_base <= interval '0' THEN 'p_base ' || p_base ELSE 'p_max ' || p_max END));
    ELSIF p_base > interval '30 days' OR p_max > interval '30 days' THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('%s is above the limit of 30 days',
            CASE WHEN p_base > interval '30 days' THEN 'p_base ' || p_base ELSE 'p_max ' || p_max END));
    END IF;
    v_exponent := least(greatest(coalesce(p_attempt, 1), 1) - 1, 100);
    -- Compared in seconds first: base * 2^(n-1) as an interval overflows long before n is large.
    IF date_part('epoch', p_base) * power(2::double precision, v_exponent) >= date_part('epoch', p_max) THEN
        RETURN p_max;
    END IF;
    -- A base with a day or month part is normalised first, so a mixed-sign one ('1 mon -29 days')
    -- cannot overflow its months field.
    IF date_part('day', p_base) <> 0 OR date_part('month', p_base) <> 0 OR date_part('year', p_base) <> 0 THEN
        RETURN justify_interval(p_base) * power(2::double precision, v_exponent);
    END IF;
    RETURN p_base * power(2::double precision, v_exponent);
END
$$;
COMMENT ON FUNCTION jobq.backoff_ceiling(integer,interval,interval) IS
    'Upper bound of the retry delay after attempt p_attempt: min(p_max, p_base * 2^(p_attempt-1)); an attempt below 1 (or NULL) counts as 1; NULL p_base or p_max gives NULL. Pure; locks nothing. Errors: JOB.LEASE_INVALID (p_base or p_max not positive), JOB.OUT_OF_RANGE (p_base or p_max above 30 days).';

-- The retry delay after a failed attempt: the ceiling with "equal jitter", uniformly in
-- [ceiling/2, ceiling], so retries of many jobs that failed together spread out.
CREATE OR REPLACE FUNCTION jobq.backoff_delay(p_attempt integer, p_base interval, p_max interval)
RETURNS interval
LANGUAGE sql
VOLATILE
PARALLEL RESTRICTED
AS $$
    SELECT jobq.backoff_ceiling(p_attempt, p_base, p_max) * (0.5 + random() / 2)
$$;
COMMENT ON FUNCTION jobq.backoff_delay(integer,interval,interval) IS
    'Retry delay after attempt p_attempt: backoff_ceiling(...) * (0.5 + random()/2). Callers: fail_jobs, rescue_expired.';

-- Where a retried job runs again: now plus its backoff, with the stored backoffs (and the
-- settings) clamped to the backoff limit, saturating.
-- plpgsql: the delay, a call of jobq.backoff_delay, would keep jobq._ts_add (which reads its
-- argument several times) from being inlined, and a SQL function not inlined is planned again at
-- each transaction; from a variable it is inlined.
CREATE OR REPLACE FUNCTION jobq._retry_at(p_now timestamptz, p_attempt integer, p_base interval, p_max interval)
RETURNS timestamptz
LANGUAGE plpgsql
VOLATILE
AS $$
DECLARE
    v_delay constant interval := jobq.backoff_delay(
        p_attempt,
        least(greatest(coalesce(p_base, interval '2 seconds'), interval '1 microsecond'), jobq._limit_interval('backoff')),
        least(greatest(coalesce(p_max, interval '1 hour'), interval '1 microsecond'), jobq._limit_interval('backoff')));
BEGIN
    RETURN jobq._ts_add(p_now, v_delay);
END
$$;
COMMENT ON FUNCTION jobq._retry_at(timestamp with time zone,integer,interval,interval) IS
    'Private. p_now + backoff_delay(p_attempt, p_base, p_max) for any stored values: a NULL base or max counts as 2 seconds or 1 hour, each is clamped to (0, 30 days], and the sum saturates (jobq._ts_add). Raises nothing. Callers: jobq._rescue, jobq.fail_jobs.';

-- The doorbell's probe, by an enqueue that made a job of p_queue due: whether it may stay silent
-- (no runner of the queue waits). The doorbell (wakeup notify with doorbell true, as installed)
-- exists because the commit of every transaction that issued a NOTIFY takes one lock of the whole
-- database (it serialised enqueues at 8 and 32 connections), so an enqueue NOTIFYs only when a
-- runner waits. Two advisory locks per queue, keyed (class, hashtext(queue)): class 1785790465 "an
-- enqueue is in flight" (A) and class 1785790466 "a runner waits" (B, the doorbell). Here: A
-- shared for the transaction (tried: when a runner holds it for its check this very moment, not
-- silent), then B probed without waiting; got it (no runner waits): let go at once, silent; did
-- not: not silent. A runner that goes idle holds B shared, then checks that no one holds A
-- (jobq.hold_doorbell, jobq.doorbell_quiet): an enqueue that probed before B was held still holds
-- A until after its commit is visible, so once A is free the runner's next claim sees every job
-- that did not ring. Nobody ever waits for A or B: every attempt here and in the runner is a try.
-- One CASE, so that the planner inlines it and the order of the three calls is fixed.
CREATE OR REPLACE FUNCTION jobq._doorbell_silent(p_queue text)
RETURNS boolean
LANGUAGE sql
VOLATILE
AS $$
    SELECT CASE
        WHEN NOT pg_catalog.pg_try_advisory_xact_lock_shared(1785790465, pg_catalog.hashtext(p_queue)) THEN false
        -- B is session-level, so it is let go now rather than at commit: a runner trying to
        -- hold it meanwhile would fail.
        WHEN NOT pg_catalog.pg_try_advisory_lock(1785790466, pg_catalog.hashtext(p_queue)) THEN false
        ELSE pg_catalog.pg_advisory_unlock(1785790466, pg_catalog.hashtext(p_queue))
    END
$$;
COMMENT ON FUNCTION jobq._doorbell_silent(text) IS
    'Private. The doorbell''s probe for queue p_queue: takes the advisory lock (1785790465, hashtext(queue)) shared until the transaction ends, without waiting, then tries (1785790466, hashtext(queue)) and lets it go at once. True (silent: no runner of the queue waits) when both were taken; false when either is held by someone else (a runner waits, or checks jobq.doorbell_quiet this very moment). Never waits; inlined. Caller: jobq._wake_as.';

-- Wakes the runners of one queue as the given values of the settings wakeup and doorbell say
-- (NULL: as installed, notify and false). The one place that sends a wake-up: a NOTIFY on channel
-- jobq and a logical message with prefix jobq, both carrying the queue's name. One CASE, so that
-- the planner inlines it: the fast path of jobq.enqueue evaluates it with no nested call.
CREATE OR REPLACE FUNCTION jobq._wake_as(p_queue text, p_wakeup text, p_doorbell boolean)
RETURNS boolean
LANGUAGE sql
VOLATILE
AS $$
    SELECT CASE
        WHEN p_queue IS NULL THEN false
        WHEN coalesce(p_wakeup, 'notify') IN ('wal', 'both') THEN
            CASE
                WHEN pg_catalog.pg_logical_emit_message(true, 'jobq', p_queue) IS NULL THEN false
                WHEN p_wakeup = 'wal' THEN true
                ELSE pg_catalog.pg_notify('jobq', p_queue) IS NOT NULL
            END
        WHEN coalesce(p_doorbell, false) AND jobq._doorbell_silent(p_queue) THEN false
        ELSE pg_catalog.pg_notify('jobq', p_queue) IS NOT NULL
    END
$$;
COMMENT ON FUNCTION jobq._wake_as(text,text,boolean) IS
    'Private. Wakes the runners of queue p_queue as p_wakeup and p_doorbell (the values of the settings wakeup and doorbell; NULL counts as notify and false) say: wal, a transactional logical message with prefix jobq and the queue name as content; both, that message and NOTIFY channel jobq with the queue name; notify (and any other value), NOTIFY jobq, but with p_doorbell true only when a runner of the queue waits (jobq._doorbell_silent). Returns whether it sent anything; false for a NULL queue. Messages and notifications take effect only if the transaction commits. Inlined. Callers: jobq._wake, the fast path of jobq.enqueue (which reads the settings with its task).';

-- Wakes the runners of one queue the way the settings wakeup and doorbell say (jobq._wake_as).
-- Every place that makes a job due at once wakes its queue through here or, for the fast path of
-- jobq.enqueue, through jobq._wake_as directly: enqueue_many and jobq._insert_specs (once per
-- queue), jobq.retry_job and jobq.requeue_dead (both by jobq._revive), jobq.snooze_jobs with no
-- delay, resume_queue and the controls that change a queue's limits.
CREATE OR REPLACE FUNCTION jobq._wake(p_queue text)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_wakeup text;
    v_doorbell boolean;
BEGIN
    -- plpgsql rather than SQL: a SQL function with subqueries is not inlined, and would be
    -- planned again at every call; this statement's plan is kept for the session. The settings
    -- are read into variables first: given as subqueries, they kept jobq._wake_as from being
    -- inlined (it reads its arguments several times), and it was planned again at each call.
    v_wakeup := (SELECT s.value FROM jobq.settings s WHERE s.name = 'wakeup');
    v_doorbell := (SELECT s.value::boolean FROM jobq.settings s WHERE s.name = 'doorbell');
    PERFORM jobq._wake_as(p_queue, v_wakeup, v_doorbell);
END
$$;
COMMENT ON FUNCTION jobq._wake(text) IS
    'Private. Wakes the runners of queue p_queue as the settings wakeup and doorbell say (jobq._wake_as, which sends: wakeup wal, a transactional logical message with prefix jobq and the queue name as content; both, that message and NOTIFY channel jobq with the queue name; notify (and any other value), NOTIFY jobq, but with doorbell true only when a runner of the queue waits (holds its doorbell, jobq.hold_doorbell): it takes the advisory lock (1785790465, hashtext(queue)) shared until the transaction ends and probes (1785790466, hashtext(queue)) without waiting, notifying when either is taken by someone else (jobq._doorbell_silent)). Nothing for a NULL queue. Messages and notifications take effect only if the transaction commits. Callers: jobq.enqueue_many, jobq._insert_specs, jobq._revive (retry_job, requeue_dead), jobq.snooze_jobs, jobq.resume_queue, the limit controls; EXECUTE for jobq_app_gate, which runs enqueue and retry_job.';

-- A runner that found no job in its queues holds their doorbells while it waits, so that enqueue
-- notifies it (jobq._wake). The lock is session-level: the runner holds it on its LISTEN
-- connection, so it goes when that connection goes, and a runner that finds its connection lost
-- takes it again. All or nothing, and never waiting: it fails only while an enqueue probes the
-- doorbell (microseconds), and then the runner tries again. Each success is one more hold per
-- queue, undone by one jobq.release_doorbell.
CREATE OR REPLACE FUNCTION jobq.hold_doorbell(queues text[])
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_taken integer[] := ARRAY[]::integer[];
    v_key integer;
BEGIN
    IF NOT jobq._claim_queues_ok(hold_doorbell.queues) THEN
        PERFORM jobq._check_claim_queues(hold_doorbell.queues);
    END IF;
    FOREACH v_key IN ARRAY ARRAY(SELECT hashtext(q.name) FROM unnest(hold_doorbell.queues) AS q(name)) LOOP
        IF NOT pg_try_advisory_lock_shared(1785790466, v_key) THEN
            PERFORM pg_advisory_unlock_shared(1785790466, t.key) FROM unnest(v_taken) AS t(key);
            RETURN false;
        END IF;
        v_taken := v_taken || v_key;
    END LOOP;
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq.hold_doorbell(text[]) IS
    'Takes the doorbell of every queue listed (the session advisory lock (1785790466, hashtext(queue)), shared) without waiting, all or nothing, and reports whether it did: false only while an enqueue probes one of them. Held, an enqueue of a due job in the queue NOTIFYs (setting doorbell; jobq._wake); it stays held until jobq.release_doorbell or the end of the session. Caller: the runner, on its LISTEN connection, when a claim found no job: then it checks jobq.doorbell_quiet and claims once more. Errors: JOB.INVALID_ARGUMENT, JOB.OUT_OF_RANGE, JOB.VALUE_TOO_LONG (queues, as for claim_job).';

-- Whether no enqueue is in flight in the queues listed: an enqueue that probed a doorbell before
-- the runner held it, and so did not notify, holds its queue's lock A until after its commit is
-- visible. When this says true after jobq.hold_doorbell, the runner's next claim sees every job
-- that did not ring; when it says false, the runner claims again a little later and asks again.
CREATE OR REPLACE FUNCTION jobq.doorbell_quiet(queues text[])
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_queue text;
BEGIN
    IF NOT jobq._claim_queues_ok(doorbell_quiet.queues) THEN
        PERFORM jobq._check_claim_queues(doorbell_quiet.queues);
    END IF;
    FOREACH v_queue IN ARRAY doorbell_quiet.queues LOOP
        IF NOT pg_try_advisory_lock(1785790465, hashtext(v_queue)) THEN
            RETURN false;
        END IF;
        PERFORM pg_advisory_unlock(1785790465, hashtext(v_queue));
    END LOOP;
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq.doorbell_quiet(text[]) IS
    'Reports whether no transaction that enqueued a due job in one of the queues listed is in flight: tries the advisory lock (1785790465, hashtext(queue)) that jobq._wake holds shared until its transaction ends, and lets it go at once; never waits. Caller: the runner, after jobq.hold_doorbell. Errors: JOB.INVALID_ARGUMENT, JOB.OUT_OF_RANGE, JOB.VALUE_TOO_LONG (queues, as for claim_job).';

-- A runner that is busy again lets go of the doorbells it holds, so that enqueues stop notifying:
-- one hold per queue listed, as jobq.hold_doorbell took it. The runner knows what it holds; no
-- look-up of pg_locks here, which would stall every lock taker of the cluster a moment, once per
-- wake-up.
CREATE OR REPLACE FUNCTION jobq.release_doorbell(queues text[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT jobq._claim_queues_ok(release_doorbell.queues) THEN
        PERFORM jobq._check_claim_queues(release_doorbell.queues);
    END IF;
    PERFORM pg_advisory_unlock_shared(1785790466, hashtext(q.name)) FROM unnest(release_doorbell.queues) AS q(name);
END
$$;
COMMENT ON FUNCTION jobq.release_doorbell(text[]) IS
    'Lets go of one hold of the doorbell of every queue listed (jobq.hold_doorbell), so that enqueues in them stop notifying for this session; PostgreSQL warns (you don''t own a lock) for one this session does not hold. Caller: the runner, on its LISTEN connection, when a claim got all it asked for or a notification woke it. Errors: JOB.INVALID_ARGUMENT, JOB.OUT_OF_RANGE, JOB.VALUE_TOO_LONG (queues, as for claim_job).';

-- _to_history took five arguments before the attempt's output, log_ref, exit_code and leader
-- epoch (a five-argument call still resolves to the new signature through its defaults).
DROP FUNCTION IF EXISTS jobq._to_history(jobq.jobs,text,text,text,text);
-- and nine before the succeeded attempt's result.
DROP FUNCTION IF EXISTS jobq._to_history(jobq.jobs,text,text,text,text,text,text,integer,bigint);

-- The history row of a live job that ends now in p_state. A new error replaces the job's last
-- error together with its code (NULL when none is given); without one, both are kept. The last
-- attempt's output, log_ref, exit code and leader epoch are the caller's (NULL for a job that
-- ends without running, a cancel or a delete); its progress, trace context and batch are the job's;
-- its result is the succeeded attempt's (NULL otherwise). SETOF so the planner inlines it.
CREATE OR REPLACE FUNCTION jobq._to_history(p_job jobq.jobs, p_state text, p_reason text, p_error text, p_error_code text,
                                            p_output text DEFAULT NULL, p_log_ref text DEFAULT NULL,
                                            p_exit_code integer DEFAULT NULL, p_leader_epoch bigint DEFAULT NULL,
                                            p_result jsonb DEFAULT NULL)
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
           p_job.created_at, pg_catalog.now(), pg_catalog.now(),
           p_job.progress, pg_catalog.right(p_output, 16384), pg_catalog.left(p_log_ref, 1000), p_exit_code, p_leader_epoch,
           p_job.traceparent, p_job.tracestate,
           p_job.depends_on, p_job.on_parent_failure, p_job.sequence_key, p_job.on_sequence_failure, p_job.has_dependents,
           p_result, p_job.batch_id
$$;
COMMENT ON FUNCTION jobq._to_history(jobq.jobs,text,text,text,text,text,text,integer,bigint,jsonb) IS
    'Private. Maps a live job that ends now in p_state (succeeded, dead, canceled) to its jobq.job_history row: with its last attempt''s output (its last 16384 characters), log_ref (its first 1000), exit code, leader epoch and result as given (NULL by default), and the job''s progress, trace context, workflow (depends_on, on_parent_failure, sequence_key, on_sequence_failure, has_dependents) and batch.';
