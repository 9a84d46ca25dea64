-- The functions runtime roles call are SECURITY DEFINER (they write tables the roles cannot, or call
-- private helpers no runtime role may execute); private helpers (_-prefixed), backoff_delay and
-- current_store_id run as the caller. Four private helpers are definers by design, executable by no
-- runtime role but the gate: jobq._enqueue_for_stores, behind jobq.fan_out, and jobq._job_of_key_since, the
-- look-up of unique_for, which the gate alone executes (so that the key indexes serve it under the
-- row policies; it reads only the store it is given), jobq._batches_count, the trigger function
-- that counts ended jobs in their batches, jobq._settle_batches, which enqueues the callbacks of a
-- settled batch in its store (the gate's seal_batch executes it), and jobq._notify_done, the
-- trigger of jobq.job_history that sends jobq_done (a trigger runs whoever inserts). The workflow
-- helpers (45_workflows.sql) are definers too: jobq._workflow_prepare and jobq._attach_workflow,
-- which the gate alone executes (they lock and read parents of the child's store, matched there,
-- and write the engine's edge table), jobq._unhold_sequences (the gate's jobq._revive clears a
-- hold), and jobq._settle_ended and the trigger function jobq._workflow_on_history, which no
-- runtime role executes (the trigger runs for whichever role ended a job). Outside jobq,
-- public.list_store_ids_for_fan_out is the one definer jobq adds.
BEGIN;
SELECT plan(5);

SELECT set_eq(
    $$ SELECT p.proname::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND p.prosecdef AND p.proname NOT LIKE '\_%' $$,
    $$ VALUES ('enqueue'), ('enqueue_many'), ('claim_job'), ('claim_passed_over'), ('hand_back_unheld'), ('heartbeat'), ('heartbeat_jobs'), ('confirm_continuation'), ('complete_job'), ('complete_jobs'),
              ('fail_job'), ('fail_jobs'), ('snooze'), ('snooze_jobs'), ('queue_lag'), ('queue_depth'), ('rescue_expired'), ('prune_history'), ('retry_job'), ('cancel_job'),
              ('delete_job'), ('requeue_dead'), ('set_setting'), ('define_task'),
              ('schedule'), ('unschedule'), ('register_worker'), ('worker_heartbeat'), ('drain_worker'), ('resume_worker'),
              ('detach_worker'), ('deregister_worker'), ('acquire_leadership'), ('maintain'),
              ('fan_out'), ('payload_problem'), ('backoff_ceiling'), ('bind_store'), ('unbind_store'),
              ('cron_parse'), ('cron_next'), ('cron_slots'),
              ('pause_queue'), ('resume_queue'), ('queue_states'), ('queue_summary'), ('pause_schedule'), ('resume_schedule'), ('run_schedule_now'),
              ('demote_leader'), ('stats'), ('stats_counted_at'), ('set_concurrency_limit'), ('set_store_concurrency_limit'), ('set_partition_concurrency_limit'), ('set_rate_limit'), ('set_store_rate_limit'), ('set_fair_claiming'), ('upkeep_advice'),
              ('hold_doorbell'), ('doorbell_quiet'), ('release_doorbell'), ('hold_done_doorbell'), ('done_quiet'), ('release_done_doorbell'),
              ('set_task_handler'), ('served_tasks'), ('queue_not_served'), ('explain_job'), ('queue_list'), ('set_progress'),
              ('create_batch'), ('batch_enqueue'), ('seal_batch'), ('batch_status'), ('job_result'), ('parent_results') $$,
    'exactly the public API functions of jobq are SECURITY DEFINER (but backoff_delay and current_store_id, which run '
    'as their caller and call no private helper)');
SELECT set_eq(
    $$ SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND p.prosecdef AND p.proname LIKE '\_%' $$,
    $$ VALUES ('jobq._enqueue_for_stores(text,jsonb,text,text,timestamp with time zone,uuid[])'),
              ('jobq._job_of_key_since(uuid,text,timestamp with time zone,boolean)'),
              ('jobq._batches_count()'), ('jobq._notify_done()'), ('jobq._settle_batches(bigint[])'),
              ('jobq._workflow_prepare(jsonb[],uuid[],text[],boolean)'), ('jobq._attach_workflow(bigint[],jsonb[],boolean)'),
              ('jobq._unhold_sequences(bigint[])'), ('jobq._settle_ended(jobq.job_history[])'), ('jobq._workflow_on_history()') $$,
    'the _-prefixed SECURITY DEFINER helpers are jobq._enqueue_for_stores, jobq._job_of_key_since, jobq._batches_count '
    '(the trigger function of jobq.job_history, which counts ended jobs in their batches whoever ended them), '
    'jobq._notify_done (the trigger function of jobq.job_history that sends jobq_done), '
    'jobq._settle_batches (which enqueues a settled batch''s callbacks in its store as the engine) and the workflow helpers');
SELECT set_eq(
    $$ SELECT a.grantee::regrole::text FROM pg_proc p CROSS JOIN LATERAL aclexplode(p.proacl) AS a
       WHERE p.oid = 'jobq._enqueue_for_stores(text, jsonb, text, text, timestamptz, uuid[])'::regprocedure AND a.grantee <> p.proowner $$,
    $$ SELECT NULL::text WHERE false $$,
    'jobq._enqueue_for_stores is executable by nobody but its owner (jobq.fan_out runs as it)');
SELECT set_eq(
    $$ SELECT a.grantee::regrole::text FROM pg_proc p CROSS JOIN LATERAL aclexplode(p.proacl) AS a
       WHERE p.oid = 'jobq._job_of_key_since(uuid, text, timestamptz, boolean)'::regprocedure AND a.grantee <> p.proowner $$,
    $$ VALUES ('jobq_app_gate') $$,
    'jobq._job_of_key_since is executable by jobq_app_gate alone (enqueue and enqueue_many run as it)');
SELECT set_eq(
    $$ SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public' AND p.prosecdef $$,
    $$ VALUES ('public.list_store_ids_for_fan_out()'::regprocedure) $$,
    'in schema public, public.list_store_ids_for_fan_out is the one SECURITY DEFINER function');

SELECT * FROM finish();
ROLLBACK;
