BEGIN;
SELECT plan(14);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT function_privs_are('jobq', 'retry_job', ARRAY['bigint'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute retry_job');
SELECT function_privs_are('jobq', 'cancel_job', ARRAY['bigint'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute cancel_job');
SELECT function_privs_are('jobq', 'delete_job', ARRAY['bigint'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute delete_job');
SELECT function_privs_are('jobq', 'requeue_dead', ARRAY['text', 'timestamptz', 'integer'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute requeue_dead');
SELECT function_privs_are('jobq', 'set_setting', ARRAY['text', 'text'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute set_setting');
-- No private (_-prefixed) function is executable by worker_runtime: the public functions that
-- need one run as their owner (SECURITY DEFINER: fan_out, payload_problem, the cron functions).
SELECT is_empty(
    $$ SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND p.proname LIKE '\_%' AND has_function_privilege('worker_runtime', p.oid, 'EXECUTE') $$,
    'worker_runtime can execute no private (_-prefixed) jobq function, _enqueue_for_stores included (fan_out is its only way in)');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t') AS id;
GRANT SELECT ON job TO worker_runtime;
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs;

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.retry_job((SELECT id FROM job)) $$, '42501', 'permission denied for function retry_job', 'as worker_runtime, retry_job is denied');
SELECT throws_ok($$ SELECT jobq.cancel_job((SELECT id FROM job)) $$, '42501', 'permission denied for function cancel_job', 'as worker_runtime, cancel_job is denied');
SELECT throws_ok($$ SELECT jobq.delete_job((SELECT id FROM job)) $$, '42501', 'permission denied for function delete_job', 'as worker_runtime, delete_job is denied');
SELECT throws_ok($$ SELECT jobq.set_setting('default_max_attempts', '1') $$, '42501', 'permission denied for function set_setting', 'as worker_runtime, set_setting is denied');
SELECT throws_ok($$ SELECT * FROM jobq._claim('w', ARRAY['default'], 1, '30 seconds', now() + interval '1 day') $$, '42501',
                 'permission denied for function _claim', 'as worker_runtime, the private _claim (which moves the clock) is denied');
SELECT throws_ok($$ SELECT jobq._raise('JOB.NOT_FOUND', 'x') $$, '42501', 'permission denied for function _raise', 'as worker_runtime, the private _raise is denied');
SELECT throws_ok($$ SELECT jobq._enqueue_for_stores('t', '{}', NULL, 'preserve_run_at', NULL, ARRAY['bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'::uuid]) $$,
                 '42501', 'permission denied for function _enqueue_for_stores',
                 'as worker_runtime, the fan-out''s private half is denied: no store job for a store of its choosing outside fan_out');
RESET ROLE;

SELECT is_empty($$ SELECT * FROM jobq.jobs EXCEPT SELECT * FROM snapshot $$, 'the denied calls changed nothing');

SELECT * FROM finish();
ROLLBACK;
