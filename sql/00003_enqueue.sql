-- jobq schema step 3: enqueue. One implementation (jobq._enqueue, a batch) behind two public
-- forms: jobq.enqueue (one job, named arguments) and jobq.enqueue_many (a JSON array).

-- +goose Up

-- What a caller asks for. NULL fields take their defaults (see jobq._enqueue).
CREATE TYPE jobq.job_spec AS (
    task         text,
    payload      jsonb,
    queue        text,
    run_at       timestamptz,
    priority     integer,
    max_attempts integer,
    job_key      text,
    job_key_mode text,
    store_id     uuid,
    timeout      interval,
    backoff_base interval,
    backoff_max  interval
);
COMMENT ON TYPE jobq.job_spec IS 'One job to enqueue; the fields of an element of jobq.enqueue_many''s JSON array.';

-- Refuses the first invalid spec of a batch with its catalogued error; changes nothing.
-- p_label_index: whether to name the position ("job 3: ...") in the message.
-- +goose StatementBegin
CREATE FUNCTION jobq._validate_specs(p_specs jobq.job_spec[], p_label_index boolean)
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

-- Inserts or merges keyed specs, race-free, and returns each key's job. Each spec's own mode:
--   replace          a waiting job with the key takes the new task, payload, run_at, queue,
--                    priority and limits, and starts over (attempt 0, state queued, no error).
--   preserve_run_at  the same, except that the waiting job keeps its run_at, attempt, state and
--                    error: a repeated enqueue neither postpones it nor resets its retries.
--   unsafe_dedupe    an existing live job with the key (waiting or running) is returned untouched.
-- A RUNNING job with the key, under replace or preserve_run_at, gives its key up: it runs on as a
-- keyless job, and a new job with the key is queued (graphile-worker's documented behaviour).
-- All specs go through one INSERT ... ON CONFLICT in (store, key) order, whatever their modes, so
-- concurrent batches lock keys in one order and cannot deadlock. The unique index decides every
-- race: callers never create two live jobs for one key, and never get no id — a key whose job
-- vanished between statements is simply tried again.
-- +goose StatementBegin
CREATE FUNCTION jobq._enqueue_keyed(p_specs jobq.job_spec[])
RETURNS TABLE (store_key uuid, job_key text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_zero constant uuid := '00000000-0000-0000-0000-000000000000'::uuid;
    v_pending jobq.job_spec[] := p_specs;
    v_store_keys uuid[] := '{}'::uuid[];
    v_job_keys text[] := '{}'::text[];
    v_job_ids bigint[] := '{}'::bigint[];
    v_round_store_keys uuid[];
    v_round_job_keys text[];
    v_round_job_ids bigint[];
    v_round integer := 0;
BEGIN
    WHILE cardinality(v_pending) > 0 LOOP
        v_round := v_round + 1;
        IF v_round > 50 THEN
            RAISE EXCEPTION 'jobq internal error: job_key enqueue did not settle after 50 rounds';
        END IF;

        -- Insert, or merge into the waiting job; unsafe_dedupe and running jobs are left as they are.
        WITH ins AS (
            INSERT INTO jobq.jobs AS j (task, queue, payload, store_id, priority, run_at, max_attempts,
                                        job_key, job_key_mode, timeout, backoff_base, backoff_max)
            SELECT s.task, s.queue, s.payload, s.store_id, s.priority, s.run_at, s.max_attempts,
                   s.job_key, s.job_key_mode, s.timeout, s.backoff_base, s.backoff_max
            FROM unnest(v_pending) AS s
            ORDER BY coalesce(s.store_id, v_zero), s.job_key
            ON CONFLICT ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), job_key)
                WHERE job_key IS NOT NULL
            DO UPDATE SET
                task         = EXCLUDED.task,
                queue        = EXCLUDED.queue,
                payload      = EXCLUDED.payload,
                priority     = EXCLUDED.priority,
                max_attempts = EXCLUDED.max_attempts,
                timeout      = EXCLUDED.timeout,
                backoff_base = EXCLUDED.backoff_base,
                backoff_max  = EXCLUDED.backoff_max,
                job_key_mode = EXCLUDED.job_key_mode,
                run_at       = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.run_at ELSE EXCLUDED.run_at END,
                attempt      = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.attempt ELSE 0 END,
                state        = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.state ELSE 'queued' END,
                reason       = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.reason ELSE 'replaced' END,
                last_error   = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.last_error END,
                error_code   = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.error_code END,
                updated_at   = now()
            WHERE j.state <> 'running' AND EXCLUDED.job_key_mode <> 'unsafe_dedupe'
            RETURNING coalesce(j.store_id, v_zero) AS store_key, j.job_key AS key, j.id
        ), found AS (
            SELECT i.store_key, i.key, i.id FROM ins i
            UNION ALL
            -- unsafe_dedupe: the live job that holds the key, as this statement saw it.
            SELECT coalesce(j.store_id, v_zero), j.job_key, j.id
            FROM jobq.jobs j
            JOIN unnest(v_pending) AS s
              ON coalesce(j.store_id, v_zero) = coalesce(s.store_id, v_zero) AND j.job_key = s.job_key
            WHERE s.job_key_mode = 'unsafe_dedupe'
              AND NOT EXISTS (SELECT 1 FROM ins i WHERE i.store_key = coalesce(s.store_id, v_zero) AND i.key = s.job_key)
        )
        SELECT coalesce(array_agg(f.store_key), '{}'), coalesce(array_agg(f.key), '{}'), coalesce(array_agg(f.id), '{}')
        INTO v_round_store_keys, v_round_job_keys, v_round_job_ids
        FROM found f;

        -- replace / preserve_run_at keys held by a running job: it gives the key up; the next round inserts.
        UPDATE jobq.jobs AS j
        SET job_key = NULL, job_key_mode = NULL, updated_at = now()
        FROM unnest(v_pending) AS s
        LEFT JOIN unnest(v_round_store_keys, v_round_job_keys) AS r(store_key, key)
          ON r.store_key = coalesce(s.store_id, v_zero) AND r.key = s.job_key
        WHERE r.key IS NULL
          AND s.job_key_mode <> 'unsafe_dedupe'
          AND coalesce(j.store_id, v_zero) = coalesce(s.store_id, v_zero)
          AND j.job_key = s.job_key
          AND j.state = 'running';

        v_store_keys := v_store_keys || v_round_store_keys;
        v_job_keys := v_job_keys || v_round_job_keys;
        v_job_ids := v_job_ids || v_round_job_ids;

        v_pending := ARRAY(
            SELECT s
            FROM unnest(v_pending) AS s
            LEFT JOIN unnest(v_round_store_keys, v_round_job_keys) AS r(store_key, key)
              ON r.store_key = coalesce(s.store_id, v_zero) AND r.key = s.job_key
            WHERE r.key IS NULL);
    END LOOP;

    RETURN QUERY SELECT r.store_key, r.key, r.id FROM unnest(v_store_keys, v_job_keys, v_job_ids) AS r(store_key, key, id);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._enqueue_keyed(jobq.job_spec[]) IS
    'Private. Enqueues specs with a job_key, each under its own mode (replace, preserve_run_at, unsafe_dedupe), '
    'race-free and deadlock-free; specs must be complete (defaults applied) and unique per (store, key). Locks the '
    'keyed rows it inserts or merges. Returns (store_key, job_key, job_id) per key.';

-- The one implementation of enqueue: validates, applies defaults, inserts keyless jobs in one
-- statement and keyed ones through _enqueue_keyed, then wakes listening runners with at most one
-- NOTIFY per queue that got a due job. Returns (ord, job_id) per input position.
-- +goose StatementBegin
CREATE FUNCTION jobq._enqueue(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS TABLE (ord bigint, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_zero constant uuid := '00000000-0000-0000-0000-000000000000'::uuid;
    v_now constant timestamptz := now();
    v_default_attempts constant integer := (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts');
    v_specs jobq.job_spec[];
BEGIN
    IF p_specs IS NULL OR cardinality(p_specs) = 0 THEN
        RETURN;
    END IF;
    PERFORM jobq._validate_specs(p_specs, p_label_index);

    v_specs := ARRAY(
        SELECT ROW(btrim(s.task), coalesce(s.payload, '{}'), coalesce(s.queue, 'default'), coalesce(s.run_at, v_now),
                   coalesce(s.priority, 0), coalesce(s.max_attempts, v_default_attempts), s.job_key,
                   CASE WHEN s.job_key IS NOT NULL THEN coalesce(s.job_key_mode, 'replace') END, s.store_id, s.timeout, s.backoff_base, s.backoff_max)::jobq.job_spec
        FROM unnest(p_specs) WITH ORDINALITY AS s
        ORDER BY s.ordinality);

    -- Keyless jobs: ids drawn first so each is reported at its input position.
    RETURN QUERY
    WITH src AS MATERIALIZED (
        SELECT s.ordinality AS ord, nextval('jobq.jobs_id_seq'::regclass) AS id, s.*
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NULL
    ), ins AS (
        INSERT INTO jobq.jobs (id, task, queue, payload, store_id, priority, run_at, max_attempts,
                               timeout, backoff_base, backoff_max)
        OVERRIDING SYSTEM VALUE
        SELECT src.id, src.task, src.queue, src.payload, src.store_id, src.priority, src.run_at, src.max_attempts,
               src.timeout, src.backoff_base, src.backoff_max
        FROM src
    )
    SELECT src.ord, src.id FROM src;

    -- Keyed jobs, all modes in one ordered pass; within a batch the last spec of a key wins.
    RETURN QUERY
    WITH positioned AS (
        SELECT s.ordinality AS ord, coalesce(s.store_id, v_zero) AS store_key, s.job_key
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
    ), last_per_key AS (
        SELECT DISTINCT ON (coalesce(s.store_id, v_zero), s.job_key)
               ROW(s.task, s.payload, s.queue, s.run_at, s.priority, s.max_attempts, s.job_key, s.job_key_mode,
                   s.store_id, s.timeout, s.backoff_base, s.backoff_max)::jobq.job_spec AS spec
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
        ORDER BY coalesce(s.store_id, v_zero), s.job_key, s.ordinality DESC
    )
    SELECT p.ord, k.job_id
    FROM jobq._enqueue_keyed(ARRAY(SELECT l.spec FROM last_per_key l)) AS k
    JOIN positioned p ON p.store_key = k.store_key AND p.job_key = k.job_key;

    -- NOTIFY is a hint that work is due; identical notifications in one transaction are folded
    -- into one by PostgreSQL, so a burst of enqueues wakes each queue's listeners once.
    PERFORM pg_notify('jobq', q.queue)
    FROM (SELECT DISTINCT s.queue FROM unnest(v_specs) AS s WHERE s.run_at <= v_now) AS q;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._enqueue(jobq.job_spec[], boolean) IS
    'Private. The one enqueue implementation behind jobq.enqueue and jobq.enqueue_many. Validates (raises the '
    'JOB.* errors of _validate_specs, writing nothing), applies defaults, inserts, NOTIFYs channel jobq with the '
    'queue name for due jobs. Returns (ord, job_id) for every input position.';

-- Enqueues one job. Every argument but task has a default, so SELECT jobq.enqueue('ping') works.
-- +goose StatementBegin
CREATE FUNCTION jobq.enqueue(
    task         text,
    payload      jsonb       DEFAULT '{}',
    run_at       timestamptz DEFAULT NULL,
    job_key      text        DEFAULT NULL,
    job_key_mode text        DEFAULT 'replace',
    max_attempts integer     DEFAULT NULL,
    priority     integer     DEFAULT NULL,
    queue        text        DEFAULT NULL,
    store_id     uuid        DEFAULT NULL,
    timeout      interval    DEFAULT NULL,
    backoff_base interval    DEFAULT NULL,
    backoff_max  interval    DEFAULT NULL
)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (
        SELECT e.job_id
        FROM jobq._enqueue(ARRAY[ROW(enqueue.task, enqueue.payload, enqueue.queue, enqueue.run_at, enqueue.priority,
                                     enqueue.max_attempts, enqueue.job_key, enqueue.job_key_mode, enqueue.store_id,
                                     enqueue.timeout, enqueue.backoff_base, enqueue.backoff_max)::jobq.job_spec],
                           false) AS e);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.enqueue(text, jsonb, timestamptz, text, text, integer, integer, text, uuid, interval, interval, interval) IS
    'Enqueues one job and returns its id (the existing job''s id when job_key matched). run_at NULL = now; '
    'queue NULL = default; priority NULL = 0; max_attempts NULL = setting default_max_attempts; '
    'job_key_mode replace | preserve_run_at | unsafe_dedupe. '
    'Callers: applications (jobq_app), handlers (worker_runtime), operators. Locks the job row it writes. '
    'Errors: JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, JOB.UNKNOWN_JOB_KEY_MODE, JOB.MAX_ATTEMPTS_INVALID, '
    'JOB.LEASE_INVALID (timeout), JOB.INVALID_ARGUMENT.';

-- Enqueues a JSON array of job specs in one call; returns the job ids in input order.
-- +goose StatementBegin
CREATE FUNCTION jobq.enqueue_many(jobs jsonb)
RETURNS SETOF bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_specs jobq.job_spec[];
    v_bad record;
BEGIN
    IF jobs IS NULL OR jsonb_typeof(jobs) <> 'array' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('jobs must be a JSON array of job objects, not %s', coalesce(jsonb_typeof(jobs), 'NULL')));
    END IF;
    -- Every element an object, every key a field of jobq.job_spec: a misspelt key is an error,
    -- not a silent default.
    SELECT e.n AS position, jsonb_typeof(e.v) AS kind, k.key INTO v_bad
    FROM jsonb_array_elements(jobs) WITH ORDINALITY AS e(v, n)
    LEFT JOIN LATERAL jsonb_object_keys(CASE WHEN jsonb_typeof(e.v) = 'object' THEN e.v END) AS k(key)
        ON k.key NOT IN ('task', 'payload', 'queue', 'run_at', 'priority', 'max_attempts', 'job_key', 'job_key_mode',
                         'store_id', 'timeout', 'backoff_base', 'backoff_max')
    WHERE jsonb_typeof(e.v) <> 'object' OR k.key IS NOT NULL
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
    'Returns the ids in input order. Callers: applications, handlers, operators.';

GRANT EXECUTE ON FUNCTION
    jobq.enqueue(text, jsonb, timestamptz, text, text, integer, integer, text, uuid, interval, interval, interval),
    jobq.enqueue_many(jsonb)
TO worker_runtime, jobq_app, jobq_operator;

-- +goose Down
DROP FUNCTION jobq.enqueue_many(jsonb);
DROP FUNCTION jobq.enqueue(text, jsonb, timestamptz, text, text, integer, integer, text, uuid, interval, interval, interval);
DROP FUNCTION jobq._enqueue(jobq.job_spec[], boolean);
DROP FUNCTION jobq._enqueue_keyed(jobq.job_spec[]);
DROP FUNCTION jobq._validate_specs(jobq.job_spec[], boolean);
DROP TYPE jobq.job_spec;
