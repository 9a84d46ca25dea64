-- worker_runtime, the runners' role, may declare schedules (runners sync their code's schedules),
-- register, heartbeat and deregister, take the leadership and call maintain, use the cron
-- functions, and read jobq.schedules, jobq.schedule_runs, jobq.workers and jobq.leader — and these
-- work end to end under it.
BEGIN;
SELECT plan(25);

SELECT jobq_test.reset();

SELECT function_privs_are('jobq', 'schedule', ARRAY['text', 'text', 'text', 'jsonb', 'text', 'text', 'interval', 'text', 'interval', 'text', 'text', 'integer', 'integer', 'boolean'],
                          'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute schedule');
SELECT function_privs_are('jobq', 'register_worker', ARRAY['text', 'text', 'integer', 'text[]', 'integer', 'text', 'text[]'], 'worker_runtime', ARRAY['EXECUTE'],
                          'worker_runtime can execute register_worker');
SELECT function_privs_are('jobq', 'worker_heartbeat', ARRAY['text', 'integer'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute worker_heartbeat');
SELECT function_privs_are('jobq', 'deregister_worker', ARRAY['text'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute deregister_worker');
SELECT function_privs_are('jobq', 'acquire_leadership', ARRAY['text', 'interval'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute acquire_leadership');
SELECT function_privs_are('jobq', 'maintain', ARRAY['text', 'bigint'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute maintain');
SELECT function_privs_are('jobq', 'cron_parse', ARRAY['text'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute cron_parse');
SELECT function_privs_are('jobq', 'cron_next', ARRAY['text', 'timestamptz', 'text'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute cron_next');
SELECT function_privs_are('jobq', 'cron_slots', ARRAY['text', 'timestamptz', 'timestamptz', 'text', 'integer'], 'worker_runtime', ARRAY['EXECUTE'],
                          'worker_runtime can execute cron_slots');
SELECT table_privs_are('jobq', 'schedules', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.schedules');
SELECT table_privs_are('jobq', 'schedule_runs', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.schedule_runs');
SELECT table_privs_are('jobq', 'workers', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.workers');
SELECT table_privs_are('jobq', 'leader', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.leader');

SET LOCAL ROLE worker_runtime;
SELECT is(jobq.define_task('pgtap-runtime-tick'), 'pgtap-runtime-tick', 'setup: as worker_runtime, a runner declares its task');
SELECT ok(jobq.schedule('pgtap-runtime-tick', '@yearly', 'pgtap-runtime-tick') > now(), 'as worker_runtime, schedule declares a schedule');
SELECT is(jobq.register_worker('pgtap-rt', 'node-a', 101, ARRAY['default'], 4) ->> 'poll_interval', '1 second',
          'as worker_runtime, register_worker registers and returns the settings');
SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-rt', 2)), 'active', 'as worker_runtime, worker_heartbeat heartbeats');
SELECT is(jobq.acquire_leadership('pgtap-rt'), 1::bigint, 'as worker_runtime, acquire_leadership takes the leadership');
SELECT is(jobq.maintain('pgtap-rt', 1) -> 'fenced', 'false'::jsonb, 'as worker_runtime, the leader''s maintain acts');
SELECT results_eq(
    $$ SELECT (SELECT count(*) FROM jobq.schedules), (SELECT count(*) FROM jobq.schedule_runs), (SELECT count(*) FROM jobq.workers),
              (SELECT holder FROM jobq.leader) $$,
    $$ VALUES (1::bigint, 0::bigint, 1::bigint, 'pgtap-rt'::text) $$,
    'as worker_runtime, jobq.schedules, schedule_runs, workers and leader can be read');
SELECT lives_ok($$ SELECT jobq.deregister_worker('pgtap-rt') $$, 'as worker_runtime, deregister_worker deregisters');
SELECT lives_ok($$ SELECT jobq.cron_parse('0 18 * * *') $$, 'as worker_runtime, cron_parse parses');
SELECT lives_ok($$ SELECT jobq.cron_next('0 18 * * *', now()) $$, 'as worker_runtime, cron_next computes the next slot');
SELECT lives_ok($$ SELECT jobq.cron_slots('0 18 * * *', now(), now() + interval '3 days') $$, 'as worker_runtime, cron_slots lists slots');
RESET ROLE;

SELECT results_eq($$ SELECT state FROM jobq.workers WHERE id = 'pgtap-rt' $$, $$ VALUES ('stopped'::text) $$,
                  'what worker_runtime did reached the tables');

SELECT * FROM finish();
ROLLBACK;
