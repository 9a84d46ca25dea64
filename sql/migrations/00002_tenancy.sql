-- jobq schema, area 2: tenancy. Row-level security, forced, on the tables that hold tenant data,
-- keyed on the session setting app.current_store_id (seed 000 §7.7); the optional store bindings;
-- the store table the fan-out reads; and what the gate (jobq_app_gate, the owner of the functions
-- an application may call) may touch. The policies themselves, and the functions they call, are
-- in sql/functions/70_tenancy.sql.
--
-- public.store is the application's table. For a database that has none, a minimal one is made
-- here (id, name, created_at; RLS forced, each session sees only its own store). An application
-- with its own public.store keeps it, and its owner grants
--     GRANT SELECT (id) ON public.store TO worker_fanout_owner;
-- (done here when the migrator may). Needs, from bootstrap/002_database.sql, CREATE on schema
-- public for the migrator and worker_fanout_owner, and the migrator's membership in it.

-- +goose Up
ALTER TABLE jobq.jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.jobs FORCE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_history FORCE ROW LEVEL SECURITY;

-- Optional binding of logins to the stores they may act for (jobq.bind_store).
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
GRANT SELECT ON jobq.store_bindings TO jobq_app, jobq_app_gate, worker_runtime, jobq_operator;

-- The gate owns the functions an application may call and has what they need, nothing more.
GRANT USAGE ON SCHEMA jobq TO jobq_app_gate;
GRANT SELECT, INSERT, UPDATE, DELETE ON jobq.jobs, jobq.job_history TO jobq_app_gate;
GRANT SELECT ON jobq.settings, jobq.error_codes, jobq.tasks TO jobq_app_gate;
GRANT INSERT ON jobq.audit_log TO jobq_app_gate;
GRANT USAGE ON SEQUENCE jobq.jobs_id_seq, jobq.audit_log_id_seq TO jobq_app_gate;

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

-- +goose Down
-- public.store, made or adopted by Up, stays: it holds the application's stores.
DROP FUNCTION IF EXISTS public.list_store_ids_for_fan_out();
DROP POLICY IF EXISTS job_history_operator_read ON jobq.job_history;
DROP POLICY IF EXISTS job_history_app_read ON jobq.job_history;
DROP POLICY IF EXISTS job_history_gate_delete ON jobq.job_history;
DROP POLICY IF EXISTS job_history_gate_update ON jobq.job_history;
DROP POLICY IF EXISTS job_history_gate_insert ON jobq.job_history;
DROP POLICY IF EXISTS job_history_gate_read ON jobq.job_history;
DROP POLICY IF EXISTS job_history_engine ON jobq.job_history;
DROP POLICY IF EXISTS jobs_operator_read ON jobq.jobs;
DROP POLICY IF EXISTS jobs_app_read ON jobq.jobs;
DROP POLICY IF EXISTS jobs_gate_delete ON jobq.jobs;
DROP POLICY IF EXISTS jobs_gate_update ON jobq.jobs;
DROP POLICY IF EXISTS jobs_gate_insert ON jobq.jobs;
DROP POLICY IF EXISTS jobs_gate_read ON jobq.jobs;
DROP POLICY IF EXISTS jobs_engine ON jobq.jobs;
REVOKE ALL ON jobq.jobs, jobq.job_history, jobq.settings, jobq.error_codes, jobq.tasks, jobq.audit_log FROM jobq_app_gate;
REVOKE ALL ON SEQUENCE jobq.jobs_id_seq, jobq.audit_log_id_seq FROM jobq_app_gate;
REVOKE USAGE ON SCHEMA jobq FROM jobq_app_gate;
DROP TABLE jobq.store_bindings;
ALTER TABLE jobq.job_history NO FORCE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_history DISABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.jobs NO FORCE ROW LEVEL SECURITY;
ALTER TABLE jobq.jobs DISABLE ROW LEVEL SECURITY;
