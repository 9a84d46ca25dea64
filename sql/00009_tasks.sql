-- jobq schema step 9: the task registry. Every job names a task declared in jobq.tasks — from SQL
-- with jobq.define_task, or by a runner at start-up for its typed Go tasks — and enqueue refuses
-- an unknown task, a payload that breaks the task's contract, and a job whose store does not fit
-- the task's scope. A task's defaults (attempts, queue, priority, timeout, backoff) apply unless
-- the enqueue overrides them.
--
-- The payload contract is a JSON object mapping each key to its type; a key ending in "?" is
-- optional (absent or null); keys not named are allowed. Types are checked by shape: a date is
-- YYYY-MM-DD, not a calendar check. Types: string, number, integer, boolean, object, array,
-- uuid, date (YYYY-MM-DD), timestamp (ISO 8601 with a time), any. Example:
--   {"storeId": "uuid", "targetDate": "date", "reason?": "string"}

-- +goose Up

CREATE TABLE jobq.tasks (
    name           text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' AND length(name) <= 100),
    scope          text NOT NULL DEFAULT 'system' CHECK (scope IN ('system', 'store')),
    payload_schema jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(payload_schema) = 'object'),
    max_attempts   integer CHECK (max_attempts >= 1),
    queue          text CHECK (queue <> ''),
    priority       smallint,
    timeout        interval CHECK (timeout > interval '0'),
    backoff_base   interval CHECK (backoff_base > interval '0'),
    backoff_max    interval CHECK (backoff_max > interval '0'),
    description    text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE jobq.tasks IS 'The task registry: name (kebab-case), scope (system or store), payload contract and defaults. Written by jobq.define_task.';
GRANT SELECT ON jobq.tasks TO worker_runtime, jobq_app, jobq_operator;

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.UNKNOWN_TASK', 'JQ401', 'No task of this name is declared in jobq.tasks.',
     'Declare it first: SELECT jobq.define_task(''task-name'', ...); runners declare their typed tasks at start-up.'),
    ('JOB.PAYLOAD_INVALID', 'JQ402', 'The payload breaks the task''s contract: a required key is missing or a value has the wrong type.',
     'Compare the payload with jobq.tasks.payload_schema of the task; the message names the key.'),
    ('JOB.STORE_REQUIRED', 'JQ403', 'A store-scoped task was enqueued without a store id.',
     'Pass store_id (or a "storeId" in the payload), or use jobq.fan_out to enqueue it for every store.'),
    ('JOB.STORE_NOT_ALLOWED', 'JQ404', 'A system task was enqueued with a store id.',
     'System tasks run across stores: pass no store_id; declare the task with scope store if it works on one store.'),
    ('JOB.INVALID_TASK_NAME', 'JQ405', 'The task name is not kebab-case (lowercase words joined by single hyphens, at most 100 characters).',
     'Name tasks verb-noun in kebab-case, e.g. send-operator-invitation-email.');

-- Whether JSON value p_value has contract type p_type.
-- +goose StatementBegin
CREATE FUNCTION jobq._json_type_ok(p_value jsonb, p_type text)
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
        WHEN 'date'      THEN jsonb_typeof(p_value) = 'string' AND (p_value #>> '{}') ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
        WHEN 'timestamp' THEN jsonb_typeof(p_value) = 'string'
                              AND (p_value #>> '{}') ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?$'
        ELSE false
    END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._json_type_ok(jsonb, text) IS
    'Private. Whether a JSON value has a payload-contract type (string, number, integer, boolean, object, array, uuid, date, timestamp, any).';

-- The first way p_payload breaks contract p_schema, as a sentence naming the key; NULL when it keeps it.
-- +goose StatementBegin
CREATE FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb)
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

-- Declares or updates a task. Idempotent: a runner calls it for each of its tasks at start-up.
-- +goose StatementBegin
CREATE FUNCTION jobq.define_task(
    name           text,
    scope          text     DEFAULT 'system',
    payload_schema jsonb    DEFAULT '{}',
    max_attempts   integer  DEFAULT NULL,
    queue          text     DEFAULT NULL,
    priority       integer  DEFAULT NULL,
    timeout        interval DEFAULT NULL,
    backoff_base   interval DEFAULT NULL,
    backoff_max    interval DEFAULT NULL,
    description    text     DEFAULT ''
)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bad text;
BEGIN
    IF define_task.name IS NULL OR define_task.name !~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' OR length(define_task.name) > 100 THEN
        PERFORM jobq._raise('JOB.INVALID_TASK_NAME', format('%L is not a kebab-case task name', define_task.name));
    END IF;
    IF define_task.scope IS NULL OR define_task.scope NOT IN ('system', 'store') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('scope %L is not system or store', define_task.scope));
    END IF;
    IF define_task.payload_schema IS NULL OR jsonb_typeof(define_task.payload_schema) <> 'object' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'payload_schema must be a JSON object of key: type');
    END IF;
    SELECT format('payload_schema key %s has type %s; types are string, number, integer, boolean, object, array, uuid, date, timestamp, any', c.key, c.value)
    INTO v_bad
    FROM jsonb_each(define_task.payload_schema) AS c(key, value)
    WHERE jsonb_typeof(c.value) <> 'string'
       OR c.value #>> '{}' NOT IN ('string', 'number', 'integer', 'boolean', 'object', 'array', 'uuid', 'date', 'timestamp', 'any')
       OR rtrim(c.key, '?') = ''
    LIMIT 1;
    IF v_bad IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', v_bad);
    END IF;
    IF define_task.max_attempts < 1 THEN
        PERFORM jobq._raise('JOB.MAX_ATTEMPTS_INVALID', format('max_attempts is %s; it must be at least 1', define_task.max_attempts));
    END IF;
    IF define_task.timeout <= interval '0' OR define_task.backoff_base <= interval '0' OR define_task.backoff_max <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', 'timeout, backoff_base and backoff_max must be positive');
    END IF;
    IF define_task.queue = '' OR define_task.priority NOT BETWEEN -32768 AND 32767 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queue must not be empty and priority must fit -32768..32767');
    END IF;

    INSERT INTO jobq.tasks AS t (name, scope, payload_schema, max_attempts, queue, priority, timeout,
                                 backoff_base, backoff_max, description)
    VALUES (define_task.name, define_task.scope, define_task.payload_schema, define_task.max_attempts, define_task.queue,
            define_task.priority, define_task.timeout, define_task.backoff_base, define_task.backoff_max,
            coalesce(define_task.description, ''))
    ON CONFLICT ON CONSTRAINT tasks_pkey DO UPDATE SET
        scope = EXCLUDED.scope, payload_schema = EXCLUDED.payload_schema, max_attempts = EXCLUDED.max_attempts,
        queue = EXCLUDED.queue, priority = EXCLUDED.priority, timeout = EXCLUDED.timeout,
        backoff_base = EXCLUDED.backoff_base, backoff_max = EXCLUDED.backoff_max, description = EXCLUDED.description,
        updated_at = now()
    WHERE (t.scope, t.payload_schema, t.max_attempts, t.queue, t.priority, t.timeout, t.backoff_base, t.backoff_max, t.description)
          IS DISTINCT FROM
          (EXCLUDED.scope, EXCLUDED.payload_schema, EXCLUDED.max_attempts, EXCLUDED.queue, EXCLUDED.priority,
           EXCLUDED.timeout, EXCLUDED.backoff_base, EXCLUDED.backoff_max, EXCLUDED.description);
    RETURN define_task.name;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text) IS
    'Declares a task, or updates it when it exists (a no-op when nothing changed). name: kebab-case; scope: system '
    '(runs across stores, never has a store id) or store (always has one); payload_schema: {"key": "type", "optional?": "type"}; '
    'the other arguments are defaults an enqueue may override. Callers: migrations, operators, runners at start-up. '
    'Returns the name. Errors: JOB.INVALID_TASK_NAME, JOB.INVALID_ARGUMENT, JOB.MAX_ATTEMPTS_INVALID, JOB.LEASE_INVALID.';

-- Checks specs against the registry and fills in each task's defaults. A store-scoped spec
-- without store_id takes the payload's "storeId"; when both are given they must agree.
-- +goose StatementBegin
CREATE FUNCTION jobq._resolve_tasks(p_specs jobq.job_spec[], p_label_index boolean)
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
    SELECT s.ordinality AS position, s.task, s.store_id, s.payload, t.name AS known, t.scope,
           CASE WHEN t.name IS NOT NULL THEN jobq.payload_problem(t.payload_schema, coalesce(s.payload, '{}')) END AS problem
    INTO v_bad
    FROM unnest(p_specs) WITH ORDINALITY AS s
    LEFT JOIN jobq.tasks t ON t.name = btrim(s.task)
    WHERE t.name IS NULL
       OR jobq.payload_problem(t.payload_schema, coalesce(s.payload, '{}')) IS NOT NULL
       OR (t.scope = 'system' AND s.store_id IS NOT NULL)
       OR (t.scope = 'store' AND s.store_id IS NULL AND NOT coalesce(s.payload ->> 'storeId' ~* v_uuid, false))
       OR (t.scope = 'store' AND s.store_id IS NOT NULL AND s.payload ? 'storeId'
           AND (CASE WHEN s.payload ->> 'storeId' ~* v_uuid THEN (s.payload ->> 'storeId')::uuid END) IS DISTINCT FROM s.store_id)
    ORDER BY s.ordinality
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
                   coalesce(s.backoff_max, t.backoff_max))::jobq.job_spec
        FROM unnest(p_specs) WITH ORDINALITY AS s
        JOIN jobq.tasks t ON t.name = btrim(s.task)
        ORDER BY s.ordinality);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._resolve_tasks(jobq.job_spec[], boolean) IS
    'Private. Checks each spec against jobq.tasks (JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, JOB.STORE_REQUIRED, '
    'JOB.STORE_NOT_ALLOWED) and returns the specs with the task''s defaults and store id filled in, in input order.';

-- Enqueue now resolves tasks first. The insert implementation of step 3 keeps its body under a
-- new name; a thin _enqueue in front of it validates, resolves and checks the tenant.
ALTER FUNCTION jobq._enqueue(jobq.job_spec[], boolean) RENAME TO _insert_specs;
COMMENT ON FUNCTION jobq._insert_specs(jobq.job_spec[], boolean) IS
    'Private. Inserts resolved specs (see jobq._enqueue): applies the global defaults, inserts keyless jobs in one '
    'statement and keyed ones through _enqueue_keyed, NOTIFYs channel jobq per queue with a due job. Returns (ord, job_id).';

-- +goose StatementBegin
CREATE FUNCTION jobq._enqueue(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS TABLE (ord bigint, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_specs jobq.job_spec[];
BEGIN
    IF p_specs IS NULL OR cardinality(p_specs) = 0 THEN
        RETURN;
    END IF;
    PERFORM jobq._validate_specs(p_specs, p_label_index);
    v_specs := jobq._resolve_tasks(p_specs, p_label_index);
    PERFORM jobq._check_tenant(v_specs, p_label_index);
    RETURN QUERY SELECT i.ord, i.job_id FROM jobq._insert_specs(v_specs, p_label_index) AS i;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._enqueue(jobq.job_spec[], boolean) IS
    'Private. The one enqueue implementation behind jobq.enqueue, jobq.enqueue_many and jobq.fan_out: validates '
    '(JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, ...), resolves tasks (JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, '
    'JOB.STORE_REQUIRED, JOB.STORE_NOT_ALLOWED), checks the tenant (JOB.TENANT_MISMATCH), then inserts. Writes '
    'nothing when it raises. Returns (ord, job_id) for every input position.';

GRANT EXECUTE ON FUNCTION
    jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text)
TO worker_runtime, jobq_operator;
GRANT EXECUTE ON FUNCTION jobq.payload_problem(jsonb, jsonb), jobq._json_type_ok(jsonb, text)
    TO worker_runtime, jobq_app, jobq_operator;
-- The gate functions (enqueue, enqueue_many, run as jobq_app_gate) call the new pieces.
GRANT SELECT ON jobq.tasks TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION
    jobq._enqueue(jobq.job_spec[], boolean),
    jobq._insert_specs(jobq.job_spec[], boolean),
    jobq._resolve_tasks(jobq.job_spec[], boolean),
    jobq.payload_problem(jsonb, jsonb),
    jobq._json_type_ok(jsonb, text)
TO jobq_app_gate;

-- +goose Down
DROP FUNCTION jobq._enqueue(jobq.job_spec[], boolean);
ALTER FUNCTION jobq._insert_specs(jobq.job_spec[], boolean) RENAME TO _enqueue;
DROP FUNCTION jobq._resolve_tasks(jobq.job_spec[], boolean);
DROP FUNCTION jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text);
DROP FUNCTION jobq.payload_problem(jsonb, jsonb);
DROP FUNCTION jobq._json_type_ok(jsonb, text);
DELETE FROM jobq.error_codes WHERE sqlstate IN ('JQ401', 'JQ402', 'JQ403', 'JQ404', 'JQ405');
DROP TABLE jobq.tasks;
