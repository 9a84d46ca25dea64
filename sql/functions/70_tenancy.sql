-- jobq engine, tenancy. Who may act for which store: the session's store, the callers of the gate
-- functions, store bindings, the fan-out across stores, and the row policies.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The store this session acts for. A login bound to stores acts only for them.
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
COMMENT ON FUNCTION jobq.current_store_id() IS
    'The store of this session or transaction: app.current_store_id as a uuid, or NULL when unset, empty (left behind by an ended SET LOCAL), not a uuid, or a store the login is not bound to (jobq.store_bindings: a login with bindings acts only for its bound stores) — so policies fail closed. Used by every tenant policy. Reads jobq.store_bindings (the caller''s own rows); locks nothing.';

-- The role the caller acts as: the SET ROLE role, else the login. SECURITY DEFINER changes
-- current_user but not the role setting, so inside the engine this still names the caller.
CREATE OR REPLACE FUNCTION jobq._caller()
RETURNS name
LANGUAGE sql
STABLE
AS $$
    SELECT CASE WHEN pg_catalog.current_setting('role') = 'none' THEN session_user
                ELSE pg_catalog.current_setting('role')::name END
$$;
COMMENT ON FUNCTION jobq._caller() IS
    'Private. The role the caller acts as (SET ROLE, else session_user).';

-- Whether the caller of a gate function may change a row of store p_store_id, the caller being as
-- given (jobq._caller_is_operator(), jobq._caller_is_restricted(), jobq.current_store_id()): the
-- one home of the rule. A row policy passes the facts as sub-selects, read once a statement; each
-- is read only where the rule needs it. Inlined.
CREATE OR REPLACE FUNCTION jobq._caller_reaches_as(p_store_id uuid, p_operator boolean, p_restricted boolean,
                                                   p_session_store uuid)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT CASE
        WHEN p_operator THEN true
        WHEN p_store_id IS NULL THEN NOT p_restricted
        ELSE coalesce(p_store_id = p_session_store, false)
    END
$$;
COMMENT ON FUNCTION jobq._caller_reaches_as(uuid,boolean,boolean,uuid) IS
    'Private. Whether the caller of a gate function may change a row of store p_store_id, the caller being as given: operators (p_operator) every row; a system row (NULL) a caller that is not restricted (p_restricted false: worker_runtime, jobq_migrator), never an application; a store''s row when it is the session''s store p_session_store. Callers: jobq._caller_reaches, the gate''s insert policy on jobq.jobs (the facts in sub-selects, read once a statement). Locks nothing.';

-- Whether the caller of a gate function may change a row of store p_store_id:
-- jobq._caller_reaches_as with the caller's facts, each read only where needed. Inlined.
CREATE OR REPLACE FUNCTION jobq._caller_reaches(p_store_id uuid)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT jobq._caller_reaches_as(p_store_id, jobq._caller_is_operator(), jobq._caller_is_restricted(),
                                   jobq.current_store_id())
$$;
COMMENT ON FUNCTION jobq._caller_reaches(uuid) IS
    'Private. Whether the caller of a gate function may change a row of store p_store_id: operators every row; a system row (NULL) the trusted callers (worker_runtime, jobq_migrator), never an application; a store''s row when it is the session''s jobq.current_store_id(). jobq._caller_reaches_as for the caller of the statement. Used by the gate''s row policies. Locks nothing.';

-- Whether the caller has jobq_operator's rights (a member of it, or a superuser): operators reach
-- every store's rows. The one place this test is written; the gate, tenancy and stats use it.
CREATE OR REPLACE FUNCTION jobq._caller_is_operator()
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT pg_catalog.pg_has_role(jobq._caller(), 'jobq_operator', 'USAGE')
$$;
COMMENT ON FUNCTION jobq._caller_is_operator() IS
    'Private. Whether the caller (jobq._caller(): the SET ROLE role, else the login) has the rights of jobq_operator. Inlined; locks nothing.';

-- Whether the caller reads every store's rows: an operator, or a viewer (jobq_viewer: reads what
-- operators read, changes nothing). Used by jobq.stats to decide what to count.
CREATE OR REPLACE FUNCTION jobq._caller_sees_every_store()
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT jobq._caller_is_operator() OR pg_catalog.pg_has_role(jobq._caller(), 'jobq_viewer', 'USAGE')
$$;
COMMENT ON FUNCTION jobq._caller_sees_every_store() IS
    'Private. Whether the caller (jobq._caller()) reads every store''s rows: it has the rights of jobq_operator or of jobq_viewer. Used by jobq._stats. Locks nothing.';

-- Whether the caller of a gate function is restricted to its session's store: it has none of the
-- rights of jobq_operator, worker_runtime or jobq_migrator (superusers have them all).
CREATE OR REPLACE FUNCTION jobq._caller_is_restricted()
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT NOT (jobq._caller_is_operator()
                OR pg_catalog.pg_has_role(jobq._caller(), 'worker_runtime', 'USAGE')
                OR pg_catalog.pg_has_role(jobq._caller(), 'jobq_migrator', 'USAGE'))
$$;
COMMENT ON FUNCTION jobq._caller_is_restricted() IS
    'Private. Whether the caller of a gate function is an application (restricted to the session''s store, no system row changes): it has none of the rights of jobq_operator, worker_runtime, jobq_migrator. Locks nothing.';

-- Whether an application may insert a system job of task p_task (jobq.tasks.app_enqueue).
CREATE OR REPLACE FUNCTION jobq._app_may_enqueue(p_task text)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT coalesce((SELECT t.app_enqueue FROM jobq.tasks t WHERE t.name = p_task AND t.scope = 'system'), false)
$$;
COMMENT ON FUNCTION jobq._app_may_enqueue(text) IS
    'Private. Whether task p_task is a system task that applications may enqueue (jobq.tasks.app_enqueue). Used by the gate''s insert policy. Locks nothing.';

-- Refuses, before the policies would, what the caller may not do: a store it does not act for, a
-- system task it may not enqueue, a key on a system job, a cron slot's key.
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
    IF current_user <> 'jobq_app_gate' OR jobq._caller_is_operator() THEN
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
COMMENT ON FUNCTION jobq._check_tenant(jobq.job_spec[],boolean) IS
    'Private. Inside a gate function (current_user jobq_app_gate) and for a caller without jobq_operator''s rights, raises for the first spec the caller may not enqueue: JOB.TENANT_MISMATCH (a store other than the session''s), JOB.STORE_NOT_BOUND (the login is bound to other stores), JOB.NOT_ALLOWED (a schedule: key; for an application a system task not declared app_enqueue, or a system job with a job_key). The row policies are the backstop; this gives the clear error. Locks nothing.';

-- Binds a login to a store it may act for (operators).
CREATE OR REPLACE FUNCTION jobq.bind_store(login name, store_id uuid)
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
COMMENT ON FUNCTION jobq.bind_store(name,uuid) IS
    'Binds login to store_id: from its next statement, a login with bindings acts only for its bound stores (jobq.current_store_id() is NULL for any other, so every policy fails closed and enqueue raises JOB.STORE_NOT_BOUND). Idempotent; a new binding is audited. Caller: operators. Locks the binding row. Errors: JOB.INVALID_ARGUMENT (no such role, NULL or all-zero store).';

-- Removes one binding of a login to a store; a login left with no binding may act for any store
-- again. Caller: operators.
CREATE OR REPLACE FUNCTION jobq.unbind_store(login name, store_id uuid)
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
COMMENT ON FUNCTION jobq.unbind_store(name,uuid) IS
    'Removes the binding of login to store_id and returns whether there was one; audited when there was. A login left with no binding acts for any store again. Caller: operators. Locks the binding row. Errors: none.';

-- Enqueues a store task once for every store, e.g. for a system scheduler task that works per
-- store; with the default key mode, running it twice adds no duplicates. The one way a runtime
-- enqueues for stores other than its session's. Caller: handlers (worker_runtime).
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
-- Without JIT: planned for 100,000 stores, the fan-out's statements cost above jit_above_cost,
-- and compiling them took 0.7 s of a 3.3 s call (the first of a session; 2.5 s without).
SET jit = off
-- With work_mem 32MB (a call's sorts and hashes of its keys stay in memory, one fan-out at a time
-- per caller; it is worker_runtime's alone): the keys' positions are joined by hash, not sorted to
-- disk. 100,000 stores: first run 2.5 -> 2.2 s, repeated 1.9 -> 1.4 s (docs/benchmarks.md).
SET work_mem = '32MB'
AS $$
BEGIN
    RETURN jobq._enqueue_for_stores(fan_out.child_task, fan_out.payload, fan_out.job_key_template, fan_out.job_key_mode,
                                    fan_out.run_at, ARRAY(SELECT f.store_id FROM public.list_store_ids_for_fan_out() AS f));
END
$$;
COMMENT ON FUNCTION jobq.fan_out(text,jsonb,text,text,timestamp with time zone) IS
    'Enqueues child_task (a store-scoped task) once for every store of public.list_store_ids_for_fan_out(), with payload || {"storeId": <id>} and job key job_key_template with {storeId} replaced (e.g. expire_tentative:{storeId}; NULL: <child_task>:{storeId}); job_key_mode defaults to preserve_run_at, so running it twice adds no duplicates. Returns the number of jobs enqueued or merged. Runs without JIT (jit = off for the call) and with work_mem 32MB. SECURITY DEFINER, EXECUTE for worker_runtime only: the one way the runtime enqueues for stores other than its session''s. Locks the job rows it writes. Errors: JOB.UNKNOWN_TASK, JOB.INVALID_ARGUMENT (system task, key template without {storeId}), JOB.PAYLOAD_INVALID.';

-- The private half of jobq.fan_out: one store job per store id. It checks the bounds of its
-- arguments up front, so a bad template or payload is refused once, not once per store, and also
-- when there are no stores.
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
                       p_job_key_mode, s.id, v_task.timeout, v_task.backoff_base, v_task.backoff_max, NULL)::jobq.job_spec
            FROM unnest(p_store_ids) AS s(id)
            WHERE s.id IS NOT NULL
            ORDER BY s.id), true));
END
$$;
COMMENT ON FUNCTION jobq._enqueue_for_stores(text,jsonb,text,text,timestamp with time zone,uuid[]) IS
    'Private to jobq.fan_out, which calls it as their owner jobq_migrator: no runtime role may execute it, so worker_runtime cannot enqueue store jobs for store ids of its own choosing outside a tenant transaction. Enqueues store-scoped task p_task once per store, payload plus {"storeId": ...}, job key from the template (NULL: <task>:{storeId}). Returns the number of jobs.';

-- Lists every store id, for jobq.fan_out. It reads public.store across tenants (owned by
-- worker_fanout_owner, which bypasses row security), so it returns ids and nothing else.
CREATE OR REPLACE FUNCTION public.list_store_ids_for_fan_out()
RETURNS TABLE (store_id uuid)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.id FROM public.store AS s ORDER BY s.id
$$;
COMMENT ON FUNCTION list_store_ids_for_fan_out() IS
    'Every store id, for system scheduler tasks that fan out one job per store (seed SRS-WRK-001 §3.2). SECURITY DEFINER owned by worker_fanout_owner (BYPASSRLS); EXECUTE granted to worker_runtime only (seed 000 §6.1). The owner''s one member, jobq_migrator (bootstrap/002_database.sql), executes it by that membership: so does jobq.fan_out, which it owns. Returns only store_id: never grow it into a general cross-tenant API.';
ALTER FUNCTION list_store_ids_for_fan_out() OWNER TO worker_fanout_owner;
-- Granted to worker_runtime alone, as seed 000 §6.1 says (99_grants.sql, which also takes back the
-- grant earlier releases made jobq_migrator: it needs none, being a member of the owner).

-- The row policies. The engine (jobq_migrator, which owns the worker and operator functions) sees
-- every row; the gate (enqueue, enqueue_many, retry_job, cancel_job, run as jobq_app_gate) reads
-- the caller's store's rows and system rows, and changes only rows jobq._caller_reaches lets it
-- (an application never a system row); applications read their store's rows, and system rows
-- only when their login is bound to no store (a login bound to stores is one store's credential,
-- e.g. a store's staff signing in to the dashboard: the system's jobs, which serve every store,
-- are not its to read); operators and viewers (jobq_viewer, read-only) read everything. Re-created as a whole each time this file is applied.
-- The log of rate-limited starts (jobq.claim_starts) is the engine's alone: the claim writes,
-- counts and prunes it; nobody else reads it.
-- So is the fair claim's cursor (jobq.claim_cursors).
DROP POLICY IF EXISTS claim_cursors_engine ON jobq.claim_cursors;
CREATE POLICY claim_cursors_engine ON jobq.claim_cursors TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS claim_starts_engine ON jobq.claim_starts;
CREATE POLICY claim_starts_engine ON jobq.claim_starts TO jobq_migrator
    USING (true)
    WITH CHECK (true);
-- So are the live jobs the engine counted in the background (jobq.live_counts, live_counts_taken):
-- every store's counts, read only through jobq.stats.
DROP POLICY IF EXISTS live_counts_engine ON jobq.live_counts;
CREATE POLICY live_counts_engine ON jobq.live_counts TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS live_counts_taken_engine ON jobq.live_counts_taken;
CREATE POLICY live_counts_taken_engine ON jobq.live_counts_taken TO jobq_migrator
    USING (true)
    WITH CHECK (true);
-- So are the claims' receipts (jobq.leases, leases_recheck): every worker's jobs.
DROP POLICY IF EXISTS leases_engine ON jobq.leases;
CREATE POLICY leases_engine ON jobq.leases TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS leases_recheck_engine ON jobq.leases_recheck;
CREATE POLICY leases_recheck_engine ON jobq.leases_recheck TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS job_attempts_app_read ON jobq.job_attempts;
CREATE POLICY job_attempts_app_read ON jobq.job_attempts FOR SELECT TO jobq_app
    USING ((store_id = jobq.current_store_id()));
DROP POLICY IF EXISTS job_attempts_engine ON jobq.job_attempts;
CREATE POLICY job_attempts_engine ON jobq.job_attempts TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS job_attempts_operator_read ON jobq.job_attempts;
CREATE POLICY job_attempts_operator_read ON jobq.job_attempts FOR SELECT TO jobq_operator, jobq_viewer
    USING (true);
DROP POLICY IF EXISTS job_dependencies_app_read ON jobq.job_dependencies;
CREATE POLICY job_dependencies_app_read ON jobq.job_dependencies FOR SELECT TO jobq_app
    USING (store_id = jobq.current_store_id()
           OR (store_id IS NULL AND NOT EXISTS (SELECT 1 FROM jobq.store_bindings b WHERE b.login = SESSION_USER)));
DROP POLICY IF EXISTS job_dependencies_engine ON jobq.job_dependencies;
CREATE POLICY job_dependencies_engine ON jobq.job_dependencies TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS job_dependencies_operator_read ON jobq.job_dependencies;
CREATE POLICY job_dependencies_operator_read ON jobq.job_dependencies FOR SELECT TO jobq_operator, jobq_viewer
    USING (true);
DROP POLICY IF EXISTS job_history_app_read ON jobq.job_history;
CREATE POLICY job_history_app_read ON jobq.job_history FOR SELECT TO jobq_app
    USING (store_id = jobq.current_store_id()
           OR (store_id IS NULL AND NOT EXISTS (SELECT 1 FROM jobq.store_bindings b WHERE b.login = SESSION_USER)));
DROP POLICY IF EXISTS job_history_engine ON jobq.job_history;
CREATE POLICY job_history_engine ON jobq.job_history TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS job_history_gate_delete ON jobq.job_history;
CREATE POLICY job_history_gate_delete ON jobq.job_history FOR DELETE TO jobq_app_gate
    USING (jobq._caller_reaches(store_id));
DROP POLICY IF EXISTS job_history_gate_insert ON jobq.job_history;
CREATE POLICY job_history_gate_insert ON jobq.job_history FOR INSERT TO jobq_app_gate
    WITH CHECK (jobq._caller_reaches(store_id));
DROP POLICY IF EXISTS job_history_gate_read ON jobq.job_history;
CREATE POLICY job_history_gate_read ON jobq.job_history FOR SELECT TO jobq_app_gate
    USING (((store_id IS NULL) OR jobq._caller_reaches(store_id)));
DROP POLICY IF EXISTS job_history_gate_update ON jobq.job_history;
CREATE POLICY job_history_gate_update ON jobq.job_history FOR UPDATE TO jobq_app_gate
    USING (jobq._caller_reaches(store_id))
    WITH CHECK (jobq._caller_reaches(store_id));
DROP POLICY IF EXISTS job_history_operator_read ON jobq.job_history;
CREATE POLICY job_history_operator_read ON jobq.job_history FOR SELECT TO jobq_operator, jobq_viewer
    USING (true);
DROP POLICY IF EXISTS jobs_app_read ON jobq.jobs;
CREATE POLICY jobs_app_read ON jobq.jobs FOR SELECT TO jobq_app
    USING (store_id = jobq.current_store_id()
           OR (store_id IS NULL AND NOT EXISTS (SELECT 1 FROM jobq.store_bindings b WHERE b.login = SESSION_USER)));
DROP POLICY IF EXISTS jobs_engine ON jobq.jobs;
CREATE POLICY jobs_engine ON jobq.jobs TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS jobs_gate_delete ON jobq.jobs;
CREATE POLICY jobs_gate_delete ON jobq.jobs FOR DELETE TO jobq_app_gate
    USING (jobq._caller_reaches(store_id));
DROP POLICY IF EXISTS jobs_gate_insert ON jobq.jobs;
-- The gate's insert: jobq._caller_reaches(store_id), or a system job of a task applications may
-- enqueue. The caller's facts are sub-selects, read once a statement, where jobq._caller_reaches
-- read them once a row (a batch of 1,000 store jobs from enqueue_many: about a third of its time).
-- pgtap/tenancy/the_gate_insert_policy_admits_what_caller_reaches_admits.sql holds it to the rule.
CREATE POLICY jobs_gate_insert ON jobq.jobs FOR INSERT TO jobq_app_gate
    WITH CHECK (jobq._caller_reaches_as(store_id, (SELECT jobq._caller_is_operator()), (SELECT jobq._caller_is_restricted()),
                                        (SELECT jobq.current_store_id()))
                OR (store_id IS NULL AND jobq._app_may_enqueue(task)));
DROP POLICY IF EXISTS jobs_gate_read ON jobq.jobs;
CREATE POLICY jobs_gate_read ON jobq.jobs FOR SELECT TO jobq_app_gate
    USING (((store_id IS NULL) OR jobq._caller_reaches(store_id)));
DROP POLICY IF EXISTS jobs_gate_update ON jobq.jobs;
CREATE POLICY jobs_gate_update ON jobq.jobs FOR UPDATE TO jobq_app_gate
    USING (jobq._caller_reaches(store_id))
    WITH CHECK (jobq._caller_reaches(store_id));
DROP POLICY IF EXISTS jobs_operator_read ON jobq.jobs;
CREATE POLICY jobs_operator_read ON jobq.jobs FOR SELECT TO jobq_operator, jobq_viewer
    USING (true);
DROP POLICY IF EXISTS sequence_holds_app_read ON jobq.sequence_holds;
CREATE POLICY sequence_holds_app_read ON jobq.sequence_holds FOR SELECT TO jobq_app
    USING (store_id = jobq.current_store_id()
           OR (store_id IS NULL AND NOT EXISTS (SELECT 1 FROM jobq.store_bindings b WHERE b.login = SESSION_USER)));
DROP POLICY IF EXISTS sequence_holds_engine ON jobq.sequence_holds;
CREATE POLICY sequence_holds_engine ON jobq.sequence_holds TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS sequence_holds_operator_read ON jobq.sequence_holds;
CREATE POLICY sequence_holds_operator_read ON jobq.sequence_holds FOR SELECT TO jobq_operator, jobq_viewer
    USING (true);
DROP POLICY IF EXISTS store_bindings_engine ON jobq.store_bindings;
CREATE POLICY store_bindings_engine ON jobq.store_bindings TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS store_bindings_operator_read ON jobq.store_bindings;
CREATE POLICY store_bindings_operator_read ON jobq.store_bindings FOR SELECT TO jobq_operator, jobq_viewer
    USING (true);
DROP POLICY IF EXISTS store_bindings_own ON jobq.store_bindings;
CREATE POLICY store_bindings_own ON jobq.store_bindings FOR SELECT TO jobq_app, jobq_app_gate, worker_runtime
    USING ((login = SESSION_USER));
