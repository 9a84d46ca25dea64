-- jobq schema step 8: tenancy. Row-level security, forced, on the tables that hold tenant data
-- (jobq.jobs, jobq.job_history), keyed on the session setting app.current_store_id (seed 000 §7.7).
--
-- Who reaches which rows:
--   jobq_migrator   (owner; runs the worker and operator functions, SECURITY DEFINER) every store.
--   jobq_app_gate   (owns enqueue, enqueue_many, retry_job, cancel_job, the functions an
--                   application may call) the caller's store and system jobs — every store when
--                   the caller has the rights of jobq_operator (or is a superuser); it cancels
--                   (deletes) only the caller's store's jobs, so only operators cancel system jobs.
--   jobq_app        direct reads: its store's jobs and system jobs (store_id NULL); without a
--                   valid setting, no store-scoped job (fail closed).
--   jobq_operator   direct reads of every job.
--   worker_runtime  no table access; it works every store's jobs through the worker functions and
--                   enqueues through the gate like an application.
-- No setting a caller can make widens this: the policies look only at the caller's role and at
-- app.current_store_id, which only ever narrows.

-- +goose Up

-- +goose StatementBegin
CREATE FUNCTION jobq.current_store_id()
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

-- The role the caller acts as: the SET ROLE role, else the login. SECURITY DEFINER changes
-- current_user but not the role setting, so inside the engine this still names the caller.
-- +goose StatementBegin
CREATE FUNCTION jobq._caller()
RETURNS name
LANGUAGE sql
STABLE
AS $$
    SELECT CASE WHEN pg_catalog.current_setting('role') = 'none' THEN session_user
                ELSE pg_catalog.current_setting('role')::name END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._caller() IS 'Private. The role the caller acts as (SET ROLE, else session_user).';

-- Whether the caller of a gate function may reach a row of store p_store_id.
-- +goose StatementBegin
CREATE FUNCTION jobq._caller_reaches(p_store_id uuid)
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

-- Refuses, before the policy would, a spec for a store the caller may not reach. Only the gate
-- functions run as jobq_app_gate; the worker functions (fan-out, cron) reach every store.
-- +goose StatementBegin
CREATE FUNCTION jobq._check_tenant(p_specs jobq.job_spec[], p_label_index boolean)
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

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.TENANT_MISMATCH', 'JQ406', 'The job belongs to a store other than the session''s app.current_store_id.',
     'Set app.current_store_id to the job''s store (SET LOCAL inside the transaction), or use jobq.fan_out for work across stores.');

ALTER TABLE jobq.jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.jobs FORCE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_history FORCE ROW LEVEL SECURITY;

-- The engine sees everything. The gate (enqueue, enqueue_many, retry_job, cancel_job) reads,
-- inserts and updates its caller's store's rows and system rows; it deletes (cancels) only its
-- caller's store's rows, so only operators cancel system jobs. Applications read their store's
-- rows and system rows; operators read everything.
CREATE POLICY jobs_engine ON jobq.jobs TO jobq_migrator USING (true) WITH CHECK (true);
CREATE POLICY jobs_gate_read ON jobq.jobs FOR SELECT TO jobq_app_gate
    USING (store_id IS NULL OR jobq._caller_reaches(store_id));
CREATE POLICY jobs_gate_insert ON jobq.jobs FOR INSERT TO jobq_app_gate
    WITH CHECK (store_id IS NULL OR jobq._caller_reaches(store_id));
CREATE POLICY jobs_gate_update ON jobq.jobs FOR UPDATE TO jobq_app_gate
    USING (store_id IS NULL OR jobq._caller_reaches(store_id)) WITH CHECK (store_id IS NULL OR jobq._caller_reaches(store_id));
CREATE POLICY jobs_gate_delete ON jobq.jobs FOR DELETE TO jobq_app_gate
    USING (jobq._caller_reaches(store_id));
CREATE POLICY jobs_app_read ON jobq.jobs FOR SELECT TO jobq_app
    USING (store_id IS NULL OR store_id = jobq.current_store_id());
CREATE POLICY jobs_operator_read ON jobq.jobs FOR SELECT TO jobq_operator USING (true);

CREATE POLICY job_history_engine ON jobq.job_history TO jobq_migrator USING (true) WITH CHECK (true);
CREATE POLICY job_history_gate_read ON jobq.job_history FOR SELECT TO jobq_app_gate
    USING (store_id IS NULL OR jobq._caller_reaches(store_id));
CREATE POLICY job_history_gate_insert ON jobq.job_history FOR INSERT TO jobq_app_gate
    WITH CHECK (store_id IS NULL OR jobq._caller_reaches(store_id));
-- Reviving a dead job (retry_job) locks and moves its history row.
CREATE POLICY job_history_gate_update ON jobq.job_history FOR UPDATE TO jobq_app_gate
    USING (store_id IS NULL OR jobq._caller_reaches(store_id)) WITH CHECK (store_id IS NULL OR jobq._caller_reaches(store_id));
CREATE POLICY job_history_gate_delete ON jobq.job_history FOR DELETE TO jobq_app_gate
    USING (store_id IS NULL OR jobq._caller_reaches(store_id));
CREATE POLICY job_history_app_read ON jobq.job_history FOR SELECT TO jobq_app
    USING (store_id IS NULL OR store_id = jobq.current_store_id());
CREATE POLICY job_history_operator_read ON jobq.job_history FOR SELECT TO jobq_operator USING (true);

-- The gate owns the functions an application may call and has what they need, nothing more.
GRANT USAGE ON SCHEMA jobq TO jobq_app_gate;
GRANT SELECT, INSERT, UPDATE, DELETE ON jobq.jobs, jobq.job_history TO jobq_app_gate;
GRANT SELECT ON jobq.settings, jobq.error_codes TO jobq_app_gate;
GRANT INSERT ON jobq.audit_log TO jobq_app_gate;
GRANT USAGE ON SEQUENCE jobq.jobs_id_seq, jobq.audit_log_id_seq TO jobq_app_gate;
GRANT EXECUTE ON FUNCTION
    jobq._raise(text, text),
    jobq._validate_specs(jobq.job_spec[], boolean),
    jobq._enqueue(jobq.job_spec[], boolean),
    jobq._enqueue_keyed(jobq.job_spec[]),
    jobq._revive(bigint[], text),
    jobq._to_history(jobq.jobs, text, text, text, text),
    jobq._check_tenant(jobq.job_spec[], boolean),
    jobq._caller_reaches(uuid),
    jobq._caller(),
    jobq.current_store_id()
TO jobq_app_gate;
-- A new owner needs CREATE on the schema at the moment of ALTER ... OWNER, and not after.
GRANT CREATE ON SCHEMA jobq TO jobq_app_gate;
ALTER FUNCTION jobq.enqueue(text, jsonb, timestamptz, text, text, integer, integer, text, uuid, interval, interval, interval) OWNER TO jobq_app_gate;
ALTER FUNCTION jobq.enqueue_many(jsonb) OWNER TO jobq_app_gate;
ALTER FUNCTION jobq.retry_job(bigint) OWNER TO jobq_app_gate;
ALTER FUNCTION jobq.cancel_job(bigint) OWNER TO jobq_app_gate;
REVOKE CREATE ON SCHEMA jobq FROM jobq_app_gate;

GRANT EXECUTE ON FUNCTION jobq.current_store_id() TO worker_runtime, jobq_app, jobq_operator;

-- +goose Down
-- The migrator does not own the gate's functions and cannot ALTER them; as a member of both roles
-- it may hand everything the gate owns back to itself.
REASSIGN OWNED BY jobq_app_gate TO jobq_migrator;
REVOKE ALL ON jobq.jobs, jobq.job_history, jobq.settings, jobq.error_codes, jobq.audit_log FROM jobq_app_gate;
REVOKE ALL ON SEQUENCE jobq.jobs_id_seq, jobq.audit_log_id_seq FROM jobq_app_gate;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA jobq FROM jobq_app_gate;
REVOKE USAGE ON SCHEMA jobq FROM jobq_app_gate;
DROP POLICY job_history_operator_read ON jobq.job_history;
DROP POLICY job_history_app_read ON jobq.job_history;
DROP POLICY job_history_gate_delete ON jobq.job_history;
DROP POLICY job_history_gate_update ON jobq.job_history;
DROP POLICY job_history_gate_insert ON jobq.job_history;
DROP POLICY job_history_gate_read ON jobq.job_history;
DROP POLICY job_history_engine ON jobq.job_history;
DROP POLICY jobs_operator_read ON jobq.jobs;
DROP POLICY jobs_app_read ON jobq.jobs;
DROP POLICY jobs_gate_delete ON jobq.jobs;
DROP POLICY jobs_gate_update ON jobq.jobs;
DROP POLICY jobs_gate_insert ON jobq.jobs;
DROP POLICY jobs_gate_read ON jobq.jobs;
DROP POLICY jobs_engine ON jobq.jobs;
ALTER TABLE jobq.job_history NO FORCE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_history DISABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.jobs NO FORCE ROW LEVEL SECURITY;
ALTER TABLE jobq.jobs DISABLE ROW LEVEL SECURITY;
DELETE FROM jobq.error_codes WHERE code = 'JOB.TENANT_MISMATCH';
DROP FUNCTION jobq._check_tenant(jobq.job_spec[], boolean);
DROP FUNCTION jobq._caller_reaches(uuid);
DROP FUNCTION jobq._caller();
DROP FUNCTION jobq.current_store_id();
