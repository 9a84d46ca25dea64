BEGIN;
SELECT plan(30);

SELECT jobq_test.reset();

SELECT function_privs_are('jobq', 'retry_job', ARRAY['bigint'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute retry_job');
SELECT function_privs_are('jobq', 'cancel_job', ARRAY['bigint'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute cancel_job');
SELECT function_privs_are('jobq', 'delete_job', ARRAY['bigint'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute delete_job');
SELECT function_privs_are('jobq', 'requeue_dead', ARRAY['text', 'timestamptz', 'integer'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute requeue_dead');
SELECT function_privs_are('jobq', 'set_setting', ARRAY['text', 'text'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute set_setting');
SELECT function_privs_are('jobq', 'rescue_expired', ARRAY['integer'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute rescue_expired');
SELECT function_privs_are('jobq', 'prune_history', ARRAY['integer'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute prune_history');
SELECT function_privs_are('jobq', 'queue_depth', ARRAY['text[]'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute queue_depth');
SELECT function_privs_are('jobq', 'enqueue', ARRAY['text', 'jsonb', 'timestamptz', 'text', 'text', 'integer', 'integer', 'text', 'uuid', 'interval', 'interval', 'interval', 'interval',
                                            'bigint[]', 'text', 'text', 'text'],
                          'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute enqueue');
SELECT function_privs_are('jobq', 'enqueue_many', ARRAY['jsonb'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute enqueue_many');
SELECT function_privs_are('jobq', 'claim_job', ARRAY['text', 'text[]', 'integer', 'interval', 'integer[]', 'timestamp with time zone[]', 'bigint[]', 'text[]'], 'jobq_operator', ARRAY[]::text[],
                          'jobq_operator cannot claim jobs (that is the runner''s)');
SELECT function_privs_are('jobq', 'define_task', ARRAY['text', 'text', 'jsonb', 'integer', 'text', 'integer', 'interval', 'interval', 'interval', 'text', 'boolean'],
                          'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute define_task');
SELECT function_privs_are('jobq', 'payload_problem', ARRAY['jsonb', 'jsonb'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute payload_problem');
SELECT function_privs_are('jobq', 'current_store_id', ARRAY[]::text[], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute current_store_id');
SELECT function_privs_are('jobq', 'fan_out', ARRAY['text', 'jsonb', 'text', 'text', 'timestamptz'], 'jobq_operator', ARRAY[]::text[],
                          'jobq_operator cannot fan out (that is the runner''s)');
SELECT function_privs_are('jobq', '_enqueue_for_stores', ARRAY['text', 'jsonb', 'text', 'text', 'timestamptz', 'uuid[]'], 'jobq_operator', ARRAY[]::text[],
                          'jobq_operator cannot execute _enqueue_for_stores');
SELECT function_privs_are('public', 'list_store_ids_for_fan_out', ARRAY[]::text[], 'jobq_operator', ARRAY[]::text[],
                          'jobq_operator cannot execute public.list_store_ids_for_fan_out');
SELECT table_privs_are('jobq', 'tasks', 'jobq_operator', ARRAY['SELECT'], 'jobq_operator can only read jobq.tasks (define_task writes it)');
SELECT table_privs_are('jobq', 'jobs', 'jobq_operator', ARRAY['SELECT'], 'jobq_operator can only read jobq.jobs');
SELECT table_privs_are('jobq', 'job_history', 'jobq_operator', ARRAY['SELECT'], 'jobq_operator can only read jobq.job_history');
SELECT table_privs_are('jobq', 'audit_log', 'jobq_operator', ARRAY['SELECT'], 'jobq_operator can only read jobq.audit_log');
SELECT table_privs_are('jobq', 'settings', 'jobq_operator', ARRAY['SELECT'], 'jobq_operator can only read jobq.settings');

SET LOCAL ROLE jobq_operator;
SELECT is_empty($$ SELECT * FROM jobq.rescue_expired() $$, 'as jobq_operator, rescue_expired runs');
SELECT is(jobq.prune_history(), 0::bigint, 'as jobq_operator, prune_history runs');
SELECT is(jobq.requeue_dead(), 0::bigint, 'as jobq_operator, requeue_dead runs');
SELECT is(jobq.define_task('pgtap-operator-task'), 'pgtap-operator-task', 'as jobq_operator, define_task declares a task');
SELECT lives_ok($$ SELECT jobq.payload_problem('{"n": "integer"}', '{"n": 1}') $$, 'as jobq_operator, payload_problem can check a payload');
SELECT throws_ok($$ DELETE FROM jobq.tasks $$, '42501', 'permission denied for table tasks', 'as jobq_operator, tasks change only through define_task');
SELECT throws_ok($$ UPDATE jobq.settings SET value = '1' WHERE name = 'default_max_attempts' $$, '42501', 'permission denied for table settings',
                 'as jobq_operator, settings change only through set_setting (which audits)');
SELECT throws_ok($$ DELETE FROM jobq.audit_log $$, '42501', 'permission denied for table audit_log', 'as jobq_operator, the audit log cannot be erased');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
