-- jobq_viewer changes nothing: the only jobq functions it may execute are the read-only ones
-- below (a new grant to it must be added here, on purpose), and every operator act is denied.
-- default_log_ref formats a text from its arguments and reads nothing: job_list and
-- job_attempt_list, which run as their caller, show it for an attempt stored without a log reference.
-- The done doorbell's three (hold_done_doorbell, done_quiet, release_done_doorbell) write nothing:
-- they take and let go of advisory locks, so that a viewer's await of a result is woken.
BEGIN;
SELECT plan(7);

SELECT results_eq(
    $$ SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc p
       WHERE p.pronamespace = 'jobq'::regnamespace AND pg_catalog.has_function_privilege('jobq_viewer', p.oid, 'EXECUTE')
       ORDER BY 1 $$,
    $$ VALUES ('jobq.audit_list(text,text,bigint,timestamp with time zone,bigint,integer)'),
              ('jobq.batch_list(uuid,text,bigint,integer,bigint,bigint)'), ('jobq.batch_status(bigint)'),
              ('jobq.cron_next(text,timestamp with time zone,text)'),
              ('jobq.cron_slots(text,timestamp with time zone,timestamp with time zone,text,integer)'),
              ('jobq.default_log_ref(text,bigint,integer)'), ('jobq.done_quiet()'), ('jobq.explain_job(bigint)'), ('jobq.hold_done_doorbell()'), ('jobq.job_attempt_list(bigint)'),
              ('jobq.job_list(text,text,text,uuid,text,timestamp with time zone,bigint,integer,bigint)'), ('jobq.job_result(bigint)'), ('jobq.job_workflow(bigint)'),
              ('jobq.leader_state()'), ('jobq.parent_results(bigint)'), ('jobq.queue_depth(text[])'), ('jobq.queue_lag(text[])'), ('jobq.queue_list(text,uuid)'),
              ('jobq.queue_minutes(timestamp with time zone)'), ('jobq.queue_not_served(text[])'), ('jobq.queue_states()'),
              ('jobq.queue_summary(integer)'), ('jobq.release_done_doorbell()'), ('jobq.schedule_list()'), ('jobq.setting_list(text)'),
              ('jobq.stats(text,uuid)'), ('jobq.stats_counted_at(uuid)'), ('jobq.worker_list(text)'), ('jobq.workflow_graph(bigint,integer)') $$,
    'jobq_viewer may execute exactly the read functions: audit_list, batch_list, batch_status, cron_next, cron_slots, default_log_ref, done_quiet, explain_job, hold_done_doorbell, job_attempt_list, job_list, job_result, job_workflow, leader_state, parent_results, queue_depth, queue_lag, queue_not_served, queue_list, queue_minutes, queue_states, queue_summary, release_done_doorbell, schedule_list, setting_list, stats, stats_counted_at, worker_list, workflow_graph');

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.jobs (task, queue, max_attempts) VALUES ('pgtap-t', 'pgtap_v', 3);

SET LOCAL ROLE jobq_viewer;
SELECT throws_ok($$ SELECT jobq.retry_job((SELECT max(id) FROM jobq.jobs)) $$, '42501', NULL, 'jobq_viewer cannot retry a job');
SELECT throws_ok($$ SELECT jobq.cancel_job((SELECT max(id) FROM jobq.jobs)) $$, '42501', NULL, 'jobq_viewer cannot cancel a job');
SELECT throws_ok($$ SELECT jobq.pause_queue('pgtap_v') $$, '42501', NULL, 'jobq_viewer cannot pause a queue');
SELECT throws_ok($$ SELECT jobq.set_setting('history_retention', '1 day') $$, '42501', NULL, 'jobq_viewer cannot change a setting');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-t') $$, '42501', NULL, 'jobq_viewer cannot enqueue');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.audit_log), 0::bigint, 'nothing jobq_viewer tried was audited, because nothing happened');

SELECT * FROM finish();
ROLLBACK;
