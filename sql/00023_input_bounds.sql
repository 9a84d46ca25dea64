-- jobq schema step 23: every input has a documented domain, and the arithmetic on stored values
-- cannot overflow.
--
-- Out-of-domain input is refused with a catalogued error naming the argument, before anything is
-- written: JOB.VALUE_TOO_LONG (text longer than its limit), JOB.OUT_OF_RANGE (a number, interval,
-- timestamp or array length outside its range), JOB.PAYLOAD_TOO_LARGE (setting max_payload_bytes);
-- JOB.MAX_ATTEMPTS_INVALID and JOB.LEASE_INVALID keep their meaning. The limits live in two
-- immutable functions (jobq._limit, jobq._limit_interval) and are checked by jobq._check_* helpers
-- and, for a whole job spec, by the inlinable predicate jobq._spec_in_bounds. Rows written before
-- this step, or by hand, may still hold any storable value: claim, rescue, fail, maintain, prune
-- and queue_lag add and subtract through jobq._ts_add and jobq._ts_diff, which saturate at
-- +-infinity instead of raising 22008, and clamp stored backoffs to the backoff limit.

-- +goose Up

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.VALUE_TOO_LONG', 'JQ106', 'A text argument is longer than its documented limit.',
     'Shorten the value the message names; the README''s Limits section lists every limit.'),
    ('JOB.OUT_OF_RANGE', 'JQ107', 'A number, interval, timestamp or array length is outside its documented range.',
     'Pass a value within the range the message names; the README''s Limits section lists every range.'),
    ('JOB.PAYLOAD_TOO_LARGE', 'JQ108', 'The payload is larger than the setting max_payload_bytes.',
     'Store large data elsewhere and pass a reference in the payload, or raise max_payload_bytes with jobq.set_setting.');
UPDATE jobq.error_codes SET meaning = 'max_attempts is below 1 or above 1000.', hint = 'Pass max_attempts between 1 and 1000, or NULL for the default.'
WHERE code = 'JOB.MAX_ATTEMPTS_INVALID';

INSERT INTO jobq.settings (name, kind, value, description) VALUES
    ('max_payload_bytes', 'integer', '1048576',
     'Largest job payload accepted, in bytes of its jsonb form (pg_column_size); 1024 to 268435456.');

-- The numeric limits of the API, by name: text lengths in characters, counts, integer ranges.
-- +goose StatementBegin
CREATE FUNCTION jobq._limit(p_name text)
RETURNS bigint
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT CASE p_name
        WHEN 'task'              THEN 100         -- characters (the task name rule)
        WHEN 'queue'             THEN 200         -- characters; indexed (jobs_claim_idx)
        WHEN 'job_key'           THEN 500         -- characters; indexed (jobs_job_key_idx)
        WHEN 'worker_id'         THEN 200         -- characters; indexed (workers_pkey, jobs_locked_by_idx)
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
        WHEN 'concurrency'       THEN 10000
        WHEN 'running'           THEN 1000000
        WHEN 'min_payload_bytes' THEN 1024        -- lowest value of setting max_payload_bytes
        WHEN 'max_payload_bytes' THEN 268435456   -- highest value of setting max_payload_bytes (256 MiB)
    END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._limit(text) IS
    'Private. The numeric limit p_name of the API (task, queue, job_key, worker_id, node, version, error_code, error, '
    'slot_key, setting_value: characters; max_attempts, batch, enqueue_many, sweep, queues, concurrency, running, min_payload_bytes, '
    'max_payload_bytes), NULL for an unknown name. Immutable: a call with a constant folds to a constant.';

-- The interval limits of the API, by name.
-- +goose StatementBegin
CREATE FUNCTION jobq._limit_interval(p_name text)
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._limit_interval(text) IS
    'Private. The largest interval p_name accepts (lease, ttl, timeout, backoff, delay, backfill_window, jitter, '
    'history_retention), NULL for an unknown name. Immutable.';

-- Timestamps an API argument may take: finite, from 1970 to the end of year 9999 (UTC).
-- +goose StatementBegin
CREATE FUNCTION jobq._ts_in_range(p_value timestamptz)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT p_value >= '1970-01-01 00:00:00+00'::timestamptz AND p_value < '10000-01-01 00:00:00+00'::timestamptz
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._ts_in_range(timestamptz) IS
    'Private. Whether p_value is a timestamp the API accepts: from 1970-01-01 00:00 UTC to 9999-12-31 23:59:59.999999 '
    'UTC (infinity and -infinity are outside). NULL for NULL.';

-- p_ts + p_delta, saturating: +-infinity instead of "timestamp out of range", for any storable
-- values. Each part of the interval (months, then days, then time) is applied in turn by
-- PostgreSQL, so each partial sum is checked too; the test compares epochs as doubles, with
-- margins far wider than their rounding.
-- +goose StatementBegin
CREATE FUNCTION jobq._ts_add(p_ts timestamptz, p_delta interval)
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._ts_add(timestamptz, interval) IS
    'Private. p_ts + p_delta, saturating at infinity or -infinity where PostgreSQL would raise "timestamp out of range" '
    '(an infinite p_ts stays as it is). Raises nothing; NULL for NULL. Inlined. Callers: claim, rescue, fail, maintain, '
    'prune_history.';

-- p_later - p_earlier, saturating at +-200000 years (an interval holds about 292000 years of
-- microseconds): never "cannot subtract infinite timestamps" nor "interval out of range".
-- +goose StatementBegin
CREATE FUNCTION jobq._ts_diff(p_later timestamptz, p_earlier timestamptz)
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._ts_diff(timestamptz, timestamptz) IS
    'Private. p_later - p_earlier, saturating at 200000 years either way (infinite timestamps included); 0 for equal '
    'ones. Raises nothing; NULL for NULL. Inlined. Caller: jobq.queue_lag.';

-- The checks: each passes NULL (the caller decides what NULL means) and returns its value, or
-- raises the catalogued error with a message that starts with p_name (e.g. 'job 3: queue').
-- +goose StatementBegin
CREATE FUNCTION jobq._check_text(p_name text, p_value text, p_max integer)
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_text(text, text, integer) IS
    'Private. Returns p_value when it has at most p_max characters (NULL passes); raises JOB.VALUE_TOO_LONG naming '
    'p_name otherwise.';

-- +goose StatementBegin
CREATE FUNCTION jobq._check_interval(p_name text, p_value interval, p_max interval, p_zero_ok boolean DEFAULT false)
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_interval(text, interval, interval, boolean) IS
    'Private. Returns p_value when it is positive (zero too with p_zero_ok) and at most p_max (NULL passes); raises '
    'JOB.LEASE_INVALID (not positive) or JOB.OUT_OF_RANGE (above p_max) naming p_name otherwise.';

-- +goose StatementBegin
CREATE FUNCTION jobq._check_int(p_name text, p_value bigint, p_min bigint, p_max bigint, p_code text DEFAULT 'JOB.OUT_OF_RANGE')
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_int(text, bigint, bigint, bigint, text) IS
    'Private. Returns p_value when it is within p_min..p_max (NULL passes); raises p_code (default JOB.OUT_OF_RANGE; '
    'JOB.MAX_ATTEMPTS_INVALID for max_attempts) naming p_name otherwise.';

-- +goose StatementBegin
CREATE FUNCTION jobq._check_timestamp(p_name text, p_value timestamptz)
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_timestamp(text, timestamptz) IS
    'Private. Returns p_value when it is finite and from 1970-01-01 to 9999-12-31 UTC (NULL passes); raises '
    'JOB.OUT_OF_RANGE naming p_name otherwise.';

-- +goose StatementBegin
CREATE FUNCTION jobq._check_length(p_name text, p_value anyarray, p_max integer)
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_length(text, anyarray, integer) IS
    'Private. Returns the number of elements of p_value when it is at most p_max (NULL passes, returning NULL); raises '
    'JOB.OUT_OF_RANGE naming p_name otherwise.';

-- The payload limit is a setting; payloads of up to 1 KiB (the setting's lowest value) never read it.
-- +goose StatementBegin
CREATE FUNCTION jobq._max_payload_bytes()
RETURNS integer
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce((SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'max_payload_bytes'), 1048576)
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._max_payload_bytes() IS
    'Private. The setting max_payload_bytes (1048576 when the row is missing).';

-- +goose StatementBegin
CREATE FUNCTION jobq._check_payload(p_name text, p_value jsonb)
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_payload(text, jsonb) IS
    'Private. Returns p_value when its jsonb form (pg_column_size) is at most setting max_payload_bytes (NULL passes); '
    'raises JOB.PAYLOAD_TOO_LARGE naming p_name otherwise.';

-- The domain of a job spec, in one expression the planner inlines: every field within its limits,
-- NULL wherever an enqueue default applies. jobq._validate_specs uses it as its cheap first test;
-- the fast path of enqueue uses it too.
-- +goose StatementBegin
CREATE FUNCTION jobq._spec_in_bounds(p_spec jobq.job_spec)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT p_spec.task IS NOT NULL AND pg_catalog.btrim(p_spec.task) <> ''
       AND (p_spec.payload IS NULL
            OR (pg_catalog.jsonb_typeof(p_spec.payload) = 'object'
                AND (pg_catalog.pg_column_size(p_spec.payload) <= 1024
                     OR pg_catalog.pg_column_size(p_spec.payload) <= jobq._max_payload_bytes())))
       AND (p_spec.queue IS NULL
            OR (pg_catalog.btrim(p_spec.queue) <> '' AND pg_catalog.char_length(p_spec.queue) <= jobq._limit('queue')))
       AND (p_spec.run_at IS NULL OR jobq._ts_in_range(p_spec.run_at))
       AND (p_spec.priority IS NULL OR p_spec.priority BETWEEN -32768 AND 32767)
       AND (p_spec.max_attempts IS NULL OR p_spec.max_attempts BETWEEN 1 AND jobq._limit('max_attempts'))
       AND (p_spec.job_key IS NULL
            OR (p_spec.job_key <> '' AND pg_catalog.char_length(p_spec.job_key) <= jobq._limit('job_key')))
       AND (p_spec.job_key_mode IS NULL OR p_spec.job_key_mode IN ('replace', 'preserve_run_at', 'unsafe_dedupe'))
       AND (p_spec.store_id IS NULL OR p_spec.store_id <> '00000000-0000-0000-0000-000000000000'::uuid)
       AND (p_spec.timeout IS NULL
            OR (p_spec.timeout > interval '0' AND p_spec.timeout <= jobq._limit_interval('timeout')))
       AND (p_spec.backoff_base IS NULL
            OR (p_spec.backoff_base > interval '0' AND p_spec.backoff_base <= jobq._limit_interval('backoff')))
       AND (p_spec.backoff_max IS NULL
            OR (p_spec.backoff_max > interval '0' AND p_spec.backoff_max <= jobq._limit_interval('backoff')))
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._spec_in_bounds(jobq.job_spec) IS
    'Private. Whether every field of a job spec is within its domain: task not blank; payload a JSON object of at most '
    'max_payload_bytes; queue not blank, at most 200 characters; run_at from 1970 to 9999 (UTC); priority a smallint; '
    'max_attempts 1..1000; job_key not empty, at most 500 characters; job_key_mode replace, preserve_run_at or '
    'unsafe_dedupe; store_id not the zero uuid; timeout in (0, 7 days]; backoff_base and backoff_max in (0, 30 days]. '
    'NULL fields pass (the enqueue defaults apply). Never NULL, raises nothing, locks nothing; inlined. Callers: '
    'jobq._validate_specs, the enqueue fast path.';

-- Where a retried job runs again: now plus its backoff, with the stored backoffs (and the
-- settings) clamped to the backoff limit, saturating.
-- +goose StatementBegin
CREATE FUNCTION jobq._retry_at(p_now timestamptz, p_attempt integer, p_base interval, p_max interval)
RETURNS timestamptz
LANGUAGE sql
VOLATILE
AS $$
    SELECT jobq._ts_add(p_now, jobq.backoff_delay(
        p_attempt,
        least(greatest(coalesce(p_base, interval '2 seconds'), interval '1 microsecond'), jobq._limit_interval('backoff')),
        least(greatest(coalesce(p_max, interval '1 hour'), interval '1 microsecond'), jobq._limit_interval('backoff'))))
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._retry_at(timestamptz, integer, interval, interval) IS
    'Private. p_now + backoff_delay(p_attempt, p_base, p_max) for any stored values: a NULL base or max counts as 2 '
    'seconds or 1 hour, each is clamped to (0, 30 days], and the sum saturates (jobq._ts_add). Raises nothing. Callers: '
    'jobq._rescue, jobq.fail_jobs.';

REVOKE ALL ON FUNCTION jobq._limit(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._limit_interval(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._ts_in_range(timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._ts_add(timestamptz, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._ts_diff(timestamptz, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._check_text(text, text, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._check_interval(text, interval, interval, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._check_int(text, bigint, bigint, bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._check_timestamp(text, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._check_length(text, anyarray, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._max_payload_bytes() FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._check_payload(text, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._spec_in_bounds(jobq.job_spec) FROM PUBLIC;
REVOKE ALL ON FUNCTION jobq._retry_at(timestamptz, integer, interval, interval) FROM PUBLIC;
-- The gate functions (enqueue, enqueue_many, retry_job, cancel_job run as jobq_app_gate) check
-- specs and ranges.
GRANT EXECUTE ON FUNCTION jobq._limit(text) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._limit_interval(text) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._ts_in_range(timestamptz) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._ts_add(timestamptz, interval) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._check_text(text, text, integer) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._check_interval(text, interval, interval, boolean) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._check_int(text, bigint, bigint, bigint, text) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._check_timestamp(text, timestamptz) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._check_length(text, anyarray, integer) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._max_payload_bytes() TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._check_payload(text, jsonb) TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq._spec_in_bounds(jobq.job_spec) TO jobq_app_gate;

-- claim_job: bounded arguments; a stored timeout of any size gives a deadline (infinity at worst).
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
    PERFORM jobq._check_text('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
    IF p_queues IS NULL OR cardinality(p_queues) = 0 OR array_position(p_queues, NULL) IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queues must be a non-empty array without NULLs');
    END IF;
    PERFORM jobq._check_length('queues', p_queues, jobq._limit('queues')::integer);
    PERFORM jobq._check_text(format('queues[%s]', q.n), q.name, jobq._limit('queue')::integer)
    FROM unnest(p_queues) WITH ORDINALITY AS q(name, n)
    WHERE char_length(q.name) > jobq._limit('queue');
    IF p_max_jobs IS NULL OR p_max_jobs < 1 OR p_max_jobs > 10000 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('max_jobs %s is outside 1..10000', coalesce(p_max_jobs::text, 'NULL')));
    END IF;
    IF p_lease IS NULL OR p_lease <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('lease %s is not positive', coalesce(p_lease::text, 'NULL')));
    END IF;
    PERFORM jobq._check_interval('lease', p_lease, jobq._limit_interval('lease'));
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
            lease_expires_at = jobq._ts_add(p_now, p_lease),
            -- Saturating: a timeout stored before the limits (or by hand) cannot stop the queue.
            deadline_at      = jobq._ts_add(p_now, j.timeout),
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
    'is draining or detached. Locks the rows it claims (SKIP LOCKED). The deadline of a job whose stored timeout '
    'reaches past the end of time is infinity.';

-- rescue: stored backoffs clamped, sums saturating.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._rescue(p_batch_size integer, p_now timestamptz)
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
                                    ELSE jobq._retry_at(p_now, j.attempt, coalesce(j.backoff_base, v_base), coalesce(j.backoff_max, v_max))
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
    'Private. The sweeper at time p_now; see jobq.rescue_expired. A timed-out job runs again at jobq._retry_at: its '
    'stored backoff clamped to the backoff limit, the sum saturating, so no stored value makes it raise.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.rescue_expired(batch_size integer DEFAULT 1000)
RETURNS TABLE (job_id bigint, outcome text, reason text, task text, queue text, store_id uuid, attempt integer, locked_by text)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF rescue_expired.batch_size > jobq._limit('sweep') THEN
        PERFORM jobq._check_int('batch_size', rescue_expired.batch_size, 1, jobq._limit('sweep'));
    END IF;
    RETURN QUERY SELECT * FROM jobq._rescue(rescue_expired.batch_size, now());
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.rescue_expired(integer) IS
    'Sweeps at most batch_size running jobs whose lease expired (reason orphaned: back to the queue at once) or whose '
    'timeout passed (reason timed_out: back after its backoff); a job that used max_attempts becomes dead instead. The '
    'old lease token stops working, so the vanished worker''s late writes are refused. Returns one row per job (outcome '
    'retry_pending or dead). Callers: the runners'' leader, jobq.maintain, pg_cron. Locks the swept rows with SKIP '
    'LOCKED. Each row also names the job''s task, queue, store, attempt and the worker that lost it, for logs and '
    'alerts. Errors: JOB.INVALID_ARGUMENT (batch_size NULL or below 1), JOB.OUT_OF_RANGE (batch_size above 100000).';

-- maintain: every cut-off saturates, whatever the settings hold.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._maintain(p_worker_id text, p_epoch bigint, p_now timestamptz)
RETURNS jsonb
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_leader jobq.leader;
    v_enqueued integer;
    v_skipped integer;
    v_lost text[];
    v_rescued integer;
    v_pruned bigint;
    v_worker text;
    v_retention_cutoff constant timestamptz := jobq._ts_add(p_now, -jobq._setting_interval('history_retention'));
    v_silent_cutoff constant timestamptz := jobq._ts_add(p_now, -jobq._setting_interval('worker_timeout'));
BEGIN
    IF (p_worker_id IS NULL) <> (p_epoch IS NULL) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'pass both worker_id and epoch (fenced), or neither (unfenced)');
    END IF;
    PERFORM jobq._check_text('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
    IF p_worker_id IS NOT NULL THEN
        -- Held until commit: no other worker can take the leadership while this call acts.
        SELECT * INTO v_leader FROM jobq.leader l FOR SHARE;
        IF v_leader.holder IS DISTINCT FROM p_worker_id OR v_leader.epoch <> p_epoch OR v_leader.lease_expires_at <= p_now THEN
            RETURN jsonb_build_object('fenced', true, 'epoch', p_epoch, 'current_epoch', v_leader.epoch,
                                      'holder', v_leader.holder);
        END IF;
    END IF;

    SELECT (count(*) FILTER (WHERE d.outcome = 'enqueued'))::integer, (count(*) FILTER (WHERE d.outcome = 'skipped'))::integer
    INTO v_enqueued, v_skipped
    FROM jobq._enqueue_due_slots(p_now, 100) AS d;

    -- Silent workers: an active one is marked lost (a draining or detached one keeps the state
    -- an operator gave it); the leases of every silent worker are rescued now.
    WITH lost AS (
        UPDATE jobq.workers AS w SET state = 'lost', state_changed_at = p_now
        WHERE w.state = 'active'
          AND w.heartbeat_at < v_silent_cutoff
        RETURNING w.id
    )
    SELECT coalesce(array_agg(lost.id ORDER BY lost.id), '{}') INTO v_lost FROM lost;
    v_rescued := 0;
    FOR v_worker IN
        SELECT w.id FROM jobq.workers w
        WHERE w.heartbeat_at < v_silent_cutoff
          AND EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.locked_by = w.id AND j.state = 'running')
    LOOP
        v_rescued := v_rescued + jobq._release_worker_leases(v_worker, p_now);
    END LOOP;

    v_rescued := v_rescued + (SELECT count(*)::integer FROM jobq._rescue(1000, p_now));

    -- The oldest finished_at comes from the btree in O(log n): when nothing is past retention
    -- (nearly always: maintain runs every second), history is not read at all.
    v_pruned := 0;
    IF (SELECT min(o.finished_at) FROM jobq.job_history o) < v_retention_cutoff THEN
        DELETE FROM jobq.job_history AS h
        WHERE h.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.job_history o WHERE o.finished_at < v_retention_cutoff LIMIT 10000));
        GET DIAGNOSTICS v_pruned = ROW_COUNT;
    END IF;
    DELETE FROM jobq.schedule_runs AS r
    WHERE r.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.schedule_runs o WHERE o.created_at < v_retention_cutoff LIMIT 10000));
    DELETE FROM jobq.workers AS w
    WHERE w.state IN ('stopped', 'lost') AND w.state_changed_at < v_retention_cutoff;

    RETURN jsonb_build_object('fenced', false, 'epoch', p_epoch, 'slots_enqueued', v_enqueued, 'slots_skipped', v_skipped,
                              'lost_workers', to_jsonb(v_lost), 'rescued', v_rescued, 'history_pruned', v_pruned);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._maintain(text, bigint, timestamptz) IS
    'Private. jobq.maintain at time p_now. Its cut-offs (history_retention, worker_timeout) saturate (jobq._ts_add).';

-- queue_lag: a head job at -infinity (or any stored run_at) gives a lag, never an error.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.queue_lag(queues text[] DEFAULT NULL)
RETURNS TABLE (queue text, lag interval)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM jobq._check_length('queues', queue_lag.queues, jobq._limit('queues')::integer);
    RETURN QUERY
    SELECT q.name, coalesce(jobq._ts_diff(now(), head.run_at), interval '0')
    FROM (
        SELECT DISTINCT u.name FROM unnest(queue_lag.queues) AS u(name) WHERE u.name IS NOT NULL
        UNION
        SELECT DISTINCT j.queue FROM jobq.jobs j WHERE queue_lag.queues IS NULL
    ) AS q
    LEFT JOIN LATERAL (
        SELECT j.run_at
        FROM jobq.jobs j
        WHERE j.state IN ('queued', 'retry_pending') AND j.queue = q.name AND j.run_at <= now()
        ORDER BY j.priority, j.run_at, j.id
        LIMIT 1
    ) AS head ON true
    ORDER BY q.name;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.queue_lag(text[]) IS
    'Per queue (the given ones, NULL elements ignored, or every queue with a live job when NULL): how long the next '
    'job due to be claimed has waited past its run_at (0 when none is due; at most 200000 years, for a run_at stored '
    'as -infinity). Reveals no job content. Callers: runners (metrics), operators. Errors: JOB.OUT_OF_RANGE (more than '
    '1000 queues).';

-- fail_jobs: bounded arguments; the next run saturates.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.fail_jobs(
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
    PERFORM jobq._check_length('job_ids', fail_jobs.job_ids, jobq._limit('batch')::integer);
    IF EXISTS (SELECT 1 FROM unnest(fail_jobs.retry_in) AS r(d) WHERE r.d < interval '0') THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', 'retry_in must not be negative');
    END IF;
    PERFORM jobq._check_interval(format('retry_in[%s]', r.n), r.d, jobq._limit_interval('delay'), true)
    FROM unnest(fail_jobs.retry_in) WITH ORDINALITY AS r(d, n)
    WHERE r.d > jobq._limit_interval('delay');
    PERFORM jobq._check_text(format('error_codes[%s]', c.n), c.code, jobq._limit('error_code')::integer)
    FROM unnest(fail_jobs.error_codes) WITH ORDINALITY AS c(code, n)
    WHERE char_length(c.code) > jobq._limit('error_code');

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
            run_at           = CASE WHEN f.retry_in IS NOT NULL THEN jobq._ts_add(now(), f.retry_in)
                                    ELSE jobq._retry_at(now(), j.attempt, coalesce(j.backoff_base, v_base), coalesce(j.backoff_max, v_max))
                               END,
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
    'jobq.job_history; reason not_retryable or exhausted) or lease_lost (nothing changed; also for a NULL id or token). '
    'errors[i] is kept as last_error (first 10,000 characters); a NULL retryable[i] counts as true, a NULL retry_in[i] '
    'as the backoff. Caller: the runner. Locks the failed rows. Errors: JOB.INVALID_ARGUMENT (array lengths), '
    'JOB.LEASE_INVALID (negative retry_in), JOB.OUT_OF_RANGE (more than 10000 jobs, retry_in above 365 days), '
    'JOB.VALUE_TOO_LONG (an error code above 200 characters).';

-- backoff_ceiling: its arguments are checked; the exponent stops at 100 (2^100 seconds is far
-- beyond any backoff), so no argument overflows the double arithmetic.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval)
RETURNS interval
LANGUAGE plpgsql
IMMUTABLE
PARALLEL SAFE
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.backoff_ceiling(integer, interval, interval) IS
    'Upper bound of the retry delay after attempt p_attempt: min(p_max, p_base * 2^(p_attempt-1)); an attempt below 1 '
    '(or NULL) counts as 1; NULL p_base or p_max gives NULL. Pure; locks nothing. Errors: JOB.LEASE_INVALID (p_base or '
    'p_max not positive), JOB.OUT_OF_RANGE (p_base or p_max above 30 days).';

-- prune_history: bounded batch; the cut-off saturates.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.prune_history(batch_size integer DEFAULT 10000)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_cutoff constant timestamptz := jobq._ts_add(now(), -jobq._setting_interval('history_retention'));
    v_deleted bigint;
BEGIN
    IF prune_history.batch_size IS NULL OR prune_history.batch_size < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('batch_size %s must be at least 1', coalesce(prune_history.batch_size::text, 'NULL')));
    END IF;
    PERFORM jobq._check_int('batch_size', prune_history.batch_size, 1, jobq._limit('sweep'));
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
    'operators, pg_cron. Errors: JOB.INVALID_ARGUMENT (batch_size NULL or below 1), JOB.OUT_OF_RANGE (above 100000).';

-- _validate_specs: the cheap first test is jobq._spec_in_bounds; the first failing spec is
-- described, the errors of before first, then the limits.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._validate_specs(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bad record;
    v_mixed record;
    v_code text;
    v_detail text;
    v_label text;
BEGIN
    -- A cheap test finds the first bad spec; only that one is described.
    SELECT s.ordinality AS position, s.* INTO v_bad
    FROM unnest(p_specs) WITH ORDINALITY AS s
    WHERE NOT jobq._spec_in_bounds(ROW(s.task, s.payload, s.queue, s.run_at, s.priority, s.max_attempts, s.job_key,
                                       s.job_key_mode, s.store_id, s.timeout, s.backoff_base, s.backoff_max)::jobq.job_spec)
    ORDER BY s.ordinality
    LIMIT 1;
    IF NOT FOUND THEN
        -- Within one batch a key takes one mode: "last wins" is only defined for one mode.
        SELECT min(s.ordinality) AS position, s.job_key INTO v_mixed
        FROM unnest(p_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
        GROUP BY s.store_id, s.job_key
        HAVING count(DISTINCT coalesce(s.job_key_mode, 'replace')) > 1
        ORDER BY 1
        LIMIT 1;
        IF FOUND THEN
            PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('%sjob_key %L appears with different job_key_modes in one batch',
                CASE WHEN p_label_index THEN format('job %s: ', v_mixed.position) ELSE '' END, v_mixed.job_key));
        END IF;
        RETURN;
    END IF;

    v_label := CASE WHEN p_label_index THEN format('job %s: ', v_bad.position) ELSE '' END;
    IF v_bad.task IS NULL OR btrim(v_bad.task) = '' THEN
        v_code := 'JOB.TASK_REQUIRED';
        v_detail := 'task is NULL or empty';
    ELSIF v_bad.payload IS NOT NULL AND jsonb_typeof(v_bad.payload) <> 'object' THEN
        v_code := 'JOB.PAYLOAD_NOT_OBJECT';
        v_detail := format('payload is a JSON %s, not an object', jsonb_typeof(v_bad.payload));
    ELSIF v_bad.job_key_mode NOT IN ('replace', 'preserve_run_at', 'unsafe_dedupe') THEN
        v_code := 'JOB.UNKNOWN_JOB_KEY_MODE';
        v_detail := format('job_key_mode %L is not replace, preserve_run_at or unsafe_dedupe', v_bad.job_key_mode);
    ELSIF v_bad.max_attempts < 1 THEN
        v_code := 'JOB.MAX_ATTEMPTS_INVALID';
        v_detail := format('max_attempts is %s; it must be at least 1', v_bad.max_attempts);
    ELSIF btrim(v_bad.queue) = '' THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'queue is empty';
    ELSIF v_bad.job_key = '' THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'job_key is empty; pass NULL for no key';
    ELSIF v_bad.priority NOT BETWEEN -32768 AND 32767 THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := format('priority %s is outside -32768..32767', v_bad.priority);
    ELSIF v_bad.timeout <= interval '0' THEN
        v_code := 'JOB.LEASE_INVALID';
        v_detail := format('timeout %s is not positive', v_bad.timeout);
    ELSIF v_bad.store_id = '00000000-0000-0000-0000-000000000000'::uuid THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'store_id 00000000-0000-0000-0000-000000000000 is reserved for system jobs; pass NULL';
    ELSIF v_bad.backoff_base <= interval '0' OR v_bad.backoff_max <= interval '0' THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'backoff_base and backoff_max must be positive';
    ELSE
        -- The limits: each check raises, naming the field.
        PERFORM jobq._check_payload(v_label || 'payload', v_bad.payload);
        PERFORM jobq._check_text(v_label || 'queue', v_bad.queue, jobq._limit('queue')::integer);
        PERFORM jobq._check_text(v_label || 'job_key', v_bad.job_key, jobq._limit('job_key')::integer);
        PERFORM jobq._check_timestamp(v_label || 'run_at', v_bad.run_at);
        PERFORM jobq._check_int(v_label || 'max_attempts', v_bad.max_attempts, 1, jobq._limit('max_attempts'), 'JOB.MAX_ATTEMPTS_INVALID');
        PERFORM jobq._check_interval(v_label || 'timeout', v_bad.timeout, jobq._limit_interval('timeout'));
        PERFORM jobq._check_interval(v_label || 'backoff_base', v_bad.backoff_base, jobq._limit_interval('backoff'));
        PERFORM jobq._check_interval(v_label || 'backoff_max', v_bad.backoff_max, jobq._limit_interval('backoff'));
        RAISE EXCEPTION 'jobq internal error: job spec % is out of bounds but no check names why', v_bad.position;
    END IF;
    PERFORM jobq._raise(v_code, v_label || v_detail);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._validate_specs(jobq.job_spec[], boolean) IS
    'Private. Raises the catalogued error of the first spec outside its domain (jobq._spec_in_bounds): JOB.TASK_REQUIRED, '
    'JOB.PAYLOAD_NOT_OBJECT, JOB.UNKNOWN_JOB_KEY_MODE, JOB.MAX_ATTEMPTS_INVALID, JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT, '
    'JOB.PAYLOAD_TOO_LARGE, JOB.VALUE_TOO_LONG (queue, job_key), JOB.OUT_OF_RANGE (run_at, timeout, backoff); with '
    'p_label_index the message starts with the position (job N: ). Locks nothing.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.enqueue_many(jobs jsonb)
RETURNS SETOF bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_fields constant text[] := ARRAY['task', 'payload', 'queue', 'run_at', 'priority', 'max_attempts', 'job_key',
                                      'job_key_mode', 'store_id', 'timeout', 'backoff_base', 'backoff_max'];
    v_specs jobq.job_spec[];
    v_bad record;
    v_default_attempts integer;
    v_queues text[];
BEGIN
    IF jobs IS NULL OR jsonb_typeof(jobs) <> 'array' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('jobs must be a JSON array of job objects, not %s', coalesce(jsonb_typeof(jobs), 'NULL')));
    END IF;
    IF jsonb_array_length(jobs) > jobq._limit('enqueue_many') THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('jobs has %s elements; the limit is %s', jsonb_array_length(jobs), jobq._limit('enqueue_many')));
    END IF;
    -- Every element an object, every key a field of jobq.job_spec: a misspelt key is an error,
    -- not a silent default. An element with only known keys is empty once they are removed.
    SELECT e.n AS position, jsonb_typeof(e.v) AS kind,
           (SELECT k.key FROM jsonb_object_keys(CASE WHEN jsonb_typeof(e.v) = 'object' THEN e.v - v_fields END) AS k(key)
            LIMIT 1) AS key
    INTO v_bad
    FROM jsonb_array_elements(jobs) WITH ORDINALITY AS e(v, n)
    WHERE jsonb_typeof(e.v) <> 'object' OR e.v - v_fields <> '{}'::jsonb
    ORDER BY e.n
    LIMIT 1;
    IF FOUND THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', CASE
            WHEN v_bad.kind <> 'object' THEN format('job %s: every element of jobs must be a JSON object, not %s', v_bad.position, v_bad.kind)
            ELSE format('job %s: unknown field %L (fields: task, payload, queue, run_at, priority, max_attempts, job_key, '
                        'job_key_mode, store_id, timeout, backoff_base, backoff_max)', v_bad.position, v_bad.key)
        END);
    END IF;

    BEGIN
        v_specs := ARRAY(SELECT r FROM jsonb_populate_recordset(NULL::jobq.job_spec, jobs) AS r);
    EXCEPTION WHEN data_exception THEN
        -- A field that does not parse as its type ("run_at": "soon"): find and name the element.
        FOR v_i IN 1 .. jsonb_array_length(jobs) LOOP
            BEGIN
                PERFORM jsonb_populate_record(NULL::jobq.job_spec, jobs -> (v_i - 1));
            EXCEPTION WHEN data_exception THEN
                PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('job %s: %s', v_i, SQLERRM));
            END;
        END LOOP;
        RAISE;
    END;

    -- The fast path: every element keyless and passing every check (tasks joined once, by hash).
    IF NOT EXISTS (SELECT 1
                   FROM unnest(v_specs) AS s
                   LEFT JOIN jobq.tasks t ON t.name = btrim(s.task)
                   WHERE NOT (jobq._enqueue_takes_fast_path(s, t) AND jobq._spec_in_bounds(s))) THEN
        v_default_attempts := (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts');
        -- Ids drawn in input order, so each is returned at its position.
        RETURN QUERY
        WITH src AS MATERIALIZED (
            SELECT r.ord, nextval('jobq.jobs_id_seq'::regclass) AS id, r.task, r.queue, r.payload, r.store_id, r.priority,
                   r.run_at, r.max_attempts, r.timeout, r.backoff_base, r.backoff_max
            FROM (SELECT s.ordinality AS ord,
                         (jobq._resolve_spec(ROW(s.task, s.payload, s.queue, s.run_at, s.priority, s.max_attempts, s.job_key,
                                                 s.job_key_mode, s.store_id, s.timeout, s.backoff_base, s.backoff_max)::jobq.job_spec,
                                             t, v_default_attempts)).*
                  FROM unnest(v_specs) WITH ORDINALITY AS s
                  JOIN jobq.tasks t ON t.name = btrim(s.task)
                  ORDER BY s.ordinality) AS r
        ), ins AS (
            INSERT INTO jobq.jobs (id, task, queue, payload, store_id, priority, run_at, max_attempts,
                                   timeout, backoff_base, backoff_max)
            OVERRIDING SYSTEM VALUE
            SELECT src.id, src.task, src.queue, src.payload, src.store_id, src.priority, src.run_at, src.max_attempts,
                   src.timeout, src.backoff_base, src.backoff_max
            FROM src
        )
        SELECT src.id FROM src ORDER BY src.ord;

        -- Each queue that got a due job wakes once (jobq._wake: as the setting wakeup says).
        v_queues := ARRAY(SELECT DISTINCT (jobq._resolve_spec(s, t, v_default_attempts)).queue
                          FROM unnest(v_specs) AS s
                          JOIN jobq.tasks t ON t.name = btrim(s.task)
                          WHERE coalesce(s.run_at, now()) <= now());
        PERFORM jobq._wake(q.queue) FROM unnest(v_queues) AS q(queue);
        RETURN;
    END IF;

    RETURN QUERY
    SELECT e.job_id FROM jobq._enqueue(v_specs, true) AS e ORDER BY e.ord;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.enqueue_many(jsonb) IS
    'Enqueues many jobs from a JSON array of objects whose keys are the fields of jobq.job_spec '
    '(task, payload, queue, run_at, priority, max_attempts, job_key, job_key_mode, store_id, timeout, backoff_base, backoff_max). '
    'Unknown fields and values that do not parse are errors too (JOB.INVALID_ARGUMENT); so are more than 100000 elements (JOB.OUT_OF_RANGE). '
    'All or nothing: one invalid element raises its JOB.* error naming its position and writes nothing. '
    'A batch of keyless jobs that all pass every check is inserted in one statement (jobq._enqueue_takes_fast_path, '
    'jobq._resolve_spec); any other goes through jobq._enqueue. Locks the job rows it writes. '
    'Returns the ids in input order. Callers: applications, handlers, operators.';

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
    PERFORM jobq._check_interval('lease', heartbeat_jobs.lease, jobq._limit_interval('lease'));
    IF cardinality(heartbeat_jobs.job_ids) IS DISTINCT FROM cardinality(heartbeat_jobs.lease_tokens) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids and lease_tokens must have the same length');
    END IF;
    PERFORM jobq._check_length('job_ids', heartbeat_jobs.job_ids, jobq._limit('batch')::integer);
    PERFORM jobq._check_text('worker_id', heartbeat_jobs.worker_id, jobq._limit('worker_id')::integer);

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
COMMENT ON FUNCTION jobq.heartbeat_jobs(text, bigint[], uuid[], interval) IS
    'Renews, in one statement, every lease in (job_ids, lease_tokens) that worker_id still holds: lease_expires_at = '
    'now() + lease. Returns the renewed jobs; a job missing from the result has lost its lease (rescued, canceled, '
    'finished) and its handler must stop. Caller: the runner, once per heartbeat interval. Locks the renewed rows. '
    'Errors: JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval DEFAULT '0 seconds')
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
    PERFORM jobq._check_interval('delay', snooze_jobs.delay, jobq._limit_interval('delay'), true);
    IF cardinality(snooze_jobs.job_ids) IS DISTINCT FROM cardinality(snooze_jobs.lease_tokens) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids and lease_tokens must have the same length');
    END IF;
    PERFORM jobq._check_length('job_ids', snooze_jobs.job_ids, jobq._limit('batch')::integer);

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
        SELECT count(jobq._wake(q.queue)) AS n
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
    PERFORM jobq._check_length('job_ids', complete_jobs.job_ids, jobq._limit('batch')::integer);

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
COMMENT ON FUNCTION jobq.complete_jobs(bigint[], uuid[]) IS
    'Completes many attempts in one statement. Returns one row per input lease, in input order: outcome succeeded '
    '(moved to jobq.job_history now, or earlier under the same token: completing is idempotent per lease) or '
    'lease_lost (not running under that token: rescued, canceled or finished otherwise; nothing changed). Caller: the runner. Locks (in id order) and deletes the completed rows. Errors: JOB.INVALID_ARGUMENT (array lengths differ), JOB.OUT_OF_RANGE (more than 10000 jobs).';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer, version text DEFAULT '')
RETURNS jsonb
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF register_worker.worker_id IS NULL OR btrim(register_worker.worker_id) = '' OR register_worker.node IS NULL
       OR register_worker.queues IS NULL OR cardinality(register_worker.queues) = 0
       OR register_worker.concurrency IS NULL OR register_worker.concurrency < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id, node, queues (non-empty) and concurrency (>= 1) are required');
    END IF;
    IF array_position(register_worker.queues, NULL) IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queues must not hold NULLs');
    END IF;
    PERFORM jobq._check_text('worker_id', register_worker.worker_id, jobq._limit('worker_id')::integer);
    PERFORM jobq._check_text('node', register_worker.node, jobq._limit('node')::integer);
    PERFORM jobq._check_text('version', register_worker.version, jobq._limit('version')::integer);
    PERFORM jobq._check_int('pid', register_worker.pid, 0, 2147483647);
    PERFORM jobq._check_int('concurrency', register_worker.concurrency, 1, jobq._limit('concurrency'));
    PERFORM jobq._check_length('queues', register_worker.queues, jobq._limit('queues')::integer);
    PERFORM jobq._check_text(format('queues[%s]', q.n), q.name, jobq._limit('queue')::integer)
    FROM unnest(register_worker.queues) WITH ORDINALITY AS q(name, n)
    WHERE char_length(q.name) > jobq._limit('queue');
    INSERT INTO jobq.workers AS w (id, node, pid, queues, concurrency, version)
    VALUES (register_worker.worker_id, register_worker.node, register_worker.pid, register_worker.queues,
            register_worker.concurrency, coalesce(register_worker.version, ''))
    ON CONFLICT ON CONSTRAINT workers_pkey DO UPDATE SET
        node = EXCLUDED.node, pid = EXCLUDED.pid, queues = EXCLUDED.queues, concurrency = EXCLUDED.concurrency,
        version = EXCLUDED.version, state = 'active', started_at = now(), heartbeat_at = now(), state_changed_at = now();
    RETURN jobq._settings_json();
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.register_worker(text, text, integer, text[], integer, text) IS
    'Registers runner worker_id (node, pid, queues, concurrency, version) as active and returns the settings '
    '{name: value} it applies. Caller: runners at start. Errors: JOB.INVALID_ARGUMENT (a required argument NULL or '
    'empty, a NULL queue), JOB.VALUE_TOO_LONG (worker_id, node, version, a queue), JOB.OUT_OF_RANGE (pid negative, '
    'concurrency above 10000, more than 1000 queues).';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.worker_heartbeat(worker_id text, running integer DEFAULT 0)
RETURNS TABLE (state text, settings jsonb)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_state text;
BEGIN
    PERFORM jobq._check_text('worker_id', worker_heartbeat.worker_id, jobq._limit('worker_id')::integer);
    PERFORM jobq._check_int('running', worker_heartbeat.running, 0, jobq._limit('running'));
    UPDATE jobq.workers AS w
    SET heartbeat_at = now(),
        running = coalesce(worker_heartbeat.running, 0),
        -- A worker marked lost that heartbeats again is back (its old leases were rescued and
        -- their tokens no longer work); drained and detached workers stay so.
        state = CASE WHEN w.state = 'lost' THEN 'active' ELSE w.state END,
        state_changed_at = CASE WHEN w.state = 'lost' THEN now() ELSE w.state_changed_at END
    WHERE w.id = worker_heartbeat.worker_id
    RETURNING w.state INTO v_state;
    IF v_state IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_WORKER', format('worker %L is not registered', worker_heartbeat.worker_id));
    END IF;
    state := v_state;
    settings := jobq._settings_json();
    RETURN NEXT;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.worker_heartbeat(text, integer) IS
    'Records a runner''s heartbeat and load; returns its state (active, draining, detached) and the settings. '
    'A runner that is draining or detached stops claiming. Caller: runners every worker_heartbeat_interval. '
    'running NULL counts as 0. Errors: JOB.UNKNOWN_WORKER, JOB.VALUE_TOO_LONG (worker_id), JOB.OUT_OF_RANGE (running '
    'outside 0..1000000).';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.set_setting(name text, value text)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_setting jobq.settings;
BEGIN
    SELECT * INTO v_setting FROM jobq.settings s WHERE s.name = set_setting.name FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SETTING', format('no setting is named %L', set_setting.name));
    END IF;
    BEGIN
        CASE v_setting.kind
            WHEN 'interval' THEN
                IF set_setting.value::interval <= interval '0' THEN
                    RAISE invalid_parameter_value;
                END IF;
            WHEN 'integer' THEN
                IF set_setting.value::integer < 1 THEN
                    RAISE invalid_parameter_value;
                END IF;
            WHEN 'boolean' THEN
                PERFORM set_setting.value::boolean;
            ELSE
                NULL;
        END CASE;
        IF set_setting.value IS NULL THEN
            RAISE invalid_parameter_value;
        END IF;
    EXCEPTION WHEN data_exception OR invalid_parameter_value OR invalid_text_representation THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SETTING',
            format('%L is not a valid positive %s for setting %s', set_setting.value, v_setting.kind, set_setting.name));
    END;

    -- Each value within its range: the same limits as the arguments the setting stands for.
    PERFORM jobq._check_text(format('value of setting %s', set_setting.name), set_setting.value, jobq._limit('setting_value')::integer);
    IF v_setting.kind = 'interval' THEN
        PERFORM jobq._check_interval(format('value of setting %s', set_setting.name), set_setting.value::interval,
            CASE set_setting.name
                WHEN 'history_retention' THEN jobq._limit_interval('history_retention')
                WHEN 'backoff_base' THEN jobq._limit_interval('backoff')
                WHEN 'backoff_max' THEN jobq._limit_interval('backoff')
                WHEN 'default_lease' THEN jobq._limit_interval('lease')
                ELSE jobq._limit_interval('ttl')
            END);
    ELSIF v_setting.kind = 'integer' THEN
        PERFORM jobq._check_int(format('value of setting %s', set_setting.name), set_setting.value::bigint,
            CASE set_setting.name WHEN 'max_payload_bytes' THEN jobq._limit('min_payload_bytes') ELSE 1 END,
            CASE set_setting.name
                WHEN 'default_max_attempts' THEN jobq._limit('max_attempts')
                WHEN 'max_payload_bytes' THEN jobq._limit('max_payload_bytes')
                ELSE 2147483647
            END);
    END IF;

    -- wakeup takes one of three words; what enqueue does with each is in jobq._insert_specs.
    IF v_setting.name = 'wakeup' AND set_setting.value NOT IN ('notify', 'wal', 'both') THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SETTING',
            format('%L is not a wake-up mode for setting wakeup; use notify, wal or both', set_setting.value));
    END IF;
    IF v_setting.name = 'wakeup' AND set_setting.value <> 'notify' AND current_setting('wal_level') <> 'logical' THEN
        RAISE WARNING USING
            MESSAGE = format('jobq: wakeup is %s, but wal_level is %s: no runner can decode the wake-up messages',
                             set_setting.value, current_setting('wal_level')),
            HINT = 'Set wal_level = logical (it takes a restart); until then runners in WAL mode poll.';
    END IF;

    UPDATE jobq.settings AS s SET value = set_setting.value, updated_at = now() WHERE s.name = set_setting.name;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('set_setting', jsonb_build_object('name', set_setting.name, 'from', v_setting.value, 'to', set_setting.value));
    RETURN set_setting.value;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.set_setting(text, text) IS
    'Changes a jobq.settings value after checking it parses as the setting''s kind (intervals and integers must be '
    'positive; wakeup is notify, wal or both, with a warning when wal_level is not logical). Audited with old and new '
    'value. Returns the new value. Caller: operators. Errors: JOB.UNKNOWN_SETTING, JOB.VALUE_TOO_LONG (a value above '
    '1000 characters), JOB.OUT_OF_RANGE (history_retention above 3650 days, backoff_base and backoff_max above 30 days, '
    'the other intervals above 1 day, default_max_attempts above 1000, max_payload_bytes outside 1024..268435456).';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.schedule(
    name               text,
    cron               text,
    task               text,
    payload            jsonb    DEFAULT '{}',
    timezone           text     DEFAULT 'UTC',
    concurrency_policy text     DEFAULT 'allow',
    backfill_window    interval DEFAULT '15 minutes',
    backfill           text     DEFAULT 'all',
    jitter             interval DEFAULT '0',
    slot_key           text     DEFAULT 'slotAt',
    queue              text     DEFAULT NULL,
    priority           integer  DEFAULT NULL,
    max_attempts       integer  DEFAULT NULL,
    enabled            boolean  DEFAULT true
)
RETURNS timestamptz
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_fields jobq.cron_fields;
    v_scope text;
    v_schema jsonb;
    v_problem text;
    v_next timestamptz;
    v_changed boolean;
BEGIN
    IF schedule.name IS NULL OR schedule.name !~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' OR length(schedule.name) > 100 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('schedule name %L is not kebab-case', schedule.name));
    END IF;
    v_fields := jobq.cron_parse(schedule.cron);
    PERFORM jobq._check_timezone(schedule.timezone);
    SELECT t.scope, t.payload_schema INTO v_scope, v_schema FROM jobq.tasks t WHERE t.name = schedule.task;
    IF v_scope IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', schedule.task));
    ELSIF v_scope <> 'system' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('schedules run system tasks; %s is store-scoped (schedule a system task that calls jobq.fan_out)', schedule.task));
    END IF;
    IF schedule.payload IS NULL OR jsonb_typeof(schedule.payload) <> 'object' THEN
        PERFORM jobq._raise('JOB.PAYLOAD_NOT_OBJECT', 'the schedule payload must be a JSON object');
    END IF;
    IF schedule.concurrency_policy IS NULL OR schedule.concurrency_policy NOT IN ('allow', 'forbid', 'replace') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('concurrency_policy %L is not allow, forbid or replace', schedule.concurrency_policy));
    END IF;
    IF schedule.backfill IS NULL OR schedule.backfill NOT IN ('all', 'latest') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('backfill %L is not all or latest', schedule.backfill));
    END IF;
    IF schedule.backfill_window IS NULL OR schedule.backfill_window < interval '0'
       OR schedule.jitter IS NULL OR schedule.jitter < interval '0' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'backfill_window and jitter must be zero or positive');
    END IF;
    PERFORM jobq._check_interval('backfill_window', schedule.backfill_window, jobq._limit_interval('backfill_window'), true);
    PERFORM jobq._check_interval('jitter', schedule.jitter, jobq._limit_interval('jitter'), true);
    IF schedule.max_attempts < 1 THEN
        PERFORM jobq._raise('JOB.MAX_ATTEMPTS_INVALID', format('max_attempts is %s; it must be at least 1', schedule.max_attempts));
    END IF;
    PERFORM jobq._check_int('max_attempts', schedule.max_attempts, 1, jobq._limit('max_attempts'), 'JOB.MAX_ATTEMPTS_INVALID');
    PERFORM jobq._check_text('slot_key', schedule.slot_key, jobq._limit('slot_key')::integer);
    PERFORM jobq._check_text('queue', schedule.queue, jobq._limit('queue')::integer);
    PERFORM jobq._check_payload('payload', schedule.payload);
    IF schedule.slot_key = '' OR schedule.queue = '' OR schedule.priority NOT BETWEEN -32768 AND 32767
       OR schedule.enabled IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            'slot_key and queue must not be empty, priority must fit -32768..32767, and enabled must not be NULL');
    END IF;
    -- The jobs it will enqueue must keep the task's contract (with the slot key filled in).
    v_problem := jobq.payload_problem(v_schema, CASE WHEN schedule.slot_key IS NULL THEN schedule.payload
        ELSE schedule.payload || jsonb_build_object(schedule.slot_key, '2000-01-01T00:00:00Z') END);
    IF v_problem IS NOT NULL THEN
        PERFORM jobq._raise('JOB.PAYLOAD_INVALID', format('schedule %s, task %s: %s', schedule.name, schedule.task, v_problem));
    END IF;
    v_next := jobq._cron_next(v_fields, now(), schedule.timezone);
    IF v_next IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%L never fires', schedule.cron));
    END IF;

    INSERT INTO jobq.schedules AS s (name, cron, fields, timezone, task, payload, slot_key, queue, priority, max_attempts,
                                     concurrency_policy, backfill_window, backfill, jitter, enabled, next_slot_at)
    VALUES (schedule.name, schedule.cron, v_fields, schedule.timezone, schedule.task, schedule.payload, schedule.slot_key,
            schedule.queue, schedule.priority, schedule.max_attempts, schedule.concurrency_policy, schedule.backfill_window,
            schedule.backfill, schedule.jitter, schedule.enabled, v_next)
    ON CONFLICT ON CONSTRAINT schedules_pkey DO UPDATE SET
        cron = EXCLUDED.cron, fields = EXCLUDED.fields, timezone = EXCLUDED.timezone, task = EXCLUDED.task,
        payload = EXCLUDED.payload, slot_key = EXCLUDED.slot_key, queue = EXCLUDED.queue, priority = EXCLUDED.priority,
        max_attempts = EXCLUDED.max_attempts, concurrency_policy = EXCLUDED.concurrency_policy,
        backfill_window = EXCLUDED.backfill_window, backfill = EXCLUDED.backfill, jitter = EXCLUDED.jitter,
        enabled = EXCLUDED.enabled,
        next_slot_at = CASE WHEN (s.cron, s.timezone) IS DISTINCT FROM (EXCLUDED.cron, EXCLUDED.timezone) OR s.next_slot_at IS NULL
                            THEN EXCLUDED.next_slot_at ELSE s.next_slot_at END,
        updated_at = now()
    WHERE (s.cron, s.timezone, s.task, s.payload, s.slot_key, s.queue, s.priority, s.max_attempts, s.concurrency_policy,
           s.backfill_window, s.backfill, s.jitter, s.enabled)
          IS DISTINCT FROM
          (EXCLUDED.cron, EXCLUDED.timezone, EXCLUDED.task, EXCLUDED.payload, EXCLUDED.slot_key, EXCLUDED.queue,
           EXCLUDED.priority, EXCLUDED.max_attempts, EXCLUDED.concurrency_policy, EXCLUDED.backfill_window,
           EXCLUDED.backfill, EXCLUDED.jitter, EXCLUDED.enabled);
    v_changed := FOUND;
    IF v_changed THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('schedule', jsonb_build_object('schedule', schedule.name, 'cron', schedule.cron, 'task', schedule.task,
                                               'timezone', schedule.timezone, 'enabled', schedule.enabled));
    END IF;

    RETURN (SELECT s.next_slot_at FROM jobq.schedules s WHERE s.name = schedule.name);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.schedule(text, text, text, jsonb, text, text, interval, text, interval, text, text, integer, integer, boolean) IS
    'Declares or updates the schedule name: task (a declared system task) runs at every slot of cron in timezone '
    '(default UTC), with payload plus {slot_key: slot instant} (default key slotAt; NULL adds none). Idempotent: '
    'nothing changes when nothing differs; a changed cron or time zone restarts from the next slot after now(). '
    'Returns the next slot. A change is audited. Callers: operators, runners syncing code-declared schedules. Errors: '
    'JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.UNKNOWN_TASK, JOB.INVALID_ARGUMENT, JOB.PAYLOAD_NOT_OBJECT, '
    'JOB.PAYLOAD_INVALID (the payload breaks the task''s contract), JOB.MAX_ATTEMPTS_INVALID (outside 1..1000), '
    'JOB.LEASE_INVALID (negative backfill_window or jitter), JOB.OUT_OF_RANGE (backfill_window above 7 days, jitter '
    'above 1 day), JOB.VALUE_TOO_LONG (slot_key above 100, queue above 200 characters), JOB.PAYLOAD_TOO_LARGE.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.requeue_dead(task text DEFAULT NULL, finished_after timestamptz DEFAULT NULL, max_jobs integer DEFAULT 1000)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF requeue_dead.max_jobs IS NULL OR requeue_dead.max_jobs < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('max_jobs %s must be at least 1', coalesce(requeue_dead.max_jobs::text, 'NULL')));
    END IF;
    PERFORM jobq._check_int('max_jobs', requeue_dead.max_jobs, 1, jobq._limit('sweep'));
    PERFORM jobq._check_text('task', requeue_dead.task, jobq._limit('task')::integer);
    PERFORM jobq._check_timestamp('finished_after', requeue_dead.finished_after);
    RETURN (
        SELECT count(*)
        FROM jobq._revive(ARRAY(
            SELECT h.id FROM jobq.job_history h
            WHERE h.state = 'dead'
              AND (requeue_dead.task IS NULL OR h.task = requeue_dead.task)
              AND (requeue_dead.finished_after IS NULL OR h.finished_at >= requeue_dead.finished_after)
            ORDER BY h.finished_at, h.id
            LIMIT requeue_dead.max_jobs
            FOR UPDATE SKIP LOCKED), 'requeue_dead'));
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.requeue_dead(text, timestamptz, integer) IS
    'Queues dead jobs again (attempt 0, run now), oldest death first, filtered by task and finished_after, at most '
    'max_jobs; a job whose key a live job holds is left dead. Audits each job. Returns the number queued. '
    'Caller: operators. Errors: JOB.INVALID_ARGUMENT (max_jobs NULL or below 1), JOB.OUT_OF_RANGE (max_jobs above '
    '100000, finished_after outside 1970..9999), JOB.VALUE_TOO_LONG (task above 100 characters).';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._acquire_leadership(p_worker_id text, p_ttl interval, p_now timestamptz)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_epoch bigint;
    v_previous_epoch bigint;
BEGIN
    IF p_worker_id IS NULL OR btrim(p_worker_id) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id is NULL or empty');
    END IF;
    IF p_ttl IS NULL OR p_ttl <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('ttl %s is not positive', coalesce(p_ttl::text, 'NULL')));
    END IF;
    PERFORM jobq._check_interval('ttl', p_ttl, jobq._limit_interval('ttl'));
    PERFORM jobq._check_text('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
    SELECT l.epoch INTO v_previous_epoch FROM jobq.leader l FOR UPDATE;
    UPDATE jobq.leader AS l
    SET epoch            = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.epoch ELSE l.epoch + 1 END,
        acquired_at      = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.acquired_at ELSE p_now END,
        holder           = p_worker_id,
        lease_expires_at = jobq._ts_add(p_now, p_ttl)
    WHERE l.holder IS NULL OR l.lease_expires_at <= p_now OR l.holder = p_worker_id
    RETURNING l.epoch INTO v_epoch;
    IF v_epoch IS NOT NULL AND v_epoch <> v_previous_epoch THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('leader_changed', jsonb_build_object('worker_id', p_worker_id, 'epoch', v_epoch));
    END IF;
    RETURN v_epoch;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._acquire_leadership(text, interval, timestamptz) IS
    'Private. The leadership at time p_now; see jobq.acquire_leadership.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._set_worker_state(p_worker_id text, p_state text, p_action text)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_previous text;
BEGIN
    PERFORM jobq._check_text('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
    SELECT w.state INTO v_previous FROM jobq.workers w WHERE w.id = p_worker_id FOR UPDATE;
    IF v_previous IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_WORKER', format('worker %L is not registered', p_worker_id));
    END IF;
    UPDATE jobq.workers AS w SET state = p_state, state_changed_at = now() WHERE w.id = p_worker_id;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES (p_action, jsonb_build_object('worker_id', p_worker_id, 'previous_state', v_previous, 'state', p_state));
    RETURN v_previous;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._set_worker_state(text, text, text) IS 'Private. Sets a worker''s state, audited as p_action; returns the previous state.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.deregister_worker(worker_id text)
RETURNS void
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._check_text('worker_id', deregister_worker.worker_id, jobq._limit('worker_id')::integer);
    UPDATE jobq.workers AS w SET state = 'stopped', state_changed_at = now(), running = 0
    WHERE w.id = deregister_worker.worker_id;
    UPDATE jobq.leader AS l SET lease_expires_at = now() WHERE l.holder = deregister_worker.worker_id;
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.deregister_worker(text) IS
    'Marks a runner stopped after a clean drain and gives up its leadership, so another runner takes over at once. '
    'Caller: runners at exit. Errors: JOB.VALUE_TOO_LONG (worker_id above 200 characters).';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb)
RETURNS text
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    (SELECT CASE WHEN NOT p_payload ? k.name THEN format('required key %s is missing', k.name)
                ELSE format('key %s must be %s %s, not %s', k.name,
                            CASE WHEN c.type IN ('integer', 'object', 'array', 'any') THEN 'an' ELSE 'a' END, c.type,
                            p_payload -> k.name)
           END
    FROM jsonb_each_text(CASE WHEN jsonb_typeof(p_schema) = 'object' THEN p_schema ELSE '{}'::jsonb END) AS c(key, type)
    CROSS JOIN LATERAL (SELECT rtrim(c.key, '?') AS name, c.key LIKE '%?' AS optional) AS k
    WHERE (NOT k.optional AND NOT p_payload ? k.name)
       OR (p_payload ? k.name AND NOT jobq._json_type_ok(p_payload -> k.name, c.type)
           -- An optional key may be given as null.
           AND NOT (k.optional AND jsonb_typeof(p_payload -> k.name) = 'null'))
    ORDER BY c.key
    LIMIT 1)
    UNION ALL
    -- A contract that is no JSON object is a problem itself, not an error.
    SELECT format('the payload contract is a JSON %s, not an object', jsonb_typeof(p_schema))
    WHERE jsonb_typeof(p_schema) <> 'object'
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.payload_problem(jsonb, jsonb) IS
    'The first way a payload breaks a task''s payload contract ("required key storeId is missing", "key targetDate must be '
    'a date, not 5"), or NULL when it keeps it (or either is NULL). Takes any arguments: a contract that is no JSON '
    'object gives "the payload contract is a JSON array, not an object". Pure; callers: enqueue, tests, applications '
    'that check before enqueueing.';

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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._rescue(p_batch_size integer, p_now timestamptz)
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
CREATE OR REPLACE FUNCTION jobq.rescue_expired(batch_size integer DEFAULT 1000)
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._maintain(p_worker_id text, p_epoch bigint, p_now timestamptz)
RETURNS jsonb
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_leader jobq.leader;
    v_enqueued integer;
    v_skipped integer;
    v_lost text[];
    v_rescued integer;
    v_pruned bigint;
    v_worker text;
    v_retention constant interval := jobq._setting_interval('history_retention');
BEGIN
    IF (p_worker_id IS NULL) <> (p_epoch IS NULL) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'pass both worker_id and epoch (fenced), or neither (unfenced)');
    END IF;
    IF p_worker_id IS NOT NULL THEN
        -- Held until commit: no other worker can take the leadership while this call acts.
        SELECT * INTO v_leader FROM jobq.leader l FOR SHARE;
        IF v_leader.holder IS DISTINCT FROM p_worker_id OR v_leader.epoch <> p_epoch OR v_leader.lease_expires_at <= p_now THEN
            RETURN jsonb_build_object('fenced', true, 'epoch', p_epoch, 'current_epoch', v_leader.epoch,
                                      'holder', v_leader.holder);
        END IF;
    END IF;

    SELECT (count(*) FILTER (WHERE d.outcome = 'enqueued'))::integer, (count(*) FILTER (WHERE d.outcome = 'skipped'))::integer
    INTO v_enqueued, v_skipped
    FROM jobq._enqueue_due_slots(p_now, 100) AS d;

    -- Silent workers: an active one is marked lost (a draining or detached one keeps the state
    -- an operator gave it); the leases of every silent worker are rescued now.
    WITH lost AS (
        UPDATE jobq.workers AS w SET state = 'lost', state_changed_at = p_now
        WHERE w.state = 'active'
          AND w.heartbeat_at < p_now - jobq._setting_interval('worker_timeout')
        RETURNING w.id
    )
    SELECT coalesce(array_agg(lost.id ORDER BY lost.id), '{}') INTO v_lost FROM lost;
    v_rescued := 0;
    FOR v_worker IN
        SELECT w.id FROM jobq.workers w
        WHERE w.heartbeat_at < p_now - jobq._setting_interval('worker_timeout')
          AND EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.locked_by = w.id AND j.state = 'running')
    LOOP
        v_rescued := v_rescued + jobq._release_worker_leases(v_worker, p_now);
    END LOOP;

    v_rescued := v_rescued + (SELECT count(*)::integer FROM jobq._rescue(1000, p_now));

    -- The oldest finished_at comes from the btree in O(log n): when nothing is past retention
    -- (nearly always: maintain runs every second), history is not read at all.
    v_pruned := 0;
    IF (SELECT min(o.finished_at) FROM jobq.job_history o) < p_now - v_retention THEN
        DELETE FROM jobq.job_history AS h
        WHERE h.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.job_history o WHERE o.finished_at < p_now - v_retention LIMIT 10000));
        GET DIAGNOSTICS v_pruned = ROW_COUNT;
    END IF;
    DELETE FROM jobq.schedule_runs AS r
    WHERE r.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.schedule_runs o WHERE o.created_at < p_now - v_retention LIMIT 10000));
    DELETE FROM jobq.workers AS w
    WHERE w.state IN ('stopped', 'lost') AND w.state_changed_at < p_now - v_retention;

    RETURN jsonb_build_object('fenced', false, 'epoch', p_epoch, 'slots_enqueued', v_enqueued, 'slots_skipped', v_skipped,
                              'lost_workers', to_jsonb(v_lost), 'rescued', v_rescued, 'history_pruned', v_pruned);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._maintain(text, bigint, timestamptz) IS 'Private. jobq.maintain at time p_now.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.queue_lag(queues text[] DEFAULT NULL)
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.fail_jobs(
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval)
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.prune_history(batch_size integer DEFAULT 10000)
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._validate_specs(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bad record;
    v_mixed record;
    v_code text;
    v_detail text;
BEGIN
    -- A cheap test finds the first bad spec; only that one is described.
    SELECT s.ordinality AS position, s.* INTO v_bad
    FROM unnest(p_specs) WITH ORDINALITY AS s
    WHERE s.task IS NULL OR btrim(s.task) = ''
       OR (s.payload IS NOT NULL AND jsonb_typeof(s.payload) <> 'object')
       OR (s.job_key_mode IS NOT NULL AND s.job_key_mode NOT IN ('replace', 'preserve_run_at', 'unsafe_dedupe'))
       OR s.max_attempts < 1
       OR btrim(s.queue) = ''
       OR s.job_key = ''
       OR s.priority NOT BETWEEN -32768 AND 32767
       OR s.timeout <= interval '0'
       OR s.backoff_base <= interval '0'
       OR s.backoff_max <= interval '0'
       OR s.store_id = '00000000-0000-0000-0000-000000000000'::uuid
    ORDER BY s.ordinality
    LIMIT 1;
    IF NOT FOUND THEN
        -- Within one batch a key takes one mode: "last wins" is only defined for one mode.
        SELECT min(s.ordinality) AS position, s.job_key INTO v_mixed
        FROM unnest(p_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
        GROUP BY s.store_id, s.job_key
        HAVING count(DISTINCT coalesce(s.job_key_mode, 'replace')) > 1
        ORDER BY 1
        LIMIT 1;
        IF FOUND THEN
            PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('%sjob_key %L appears with different job_key_modes in one batch',
                CASE WHEN p_label_index THEN format('job %s: ', v_mixed.position) ELSE '' END, v_mixed.job_key));
        END IF;
        RETURN;
    END IF;

    IF v_bad.task IS NULL OR btrim(v_bad.task) = '' THEN
        v_code := 'JOB.TASK_REQUIRED';
        v_detail := 'task is NULL or empty';
    ELSIF v_bad.payload IS NOT NULL AND jsonb_typeof(v_bad.payload) <> 'object' THEN
        v_code := 'JOB.PAYLOAD_NOT_OBJECT';
        v_detail := format('payload is a JSON %s, not an object', jsonb_typeof(v_bad.payload));
    ELSIF v_bad.job_key_mode NOT IN ('replace', 'preserve_run_at', 'unsafe_dedupe') THEN
        v_code := 'JOB.UNKNOWN_JOB_KEY_MODE';
        v_detail := format('job_key_mode %L is not replace, preserve_run_at or unsafe_dedupe', v_bad.job_key_mode);
    ELSIF v_bad.max_attempts < 1 THEN
        v_code := 'JOB.MAX_ATTEMPTS_INVALID';
        v_detail := format('max_attempts is %s; it must be at least 1', v_bad.max_attempts);
    ELSIF btrim(v_bad.queue) = '' THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'queue is empty';
    ELSIF v_bad.job_key = '' THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'job_key is empty; pass NULL for no key';
    ELSIF v_bad.priority NOT BETWEEN -32768 AND 32767 THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := format('priority %s is outside -32768..32767', v_bad.priority);
    ELSIF v_bad.timeout <= interval '0' THEN
        v_code := 'JOB.LEASE_INVALID';
        v_detail := format('timeout %s is not positive', v_bad.timeout);
    ELSIF v_bad.store_id = '00000000-0000-0000-0000-000000000000'::uuid THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'store_id 00000000-0000-0000-0000-000000000000 is reserved for system jobs; pass NULL';
    ELSE
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'backoff_base and backoff_max must be positive';
    END IF;
    PERFORM jobq._raise(v_code, CASE WHEN p_label_index THEN format('job %s: %s', v_bad.position, v_detail) ELSE v_detail END);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._validate_specs(jobq.job_spec[], boolean) IS
    'Private. Raises the catalogued error of the first invalid spec (JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, '
    'JOB.UNKNOWN_JOB_KEY_MODE, JOB.MAX_ATTEMPTS_INVALID, JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT). Locks nothing.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.enqueue_many(jobs jsonb)
RETURNS SETOF bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_fields constant text[] := ARRAY['task', 'payload', 'queue', 'run_at', 'priority', 'max_attempts', 'job_key',
                                      'job_key_mode', 'store_id', 'timeout', 'backoff_base', 'backoff_max'];
    v_specs jobq.job_spec[];
    v_bad record;
    v_default_attempts integer;
    v_queues text[];
BEGIN
    IF jobs IS NULL OR jsonb_typeof(jobs) <> 'array' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('jobs must be a JSON array of job objects, not %s', coalesce(jsonb_typeof(jobs), 'NULL')));
    END IF;
    -- Every element an object, every key a field of jobq.job_spec: a misspelt key is an error,
    -- not a silent default. An element with only known keys is empty once they are removed.
    SELECT e.n AS position, jsonb_typeof(e.v) AS kind,
           (SELECT k.key FROM jsonb_object_keys(CASE WHEN jsonb_typeof(e.v) = 'object' THEN e.v - v_fields END) AS k(key)
            LIMIT 1) AS key
    INTO v_bad
    FROM jsonb_array_elements(jobs) WITH ORDINALITY AS e(v, n)
    WHERE jsonb_typeof(e.v) <> 'object' OR e.v - v_fields <> '{}'::jsonb
    ORDER BY e.n
    LIMIT 1;
    IF FOUND THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', CASE
            WHEN v_bad.kind <> 'object' THEN format('job %s: every element of jobs must be a JSON object, not %s', v_bad.position, v_bad.kind)
            ELSE format('job %s: unknown field %L (fields: task, payload, queue, run_at, priority, max_attempts, job_key, '
                        'job_key_mode, store_id, timeout, backoff_base, backoff_max)', v_bad.position, v_bad.key)
        END);
    END IF;

    BEGIN
        v_specs := ARRAY(SELECT r FROM jsonb_populate_recordset(NULL::jobq.job_spec, jobs) AS r);
    EXCEPTION WHEN data_exception THEN
        -- A field that does not parse as its type ("run_at": "soon"): find and name the element.
        FOR v_i IN 1 .. jsonb_array_length(jobs) LOOP
            BEGIN
                PERFORM jsonb_populate_record(NULL::jobq.job_spec, jobs -> (v_i - 1));
            EXCEPTION WHEN data_exception THEN
                PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('job %s: %s', v_i, SQLERRM));
            END;
        END LOOP;
        RAISE;
    END;

    -- The fast path: every element keyless and passing every check (tasks joined once, by hash).
    IF NOT EXISTS (SELECT 1
                   FROM unnest(v_specs) AS s
                   LEFT JOIN jobq.tasks t ON t.name = btrim(s.task)
                   WHERE NOT jobq._enqueue_takes_fast_path(s, t)) THEN
        v_default_attempts := (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts');
        -- Ids drawn in input order, so each is returned at its position.
        RETURN QUERY
        WITH src AS MATERIALIZED (
            SELECT r.ord, nextval('jobq.jobs_id_seq'::regclass) AS id, r.task, r.queue, r.payload, r.store_id, r.priority,
                   r.run_at, r.max_attempts, r.timeout, r.backoff_base, r.backoff_max
            FROM (SELECT s.ordinality AS ord,
                         (jobq._resolve_spec(ROW(s.task, s.payload, s.queue, s.run_at, s.priority, s.max_attempts, s.job_key,
                                                 s.job_key_mode, s.store_id, s.timeout, s.backoff_base, s.backoff_max)::jobq.job_spec,
                                             t, v_default_attempts)).*
                  FROM unnest(v_specs) WITH ORDINALITY AS s
                  JOIN jobq.tasks t ON t.name = btrim(s.task)
                  ORDER BY s.ordinality) AS r
        ), ins AS (
            INSERT INTO jobq.jobs (id, task, queue, payload, store_id, priority, run_at, max_attempts,
                                   timeout, backoff_base, backoff_max)
            OVERRIDING SYSTEM VALUE
            SELECT src.id, src.task, src.queue, src.payload, src.store_id, src.priority, src.run_at, src.max_attempts,
                   src.timeout, src.backoff_base, src.backoff_max
            FROM src
        )
        SELECT src.id FROM src ORDER BY src.ord;

        -- Each queue that got a due job wakes once (jobq._wake: as the setting wakeup says).
        v_queues := ARRAY(SELECT DISTINCT (jobq._resolve_spec(s, t, v_default_attempts)).queue
                          FROM unnest(v_specs) AS s
                          JOIN jobq.tasks t ON t.name = btrim(s.task)
                          WHERE coalesce(s.run_at, now()) <= now());
        PERFORM jobq._wake(q.queue) FROM unnest(v_queues) AS q(queue);
        RETURN;
    END IF;

    RETURN QUERY
    SELECT e.job_id FROM jobq._enqueue(v_specs, true) AS e ORDER BY e.ord;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.enqueue_many(jsonb) IS
    'Enqueues many jobs from a JSON array of objects whose keys are the fields of jobq.job_spec '
    '(task, payload, queue, run_at, priority, max_attempts, job_key, job_key_mode, store_id, timeout, backoff_base, backoff_max). '
    'Unknown fields and values that do not parse are errors too (JOB.INVALID_ARGUMENT). '
    'All or nothing: one invalid element raises its JOB.* error naming its position and writes nothing. '
    'A batch of keyless jobs that all pass every check is inserted in one statement (jobq._enqueue_takes_fast_path, '
    'jobq._resolve_spec); any other goes through jobq._enqueue. Locks the job rows it writes. '
    'Returns the ids in input order. Callers: applications, handlers, operators.';

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
COMMENT ON FUNCTION jobq.heartbeat_jobs(text, bigint[], uuid[], interval) IS
    'Renews, in one statement, every lease in (job_ids, lease_tokens) that worker_id still holds: lease_expires_at = '
    'now() + lease. Returns the renewed jobs; a job missing from the result has lost its lease (rescued, canceled, '
    'finished) and its handler must stop. Caller: the runner, once per heartbeat interval. Locks the renewed rows. '
    'Errors: JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval DEFAULT '0 seconds')
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
        SELECT count(jobq._wake(q.queue)) AS n
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
COMMENT ON FUNCTION jobq.complete_jobs(bigint[], uuid[]) IS
    'Completes many attempts in one statement. Returns one row per input lease, in input order: outcome succeeded '
    '(moved to jobq.job_history now, or earlier under the same token: completing is idempotent per lease) or '
    'lease_lost (not running under that token: rescued, canceled or finished otherwise; nothing changed). Caller: the runner. Locks (in id order) and deletes the completed rows. Errors: JOB.INVALID_ARGUMENT.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer, version text DEFAULT '')
RETURNS jsonb
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF register_worker.worker_id IS NULL OR btrim(register_worker.worker_id) = '' OR register_worker.node IS NULL
       OR register_worker.queues IS NULL OR cardinality(register_worker.queues) = 0
       OR register_worker.concurrency IS NULL OR register_worker.concurrency < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id, node, queues (non-empty) and concurrency (>= 1) are required');
    END IF;
    INSERT INTO jobq.workers AS w (id, node, pid, queues, concurrency, version)
    VALUES (register_worker.worker_id, register_worker.node, register_worker.pid, register_worker.queues,
            register_worker.concurrency, coalesce(register_worker.version, ''))
    ON CONFLICT ON CONSTRAINT workers_pkey DO UPDATE SET
        node = EXCLUDED.node, pid = EXCLUDED.pid, queues = EXCLUDED.queues, concurrency = EXCLUDED.concurrency,
        version = EXCLUDED.version, state = 'active', started_at = now(), heartbeat_at = now(), state_changed_at = now();
    RETURN jobq._settings_json();
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.register_worker(text, text, integer, text[], integer, text) IS
    'Registers runner worker_id (node, pid, queues, concurrency, version) as active and returns the settings '
    '{name: value} it applies. Caller: runners at start. Errors: JOB.INVALID_ARGUMENT.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.worker_heartbeat(worker_id text, running integer DEFAULT 0)
RETURNS TABLE (state text, settings jsonb)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_state text;
BEGIN
    UPDATE jobq.workers AS w
    SET heartbeat_at = now(),
        running = coalesce(worker_heartbeat.running, 0),
        -- A worker marked lost that heartbeats again is back (its old leases were rescued and
        -- their tokens no longer work); drained and detached workers stay so.
        state = CASE WHEN w.state = 'lost' THEN 'active' ELSE w.state END,
        state_changed_at = CASE WHEN w.state = 'lost' THEN now() ELSE w.state_changed_at END
    WHERE w.id = worker_heartbeat.worker_id
    RETURNING w.state INTO v_state;
    IF v_state IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_WORKER', format('worker %L is not registered', worker_heartbeat.worker_id));
    END IF;
    state := v_state;
    settings := jobq._settings_json();
    RETURN NEXT;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.worker_heartbeat(text, integer) IS
    'Records a runner''s heartbeat and load; returns its state (active, draining, detached) and the settings. '
    'A runner that is draining or detached stops claiming. Caller: runners every worker_heartbeat_interval. '
    'Errors: JOB.UNKNOWN_WORKER.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.set_setting(name text, value text)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_setting jobq.settings;
BEGIN
    SELECT * INTO v_setting FROM jobq.settings s WHERE s.name = set_setting.name FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SETTING', format('no setting is named %L', set_setting.name));
    END IF;
    BEGIN
        CASE v_setting.kind
            WHEN 'interval' THEN
                IF set_setting.value::interval <= interval '0' THEN
                    RAISE invalid_parameter_value;
                END IF;
            WHEN 'integer' THEN
                IF set_setting.value::integer < 1 THEN
                    RAISE invalid_parameter_value;
                END IF;
            WHEN 'boolean' THEN
                PERFORM set_setting.value::boolean;
            ELSE
                NULL;
        END CASE;
        IF set_setting.value IS NULL THEN
            RAISE invalid_parameter_value;
        END IF;
    EXCEPTION WHEN data_exception OR invalid_parameter_value OR invalid_text_representation THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SETTING',
            format('%L is not a valid positive %s for setting %s', set_setting.value, v_setting.kind, set_setting.name));
    END;

    -- wakeup takes one of three words; what enqueue does with each is in jobq._insert_specs.
    IF v_setting.name = 'wakeup' AND set_setting.value NOT IN ('notify', 'wal', 'both') THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SETTING',
            format('%L is not a wake-up mode for setting wakeup; use notify, wal or both', set_setting.value));
    END IF;
    IF v_setting.name = 'wakeup' AND set_setting.value <> 'notify' AND current_setting('wal_level') <> 'logical' THEN
        RAISE WARNING USING
            MESSAGE = format('jobq: wakeup is %s, but wal_level is %s: no runner can decode the wake-up messages',
                             set_setting.value, current_setting('wal_level')),
            HINT = 'Set wal_level = logical (it takes a restart); until then runners in WAL mode poll.';
    END IF;

    UPDATE jobq.settings AS s SET value = set_setting.value, updated_at = now() WHERE s.name = set_setting.name;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('set_setting', jsonb_build_object('name', set_setting.name, 'from', v_setting.value, 'to', set_setting.value));
    RETURN set_setting.value;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.set_setting(text, text) IS
    'Changes a jobq.settings value after checking it parses as the setting''s kind (intervals and integers must be '
    'positive; wakeup is notify, wal or both, with a warning when wal_level is not logical). Audited with old and new '
    'value. Returns the new value. Caller: operators. Errors: JOB.UNKNOWN_SETTING.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.schedule(
    name               text,
    cron               text,
    task               text,
    payload            jsonb    DEFAULT '{}',
    timezone           text     DEFAULT 'UTC',
    concurrency_policy text     DEFAULT 'allow',
    backfill_window    interval DEFAULT '15 minutes',
    backfill           text     DEFAULT 'all',
    jitter             interval DEFAULT '0',
    slot_key           text     DEFAULT 'slotAt',
    queue              text     DEFAULT NULL,
    priority           integer  DEFAULT NULL,
    max_attempts       integer  DEFAULT NULL,
    enabled            boolean  DEFAULT true
)
RETURNS timestamptz
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_fields jobq.cron_fields;
    v_scope text;
    v_schema jsonb;
    v_problem text;
    v_next timestamptz;
    v_changed boolean;
BEGIN
    IF schedule.name IS NULL OR schedule.name !~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' OR length(schedule.name) > 100 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('schedule name %L is not kebab-case', schedule.name));
    END IF;
    v_fields := jobq.cron_parse(schedule.cron);
    PERFORM jobq._check_timezone(schedule.timezone);
    SELECT t.scope, t.payload_schema INTO v_scope, v_schema FROM jobq.tasks t WHERE t.name = schedule.task;
    IF v_scope IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', schedule.task));
    ELSIF v_scope <> 'system' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('schedules run system tasks; %s is store-scoped (schedule a system task that calls jobq.fan_out)', schedule.task));
    END IF;
    IF schedule.payload IS NULL OR jsonb_typeof(schedule.payload) <> 'object' THEN
        PERFORM jobq._raise('JOB.PAYLOAD_NOT_OBJECT', 'the schedule payload must be a JSON object');
    END IF;
    IF schedule.concurrency_policy IS NULL OR schedule.concurrency_policy NOT IN ('allow', 'forbid', 'replace') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('concurrency_policy %L is not allow, forbid or replace', schedule.concurrency_policy));
    END IF;
    IF schedule.backfill IS NULL OR schedule.backfill NOT IN ('all', 'latest') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('backfill %L is not all or latest', schedule.backfill));
    END IF;
    IF schedule.backfill_window IS NULL OR schedule.backfill_window < interval '0'
       OR schedule.jitter IS NULL OR schedule.jitter < interval '0' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'backfill_window and jitter must be zero or positive');
    END IF;
    IF schedule.max_attempts < 1 THEN
        PERFORM jobq._raise('JOB.MAX_ATTEMPTS_INVALID', format('max_attempts is %s; it must be at least 1', schedule.max_attempts));
    END IF;
    IF schedule.slot_key = '' OR schedule.queue = '' OR schedule.priority NOT BETWEEN -32768 AND 32767
       OR schedule.enabled IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            'slot_key and queue must not be empty, priority must fit -32768..32767, and enabled must not be NULL');
    END IF;
    -- The jobs it will enqueue must keep the task's contract (with the slot key filled in).
    v_problem := jobq.payload_problem(v_schema, CASE WHEN schedule.slot_key IS NULL THEN schedule.payload
        ELSE schedule.payload || jsonb_build_object(schedule.slot_key, '2000-01-01T00:00:00Z') END);
    IF v_problem IS NOT NULL THEN
        PERFORM jobq._raise('JOB.PAYLOAD_INVALID', format('schedule %s, task %s: %s', schedule.name, schedule.task, v_problem));
    END IF;
    v_next := jobq._cron_next(v_fields, now(), schedule.timezone);
    IF v_next IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%L never fires', schedule.cron));
    END IF;

    INSERT INTO jobq.schedules AS s (name, cron, fields, timezone, task, payload, slot_key, queue, priority, max_attempts,
                                     concurrency_policy, backfill_window, backfill, jitter, enabled, next_slot_at)
    VALUES (schedule.name, schedule.cron, v_fields, schedule.timezone, schedule.task, schedule.payload, schedule.slot_key,
            schedule.queue, schedule.priority, schedule.max_attempts, schedule.concurrency_policy, schedule.backfill_window,
            schedule.backfill, schedule.jitter, schedule.enabled, v_next)
    ON CONFLICT ON CONSTRAINT schedules_pkey DO UPDATE SET
        cron = EXCLUDED.cron, fields = EXCLUDED.fields, timezone = EXCLUDED.timezone, task = EXCLUDED.task,
        payload = EXCLUDED.payload, slot_key = EXCLUDED.slot_key, queue = EXCLUDED.queue, priority = EXCLUDED.priority,
        max_attempts = EXCLUDED.max_attempts, concurrency_policy = EXCLUDED.concurrency_policy,
        backfill_window = EXCLUDED.backfill_window, backfill = EXCLUDED.backfill, jitter = EXCLUDED.jitter,
        enabled = EXCLUDED.enabled,
        next_slot_at = CASE WHEN (s.cron, s.timezone) IS DISTINCT FROM (EXCLUDED.cron, EXCLUDED.timezone) OR s.next_slot_at IS NULL
                            THEN EXCLUDED.next_slot_at ELSE s.next_slot_at END,
        updated_at = now()
    WHERE (s.cron, s.timezone, s.task, s.payload, s.slot_key, s.queue, s.priority, s.max_attempts, s.concurrency_policy,
           s.backfill_window, s.backfill, s.jitter, s.enabled)
          IS DISTINCT FROM
          (EXCLUDED.cron, EXCLUDED.timezone, EXCLUDED.task, EXCLUDED.payload, EXCLUDED.slot_key, EXCLUDED.queue,
           EXCLUDED.priority, EXCLUDED.max_attempts, EXCLUDED.concurrency_policy, EXCLUDED.backfill_window,
           EXCLUDED.backfill, EXCLUDED.jitter, EXCLUDED.enabled);
    v_changed := FOUND;
    IF v_changed THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('schedule', jsonb_build_object('schedule', schedule.name, 'cron', schedule.cron, 'task', schedule.task,
                                               'timezone', schedule.timezone, 'enabled', schedule.enabled));
    END IF;

    RETURN (SELECT s.next_slot_at FROM jobq.schedules s WHERE s.name = schedule.name);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.schedule(text, text, text, jsonb, text, text, interval, text, interval, text, text, integer, integer, boolean) IS
    'Declares or updates the schedule name: task (a declared system task) runs at every slot of cron in timezone '
    '(default UTC), with payload plus {slot_key: slot instant} (default key slotAt; NULL adds none). Idempotent: '
    'nothing changes when nothing differs; a changed cron or time zone restarts from the next slot after now(). '
    'Returns the next slot. A change is audited. Callers: operators, runners syncing code-declared schedules. Errors: '
    'JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.UNKNOWN_TASK, JOB.INVALID_ARGUMENT, JOB.PAYLOAD_NOT_OBJECT, '
    'JOB.PAYLOAD_INVALID (the payload breaks the task''s contract), JOB.MAX_ATTEMPTS_INVALID.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.requeue_dead(task text DEFAULT NULL, finished_after timestamptz DEFAULT NULL, max_jobs integer DEFAULT 1000)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF requeue_dead.max_jobs IS NULL OR requeue_dead.max_jobs < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('max_jobs %s must be at least 1', coalesce(requeue_dead.max_jobs::text, 'NULL')));
    END IF;
    RETURN (
        SELECT count(*)
        FROM jobq._revive(ARRAY(
            SELECT h.id FROM jobq.job_history h
            WHERE h.state = 'dead'
              AND (requeue_dead.task IS NULL OR h.task = requeue_dead.task)
              AND (requeue_dead.finished_after IS NULL OR h.finished_at >= requeue_dead.finished_after)
            ORDER BY h.finished_at, h.id
            LIMIT requeue_dead.max_jobs
            FOR UPDATE SKIP LOCKED), 'requeue_dead'));
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.requeue_dead(text, timestamptz, integer) IS
    'Queues dead jobs again (attempt 0, run now), oldest death first, filtered by task and finished_after, at most '
    'max_jobs; a job whose key a live job holds is left dead. Audits each job. Returns the number queued. '
    'Caller: operators. Errors: JOB.INVALID_ARGUMENT.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._acquire_leadership(p_worker_id text, p_ttl interval, p_now timestamptz)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_epoch bigint;
    v_previous_epoch bigint;
BEGIN
    IF p_worker_id IS NULL OR btrim(p_worker_id) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id is NULL or empty');
    END IF;
    IF p_ttl IS NULL OR p_ttl <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('ttl %s is not positive', coalesce(p_ttl::text, 'NULL')));
    END IF;
    SELECT l.epoch INTO v_previous_epoch FROM jobq.leader l FOR UPDATE;
    UPDATE jobq.leader AS l
    SET epoch            = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.epoch ELSE l.epoch + 1 END,
        acquired_at      = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.acquired_at ELSE p_now END,
        holder           = p_worker_id,
        lease_expires_at = p_now + p_ttl
    WHERE l.holder IS NULL OR l.lease_expires_at <= p_now OR l.holder = p_worker_id
    RETURNING l.epoch INTO v_epoch;
    IF v_epoch IS NOT NULL AND v_epoch <> v_previous_epoch THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('leader_changed', jsonb_build_object('worker_id', p_worker_id, 'epoch', v_epoch));
    END IF;
    RETURN v_epoch;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._acquire_leadership(text, interval, timestamptz) IS
    'Private. The leadership at time p_now; see jobq.acquire_leadership.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._set_worker_state(p_worker_id text, p_state text, p_action text)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_previous text;
BEGIN
    SELECT w.state INTO v_previous FROM jobq.workers w WHERE w.id = p_worker_id FOR UPDATE;
    IF v_previous IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_WORKER', format('worker %L is not registered', p_worker_id));
    END IF;
    UPDATE jobq.workers AS w SET state = p_state, state_changed_at = now() WHERE w.id = p_worker_id;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES (p_action, jsonb_build_object('worker_id', p_worker_id, 'previous_state', v_previous, 'state', p_state));
    RETURN v_previous;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._set_worker_state(text, text, text) IS 'Private. Sets a worker''s state, audited as p_action; returns the previous state.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.deregister_worker(worker_id text)
RETURNS void
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    UPDATE jobq.workers AS w SET state = 'stopped', state_changed_at = now(), running = 0
    WHERE w.id = deregister_worker.worker_id;
    UPDATE jobq.leader AS l SET lease_expires_at = now() WHERE l.holder = deregister_worker.worker_id;
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.deregister_worker(text) IS
    'Marks a runner stopped after a clean drain and gives up its leadership, so another runner takes over at once. '
    'Caller: runners at exit.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb)
RETURNS text
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT CASE WHEN NOT p_payload ? k.name THEN format('required key %s is missing', k.name)
                ELSE format('key %s must be %s %s, not %s', k.name,
                            CASE WHEN c.type IN ('integer', 'object', 'array', 'any') THEN 'an' ELSE 'a' END, c.type,
                            p_payload -> k.name)
           END
    FROM jsonb_each_text(p_schema) AS c(key, type)
    CROSS JOIN LATERAL (SELECT rtrim(c.key, '?') AS name, c.key LIKE '%?' AS optional) AS k
    WHERE (NOT k.optional AND NOT p_payload ? k.name)
       OR (p_payload ? k.name AND NOT jobq._json_type_ok(p_payload -> k.name, c.type)
           -- An optional key may be given as null.
           AND NOT (k.optional AND jsonb_typeof(p_payload -> k.name) = 'null'))
    ORDER BY c.key
    LIMIT 1
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.payload_problem(jsonb, jsonb) IS
    'The first way a payload breaks a task''s payload contract ("required key storeId is missing", "key targetDate must be '
    'a date, not 5"), or NULL when it keeps it. Pure; callers: enqueue, tests, applications that check before enqueueing.';

DROP FUNCTION jobq._retry_at(timestamptz, integer, interval, interval);
DROP FUNCTION jobq._spec_in_bounds(jobq.job_spec);
DROP FUNCTION jobq._check_payload(text, jsonb);
DROP FUNCTION jobq._max_payload_bytes();
DROP FUNCTION jobq._check_length(text, anyarray, integer);
DROP FUNCTION jobq._check_timestamp(text, timestamptz);
DROP FUNCTION jobq._check_int(text, bigint, bigint, bigint, text);
DROP FUNCTION jobq._check_interval(text, interval, interval, boolean);
DROP FUNCTION jobq._check_text(text, text, integer);
DROP FUNCTION jobq._ts_diff(timestamptz, timestamptz);
DROP FUNCTION jobq._ts_add(timestamptz, interval);
DROP FUNCTION jobq._ts_in_range(timestamptz);
DROP FUNCTION jobq._limit_interval(text);
DROP FUNCTION jobq._limit(text);

DELETE FROM jobq.settings WHERE name = 'max_payload_bytes';
UPDATE jobq.error_codes SET meaning = 'max_attempts is below 1.', hint = 'Pass max_attempts >= 1, or NULL for the default.'
WHERE code = 'JOB.MAX_ATTEMPTS_INVALID';
DELETE FROM jobq.error_codes WHERE code IN ('JOB.VALUE_TOO_LONG', 'JOB.OUT_OF_RANGE', 'JOB.PAYLOAD_TOO_LARGE');
