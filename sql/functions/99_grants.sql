-- jobq engine, grants. Who may execute each function, declared once for the whole engine: every
-- function of schema jobq (and public.list_store_ids_for_fan_out) is private — no role but its
-- owner may execute it — unless a row of jobq._function_grants() names the roles that may.
-- jobq._apply_grants() makes the catalog say exactly that, revoking from PUBLIC and every role of
-- bootstrap/001_roles.sql (jobq._runtime_roles()) but the function's owner, then granting as
-- declared. `jobq migrate up` applies this file last, whenever it applies any function file, so
-- a function created or recreated by another file is never left executable by PUBLIC (its
-- default) nor stripped of its grants. To grant a function: add its row here.
-- pgtap/privileges/ holds an independent list of who may execute what, and fails when the
-- catalog differs from it; migrate's TestFunctionFilesGrantNothing fails when another file grants.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The roles of bootstrap/001_roles.sql, the roles grants are revoked from (but a function's owner).
CREATE OR REPLACE FUNCTION jobq._runtime_roles()
RETURNS text[]
LANGUAGE sql
IMMUTABLE
AS $$ SELECT ARRAY['jobq_migrator', 'worker_runtime', 'worker_fanout_owner', 'jobq_app', 'jobq_app_gate', 'jobq_operator', 'jobq_viewer', 'jobq_dashboard', 'jobq_waker']::text[] $$;
COMMENT ON FUNCTION jobq._runtime_roles() IS
    'Private. The roles bootstrap/001_roles.sql creates: those jobq._apply_grants revokes every function''s EXECUTE from (but the function''s owner) before granting as declared. Caller: jobq._apply_grants.';

-- Who may execute each function that anyone but its owner may: one row per function, its
-- signature and the roles granted EXECUTE. Every other function is private.
CREATE OR REPLACE FUNCTION jobq._function_grants()
RETURNS TABLE (fn text, roles text[])
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT v.fn, v.roles::text[] FROM (VALUES
        ('jobq._app_may_enqueue(text)', '{jobq_app_gate}'),
        ('jobq._batch_callback_fields()', '{jobq_app_gate}'),
        ('jobq._batch_callback_job(jsonb,jobq.batches)', '{jobq_app_gate}'),
        ('jobq._attach_workflow(bigint[],jsonb[],boolean)', '{jobq_app_gate}'),
        ('jobq._calendar_day_ok(text)', '{jobq_app_gate}'),
        ('jobq._caller()', '{jobq_app_gate}'),
        ('jobq._caller_is_operator()', '{jobq_app_gate}'),
        ('jobq._caller_is_restricted()', '{jobq_app_gate}'),
        ('jobq._caller_reaches(uuid)', '{jobq_app_gate}'),
        ('jobq._caller_reaches_as(uuid,boolean,boolean,uuid)', '{jobq_app_gate}'),
        ('jobq._check_int(text,bigint,bigint,bigint,text)', '{jobq_app_gate}'),
        ('jobq._check_interval(text,interval,interval,boolean)', '{jobq_app_gate}'),
        ('jobq._check_length(text,anyarray,integer)', '{jobq_app_gate}'),
        ('jobq._check_payload(text,jsonb)', '{jobq_app_gate}'),
        ('jobq._check_tenant(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._check_text(text,text,integer)', '{jobq_app_gate}'),
        ('jobq._check_timestamp(text,timestamp with time zone)', '{jobq_app_gate}'),
        ('jobq._doorbell_silent(text)', '{jobq_app_gate}'),
        ('jobq._enqueue(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._enqueue_keyed(jobq.job_spec[])', '{jobq_app_gate}'),
        ('jobq._enqueue_takes_fast_path(jobq.job_spec,jobq.tasks)', '{jobq_app_gate}'),
        ('jobq._enqueue_takes_fast_path_as(jobq.job_spec,jobq.tasks,boolean,boolean,uuid)', '{jobq_app_gate}'),
        ('jobq._insert_specs(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._job_of_key_since(uuid,text,timestamp with time zone,boolean)', '{jobq_app_gate}'),
        ('jobq._json_type_ok(jsonb,text)', '{jobq_app_gate}'),
        ('jobq._limit(text)', '{jobq_app_gate}'),
        ('jobq._lock_batch(bigint)', '{jobq_app_gate}'),
        ('jobq._lock_sequences(uuid[],text[])', '{jobq_app_gate}'),
        ('jobq._await_sequences(uuid[],text[])', '{jobq_app_gate}'),
        ('jobq._limit_interval(text)', '{jobq_app_gate}'),
        ('jobq._max_payload_bytes()', '{jobq_app_gate}'),
        ('jobq._raise(text,text)', '{jobq_app_gate}'),
        ('jobq._resolve_spec(jobq.job_spec,jobq.tasks,integer)', '{jobq_app_gate}'),
        ('jobq._resolve_tasks(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._revive(bigint[],text)', '{jobq_app_gate}'),
        ('jobq._spec_in_bounds(jobq.job_spec)', '{jobq_app_gate}'),
        ('jobq._settle_batches(bigint[])', '{jobq_app_gate}'),
        ('jobq._store_key(uuid)', '{jobq_app_gate}'),
        ('jobq._to_history(jobq.jobs,text,text,text,text,text,text,integer,bigint,jsonb)', '{jobq_app_gate}'),
        ('jobq._ts_add(timestamp with time zone,interval)', '{jobq_app_gate}'),
        ('jobq._ts_in_range(timestamp with time zone)', '{jobq_app_gate}'),
        ('jobq._unhold_sequences(bigint[])', '{jobq_app_gate}'),
        ('jobq._validate_specs(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._wake(text)', '{jobq_app_gate}'),
        ('jobq._wake_as(text,text,boolean)', '{jobq_app_gate}'),
        ('jobq._workflow_prepare(jsonb[],uuid[],text[],boolean)', '{jobq_app_gate}'),
        ('jobq._workflow_spec(bigint[],bigint[],text,text,text)', '{jobq_app_gate}'),
        ('jobq._workflow_specs(jsonb)', '{jobq_app_gate}'),
        ('jobq.acquire_leadership(text,interval)', '{worker_runtime,jobq_operator}'),
        ('jobq.audit_list(text,text,bigint,timestamp with time zone,bigint,integer)', '{jobq_operator,jobq_viewer}'),
        ('jobq.backoff_ceiling(integer,interval,interval)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.backoff_delay(integer,interval,interval)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.bind_store(name,uuid)', '{jobq_operator}'),
        ('jobq.batch_enqueue(bigint,jsonb)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.batch_list(uuid,text,bigint,integer,bigint,bigint)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.batch_status(bigint)', '{jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.cancel_job(bigint)', '{jobq_app,jobq_operator}'),
        ('jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[])', '{worker_runtime}'),
        ('jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[],text[])', '{worker_runtime}'),
        ('jobq.complete_job(bigint,uuid,jsonb)', '{worker_runtime}'),
        ('jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[],jsonb[])', '{worker_runtime}'),
        ('jobq.confirm_continuation(text,bigint[],uuid[],interval)', '{worker_runtime}'),
        ('jobq.cron_next(text,timestamp with time zone,text)', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.create_batch(jsonb,jsonb,jsonb,uuid,text,jsonb,boolean)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.cron_parse(text)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.cron_slots(text,timestamp with time zone,timestamp with time zone,text,integer)', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.current_store_id()', '{jobq_app_gate,worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.default_log_ref(text,bigint,integer)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.define_task(text,text,jsonb,integer,text,integer,interval,interval,interval,text,boolean)', '{worker_runtime,jobq_operator}'),
        ('jobq.delete_job(bigint)', '{jobq_operator}'),
        ('jobq.demote_leader()', '{jobq_operator}'),
        ('jobq.deregister_worker(text)', '{worker_runtime,jobq_operator}'),
        ('jobq.detach_worker(text)', '{jobq_operator}'),
        ('jobq.doorbell_quiet(text[])', '{worker_runtime}'),
        ('jobq.done_quiet()', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.drain_worker(text)', '{jobq_operator}'),
        ('jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval,bigint[],text,text,text)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.enqueue_many(jsonb)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.explain_job(bigint)', '{jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.job_workflow(bigint)', '{jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.workflow_graph(bigint,integer)', '{jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.fail_job(bigint,uuid,text,text,boolean,interval)', '{worker_runtime}'),
        ('jobq.fail_jobs(bigint[],uuid[],text[],text[],boolean[],interval[],text[],text[],text[],integer[])', '{worker_runtime}'),
        ('jobq.fan_out(text,jsonb,text,text,timestamp with time zone)', '{worker_runtime}'),
        ('jobq.hand_back_unheld(text,uuid[])', '{worker_runtime}'),
        ('jobq.heartbeat(text,bigint,uuid,interval)', '{worker_runtime}'),
        ('jobq.heartbeat_jobs(text,bigint[],uuid[],interval)', '{worker_runtime}'),
        ('jobq.hold_doorbell(text[])', '{worker_runtime}'),
        ('jobq.hold_done_doorbell()', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.job_attempt_list(bigint)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.job_list(text,text,text,uuid,text,timestamp with time zone,bigint,integer,bigint)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.job_result(bigint)', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.leader_state()', '{jobq_operator,jobq_viewer}'),
        ('jobq.maintain(text,bigint)', '{worker_runtime,jobq_operator}'),
        ('jobq.pause_queue(text)', '{jobq_operator}'),
        ('jobq.parent_results(bigint)', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.pause_schedule(text)', '{jobq_operator}'),
        ('jobq.payload_problem(jsonb,jsonb)', '{worker_runtime,jobq_app,jobq_operator,jobq_app_gate}'),
        ('jobq.prune_history(integer)', '{worker_runtime,jobq_operator}'),
        ('jobq.queue_depth(text[])', '{worker_runtime,jobq_operator,jobq_viewer}'),
        ('jobq.queue_lag(text[])', '{worker_runtime,jobq_operator,jobq_viewer}'),
        ('jobq.queue_list(text,uuid)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.queue_minutes(timestamp with time zone)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.queue_not_served(text[])', '{worker_runtime,jobq_operator,jobq_viewer}'),
        ('jobq.queue_states()', '{jobq_operator,jobq_viewer}'),
        ('jobq.queue_summary(integer)', '{jobq_operator,jobq_viewer}'),
        ('jobq.register_worker(text,text,integer,text[],integer,text,text[])', '{worker_runtime,jobq_operator}'),
        ('jobq.release_doorbell(text[])', '{worker_runtime}'),
        ('jobq.release_done_doorbell()', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.requeue_dead(text,timestamp with time zone,integer)', '{jobq_operator}'),
        ('jobq.rescue_expired(integer)', '{worker_runtime,jobq_operator}'),
        ('jobq.resume_queue(text)', '{jobq_operator}'),
        ('jobq.resume_schedule(text)', '{jobq_operator}'),
        ('jobq.resume_worker(text)', '{jobq_operator}'),
        ('jobq.retry_job(bigint)', '{jobq_app,jobq_operator}'),
        ('jobq.seal_batch(bigint)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.run_schedule_now(text)', '{jobq_operator}'),
        ('jobq.schedule(text,text,text,jsonb,text,text,interval,text,interval,text,text,integer,integer,boolean)', '{worker_runtime,jobq_operator}'),
        ('jobq.schedule_list()', '{jobq_operator,jobq_viewer}'),
        ('jobq.served_tasks(text[])', '{worker_runtime,jobq_operator}'),
        ('jobq.set_concurrency_limit(text,integer)', '{jobq_operator}'),
        ('jobq.set_fair_claiming(text,boolean)', '{jobq_operator}'),
        ('jobq.set_partition_concurrency_limit(text,text,integer)', '{jobq_operator}'),
        ('jobq.set_progress(bigint,uuid,jsonb)', '{worker_runtime}'),
        ('jobq.set_rate_limit(text,integer,interval)', '{jobq_operator}'),
        ('jobq.set_setting(text,text)', '{jobq_operator}'),
        ('jobq.set_store_concurrency_limit(text,integer)', '{jobq_operator}'),
        ('jobq.set_store_rate_limit(text,integer,interval)', '{jobq_operator}'),
        ('jobq.set_task_handler(text,text)', '{jobq_operator}'),
        ('jobq.setting_list(text)', '{jobq_operator,jobq_viewer}'),
        ('jobq.snooze(bigint,uuid,interval)', '{worker_runtime}'),
        ('jobq.snooze_jobs(bigint[],uuid[],interval)', '{worker_runtime}'),
        ('jobq.stats(text,uuid)', '{jobq_operator,jobq_app,jobq_viewer}'),
        ('jobq.stats_counted_at(uuid)', '{jobq_operator,jobq_app,jobq_viewer}'),
        ('jobq.unbind_store(name,uuid)', '{jobq_operator}'),
        ('jobq.unschedule(text)', '{jobq_operator}'),
        ('jobq.upkeep_advice(bigint,integer,interval)', '{jobq_operator}'),
        ('jobq.worker_heartbeat(text,integer)', '{worker_runtime,jobq_operator}'),
        ('jobq.worker_list(text)', '{jobq_operator,jobq_viewer}'),
        ('public.list_store_ids_for_fan_out()', '{worker_runtime}')
    ) AS v (fn, roles)
$$;
COMMENT ON FUNCTION jobq._function_grants() IS
    'Private. The declared EXECUTE grants: one row per function any role but its owner may execute (fn, its signature as regprocedure prints it; roles). Every function of schema jobq not listed is private. Caller: jobq._apply_grants; read by pgtap/privileges.';

-- Makes every function's EXECUTE grants exactly those declared: revokes from PUBLIC and every
-- role of jobq._runtime_roles() but the function's owner, then grants each declared row. Raises
-- when a declared function does not exist (a row left behind by a signature change).
CREATE OR REPLACE FUNCTION jobq._apply_grants()
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
-- VOLATILE for its GRANT and REVOKE, which plpgsql_check does not count as writes:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_fn record;
    v_n integer := 0;
BEGIN
    FOR v_fn IN
        SELECT p.oid::regprocedure AS sig, pg_get_userbyid(p.proowner) AS owner
        FROM pg_proc p
        WHERE p.pronamespace = 'jobq'::regnamespace OR p.oid = 'public.list_store_ids_for_fan_out'::regproc
    LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', v_fn.sig);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM %s', v_fn.sig,
                       (SELECT string_agg(quote_ident(r), ', ') FROM unnest(jobq._runtime_roles()) AS r WHERE r <> v_fn.owner));
    END LOOP;
    FOR v_fn IN SELECT g.fn, g.roles FROM jobq._function_grants() AS g LOOP
        IF to_regprocedure(v_fn.fn) IS NULL THEN
            RAISE EXCEPTION 'jobq._function_grants() names %, which does not exist', v_fn.fn;
        END IF;
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', to_regprocedure(v_fn.fn),
                       (SELECT string_agg(quote_ident(r), ', ') FROM unnest(v_fn.roles) AS r));
        v_n := v_n + 1;
    END LOOP;
    RETURN v_n;
END
$$;
COMMENT ON FUNCTION jobq._apply_grants() IS
    'Private. Revokes EXECUTE on every function of schema jobq and public.list_store_ids_for_fan_out from PUBLIC and every role of jobq._runtime_roles() but its owner, then grants the rows of jobq._function_grants(); returns how many functions it granted. Raises for a declared function that does not exist. Caller: this file, applied by jobq migrate up after every other function file (as jobq_migrator, the owner of the functions or a member of their owner).';

SELECT jobq._apply_grants();
