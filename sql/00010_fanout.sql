-- jobq schema step 10: the store fan-out (seed 000 §3.2, §6.1, §7.2).
--
-- public.list_store_ids_for_fan_out() is the one way a runtime role learns every store: no
-- arguments, returns only store_id, SECURITY DEFINER owned by worker_fanout_owner (NOLOGIN
-- BYPASSRLS), pinned search_path, fully qualified names, EXECUTE for worker_runtime only.
-- worker_runtime itself cannot read public.store.
--
-- public.store is the application's table. For a database that has none, a minimal one is made
-- here (id, name, created_at; RLS forced, each session sees only its own store). An application
-- with its own public.store keeps it: the table is left alone, and its owner grants
--     GRANT SELECT (id) ON public.store TO worker_fanout_owner;
-- (done here when the migrator may). Needs, from bootstrap/002_database.sql, CREATE on schema
-- public for the migrator and worker_fanout_owner, and the migrator's membership in it.

-- +goose Up

-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('public.store') IS NULL THEN
        CREATE TABLE public.store (
            id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
            name       text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL DEFAULT now()
        );
        COMMENT ON TABLE public.store IS 'Minimal store table created by jobq for databases without one; one row per tenant.';
        ALTER TABLE public.store ENABLE ROW LEVEL SECURITY;
        ALTER TABLE public.store FORCE ROW LEVEL SECURITY;
        -- Self-contained (no jobq function): the application's table must not depend on jobq.
        -- A setting that is unset, empty or no uuid matches no row.
        CREATE POLICY store_own ON public.store USING (id::text = lower(current_setting('app.current_store_id', true)));
        GRANT SELECT ON public.store TO jobq_app;
    END IF;
    BEGIN
        GRANT SELECT (id) ON public.store TO worker_fanout_owner;
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE WARNING 'jobq: grant SELECT (id) ON public.store TO worker_fanout_owner as the owner of public.store; the fan-out needs it';
    END;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION public.list_store_ids_for_fan_out()
RETURNS TABLE (store_id uuid)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.id FROM public.store AS s ORDER BY s.id
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION public.list_store_ids_for_fan_out() IS
    'Every store id, for system scheduler tasks that fan out one job per store (seed SRS-WRK-001 §3.2). SECURITY DEFINER '
    'owned by worker_fanout_owner (BYPASSRLS); EXECUTE for worker_runtime only. Returns only store_id: never grow it '
    'into a general cross-tenant API.';
-- Privileges first, in this transaction, while the migrator still owns it; ownership then moves
-- with the ACL. PUBLIC never had EXECUTE (the migrator's default privileges).
REVOKE ALL ON FUNCTION public.list_store_ids_for_fan_out() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.list_store_ids_for_fan_out() TO worker_runtime;
ALTER FUNCTION public.list_store_ids_for_fan_out() OWNER TO worker_fanout_owner;

-- Enqueues child_task once for each store in p_store_ids. Worker-only (all stores).
-- +goose StatementBegin
CREATE FUNCTION jobq._enqueue_for_stores(
    p_task text, p_payload jsonb, p_job_key_template text, p_job_key_mode text, p_run_at timestamptz, p_store_ids uuid[])
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_scope text;
BEGIN
    SELECT t.scope INTO v_scope FROM jobq.tasks t WHERE t.name = p_task;
    IF v_scope IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', p_task));
    ELSIF v_scope <> 'store' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('fan_out needs a store-scoped task; %s is a system task', p_task));
    END IF;
    IF p_payload IS NULL OR jsonb_typeof(p_payload) <> 'object' THEN
        PERFORM jobq._raise('JOB.PAYLOAD_NOT_OBJECT', 'the fan-out payload must be a JSON object');
    END IF;
    IF p_job_key_template IS NOT NULL AND position('{storeId}' IN p_job_key_template) = 0 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('job_key_template %L must contain {storeId}, or every store would share one key', p_job_key_template));
    END IF;

    RETURN (
        SELECT count(*)::integer
        FROM jobq._enqueue(ARRAY(
            SELECT ROW(p_task, p_payload || jsonb_build_object('storeId', s.id), NULL, p_run_at, NULL, NULL,
                       replace(coalesce(p_job_key_template, p_task || ':{storeId}'), '{storeId}', s.id::text),
                       p_job_key_mode, s.id, NULL, NULL, NULL)::jobq.job_spec
            FROM unnest(p_store_ids) AS s(id)
            WHERE s.id IS NOT NULL
            ORDER BY s.id), true));
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._enqueue_for_stores(text, jsonb, text, text, timestamptz, uuid[]) IS
    'Private to jobq.fan_out (EXECUTE for worker_runtime, which fan_out runs as). Enqueues store-scoped task p_task '
    'once per store, payload plus {"storeId": ...}, job key from the template (NULL: <task>:{storeId}). Returns the '
    'number of jobs. worker_runtime could call it with store ids of its own choosing; it creates no more than fan_out '
    'could (store jobs), and a store id that is no store only makes a job that finds no rows.';

-- The fan-out: one store-scoped job per store, in one statement, with per-store job keys, so a
-- scheduler that runs twice adds no duplicates (seed GWT-5, GWT-6).
-- +goose StatementBegin
CREATE FUNCTION jobq.fan_out(
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
GRANT EXECUTE ON FUNCTION jobq.fan_out(text, jsonb, text, text, timestamptz) TO worker_runtime;

-- +goose Down
DROP FUNCTION jobq.fan_out(text, jsonb, text, text, timestamptz);
DROP FUNCTION jobq._enqueue_for_stores(text, jsonb, text, text, timestamptz, uuid[]);
-- public.store, made or adopted by Up, stays: it holds the application's stores.
DROP FUNCTION public.list_store_ids_for_fan_out();
