-- jobq schema step 19: a fast path for plain enqueues.
--
-- A single jobq.enqueue went through five PL/pgSQL helpers (_enqueue, _validate_specs twice,
-- _resolve_tasks, _check_tenant, _insert_specs), each building and unnesting arrays of
-- jobq.job_spec: about 20 statements for one row, four times the cost of the INSERT itself.
-- enqueue_many validated every element twice and resolved tasks through a join planned for ten
-- rows.
--
-- Now a job without a job_key whose every check passes takes a fast path: the task row and the
-- settings are read in one statement, the job is inserted in one statement, and runners are
-- woken through jobq._wake as the setting wakeup says (as jobq._insert_specs does). enqueue_many does the same
-- set-based: one statement decides whether every element passes, one inserts them all.
--
-- The fast path raises nothing itself. Whatever it does not take — a keyed job, or a job that any
-- check of jobq._enqueue would refuse — goes to jobq._enqueue as before, which raises the same
-- error with the same message, or (keys) merges it. So there is still one implementation of the
-- rules and errors; the fast path only needs to know when they all pass:
--   jobq._enqueue_takes_fast_path(spec, task)   whether a spec may skip jobq._enqueue,
--   jobq._resolve_spec(spec, task, attempts)    the row it becomes,
-- two SQL expressions that the planner inlines into both callers, so enqueue and enqueue_many
-- share them at no cost. pgtap/enqueue/fast_path_equivalence.sql proves that a job takes the same
-- row through either path.

-- +goose Up

-- Whether a spec may be inserted without jobq._enqueue: it has no job_key, and none of the checks
-- of _validate_specs (on the spec), _resolve_tasks (against task p_task, NULL when undeclared),
-- _check_tenant and _validate_specs again (on the resolved spec) would refuse it. Inlined.
-- +goose StatementBegin
CREATE FUNCTION jobq._enqueue_takes_fast_path(p_spec jobq.job_spec, p_task jobq.tasks)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT NOT coalesce(
           -- A key merges with the live job that holds it: the keyed path.
           p_spec.job_key IS NOT NULL
           -- _validate_specs.
        OR p_spec.task IS NULL OR pg_catalog.btrim(p_spec.task) = ''
        OR (p_spec.payload IS NOT NULL AND pg_catalog.jsonb_typeof(p_spec.payload) <> 'object')
        OR (p_spec.job_key_mode IS NOT NULL AND p_spec.job_key_mode NOT IN ('replace', 'preserve_run_at', 'unsafe_dedupe'))
        OR p_spec.max_attempts < 1
        OR pg_catalog.btrim(p_spec.queue) = ''
        OR p_spec.priority NOT BETWEEN -32768 AND 32767
        OR p_spec.timeout <= interval '0'
        OR p_spec.backoff_base <= interval '0'
        OR p_spec.backoff_max <= interval '0'
        OR p_spec.store_id = '00000000-0000-0000-0000-000000000000'::uuid
           -- _resolve_tasks: declared, keeps its contract (an empty contract always does), fits the scope.
        OR p_task.name IS NULL
        OR (p_task.payload_schema <> '{}'::jsonb
            AND jobq.payload_problem(p_task.payload_schema, coalesce(p_spec.payload, '{}'::jsonb)) IS NOT NULL)
        OR (p_task.scope = 'system' AND p_spec.store_id IS NOT NULL)
        OR (p_task.scope = 'store' AND p_spec.store_id IS NULL
            AND NOT coalesce(p_spec.payload ->> 'storeId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', false))
        OR (p_task.scope = 'store' AND p_spec.store_id IS NOT NULL AND p_spec.payload ? 'storeId'
            AND (CASE WHEN p_spec.payload ->> 'storeId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                      THEN (p_spec.payload ->> 'storeId')::uuid END) IS DISTINCT FROM p_spec.store_id)
           -- _validate_specs of the resolved spec: a task's queue may be blank, a payload's storeId all zeros.
        OR pg_catalog.btrim(p_task.queue) = ''
        OR (p_task.scope = 'store' AND p_spec.store_id IS NULL
            AND p_spec.payload ->> 'storeId' ~* '^0{8}-0{4}-0{4}-0{4}-0{12}$')
           -- _check_tenant: inside a gate function, a store job of another store than the
           -- session's, for a caller without jobq_operator's rights.
        OR (p_task.scope = 'store' AND CURRENT_USER = 'jobq_app_gate'
            AND coalesce(p_spec.store_id,
                         CASE WHEN p_spec.payload ->> 'storeId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                              THEN (p_spec.payload ->> 'storeId')::uuid END)
                IS DISTINCT FROM jobq.current_store_id()
            AND NOT pg_catalog.pg_has_role(jobq._caller(), 'jobq_operator', 'USAGE')),
        false)
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._enqueue_takes_fast_path(jobq.job_spec, jobq.tasks) IS
    'Private. Whether jobq.enqueue and jobq.enqueue_many may insert a spec directly: it has no job_key and no check of '
    'jobq._enqueue (_validate_specs, _resolve_tasks against p_task, NULL when undeclared, _check_tenant) would refuse '
    'it; otherwise they hand it to jobq._enqueue, which raises or merges. Raises nothing, locks nothing; inlined.';

-- The row a spec that takes the fast path becomes: the task's defaults, then the global ones
-- (what _resolve_tasks and then _insert_specs apply). p_default_attempts is the setting
-- default_max_attempts. Inlined.
-- +goose StatementBegin
CREATE FUNCTION jobq._resolve_spec(p_spec jobq.job_spec, p_task jobq.tasks, p_default_attempts integer)
RETURNS jobq.job_spec
LANGUAGE sql
STABLE
AS $$
    SELECT ROW(pg_catalog.btrim(p_spec.task),
               coalesce(p_spec.payload, '{}'::jsonb),
               coalesce(p_spec.queue, p_task.queue, 'default'),
               coalesce(p_spec.run_at, pg_catalog.now()),
               coalesce(p_spec.priority, p_task.priority, 0),
               coalesce(p_spec.max_attempts, p_task.max_attempts, p_default_attempts),
               NULL,
               NULL,
               CASE WHEN p_task.scope = 'store' THEN coalesce(p_spec.store_id, (p_spec.payload ->> 'storeId')::uuid) END,
               coalesce(p_spec.timeout, p_task.timeout),
               coalesce(p_spec.backoff_base, p_task.backoff_base),
               coalesce(p_spec.backoff_max, p_task.backoff_max))::jobq.job_spec
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._resolve_spec(jobq.job_spec, jobq.tasks, integer) IS
    'Private. The job a keyless spec that takes the fast path becomes: task trimmed, the task''s defaults (queue, '
    'priority, max_attempts, timeout, backoff, store id from the payload for a store task), then the global ones '
    '(payload {}, queue default, run_at now, priority 0, max_attempts p_default_attempts). Pure; inlined.';

-- Enqueues one job. A keyless job that passes every check is read, inserted and announced in
-- three statements; anything else goes through jobq._enqueue, which raises or merges.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.enqueue(
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
DECLARE
    v_spec constant jobq.job_spec := ROW(enqueue.task, enqueue.payload, enqueue.queue, enqueue.run_at, enqueue.priority,
                                         enqueue.max_attempts, enqueue.job_key, enqueue.job_key_mode, enqueue.store_id,
                                         enqueue.timeout, enqueue.backoff_base, enqueue.backoff_max)::jobq.job_spec;
    v_task jobq.tasks;
    v_default_attempts integer;
    v_job jobq.job_spec;
    v_id bigint;
BEGIN
    IF enqueue.job_key IS NULL THEN
        SELECT t.*, (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts')
        INTO v_task.name, v_task.scope, v_task.payload_schema, v_task.max_attempts, v_task.queue, v_task.priority,
             v_task.timeout, v_task.backoff_base, v_task.backoff_max, v_task.description, v_task.created_at,
             v_task.updated_at, v_default_attempts
        FROM jobq.tasks t
        WHERE t.name = pg_catalog.btrim(enqueue.task);

        IF FOUND AND jobq._enqueue_takes_fast_path(v_spec, v_task) THEN
            v_job := jobq._resolve_spec(v_spec, v_task, v_default_attempts);
            INSERT INTO jobq.jobs (task, queue, payload, store_id, priority, run_at, max_attempts,
                                   timeout, backoff_base, backoff_max)
            VALUES (v_job.task, v_job.queue, v_job.payload, v_job.store_id, v_job.priority, v_job.run_at, v_job.max_attempts,
                    v_job.timeout, v_job.backoff_base, v_job.backoff_max)
            RETURNING jobs.id INTO v_id;
            -- A due job wakes its queue's runners (jobq._wake: as the setting wakeup says).
            IF v_job.run_at <= pg_catalog.now() THEN
                PERFORM jobq._wake(v_job.queue);
            END IF;
            RETURN v_id;
        END IF;
    END IF;

    RETURN (SELECT e.job_id FROM jobq._enqueue(ARRAY[v_spec], false) AS e);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.enqueue(text, jsonb, timestamptz, text, text, integer, integer, text, uuid, interval, interval, interval) IS
    'Enqueues one job and returns its id (the existing job''s id when job_key matched). run_at NULL = now; '
    'queue NULL = default; priority NULL = 0; max_attempts NULL = setting default_max_attempts; '
    'job_key_mode replace | preserve_run_at | unsafe_dedupe. A keyless job that passes every check is inserted '
    'directly (jobq._enqueue_takes_fast_path, jobq._resolve_spec); a keyed or refused one goes through jobq._enqueue. '
    'Callers: applications (jobq_app), handlers (worker_runtime), operators. Locks the job row it writes. '
    'Errors: JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, JOB.UNKNOWN_JOB_KEY_MODE, JOB.MAX_ATTEMPTS_INVALID, '
    'JOB.LEASE_INVALID (timeout), JOB.INVALID_ARGUMENT, JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, JOB.STORE_REQUIRED, '
    'JOB.STORE_NOT_ALLOWED, JOB.TENANT_MISMATCH.';

-- Enqueues a JSON array of job specs in one call; returns the job ids in input order. A batch
-- whose every element is keyless and passes every check is inserted in one statement; any other
-- batch goes through jobq._enqueue, which raises (naming the position) or merges keys.
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

-- The gate functions (enqueue, enqueue_many run as jobq_app_gate) call the two expressions.
GRANT EXECUTE ON FUNCTION
    jobq._enqueue_takes_fast_path(jobq.job_spec, jobq.tasks),
    jobq._resolve_spec(jobq.job_spec, jobq.tasks, integer)
TO jobq_app_gate;

-- +goose Down
-- The bodies and comments of step 3 (enqueue and enqueue_many keep their owner, jobq_app_gate, and grants).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.enqueue(
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.enqueue_many(jobs jsonb)
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

DROP FUNCTION jobq._resolve_spec(jobq.job_spec, jobq.tasks, integer);
DROP FUNCTION jobq._enqueue_takes_fast_path(jobq.job_spec, jobq.tasks);
