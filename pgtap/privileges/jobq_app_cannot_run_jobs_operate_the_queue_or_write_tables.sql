BEGIN;
SELECT plan(28);

SELECT jobq_test.reset();

SELECT function_privs_are('jobq', 'claim_job', ARRAY['text', 'text[]', 'integer', 'interval', 'integer[]', 'timestamp with time zone[]', 'bigint[]', 'text[]'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute claim_job');
SELECT function_privs_are('jobq', 'heartbeat', ARRAY['text', 'bigint', 'uuid', 'interval'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute heartbeat');
SELECT function_privs_are('jobq', 'heartbeat_jobs', ARRAY['text', 'bigint[]', 'uuid[]', 'interval'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute heartbeat_jobs');
SELECT function_privs_are('jobq', 'complete_job', ARRAY['bigint', 'uuid', 'jsonb'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute complete_job');
SELECT function_privs_are('jobq', 'complete_jobs', ARRAY['bigint[]', 'uuid[]', 'text[]', 'text[]', 'integer[]', 'jsonb[]'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute complete_jobs');
SELECT function_privs_are('jobq', 'fail_job', ARRAY['bigint', 'uuid', 'text', 'text', 'boolean', 'interval'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute fail_job');
SELECT function_privs_are('jobq', 'fail_jobs', ARRAY['bigint[]', 'uuid[]', 'text[]', 'text[]', 'boolean[]', 'interval[]', 'text[]', 'text[]', 'text[]', 'integer[]'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute fail_jobs');
SELECT function_privs_are('jobq', 'snooze', ARRAY['bigint', 'uuid', 'interval'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute snooze');
SELECT function_privs_are('jobq', 'delete_job', ARRAY['bigint'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute delete_job');
SELECT function_privs_are('jobq', 'requeue_dead', ARRAY['text', 'timestamptz', 'integer'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute requeue_dead');
SELECT function_privs_are('jobq', 'set_setting', ARRAY['text', 'text'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute set_setting');
SELECT function_privs_are('jobq', 'rescue_expired', ARRAY['integer'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute rescue_expired');
SELECT function_privs_are('jobq', 'snooze_jobs', ARRAY['bigint[]', 'uuid[]', 'interval'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute snooze_jobs');
SELECT function_privs_are('jobq', 'prune_history', ARRAY['integer'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute prune_history');
SELECT function_privs_are('jobq', 'queue_depth', ARRAY['text[]'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute queue_depth');
SELECT table_privs_are('jobq', 'audit_log', 'jobq_app', ARRAY[]::text[], 'jobq_app cannot read the audit log');
SELECT function_privs_are('jobq', 'define_task', ARRAY['text', 'text', 'jsonb', 'integer', 'text', 'integer', 'interval', 'interval', 'interval', 'text', 'boolean'],
                          'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute define_task');
SELECT function_privs_are('jobq', 'fan_out', ARRAY['text', 'jsonb', 'text', 'text', 'timestamptz'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute fan_out');
SELECT function_privs_are('jobq', '_enqueue_for_stores', ARRAY['text', 'jsonb', 'text', 'text', 'timestamptz', 'uuid[]'], 'jobq_app', ARRAY[]::text[],
                          'jobq_app cannot execute _enqueue_for_stores');
SELECT function_privs_are('public', 'list_store_ids_for_fan_out', ARRAY[]::text[], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute public.list_store_ids_for_fan_out');

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('app') $$, '42501', 'permission denied for function claim_job', 'as jobq_app, claim_job is denied');
SELECT throws_ok($$ SELECT jobq.delete_job(1) $$, '42501', 'permission denied for function delete_job', 'as jobq_app, delete_job is denied');
SELECT throws_ok($$ INSERT INTO jobq.jobs (task, max_attempts) VALUES ('t', 1) $$, '42501', 'permission denied for table jobs', 'as jobq_app, INSERT into jobq.jobs is denied');
SELECT throws_ok($$ UPDATE jobq.jobs SET run_at = now() $$, '42501', 'permission denied for table jobs', 'as jobq_app, UPDATE of jobq.jobs is denied');
SELECT throws_ok($$ DELETE FROM jobq.job_history $$, '42501', 'permission denied for table job_history', 'as jobq_app, DELETE from jobq.job_history is denied');
SELECT throws_ok($$ SELECT * FROM jobq.audit_log $$, '42501', 'permission denied for table audit_log', 'as jobq_app, SELECT on jobq.audit_log is denied');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-app-task') $$, '42501', 'permission denied for function define_task', 'as jobq_app, define_task is denied');
SELECT throws_ok($$ INSERT INTO jobq.tasks (name) VALUES ('pgtap-app-task') $$, '42501', 'permission denied for table tasks', 'as jobq_app, INSERT into jobq.tasks is denied');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
