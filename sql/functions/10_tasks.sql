-- jobq engine, tasks. The task registry: declaring tasks, and checking payloads against their
-- contracts before a job is written.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Declares a task, or brings its declaration up to date: its scope, payload contract and the
-- defaults its jobs take. Runners call it at start-up for the tasks they handle; operators too.
-- An operator's word is kept: app_enqueue as an operator (or the owner) declared it stays when a
-- runner declares the task again (jobq.tasks.operator_set), and the handler name is never written
-- here (jobq.set_task_handler, operators only), so a worker that re-declares its built-in tasks
-- at each start undoes nothing an operator set (issue 30).
CREATE OR REPLACE FUNCTION jobq.define_task(
    name           text,
    scope          text     DEFAULT 'system',
    payload_schema jsonb    DEFAULT '{}',
    max_attempts   integer  DEFAULT NULL,
    queue          text     DEFAULT NULL,
    priority       integer  DEFAULT NULL,
    timeout        interval DEFAULT NULL,
    backoff_base   interval DEFAULT NULL,
    backoff_max    interval DEFAULT NULL,
    description    text     DEFAULT '',
    app_enqueue    boolean  DEFAULT false
)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bad text;
    -- An operator or the owner (migrations): its app_enqueue is the operator's word.
    v_by_operator constant boolean := jobq._caller_is_operator()
                                      OR pg_catalog.pg_has_role(jobq._caller(), 'jobq_migrator', 'USAGE');
BEGIN
    IF define_task.name IS NULL OR define_task.name !~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' OR length(define_task.name) > 100 THEN
        PERFORM jobq._raise('JOB.INVALID_TASK_NAME', format('%L is not a kebab-case task name', left(define_task.name, 200)));
    END IF;
    IF define_task.scope IS NULL OR define_task.scope NOT IN ('system', 'store') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('scope %L is not system or store', left(define_task.scope, 200)));
    END IF;
    IF define_task.app_enqueue IS NULL OR (define_task.app_enqueue AND define_task.scope <> 'system') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            'app_enqueue must be true or false, and true only for a system task (applications enqueue their store''s store tasks anyway)');
    END IF;
    IF define_task.payload_schema IS NULL OR jsonb_typeof(define_task.payload_schema) <> 'object' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'payload_schema must be a JSON object of key: type');
    END IF;
    SELECT format('payload_schema key %s has type %s; types are string, number, integer, boolean, object, array, uuid, date, timestamp, any',
                  left(c.key, 200), left(c.value::text, 200))
    INTO v_bad
    FROM jsonb_each(define_task.payload_schema) AS c(key, value)
    WHERE jsonb_typeof(c.value) <> 'string'
       OR c.value #>> '{}' NOT IN ('string', 'number', 'integer', 'boolean', 'object', 'array', 'uuid', 'date', 'timestamp', 'any')
       OR rtrim(c.key, '?') = ''
    LIMIT 1;
    IF v_bad IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', v_bad);
    END IF;
    -- A task's defaults have the domains of the enqueue arguments they stand for (00023).
    PERFORM jobq._check_int('max_attempts', define_task.max_attempts, 1, jobq._limit('max_attempts'), 'JOB.MAX_ATTEMPTS_INVALID');
    PERFORM jobq._check_interval('timeout', define_task.timeout, jobq._limit_interval('timeout'));
    PERFORM jobq._check_interval('backoff_base', define_task.backoff_base, jobq._limit_interval('backoff'));
    PERFORM jobq._check_interval('backoff_max', define_task.backoff_max, jobq._limit_interval('backoff'));
    IF define_task.queue = '' OR define_task.priority NOT BETWEEN -32768 AND 32767 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queue must not be empty and priority must fit -32768..32767');
    END IF;
    PERFORM jobq._check_text('queue', define_task.queue, jobq._limit('queue')::integer);
    PERFORM jobq._check_text('description', define_task.description, 2000);

    -- A runner's declaration keeps the app_enqueue an operator fixed (operator_set); an
    -- operator's fixes it. A store task never keeps app_enqueue true (it must be false there).
    INSERT INTO jobq.tasks AS t (name, scope, payload_schema, max_attempts, queue, priority, timeout,
                                 backoff_base, backoff_max, description, app_enqueue, operator_set)
    VALUES (define_task.name, define_task.scope, define_task.payload_schema, define_task.max_attempts, define_task.queue,
            define_task.priority, define_task.timeout, define_task.backoff_base, define_task.backoff_max,
            coalesce(define_task.description, ''), define_task.app_enqueue,
            CASE WHEN v_by_operator THEN ARRAY['app_enqueue'] ELSE '{}'::text[] END)
    ON CONFLICT ON CONSTRAINT tasks_pkey DO UPDATE SET
        scope = EXCLUDED.scope, payload_schema = EXCLUDED.payload_schema, max_attempts = EXCLUDED.max_attempts,
        queue = EXCLUDED.queue, priority = EXCLUDED.priority, timeout = EXCLUDED.timeout,
        backoff_base = EXCLUDED.backoff_base, backoff_max = EXCLUDED.backoff_max, description = EXCLUDED.description,
        app_enqueue = CASE WHEN NOT v_by_operator AND 'app_enqueue' = ANY (t.operator_set) AND EXCLUDED.scope = 'system'
                           THEN t.app_enqueue ELSE EXCLUDED.app_enqueue END,
        operator_set = CASE WHEN v_by_operator THEN ARRAY['app_enqueue'] ELSE t.operator_set END,
        updated_at = now()
    WHERE (t.scope, t.payload_schema, t.max_attempts, t.queue, t.priority, t.timeout, t.backoff_base, t.backoff_max, t.description,
           t.app_enqueue, t.operator_set)
          IS DISTINCT FROM
          (EXCLUDED.scope, EXCLUDED.payload_schema, EXCLUDED.max_attempts, EXCLUDED.queue, EXCLUDED.priority,
           EXCLUDED.timeout, EXCLUDED.backoff_base, EXCLUDED.backoff_max, EXCLUDED.description,
           CASE WHEN NOT v_by_operator AND 'app_enqueue' = ANY (t.operator_set) AND EXCLUDED.scope = 'system'
                THEN t.app_enqueue ELSE EXCLUDED.app_enqueue END,
           CASE WHEN v_by_operator THEN ARRAY['app_enqueue'] ELSE t.operator_set END);
    RETURN define_task.name;
END
$$;
COMMENT ON FUNCTION jobq.define_task(text,text,jsonb,integer,text,integer,interval,interval,interval,text,boolean) IS
    'Declares a task, or updates it when it exists (a no-op when nothing changed). name: kebab-case; scope: system (runs across stores, never has a store id) or store (always has one); payload_schema: {"key": "type", "optional?": "type"}; the other arguments are defaults an enqueue may override; app_enqueue (system tasks only, default false) lets applications (jobq_app) enqueue it; declared by an operator or the owner it is fixed (jobq.tasks.operator_set), and a runner''s later declaration (a caller without jobq_operator''s rights) keeps it. Never changes the handler name (jobq.set_task_handler). Callers: migrations, operators, runners at start-up. Locks the task row. Returns the name. Errors: JOB.INVALID_TASK_NAME, JOB.INVALID_ARGUMENT, JOB.MAX_ATTEMPTS_INVALID (1..1000), JOB.LEASE_INVALID (not positive), JOB.OUT_OF_RANGE (timeout above 7 days, backoff above 30 days), JOB.VALUE_TOO_LONG (queue above 200, description above 2000 characters).';

-- Names the handler that runs a task: NULL goes back to the task's own name. The database holds a
-- name only; each worker's own configuration maps names to what it may run, so this control
-- chooses among what the workers' files list and can make no worker run anything else. Operators
-- only: no runtime role may call it, and none may write jobq.tasks (issue 30).
CREATE OR REPLACE FUNCTION jobq.set_task_handler(task text, handler text)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_old text;
    v_new constant text := set_task_handler.handler;
BEGIN
    PERFORM jobq._check_name('task', set_task_handler.task, jobq._limit('task')::integer);
    IF v_new IS NOT NULL THEN
        PERFORM jobq._check_name('handler', v_new, jobq._limit('task')::integer);
    END IF;
    SELECT t.handler INTO v_old FROM jobq.tasks t WHERE t.name = set_task_handler.task FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', set_task_handler.task));
    END IF;
    IF v_old IS NOT DISTINCT FROM v_new THEN
        RETURN false;
    END IF;
    UPDATE jobq.tasks AS t SET handler = v_new, updated_at = now() WHERE t.name = set_task_handler.task;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('set_task_handler', jsonb_build_object('task', set_task_handler.task, 'handler', v_new, 'previous', v_old));
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq.set_task_handler(text,text) IS
    'Sets the handler name of a declared task (NULL: the task''s own name, as declared). A name only: each worker''s configuration maps handler names to the functions, commands and URLs it runs, so a worker runs a task only through a handler its own configuration lists. Returns true when the name changed (audited as set_task_handler with the task, the handler and the previous one), false when it was already so. jobq.define_task never changes it. Caller: operators (jobq_operator) and the owner; no runtime role. Locks the task row. Errors: JOB.INVALID_ARGUMENT (task NULL or blank, handler blank), JOB.VALUE_TOO_LONG (task or handler above 100 characters), JOB.UNKNOWN_TASK.';

-- The declared tasks a worker with the given handler names serves: those whose handler name (the
-- task's own name unless an operator set one) is among them. A worker calls it at start with the
-- names its configuration defines, then registers and claims exactly these tasks.
CREATE OR REPLACE FUNCTION jobq.served_tasks(handlers text[])
RETURNS TABLE (task text, handler text)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF served_tasks.handlers IS NULL OR cardinality(served_tasks.handlers) = 0
       OR array_ndims(served_tasks.handlers) <> 1 OR array_position(served_tasks.handlers, NULL) IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'handlers must be a non-empty, one-dimensional array of names without NULLs');
    END IF;
    PERFORM jobq._check_length('handlers', served_tasks.handlers, jobq._limit('tasks')::integer);
    PERFORM jobq._check_name(format('handlers[%s]', h.n), h.name, jobq._limit('task')::integer)
    FROM unnest(served_tasks.handlers) WITH ORDINALITY AS h(name, n)
    WHERE btrim(h.name) = '' OR char_length(h.name) > jobq._limit('task');
    RETURN QUERY
        SELECT t.name, coalesce(t.handler, t.name)
        FROM jobq.tasks t
        WHERE coalesce(t.handler, t.name) = ANY (served_tasks.handlers)
        ORDER BY t.name;
END
$$;
COMMENT ON FUNCTION jobq.served_tasks(text[]) IS
    'The declared tasks whose handler name (jobq.tasks.handler, else the task''s name) is one of handlers, by task name: task and its handler name. Caller: workers at start (worker_runtime), operators. Reads jobq.tasks; locks nothing. Errors: JOB.INVALID_ARGUMENT (handlers NULL, empty, multidimensional, holding a NULL or a blank name), JOB.OUT_OF_RANGE (more than 1000 names), JOB.VALUE_TOO_LONG (a name above 100 characters).';

-- Says, in words, the first way a payload breaks a task's contract (NULL when it keeps it), so that
-- enqueue, schedule and fan_out refuse a bad payload with a clear message, and an application can
-- ask before it enqueues.
CREATE OR REPLACE FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb)
RETURNS text
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.payload_problem(jsonb,jsonb) IS
    'The first way a payload breaks a task''s payload contract ("required key storeId is missing", "key targetDate must be a date, not 5"), or NULL when it keeps it (or either is NULL). Takes any arguments: a contract that is no JSON object gives "the payload contract is a JSON array, not an object". Pure; callers: enqueue, tests, applications that check before enqueueing.';

-- Whether JSON value p_value has contract type p_type.
CREATE OR REPLACE FUNCTION jobq._json_type_ok(p_value jsonb, p_type text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT CASE p_type
        WHEN 'any'       THEN true
        WHEN 'string'    THEN jsonb_typeof(p_value) = 'string'
        WHEN 'number'    THEN jsonb_typeof(p_value) = 'number'
        WHEN 'integer'   THEN jsonb_typeof(p_value) = 'number' AND (p_value #>> '{}') ~ '^-?[0-9]+$'
        WHEN 'boolean'   THEN jsonb_typeof(p_value) = 'boolean'
        WHEN 'object'    THEN jsonb_typeof(p_value) = 'object'
        WHEN 'array'     THEN jsonb_typeof(p_value) = 'array'
        WHEN 'uuid'      THEN jsonb_typeof(p_value) = 'string'
                              AND (p_value #>> '{}') ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        -- A date is a day of the calendar (2026-02-29 is not; 2024-02-29 is); a timestamp is such
        -- a day, a time of day (00:00 to 23:59:59.999…) and an optional offset (Z, ±hh, ±hhmm,
        -- ±hh:mm up to 23:59).
        WHEN 'date'      THEN jsonb_typeof(p_value) = 'string' AND char_length(p_value #>> '{}') = 10
                              AND jobq._calendar_day_ok(p_value #>> '{}')
        WHEN 'timestamp' THEN jsonb_typeof(p_value) = 'string'
                              AND (p_value #>> '{}') ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?(Z|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)?$'
                              AND jobq._calendar_day_ok(substr(p_value #>> '{}', 1, 10))
        ELSE false
    END
$$;
COMMENT ON FUNCTION jobq._json_type_ok(jsonb,text) IS
    'Private. Whether a JSON value has a payload-contract type (string, number, integer, boolean, object, array, uuid, date: a calendar day YYYY-MM-DD, timestamp: a calendar day, a time of day up to 23:59:59.999… and an optional offset up to ±23:59, any). Never raises.';

-- Whether p_day (YYYY-MM-DD) is a day of the proleptic Gregorian calendar from year 1 to 9999:
-- the month 01 to 12, the day within that month's length, February 29 only in leap years.
-- One expression (a CASE guards the casts, so no input raises), inlined into its callers.
CREATE OR REPLACE FUNCTION jobq._calendar_day_ok(p_day text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN p_day IS NULL OR p_day !~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' OR p_day LIKE '0000%' THEN false
        ELSE pg_catalog.substr(p_day, 9, 2)::integer <=
             CASE pg_catalog.substr(p_day, 6, 2)
                 WHEN '02' THEN CASE WHEN pg_catalog.substr(p_day, 1, 4)::integer % 4 = 0
                                          AND (pg_catalog.substr(p_day, 1, 4)::integer % 100 <> 0
                                               OR pg_catalog.substr(p_day, 1, 4)::integer % 400 = 0)
                                     THEN 29 ELSE 28 END
                 WHEN '04' THEN 30 WHEN '06' THEN 30 WHEN '09' THEN 30 WHEN '11' THEN 30
                 ELSE 31
             END
    END
$$;
COMMENT ON FUNCTION jobq._calendar_day_ok(text) IS
    'Private. Whether p_day is a calendar day YYYY-MM-DD of years 0001 to 9999 (month lengths and leap years as PostgreSQL''s date type has them); false for anything else, NULL included. Never raises; inlined. Caller: jobq._json_type_ok (the date and timestamp payload types).';

-- Checks a batch of specs against their tasks (declared, contract kept, scope and store agree) in
-- one set-based pass, and fills in each task's defaults and store id. Caller: jobq._enqueue.
CREATE OR REPLACE FUNCTION jobq._resolve_tasks(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS jobq.job_spec[]
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_uuid constant text := '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
    v_bad record;
    v_code text;
    v_detail text;
BEGIN
    WITH specs AS (
        SELECT s.ordinality AS position, btrim(s.task) AS task, coalesce(s.payload, '{}') AS payload, s.store_id
        FROM unnest(p_specs) WITH ORDINALITY AS s
    ), contract AS (
        SELECT t.name AS task, rtrim(c.key, '?') AS key, c.key LIKE '%?' AS optional, c.type
        FROM jobq.tasks t
        CROSS JOIN LATERAL jsonb_each_text(t.payload_schema) AS c(key, type)
        WHERE t.name IN (SELECT DISTINCT s.task FROM specs s)
    ), broken_contract AS (
        SELECT DISTINCT s.position
        FROM specs s
        JOIN contract k ON k.task = s.task
        WHERE (NOT k.optional AND NOT s.payload ? k.key)
           OR (s.payload ? k.key
               AND NOT jobq._json_type_ok(s.payload -> k.key, k.type)
               AND NOT (k.optional AND jsonb_typeof(s.payload -> k.key) = 'null'))
    )
    SELECT s.position, s.task, s.store_id, s.payload, t.name AS known, t.scope,
           CASE WHEN t.name IS NOT NULL THEN jobq.payload_problem(t.payload_schema, s.payload) END AS problem
    INTO v_bad
    FROM specs s
    LEFT JOIN jobq.tasks t ON t.name = s.task
    WHERE t.name IS NULL
       OR s.position IN (SELECT b.position FROM broken_contract b)
       OR (t.scope = 'system' AND s.store_id IS NOT NULL)
       OR (t.scope = 'store' AND s.store_id IS NULL AND NOT coalesce(s.payload ->> 'storeId' ~* v_uuid, false))
       OR (t.scope = 'store' AND s.store_id IS NOT NULL AND s.payload ? 'storeId'
           AND (s.payload ->> 'storeId') IS DISTINCT FROM s.store_id::text
           AND (CASE WHEN s.payload ->> 'storeId' ~* v_uuid THEN (s.payload ->> 'storeId')::uuid END) IS DISTINCT FROM s.store_id)
    ORDER BY s.position
    LIMIT 1;

    IF FOUND THEN
        IF v_bad.known IS NULL THEN
            v_code := 'JOB.UNKNOWN_TASK';
            v_detail := format('task %L is not declared', v_bad.task);
        ELSIF v_bad.problem IS NOT NULL THEN
            v_code := 'JOB.PAYLOAD_INVALID';
            v_detail := format('task %s: %s', v_bad.task, v_bad.problem);
        ELSIF v_bad.scope = 'system' THEN
            v_code := 'JOB.STORE_NOT_ALLOWED';
            v_detail := format('task %s is a system task; it got store %s', v_bad.task, v_bad.store_id);
        ELSIF v_bad.store_id IS NULL THEN
            v_code := 'JOB.STORE_REQUIRED';
            v_detail := format('task %s is store-scoped; pass store_id or a storeId in the payload', v_bad.task);
        ELSE
            v_code := 'JOB.PAYLOAD_INVALID';
            v_detail := format('task %s: payload storeId %s differs from store_id %s', v_bad.task, v_bad.payload ->> 'storeId', v_bad.store_id);
        END IF;
        PERFORM jobq._raise(v_code, CASE WHEN p_label_index THEN format('job %s: %s', v_bad.position, v_detail) ELSE v_detail END);
    END IF;

    RETURN ARRAY(
        SELECT ROW(s.task, s.payload, coalesce(s.queue, t.queue), s.run_at, coalesce(s.priority, t.priority),
                   coalesce(s.max_attempts, t.max_attempts), s.job_key, s.job_key_mode,
                   CASE WHEN t.scope = 'store' THEN coalesce(s.store_id, (s.payload ->> 'storeId')::uuid) END,
                   coalesce(s.timeout, t.timeout), coalesce(s.backoff_base, t.backoff_base),
                   coalesce(s.backoff_max, t.backoff_max), s.unique_for)::jobq.job_spec
        FROM unnest(p_specs) WITH ORDINALITY AS s
        JOIN jobq.tasks t ON t.name = btrim(s.task)
        ORDER BY s.ordinality);
END
$$;
COMMENT ON FUNCTION jobq._resolve_tasks(jobq.job_spec[],boolean) IS
    'Private. Checks each spec against jobq.tasks (JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, JOB.STORE_REQUIRED, JOB.STORE_NOT_ALLOWED), set-based, and returns the specs with the task''s defaults and store id filled in, in input order.';

-- The row a spec that takes the fast path becomes: the task's defaults, then the global ones
-- (what _resolve_tasks and then _insert_specs apply). p_default_attempts is the setting
-- default_max_attempts. Inlined.
CREATE OR REPLACE FUNCTION jobq._resolve_spec(p_spec jobq.job_spec, p_task jobq.tasks, p_default_attempts integer)
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
               coalesce(p_spec.backoff_max, p_task.backoff_max),
               NULL)::jobq.job_spec
$$;
COMMENT ON FUNCTION jobq._resolve_spec(jobq.job_spec,jobq.tasks,integer) IS
    'Private. The job a keyless spec that takes the fast path becomes: task trimmed, the task''s defaults (queue, priority, max_attempts, timeout, backoff, store id from the payload for a store task), then the global ones (payload {}, queue default, run_at now, priority 0, max_attempts p_default_attempts). Pure; inlined.';
