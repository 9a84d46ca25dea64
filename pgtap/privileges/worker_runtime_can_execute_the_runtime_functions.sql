-- worker_runtime may call the engine's runtime functions, and they work end to end under it.
BEGIN;
SELECT plan(40);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT function_privs_are('jobq', 'enqueue', ARRAY['text', 'jsonb', 'timestamptz', 'text', 'text', 'integer', 'integer', 'text', 'uuid', 'interval', 'interval', 'interval', 'interval',
                                            'bigint[]', 'text', 'text', 'text'],
                          'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute enqueue');
SELECT function_privs_are('jobq', 'enqueue_many', ARRAY['jsonb'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute enqueue_many');
SELECT function_privs_are('jobq', 'claim_job', ARRAY['text', 'text[]', 'integer', 'interval', 'integer[]', 'timestamp with time zone[]', 'bigint[]', 'text[]'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute claim_job');
SELECT function_privs_are('jobq', 'hand_back_unheld', ARRAY['text', 'uuid[]'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute hand_back_unheld');
SELECT function_privs_are('jobq', 'heartbeat', ARRAY['text', 'bigint', 'uuid', 'interval'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute heartbeat');
SELECT function_privs_are('jobq', 'heartbeat_jobs', ARRAY['text', 'bigint[]', 'uuid[]', 'interval'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute heartbeat_jobs');
SELECT function_privs_are('jobq', 'complete_job', ARRAY['bigint', 'uuid', 'jsonb'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute complete_job');
SELECT function_privs_are('jobq', 'complete_jobs', ARRAY['bigint[]', 'uuid[]', 'text[]', 'text[]', 'integer[]', 'jsonb[]'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute complete_jobs');
SELECT function_privs_are('jobq', 'fail_job', ARRAY['bigint', 'uuid', 'text', 'text', 'boolean', 'interval'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute fail_job');
SELECT function_privs_are('jobq', 'fail_jobs', ARRAY['bigint[]', 'uuid[]', 'text[]', 'text[]', 'boolean[]', 'interval[]', 'text[]', 'text[]', 'text[]', 'integer[]'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute fail_jobs');
SELECT function_privs_are('jobq', 'snooze', ARRAY['bigint', 'uuid', 'interval'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute snooze');
SELECT function_privs_are('jobq', 'confirm_continuation', ARRAY['text', 'bigint[]', 'uuid[]', 'interval'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute confirm_continuation');
SELECT function_privs_are('jobq', 'rescue_expired', ARRAY['integer'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute rescue_expired');
SELECT function_privs_are('jobq', 'snooze_jobs', ARRAY['bigint[]', 'uuid[]', 'interval'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute snooze_jobs');
SELECT function_privs_are('jobq', 'queue_lag', ARRAY['text[]'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute queue_lag');
SELECT function_privs_are('jobq', 'queue_depth', ARRAY['text[]'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute queue_depth');
SELECT function_privs_are('jobq', 'prune_history', ARRAY['integer'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute prune_history');
SELECT function_privs_are('jobq', 'define_task', ARRAY['text', 'text', 'jsonb', 'integer', 'text', 'integer', 'interval', 'interval', 'interval', 'text', 'boolean'],
                          'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute define_task (runners declare their tasks at start-up)');
SELECT function_privs_are('jobq', 'payload_problem', ARRAY['jsonb', 'jsonb'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute payload_problem');
SELECT function_privs_are('jobq', 'current_store_id', ARRAY[]::text[], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute current_store_id');
SELECT function_privs_are('jobq', 'fan_out', ARRAY['text', 'jsonb', 'text', 'text', 'timestamptz'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute fan_out');
SELECT function_privs_are('jobq', '_enqueue_for_stores', ARRAY['text', 'jsonb', 'text', 'text', 'timestamptz', 'uuid[]'], 'worker_runtime', ARRAY[]::text[],
                          'worker_runtime cannot execute _enqueue_for_stores: it fans out through fan_out only');
SELECT function_privs_are('public', 'list_store_ids_for_fan_out', ARRAY[]::text[], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute public.list_store_ids_for_fan_out');

-- The same, by calling them as worker_runtime.
SET LOCAL ROLE worker_runtime;
CREATE TEMP TABLE ids AS SELECT jobq.enqueue('t', queue => 'rt') AS one, (SELECT array_agg(id) FROM jobq.enqueue_many('[{"task": "t", "queue": "rt"}, {"task": "t", "queue": "rt"}]') AS id) AS many;
SELECT is(cardinality((SELECT many FROM ids)), 2, 'as worker_runtime, enqueue_many enqueues');
CREATE TEMP TABLE c AS SELECT row_number() OVER (ORDER BY id) AS n, * FROM jobq.claim_job('rt-worker', ARRAY['rt'], 3);
SELECT is((SELECT count(*) FROM c), 3::bigint, 'as worker_runtime, claim_job claims the enqueued jobs');
SELECT is(jobq.heartbeat('rt-worker', (SELECT id FROM c WHERE n = 1), (SELECT lease_token FROM c WHERE n = 1), '1 minute'), now() + interval '1 minute',
          'as worker_runtime, heartbeat renews a lease');
SELECT is((SELECT count(*) FROM jobq.heartbeat_jobs('rt-worker', ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c))), 3::bigint,
          'as worker_runtime, heartbeat_jobs renews leases');
SELECT lives_ok($$ SELECT jobq.complete_job((SELECT id FROM c WHERE n = 1), (SELECT lease_token FROM c WHERE n = 1)) $$,
                'as worker_runtime, complete_job completes');
SELECT is(jobq.fail_job((SELECT id FROM c WHERE n = 2), (SELECT lease_token FROM c WHERE n = 2), 'x', retry_in => '0'), 'retry_pending',
          'as worker_runtime, fail_job fails');
SELECT is(jobq.snooze((SELECT id FROM c WHERE n = 3), (SELECT lease_token FROM c WHERE n = 3), '0'), now(),
          'as worker_runtime, snooze snoozes');
CREATE TEMP TABLE c2 AS SELECT row_number() OVER (ORDER BY id) AS n, * FROM jobq.claim_job('rt-worker', ARRAY['rt'], 2);
SELECT results_eq($$ SELECT outcome FROM jobq.complete_jobs(ARRAY[(SELECT id FROM c2 WHERE n = 1)], ARRAY[(SELECT lease_token FROM c2 WHERE n = 1)]) $$,
                  $$ VALUES ('succeeded'::text) $$, 'as worker_runtime, complete_jobs completes');
SELECT results_eq($$ SELECT outcome FROM jobq.fail_jobs(ARRAY[(SELECT id FROM c2 WHERE n = 2)], ARRAY[(SELECT lease_token FROM c2 WHERE n = 2)], ARRAY['x'], retryable => ARRAY[false]) $$,
                  $$ VALUES ('dead'::text) $$, 'as worker_runtime, fail_jobs fails');
SELECT is_empty($$ SELECT * FROM jobq.rescue_expired() $$, 'as worker_runtime, rescue_expired runs (nothing has expired)');
SELECT is(jobq.prune_history(), 0::bigint, 'as worker_runtime, prune_history runs (nothing is old enough)');
SELECT ok(jobq.backoff_delay(3, '1 second', '1 minute') BETWEEN interval '2 seconds' AND interval '4 seconds', 'as worker_runtime, backoff_delay is callable');
SELECT is(jobq.define_task('pgtap-runtime-task', description => 'declared by a runner'), 'pgtap-runtime-task', 'as worker_runtime, define_task declares a task');
SELECT lives_ok($$ SELECT jobq.payload_problem('{"n": "integer"}', '{}') $$, 'as worker_runtime, payload_problem can check a payload');
SELECT is(jobq.current_store_id(), NULL::uuid, 'as worker_runtime, current_store_id is callable (no store set: NULL)');
RESET ROLE;
SELECT is((SELECT description FROM jobq.tasks WHERE name = 'pgtap-runtime-task'), 'declared by a runner', 'the task worker_runtime declared is in jobq.tasks');
SET LOCAL ROLE worker_runtime;
RESET ROLE;

SELECT results_eq($$ SELECT state, count(*) FROM jobq.job_history WHERE queue = 'rt' GROUP BY state ORDER BY state $$,
                  $$ VALUES ('dead'::text, 1::bigint), ('succeeded', 2) $$,
                  'the work done as worker_runtime reached jobq.job_history');

SELECT * FROM finish();
ROLLBACK;
