-- jobq schema step 25: the tenant boundary covers system jobs (issue 12, point 3).
--
-- Before: the gate functions (enqueue, enqueue_many, retry_job, cancel_job, owned by
-- jobq_app_gate) read, inserted and updated system rows (store_id NULL) for every caller. A jobq_app
-- login could rewrite a waiting system job through a keyed enqueue (payload, run_at, max_attempts),
-- postpone or kill the cron schedulers through their predictable slot keys, and retry or revive a
-- dead or future system job.
--
-- Now the gate knows three kinds of caller (jobq._caller_is_restricted):
--   trusted     members of jobq_operator, worker_runtime or jobq_migrator (and superusers): every
--               store for operators; system rows and the session's store for the runtime;
--   restricted  everybody else, i.e. application logins (members of jobq_app): the session's store
--               only. A restricted caller never updates, deletes, locks, keys, retries or revives a
--               system row; it inserts one only for a system task declared with app_enqueue (new
--               column jobq.tasks.app_enqueue, default false).
-- The policies enforce it; jobq._check_tenant gives the clear error first (JOB.NOT_ALLOWED).
--
-- Also:
--   * job keys that start with "schedule:" belong to cron slots: only the engine and operators
--     write them (JOB.NOT_ALLOWED for everyone else);
--   * store bindings (jobq.store_bindings, jobq.bind_store / jobq.unbind_store): a login with at
--     least one binding acts only for its bound stores; jobq.current_store_id() is NULL for any
--     other store it names, so every policy fails closed and enqueue says JOB.STORE_NOT_BOUND. Off
--     (no rows) by default;
--   * jobq.fan_out is SECURITY DEFINER and worker_runtime no longer executes jobq._enqueue_for_stores:
--     the runtime reaches store jobs only through fan_out (every store of
--     public.list_store_ids_for_fan_out) and through the gate inside its tenant transaction;
--   * no runtime role executes a _-prefixed helper: payload_problem, which needs _json_type_ok,
--     becomes SECURITY DEFINER.

-- +goose Up

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.NOT_ALLOWED', 'JQ407',
     'The caller may not do this: an application enqueues only its store''s jobs and the system tasks declared app_enqueue, never gives a system job a job key, and nobody but the engine and operators writes a cron slot''s key (schedule:...).',
     'Enqueue the work as a store task of the session''s store, or declare the system task with jobq.define_task(..., app_enqueue => true); leave schedule: keys to jobq.schedule.'),
    ('JOB.STORE_NOT_BOUND', 'JQ408',
     'The login is bound to stores (jobq.store_bindings) and the session''s app.current_store_id is not one of them.',
     'Connect with the login of that store, or have an operator run jobq.bind_store(login, store_id).');

ALTER TABLE jobq.tasks ADD COLUMN app_enqueue boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN jobq.tasks.app_enqueue IS
    'System tasks only: whether application logins (restricted callers of the gate functions) may enqueue it. Default false.';

CREATE TABLE jobq.store_bindings (
    login      name        NOT NULL,
    store_id   uuid        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (login, store_id)
);
COMMENT ON TABLE jobq.store_bindings IS
    'Optional binding of login roles to the stores they may act for: a login with at least one row acts only for those '
    'stores (jobq.current_store_id() is NULL for any other). Written by jobq.bind_store / jobq.unbind_store.';
ALTER TABLE jobq.store_bindings ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.store_bindings FORCE ROW LEVEL SECURITY;
CREATE POLICY store_bindings_engine ON jobq.store_bindings TO jobq_migrator USING (true) WITH CHECK (true);
CREATE POLICY store_bindings_operator_read ON jobq.store_bindings FOR SELECT TO jobq_operator USING (true);
-- Every other role sees only its own login's rows: what current_store_id() needs, nothing more.
CREATE POLICY store_bindings_own ON jobq.store_bindings FOR SELECT TO jobq_app, jobq_app_gate, worker_runtime
    USING (login = session_user);
GRANT SELECT ON jobq.store_bindings TO jobq_app, jobq_app_gate, worker_runtime, jobq_operator;

-- The store this session acts for. A login bound to stores acts only for them.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.current_store_id()
RETURNS uuid
LANGUAGE sql
STABLE
PARALLEL SAFE
AS $$
    SELECT CASE WHEN s.v ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                 AND (NOT EXISTS (SELECT 1 FROM jobq.store_bindings b WHERE b.login = session_user)
                      OR EXISTS (SELECT 1 FROM jobq.store_bindings b
                                 WHERE b.login = session_user AND b.store_id::text = pg_catalog.lower(s.v)))
                THEN s.v::uuid END
    FROM (SELECT pg_catalog.current_setting('app.current_store_id', true) AS v) AS s
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.current_store_id() IS
    'The store of this session or transaction: app.current_store_id as a uuid, or NULL when unset, empty (left '
    'behind by an ended SET LOCAL), not a uuid, or a store the login is not bound to (jobq.store_bindings: a login '
    'with bindings acts only for its bound stores) — so policies fail closed. Used by every tenant policy. Reads '
    'jobq.store_bindings (the caller''s own rows); locks nothing.';

-- Whether the caller of a gate function is restricted to its session's store: it has none of the
-- rights of jobq_operator, worker_runtime or jobq_migrator (superusers have them all).
-- +goose StatementBegin
CREATE FUNCTION jobq._caller_is_restricted()
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT NOT (pg_catalog.pg_has_role(jobq._caller(), 'jobq_operator', 'USAGE')
                OR pg_catalog.pg_has_role(jobq._caller(), 'worker_runtime', 'USAGE')
                OR pg_catalog.pg_has_role(jobq._caller(), 'jobq_migrator', 'USAGE'))
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._caller_is_restricted() IS
    'Private. Whether the caller of a gate function is an application (restricted to the session''s store, no system '
    'row changes): it has none of the rights of jobq_operator, worker_runtime, jobq_migrator. Locks nothing.';

-- Whether the caller of a gate function reaches a row of store p_store_id (NULL: a system row).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._caller_reaches(p_store_id uuid)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT CASE
        WHEN pg_catalog.pg_has_role(jobq._caller(), 'jobq_operator', 'USAGE') THEN true
        WHEN p_store_id IS NULL THEN NOT jobq._caller_is_restricted()
        ELSE coalesce(p_store_id = jobq.current_store_id(), false)
    END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._caller_reaches(uuid) IS
    'Private. Whether the caller of a gate function may change a row of store p_store_id: operators every row; a '
    'system row (NULL) the trusted callers (worker_runtime, jobq_migrator), never an application; a store''s row when '
    'it is the session''s jobq.current_store_id(). Used by the gate''s row policies. Locks nothing.';

-- Whether an application may insert a system job of task p_task (jobq.tasks.app_enqueue).
-- +goose StatementBegin
CREATE FUNCTION jobq._app_may_enqueue(p_task text)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT coalesce((SELECT t.app_enqueue FROM jobq.tasks t WHERE t.name = p_task AND t.scope = 'system'), false)
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._app_may_enqueue(text) IS
    'Private. Whether task p_task is a system task that applications may enqueue (jobq.tasks.app_enqueue). Used by '
    'the gate''s insert policy. Locks nothing.';

-- Refuses, before the policies would, what the caller may not do: a store it does not act for, a
-- system task it may not enqueue, a key on a system job, a cron slot's key.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._check_tenant(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bad record;
    v_code text;
    v_detail text;
    v_session constant uuid := jobq.current_store_id();
    v_setting constant text := current_setting('app.current_store_id', true);
    v_restricted boolean;
BEGIN
    IF current_user <> 'jobq_app_gate' OR pg_has_role(jobq._caller(), 'jobq_operator', 'USAGE') THEN
        RETURN;
    END IF;
    v_restricted := jobq._caller_is_restricted();
    SELECT s.ordinality AS position, s.task, s.store_id, s.job_key, coalesce(t.app_enqueue, false) AS app_enqueue
    INTO v_bad
    FROM unnest(p_specs) WITH ORDINALITY AS s
    LEFT JOIN jobq.tasks t ON t.name = s.task
    WHERE (s.store_id IS NOT NULL AND s.store_id IS DISTINCT FROM v_session)
       OR (s.store_id IS NULL AND s.job_key LIKE 'schedule:%')
       OR (v_restricted AND s.store_id IS NULL AND (NOT coalesce(t.app_enqueue, false) OR s.job_key IS NOT NULL))
    ORDER BY s.ordinality
    LIMIT 1;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF v_bad.store_id IS NOT NULL AND v_session IS NULL AND v_setting IS NOT NULL
       AND lower(v_setting) = v_bad.store_id::text THEN
        v_code := 'JOB.STORE_NOT_BOUND';
        v_detail := format('login %s is not bound to store %s (jobq.store_bindings)', session_user, v_bad.store_id);
    ELSIF v_bad.store_id IS NOT NULL THEN
        v_code := 'JOB.TENANT_MISMATCH';
        v_detail := format('store %s is not this session''s store (app.current_store_id = %s)',
                           v_bad.store_id, coalesce(v_session::text, 'unset'));
    ELSIF v_bad.job_key LIKE 'schedule:%' THEN
        v_code := 'JOB.NOT_ALLOWED';
        v_detail := format('job_key %L: keys that start with schedule: belong to cron slots', left(v_bad.job_key, 200));
    ELSIF NOT v_bad.app_enqueue THEN
        v_code := 'JOB.NOT_ALLOWED';
        v_detail := format('task %s is a system task that applications may not enqueue (declare it with app_enqueue => true to allow it)',
                           v_bad.task);
    ELSE
        v_code := 'JOB.NOT_ALLOWED';
        v_detail := format('task %s: applications may not give a system job a job_key', v_bad.task);
    END IF;
    PERFORM jobq._raise(v_code, CASE WHEN p_label_index THEN format('job %s: %s', v_bad.position, v_detail) ELSE v_detail END);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_tenant(jobq.job_spec[], boolean) IS
    'Private. Inside a gate function (current_user jobq_app_gate) and for a caller without jobq_operator''s rights, '
    'raises for the first spec the caller may not enqueue: JOB.TENANT_MISMATCH (a store other than the session''s), '
    'JOB.STORE_NOT_BOUND (the login is bound to other stores), JOB.NOT_ALLOWED (a schedule: key; for an application '
    'a system task not declared app_enqueue, or a system job with a job_key). The row policies are the backstop; '
    'this gives the clear error. Locks nothing.';

-- The gate's policies: a restricted caller (an application) changes only its store's rows.
ALTER POLICY jobs_gate_insert ON jobq.jobs
    WITH CHECK (jobq._caller_reaches(store_id) OR (store_id IS NULL AND jobq._app_may_enqueue(task)));
ALTER POLICY jobs_gate_update ON jobq.jobs
    USING (jobq._caller_reaches(store_id)) WITH CHECK (jobq._caller_reaches(store_id));
ALTER POLICY jobs_gate_delete ON jobq.jobs
    USING (jobq._caller_reaches(store_id));
ALTER POLICY job_history_gate_insert ON jobq.job_history
    WITH CHECK (jobq._caller_reaches(store_id));
ALTER POLICY job_history_gate_update ON jobq.job_history
    USING (jobq._caller_reaches(store_id)) WITH CHECK (jobq._caller_reaches(store_id));
ALTER POLICY job_history_gate_delete ON jobq.job_history
    USING (jobq._caller_reaches(store_id));

GRANT EXECUTE ON FUNCTION jobq._caller_is_restricted(), jobq._app_may_enqueue(text) TO jobq_app_gate;

-- define_task learns app_enqueue: a new signature.
DROP FUNCTION jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text);
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

    INSERT INTO jobq.tasks AS t (name, scope, payload_schema, max_attempts, queue, priority, timeout,
                                 backoff_base, backoff_max, description, app_enqueue)
    VALUES (define_task.name, define_task.scope, define_task.payload_schema, define_task.max_attempts, define_task.queue,
            define_task.priority, define_task.timeout, define_task.backoff_base, define_task.backoff_max,
            coalesce(define_task.description, ''), define_task.app_enqueue)
    ON CONFLICT ON CONSTRAINT tasks_pkey DO UPDATE SET
        scope = EXCLUDED.scope, payload_schema = EXCLUDED.payload_schema, max_attempts = EXCLUDED.max_attempts,
        queue = EXCLUDED.queue, priority = EXCLUDED.priority, timeout = EXCLUDED.timeout,
        backoff_base = EXCLUDED.backoff_base, backoff_max = EXCLUDED.backoff_max, description = EXCLUDED.description,
        app_enqueue = EXCLUDED.app_enqueue, updated_at = now()
    WHERE (t.scope, t.payload_schema, t.max_attempts, t.queue, t.priority, t.timeout, t.backoff_base, t.backoff_max, t.description,
           t.app_enqueue)
          IS DISTINCT FROM
          (EXCLUDED.scope, EXCLUDED.payload_schema, EXCLUDED.max_attempts, EXCLUDED.queue, EXCLUDED.priority,
           EXCLUDED.timeout, EXCLUDED.backoff_base, EXCLUDED.backoff_max, EXCLUDED.description, EXCLUDED.app_enqueue);
    RETURN define_task.name;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text, boolean) IS
    'Declares a task, or updates it when it exists (a no-op when nothing changed). name: kebab-case; scope: system '
    '(runs across stores, never has a store id) or store (always has one); payload_schema: {"key": "type", "optional?": "type"}; '
    'the other arguments are defaults an enqueue may override; app_enqueue (system tasks only, default false) lets '
    'applications (jobq_app) enqueue it. Callers: migrations, operators, runners at start-up. Locks the task row. '
    'Returns the name. Errors: JOB.INVALID_TASK_NAME, JOB.INVALID_ARGUMENT, JOB.MAX_ATTEMPTS_INVALID (1..1000), '
    'JOB.LEASE_INVALID (not positive), JOB.OUT_OF_RANGE (timeout above 7 days, backoff above 30 days), JOB.VALUE_TOO_LONG '
    '(queue above 200, description above 2000 characters).';
REVOKE ALL ON FUNCTION jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text, boolean)
    TO worker_runtime, jobq_operator;

-- The fast path of enqueue / enqueue_many knows the new rule and the bounds of 00023 (it must
-- take nothing the slow path refuses).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_takes_fast_path(p_spec jobq.job_spec, p_task jobq.tasks)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT NOT coalesce(
           -- A key merges with the live job that holds it: the keyed path.
           p_spec.job_key IS NOT NULL
           -- _validate_specs: every field within its domain (jobq._spec_in_bounds, never NULL).
        OR NOT jobq._spec_in_bounds(p_spec)
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
            AND NOT pg_catalog.pg_has_role(jobq._caller(), 'jobq_operator', 'USAGE'))
           -- _check_tenant: an application (restricted caller) enqueues a system task only when the
           -- task is declared app_enqueue.
        OR (p_task.scope = 'system' AND NOT p_task.app_enqueue AND CURRENT_USER = 'jobq_app_gate'
            AND jobq._caller_is_restricted()),
        false)
$$;
-- +goose StatementEnd

-- jobq.tasks has a new column: enqueue names the columns it reads instead of t.*.
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
        SELECT t.name, t.scope, t.payload_schema, t.max_attempts, t.queue, t.priority, t.timeout, t.backoff_base,
               t.backoff_max, t.description, t.created_at, t.updated_at, t.app_enqueue,
               (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts')
        INTO v_task.name, v_task.scope, v_task.payload_schema, v_task.max_attempts, v_task.queue, v_task.priority,
             v_task.timeout, v_task.backoff_base, v_task.backoff_max, v_task.description, v_task.created_at,
             v_task.updated_at, v_task.app_enqueue, v_default_attempts
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

-- The fan-out's private half checks the bounds of its arguments up front (00023), so a bad
-- template or payload is refused once, not once per store, and also when there are no stores.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_for_stores(
    p_task text, p_payload jsonb, p_job_key_template text, p_job_key_mode text, p_run_at timestamptz, p_store_ids uuid[])
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_task jobq.tasks;
    v_problem text;
BEGIN
    SELECT * INTO v_task FROM jobq.tasks t WHERE t.name = p_task;
    IF v_task.name IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', p_task));
    ELSIF v_task.scope <> 'store' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('fan_out needs a store-scoped task; %s is a system task', p_task));
    END IF;
    IF p_payload IS NULL OR jsonb_typeof(p_payload) <> 'object' THEN
        PERFORM jobq._raise('JOB.PAYLOAD_NOT_OBJECT', 'the fan-out payload must be a JSON object');
    END IF;
    -- Bounds (00023): the payload's size, and a template whose keys fit the job_key limit once
    -- {storeId} (9 characters) becomes a uuid (36).
    PERFORM jobq._check_payload('payload', p_payload);
    PERFORM jobq._check_text('job_key_template', p_job_key_template, (jobq._limit('job_key') - 27)::integer);
    PERFORM jobq._check_timestamp('run_at', p_run_at);
    IF p_job_key_template IS NOT NULL AND position('{storeId}' IN p_job_key_template) = 0 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('job_key_template %L must contain {storeId}, or every store would share one key', p_job_key_template));
    END IF;
    -- Every job gets the same payload but for its storeId: the contract is checked once, on the
    -- payload with a storeId, and the task's defaults are applied here, so the 10,000 specs of a
    -- large fan-out skip the per-spec resolution of jobq._enqueue.
    v_problem := jobq.payload_problem(v_task.payload_schema,
                                      p_payload || jsonb_build_object('storeId', '00000000-0000-4000-8000-000000000000'));
    IF v_problem IS NOT NULL THEN
        PERFORM jobq._raise('JOB.PAYLOAD_INVALID', format('task %s: %s', p_task, v_problem));
    END IF;

    RETURN (
        SELECT count(*)::integer
        FROM jobq._insert_specs(ARRAY(
            SELECT ROW(p_task, p_payload || jsonb_build_object('storeId', s.id), v_task.queue, p_run_at, v_task.priority,
                       v_task.max_attempts, replace(coalesce(p_job_key_template, p_task || ':{storeId}'), '{storeId}', s.id::text),
                       p_job_key_mode, s.id, v_task.timeout, v_task.backoff_base, v_task.backoff_max)::jobq.job_spec
            FROM unnest(p_store_ids) AS s(id)
            WHERE s.id IS NOT NULL
            ORDER BY s.id), true));
END
$$;
-- +goose StatementEnd

-- fan_out runs as its owner: worker_runtime lists the stores through it, and no longer executes
-- jobq._enqueue_for_stores itself (it could pass store ids of its own choosing outside a tenant
-- transaction). The owner needs EXECUTE on the store list; the migrator may grant it as a member
-- of its owner, worker_fanout_owner.
GRANT EXECUTE ON FUNCTION public.list_store_ids_for_fan_out() TO jobq_migrator;
REVOKE EXECUTE ON FUNCTION jobq._enqueue_for_stores(text, jsonb, text, text, timestamptz, uuid[]) FROM worker_runtime;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.fan_out(
    child_task       text,
    payload          jsonb       DEFAULT '{}',
    job_key_template text        DEFAULT NULL,
    job_key_mode     text        DEFAULT 'preserve_run_at',
    run_at           timestamptz DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN jobq._enqueue_for_stores(fan_out.child_task, fan_out.payload, fan_out.job_key_template, fan_out.job_key_mode,
                                    fan_out.run_at, ARRAY(SELECT f.store_id FROM public.list_store_ids_for_fan_out() AS f));
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.fan_out(text, jsonb, text, text, timestamptz) IS
    'Enqueues child_task (a store-scoped task) once for every store of public.list_store_ids_for_fan_out(), with '
    'payload || {"storeId": <id>} and job key job_key_template with {storeId} replaced (e.g. expire_tentative:{storeId}; '
    'NULL: <child_task>:{storeId}); job_key_mode defaults to preserve_run_at, so running it twice adds no duplicates. '
    'Returns the number of jobs enqueued or merged. SECURITY DEFINER, EXECUTE for worker_runtime only: the one way the '
    'runtime enqueues for stores other than its session''s. Locks the job rows it writes. Errors: JOB.UNKNOWN_TASK, '
    'JOB.INVALID_ARGUMENT (system task, key template without {storeId}), JOB.PAYLOAD_INVALID.';

-- No runtime role executes a private helper. payload_problem (public, pure) reads _json_type_ok
-- as its owner.
ALTER FUNCTION jobq.payload_problem(jsonb, jsonb) SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
-- backoff_ceiling (and backoff_delay through it) checks its arguments with the private _check_*.
ALTER FUNCTION jobq.backoff_ceiling(integer, interval, interval) SECURITY DEFINER;
REVOKE EXECUTE ON FUNCTION jobq._json_type_ok(jsonb, text), jobq._raise(text, text)
    FROM worker_runtime, jobq_app, jobq_operator;

-- Store bindings: operators bind a login to the stores it may act for.
-- +goose StatementBegin
CREATE FUNCTION jobq.bind_store(login name, store_id uuid)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF bind_store.login IS NULL OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = bind_store.login) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('login %L is not a role of this cluster', left(bind_store.login, 200)));
    END IF;
    IF bind_store.store_id IS NULL OR bind_store.store_id = '00000000-0000-0000-0000-000000000000'::uuid THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'store_id must be a store''s uuid');
    END IF;
    INSERT INTO jobq.store_bindings AS b (login, store_id) VALUES (bind_store.login, bind_store.store_id)
    ON CONFLICT DO NOTHING;
    IF FOUND THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('bind_store', jsonb_build_object('login', bind_store.login, 'store_id', bind_store.store_id));
    END IF;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.bind_store(name, uuid) IS
    'Binds login to store_id: from its next statement, a login with bindings acts only for its bound stores '
    '(jobq.current_store_id() is NULL for any other, so every policy fails closed and enqueue raises '
    'JOB.STORE_NOT_BOUND). Idempotent; a new binding is audited. Caller: operators. Locks the binding row. '
    'Errors: JOB.INVALID_ARGUMENT (no such role, NULL or all-zero store).';

-- +goose StatementBegin
CREATE FUNCTION jobq.unbind_store(login name, store_id uuid)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM jobq.store_bindings AS b WHERE b.login = unbind_store.login AND b.store_id = unbind_store.store_id;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('unbind_store', jsonb_build_object('login', unbind_store.login, 'store_id', unbind_store.store_id));
    RETURN true;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.unbind_store(name, uuid) IS
    'Removes the binding of login to store_id and returns whether there was one; audited when there was. A login '
    'left with no binding acts for any store again. Caller: operators. Locks the binding row. Errors: none.';
REVOKE ALL ON FUNCTION jobq.bind_store(name, uuid), jobq.unbind_store(name, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION jobq.bind_store(name, uuid), jobq.unbind_store(name, uuid) TO jobq_operator;

-- +goose Down

DROP FUNCTION jobq.unbind_store(name, uuid);
DROP FUNCTION jobq.bind_store(name, uuid);

GRANT EXECUTE ON FUNCTION jobq._json_type_ok(jsonb, text), jobq._raise(text, text)
    TO worker_runtime, jobq_app, jobq_operator;
ALTER FUNCTION jobq.payload_problem(jsonb, jsonb) SECURITY INVOKER RESET search_path;
ALTER FUNCTION jobq.backoff_ceiling(integer, interval, interval) SECURITY INVOKER;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.fan_out(
    child_task       text,
    payload          jsonb       DEFAULT '{}',
    job_key_template text        DEFAULT NULL,
    job_key_mode     text        DEFAULT 'preserve_run_at',
    run_at           timestamptz DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN jobq._enqueue_for_stores(fan_out.child_task, fan_out.payload, fan_out.job_key_template, fan_out.job_key_mode,
                                    fan_out.run_at, ARRAY(SELECT f.store_id FROM public.list_store_ids_for_fan_out() AS f));
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.fan_out(text, jsonb, text, text, timestamptz) IS
    'Enqueues child_task (a store-scoped task) once for every store of public.list_store_ids_for_fan_out(), with '
    'payload || {"storeId": <id>} and job key job_key_template with {storeId} replaced (e.g. expire_tentative:{storeId}; '
    'NULL: <child_task>:{storeId}); '
    'job_key_mode defaults to preserve_run_at, so running it twice adds no duplicates. Returns the number of jobs '
    'enqueued or merged. SECURITY INVOKER: only a role that may list the stores (worker_runtime) can call it. '
    'Errors: JOB.UNKNOWN_TASK, JOB.INVALID_ARGUMENT (system task, key template without {storeId}), JOB.PAYLOAD_INVALID.';
GRANT EXECUTE ON FUNCTION jobq._enqueue_for_stores(text, jsonb, text, text, timestamptz, uuid[]) TO worker_runtime;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_for_stores(
    p_task text, p_payload jsonb, p_job_key_template text, p_job_key_mode text, p_run_at timestamptz, p_store_ids uuid[])
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_task jobq.tasks;
    v_problem text;
BEGIN
    SELECT * INTO v_task FROM jobq.tasks t WHERE t.name = p_task;
    IF v_task.name IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', p_task));
    ELSIF v_task.scope <> 'store' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('fan_out needs a store-scoped task; %s is a system task', p_task));
    END IF;
    IF p_payload IS NULL OR jsonb_typeof(p_payload) <> 'object' THEN
        PERFORM jobq._raise('JOB.PAYLOAD_NOT_OBJECT', 'the fan-out payload must be a JSON object');
    END IF;
    IF p_job_key_template IS NOT NULL AND position('{storeId}' IN p_job_key_template) = 0 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('job_key_template %L must contain {storeId}, or every store would share one key', p_job_key_template));
    END IF;
    -- Every job gets the same payload but for its storeId: the contract is checked once, on the
    -- payload with a storeId, and the task's defaults are applied here, so the 10,000 specs of a
    -- large fan-out skip the per-spec resolution of jobq._enqueue.
    v_problem := jobq.payload_problem(v_task.payload_schema,
                                      p_payload || jsonb_build_object('storeId', '00000000-0000-4000-8000-000000000000'));
    IF v_problem IS NOT NULL THEN
        PERFORM jobq._raise('JOB.PAYLOAD_INVALID', format('task %s: %s', p_task, v_problem));
    END IF;

    RETURN (
        SELECT count(*)::integer
        FROM jobq._insert_specs(ARRAY(
            SELECT ROW(p_task, p_payload || jsonb_build_object('storeId', s.id), v_task.queue, p_run_at, v_task.priority,
                       v_task.max_attempts, replace(coalesce(p_job_key_template, p_task || ':{storeId}'), '{storeId}', s.id::text),
                       p_job_key_mode, s.id, v_task.timeout, v_task.backoff_base, v_task.backoff_max)::jobq.job_spec
            FROM unnest(p_store_ids) AS s(id)
            WHERE s.id IS NOT NULL
            ORDER BY s.id), true));
END
$$;
-- +goose StatementEnd

REVOKE EXECUTE ON FUNCTION public.list_store_ids_for_fan_out() FROM jobq_migrator;

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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_takes_fast_path(p_spec jobq.job_spec, p_task jobq.tasks)
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

DROP FUNCTION jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text, boolean);
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
REVOKE ALL ON FUNCTION jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text)
    TO worker_runtime, jobq_operator;

ALTER POLICY jobs_gate_insert ON jobq.jobs
    WITH CHECK (store_id IS NULL OR jobq._caller_reaches(store_id));
ALTER POLICY jobs_gate_update ON jobq.jobs
    USING (store_id IS NULL OR jobq._caller_reaches(store_id)) WITH CHECK (store_id IS NULL OR jobq._caller_reaches(store_id));
ALTER POLICY jobs_gate_delete ON jobq.jobs
    USING (jobq._caller_reaches(store_id));
ALTER POLICY job_history_gate_insert ON jobq.job_history
    WITH CHECK (store_id IS NULL OR jobq._caller_reaches(store_id));
ALTER POLICY job_history_gate_update ON jobq.job_history
    USING (store_id IS NULL OR jobq._caller_reaches(store_id)) WITH CHECK (store_id IS NULL OR jobq._caller_reaches(store_id));
ALTER POLICY job_history_gate_delete ON jobq.job_history
    USING (store_id IS NULL OR jobq._caller_reaches(store_id));

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._check_tenant(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bad record;
    v_session constant uuid := jobq.current_store_id();
BEGIN
    IF current_user <> 'jobq_app_gate' OR pg_has_role(jobq._caller(), 'jobq_operator', 'USAGE') THEN
        RETURN;
    END IF;
    SELECT s.ordinality AS position, s.store_id INTO v_bad
    FROM unnest(p_specs) WITH ORDINALITY AS s
    WHERE s.store_id IS NOT NULL AND s.store_id IS DISTINCT FROM v_session
    ORDER BY s.ordinality
    LIMIT 1;
    IF FOUND THEN
        PERFORM jobq._raise('JOB.TENANT_MISMATCH', format('%sstore %s is not this session''s store (app.current_store_id = %s)',
            CASE WHEN p_label_index THEN format('job %s: ', v_bad.position) ELSE '' END,
            v_bad.store_id, coalesce(v_session::text, 'unset')));
    END IF;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_tenant(jobq.job_spec[], boolean) IS
    'Private. Inside a gate function (current_user jobq_app_gate) and for a caller without jobq_operator''s rights, '
    'raises JOB.TENANT_MISMATCH for the first store job whose store_id is not the session''s store (system jobs pass). '
    'The row policy is the backstop; this gives the clear error.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._caller_reaches(p_store_id uuid)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT p_store_id = jobq.current_store_id()
        OR pg_catalog.pg_has_role(jobq._caller(), 'jobq_operator', 'USAGE')
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._caller_reaches(uuid) IS
    'Private. Whether the caller of a gate function reaches a store''s row: its store is the session''s '
    'jobq.current_store_id(), or the caller has jobq_operator''s rights. (System rows, store_id NULL, are reached by the '
    'policies separately.)';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.current_store_id()
RETURNS uuid
LANGUAGE sql
STABLE
PARALLEL SAFE
AS $$
    SELECT CASE WHEN s.v ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN s.v::uuid END
    FROM (SELECT pg_catalog.current_setting('app.current_store_id', true) AS v) AS s
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.current_store_id() IS
    'The store of this session or transaction: app.current_store_id as a uuid, or NULL when unset, empty (left '
    'behind by an ended SET LOCAL) or not a uuid — so policies fail closed. Used by every tenant policy.';

DROP FUNCTION jobq._app_may_enqueue(text);
DROP FUNCTION jobq._caller_is_restricted();
DROP TABLE jobq.store_bindings;
ALTER TABLE jobq.tasks DROP COLUMN app_enqueue;
DELETE FROM jobq.error_codes WHERE code IN ('JOB.NOT_ALLOWED', 'JOB.STORE_NOT_BOUND');
