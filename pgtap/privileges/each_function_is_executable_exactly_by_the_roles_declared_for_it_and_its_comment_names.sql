-- Who may execute each function is declared here, function by function, and the catalog must
-- agree: for every function of schema jobq and public.list_store_ids_for_fan_out, the roles of
-- bootstrap/001_roles.sql (but jobq_migrator, which owns them all or is a member of their owner)
-- and PUBLIC that may EXECUTE it are exactly those of the table below. A grant changed, or a
-- function added with a grant, fails here until the table says so too.
-- The comments are held to what they claim: a private helper (name starting with _) says
-- "Private." and no login or runtime role may execute it; a COMMENT that names a role it grants
-- EXECUTE to ("EXECUTE for R", "EXECUTE granted to R") is right that R may, and one that says
-- "only" is right that no other role holds a grant on it.
-- (The owners: jobq_app_gate owns the gate functions, which is how it executes them and the
-- helpers granted to it; worker_fanout_owner owns public.list_store_ids_for_fan_out; jobq_dashboard
-- is a member of jobq_viewer.)
BEGIN;
SELECT plan(6);

CREATE TEMP TABLE expected (fn regprocedure PRIMARY KEY, roles text[] NOT NULL) ON COMMIT DROP;
INSERT INTO expected (fn, roles) VALUES
    ('jobq._app_may_enqueue(text)', '{jobq_app_gate}'),
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
    ('jobq._batch_callback_fields()', '{jobq_app_gate}'),
    ('jobq._batch_callback_job(jsonb,jobq.batches)', '{jobq_app_gate}'),
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
    ('jobq._validate_specs(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
    ('jobq._wake(text)', '{jobq_app_gate}'),
    ('jobq._wake_as(text,text,boolean)', '{jobq_app_gate}'),
    ('jobq._unhold_sequences(bigint[])', '{jobq_app_gate}'),
    ('jobq._workflow_prepare(jsonb[],uuid[],text[],boolean)', '{jobq_app_gate}'),
    ('jobq._workflow_spec(bigint[],bigint[],text,text,text)', '{jobq_app_gate}'),
    ('jobq._workflow_specs(jsonb)', '{jobq_app_gate}'),
    ('jobq.acquire_leadership(text,interval)', '{jobq_operator,worker_runtime}'),
    ('jobq.audit_list(text,text,bigint,timestamp with time zone,bigint,integer)', '{jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.backoff_ceiling(integer,interval,interval)', '{jobq_app,jobq_operator,worker_runtime}'),
    ('jobq.backoff_delay(integer,interval,interval)', '{jobq_app,jobq_operator,worker_runtime}'),
    ('jobq.batch_enqueue(bigint,jsonb)', '{jobq_app,jobq_app_gate,jobq_operator,worker_runtime}'),
    ('jobq.batch_list(uuid,text,bigint,integer,bigint,bigint)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.batch_status(bigint)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.bind_store(name,uuid)', '{jobq_operator}'),
    ('jobq.cancel_job(bigint)', '{jobq_app,jobq_app_gate,jobq_operator}'),
    ('jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[])', '{worker_runtime}'),
    ('jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[],text[])', '{worker_runtime}'),
    ('jobq.complete_job(bigint,uuid,jsonb)', '{worker_runtime}'),
    ('jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[],jsonb[])', '{worker_runtime}'),
    ('jobq.confirm_continuation(text,bigint[],uuid[],interval)', '{worker_runtime}'),
    ('jobq.create_batch(jsonb,jsonb,jsonb,uuid,text,jsonb,boolean)', '{jobq_app,jobq_app_gate,jobq_operator,worker_runtime}'),
    ('jobq.cron_next(text,timestamp with time zone,text)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.cron_parse(text)', '{jobq_app,jobq_operator,worker_runtime}'),
    ('jobq.cron_slots(text,timestamp with time zone,timestamp with time zone,text,integer)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.current_store_id()', '{jobq_app,jobq_app_gate,jobq_operator,worker_runtime}'),
    ('jobq.default_log_ref(text,bigint,integer)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.define_task(text,text,jsonb,integer,text,integer,interval,interval,interval,text,boolean)', '{jobq_operator,worker_runtime}'),
    ('jobq.delete_job(bigint)', '{jobq_operator}'),
    ('jobq.demote_leader()', '{jobq_operator}'),
    ('jobq.deregister_worker(text)', '{jobq_operator,worker_runtime}'),
    ('jobq.detach_worker(text)', '{jobq_operator}'),
    ('jobq.doorbell_quiet(text[])', '{worker_runtime}'),
    ('jobq.done_quiet()', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.drain_worker(text)', '{jobq_operator}'),
    ('jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval,bigint[],text,text,text)', '{jobq_app,jobq_app_gate,jobq_operator,worker_runtime}'),
    ('jobq.enqueue_many(jsonb)', '{jobq_app,jobq_app_gate,jobq_operator,worker_runtime}'),
    ('jobq.explain_job(bigint)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.job_workflow(bigint)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.workflow_graph(bigint,integer)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.fail_job(bigint,uuid,text,text,boolean,interval)', '{worker_runtime}'),
    ('jobq.fail_jobs(bigint[],uuid[],text[],text[],boolean[],interval[],text[],text[],text[],integer[])', '{worker_runtime}'),
    ('jobq.fan_out(text,jsonb,text,text,timestamp with time zone)', '{worker_runtime}'),
    ('jobq.hand_back_unheld(text,uuid[])', '{worker_runtime}'),
    ('jobq.heartbeat(text,bigint,uuid,interval)', '{worker_runtime}'),
    ('jobq.heartbeat_jobs(text,bigint[],uuid[],interval)', '{worker_runtime}'),
    ('jobq.hold_doorbell(text[])', '{worker_runtime}'),
    ('jobq.hold_done_doorbell()', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.job_attempt_list(bigint)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.job_list(text,text,text,uuid,text,timestamp with time zone,bigint,integer,bigint)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.job_result(bigint)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.leader_state()', '{jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.maintain(text,bigint)', '{jobq_operator,worker_runtime}'),
    ('jobq.pause_queue(text)', '{jobq_operator}'),
    ('jobq.parent_results(bigint)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.pause_schedule(text)', '{jobq_operator}'),
    ('jobq.payload_problem(jsonb,jsonb)', '{jobq_app,jobq_app_gate,jobq_operator,worker_runtime}'),
    ('jobq.prune_history(integer)', '{jobq_operator,worker_runtime}'),
    ('jobq.queue_depth(text[])', '{jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.queue_lag(text[])', '{jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.queue_list(text,uuid)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.queue_minutes(timestamp with time zone)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.queue_not_served(text[])', '{jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.queue_states()', '{jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.queue_summary(integer)', '{jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.register_worker(text,text,integer,text[],integer,text,text[])', '{jobq_operator,worker_runtime}'),
    ('jobq.release_doorbell(text[])', '{worker_runtime}'),
    ('jobq.release_done_doorbell()', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer,worker_runtime}'),
    ('jobq.requeue_dead(text,timestamp with time zone,integer)', '{jobq_operator}'),
    ('jobq.rescue_expired(integer)', '{jobq_operator,worker_runtime}'),
    ('jobq.resume_queue(text)', '{jobq_operator}'),
    ('jobq.resume_schedule(text)', '{jobq_operator}'),
    ('jobq.resume_worker(text)', '{jobq_operator}'),
    ('jobq.retry_job(bigint)', '{jobq_app,jobq_app_gate,jobq_operator}'),
    ('jobq.seal_batch(bigint)', '{jobq_app,jobq_app_gate,jobq_operator,worker_runtime}'),
    ('jobq.run_schedule_now(text)', '{jobq_operator}'),
    ('jobq.schedule(text,text,text,jsonb,text,text,interval,text,interval,text,text,integer,integer,boolean)', '{jobq_operator,worker_runtime}'),
    ('jobq.schedule_list()', '{jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.served_tasks(text[])', '{jobq_operator,worker_runtime}'),
    ('jobq.set_concurrency_limit(text,integer)', '{jobq_operator}'),
    ('jobq.set_fair_claiming(text,boolean)', '{jobq_operator}'),
    ('jobq.set_partition_concurrency_limit(text,text,integer)', '{jobq_operator}'),
    ('jobq.set_progress(bigint,uuid,jsonb)', '{worker_runtime}'),
    ('jobq.set_rate_limit(text,integer,interval)', '{jobq_operator}'),
    ('jobq.set_setting(text,text)', '{jobq_operator}'),
    ('jobq.set_store_concurrency_limit(text,integer)', '{jobq_operator}'),
    ('jobq.set_store_rate_limit(text,integer,interval)', '{jobq_operator}'),
    ('jobq.set_task_handler(text,text)', '{jobq_operator}'),
    ('jobq.setting_list(text)', '{jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.snooze(bigint,uuid,interval)', '{worker_runtime}'),
    ('jobq.snooze_jobs(bigint[],uuid[],interval)', '{worker_runtime}'),
    ('jobq.stats(text,uuid)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.stats_counted_at(uuid)', '{jobq_app,jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('jobq.unbind_store(name,uuid)', '{jobq_operator}'),
    ('jobq.unschedule(text)', '{jobq_operator}'),
    ('jobq.upkeep_advice(bigint,integer,interval)', '{jobq_operator}'),
    ('jobq.worker_heartbeat(text,integer)', '{jobq_operator,worker_runtime}'),
    ('jobq.worker_list(text)', '{jobq_dashboard,jobq_operator,jobq_viewer}'),
    ('public.list_store_ids_for_fan_out()', '{worker_fanout_owner,worker_runtime}');

-- The roles whose grants are declared: every role of bootstrap/001_roles.sql but jobq_migrator.
CREATE TEMP TABLE declared_roles (name text PRIMARY KEY) ON COMMIT DROP;
INSERT INTO declared_roles VALUES ('worker_runtime'), ('worker_fanout_owner'), ('jobq_app'), ('jobq_app_gate'),
    ('jobq_operator'), ('jobq_viewer'), ('jobq_dashboard'), ('jobq_waker');
-- The functions in question, with their comments.
CREATE TEMP VIEW fns AS
    SELECT p.oid, p.oid::regprocedure AS fn, p.proname, p.proowner, p.proacl,
           coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), '') AS comment
    FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'jobq' OR p.oid = 'public.list_store_ids_for_fan_out()'::regprocedure;

SELECT is_empty(
    $$ SELECT e.fn::text FROM expected e WHERE NOT EXISTS (SELECT 1 FROM fns f WHERE f.fn = e.fn) $$,
    'every function of the table exists');

SELECT set_eq(
    $$ SELECT f.fn::text, r.name FROM fns f CROSS JOIN declared_roles r
       WHERE pg_catalog.has_function_privilege(r.name, f.oid, 'EXECUTE')
       UNION ALL
       SELECT f.fn::text, 'PUBLIC' FROM fns f CROSS JOIN LATERAL aclexplode(f.proacl) AS a
       WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE' $$,
    $$ SELECT e.fn::text, r FROM expected e CROSS JOIN LATERAL unnest(e.roles) AS r $$,
    'each function is executable by exactly the roles the table gives it, and none by PUBLIC');

SELECT is_empty(
    $$ SELECT f.fn::text FROM fns f WHERE f.proname LIKE '\_%' AND f.comment NOT LIKE 'Private%' $$,
    'every private helper (its name starts with _) says so first in its COMMENT');

SELECT is_empty(
    $$ SELECT f.fn::text, r FROM fns f
       CROSS JOIN unnest(ARRAY['worker_runtime', 'jobq_app', 'jobq_operator', 'jobq_viewer', 'jobq_dashboard', 'jobq_waker']) AS r
       WHERE f.comment LIKE 'Private%' AND pg_catalog.has_function_privilege(r, f.oid, 'EXECUTE') $$,
    'no login or runtime role may execute a function whose COMMENT calls it private');

-- "EXECUTE for R[, R2 and R3][ only]" and "EXECUTE granted to ..." in a COMMENT, role names only.
CREATE TEMP VIEW claims AS
    SELECT f.fn, f.oid, f.proowner, f.proacl,
           regexp_split_to_array(m[1], '(, | and )') AS roles, m[2] IS NOT NULL AS only
    FROM fns f
    CROSS JOIN LATERAL regexp_matches(f.comment,
        'EXECUTE (?:granted to|for) ((?:worker_runtime|worker_fanout_owner|jobq_app_gate|jobq_app|jobq_operator|jobq_viewer|jobq_dashboard|jobq_waker|jobq_migrator)(?:(?:, | and )(?:worker_runtime|worker_fanout_owner|jobq_app_gate|jobq_app|jobq_operator|jobq_viewer|jobq_dashboard|jobq_waker|jobq_migrator))*)( only)?',
        'g') AS m;

SELECT is_empty(
    $$ SELECT c.fn::text, r FROM claims c CROSS JOIN LATERAL unnest(c.roles) AS r
       WHERE NOT pg_catalog.has_function_privilege(r, c.oid, 'EXECUTE') $$,
    'a role a COMMENT grants EXECUTE to may execute the function');

SELECT is_empty(
    $$ SELECT c.fn::text, a.grantee::regrole::text FROM claims c CROSS JOIN LATERAL aclexplode(c.proacl) AS a
       WHERE c.only AND a.privilege_type = 'EXECUTE' AND a.grantee <> c.proowner
         AND (a.grantee = 0 OR a.grantee::regrole::text <> ALL (c.roles)) $$,
    'a COMMENT that grants EXECUTE to some roles "only" names every grant the function holds but its owner''s');

SELECT * FROM finish();
ROLLBACK;
