BEGIN;
SELECT plan(13);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;
-- The tasks this file enqueues: every enqueue needs a declared task (jobq.define_task is
-- idempotent and puts back a task whose declaration differs).
SELECT FROM jobq.define_task('t');

SELECT function_privs_are('jobq', 'retry_job', ARRAY['bigint'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute retry_job');
SELECT function_privs_are('jobq', 'cancel_job', ARRAY['bigint'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute cancel_job');
SELECT function_privs_are('jobq', 'delete_job', ARRAY['bigint'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute delete_job');
SELECT function_privs_are('jobq', 'requeue_dead', ARRAY['text', 'timestamptz', 'integer'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute requeue_dead');
SELECT function_privs_are('jobq', 'set_setting', ARRAY['text', 'text'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute set_setting');
-- Private functions granted to worker_runtime by design: jobq._enqueue_for_stores, the SECURITY
-- DEFINER half of the SECURITY INVOKER jobq.fan_out (which runs as worker_runtime); and the pure
-- helper the SECURITY INVOKER function payload_problem calls (it reads and writes nothing), with
-- _raise for the errors of the invoker functions. The cron helpers are not: cron_parse,
-- cron_next and cron_slots are SECURITY DEFINER since migration 00024.
SELECT set_eq(
    $$ SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND p.proname LIKE '\_%' AND has_function_privilege('worker_runtime', p.oid, 'EXECUTE') $$,
    $$ VALUES ('jobq._enqueue_for_stores(text, jsonb, text, text, timestamptz, uuid[])'::regprocedure),
              ('jobq._json_type_ok(jsonb, text)'::regprocedure),
              ('jobq._raise(text, text)'::regprocedure) $$,
    'worker_runtime can execute no private (_-prefixed) jobq function but _enqueue_for_stores (behind fan_out), '
    'the pure helper of payload_problem and _raise (no cron helper)');

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
SELECT throws_ok($$ SELECT jobq._raise('JOB.NOT_FOUND', 'x') $$, 'JQ202', NULL, 'as worker_runtime, _raise only raises a catalogued error');
RESET ROLE;

SELECT is_empty($$ SELECT * FROM jobq.jobs EXCEPT SELECT * FROM snapshot $$, 'the denied calls changed nothing');

SELECT * FROM finish();
ROLLBACK;
