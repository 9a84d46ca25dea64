-- worker_runtime, the runners' role, may declare schedules (runners sync their code's schedules),
-- register, heartbeat and deregister, take the leadership and call maintain, use the cron
-- functions, and read jobq.schedules, jobq.schedule_runs, jobq.workers and jobq.leader — and these
-- work end to end under it.
BEGIN;
SELECT plan(25);

-- Known state, whatever database this runs in: no jobs, no schedules (nor, by cascade, their
-- runs), no workers, nobody leading (epoch 0), settings at their migration defaults. Everything
-- is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
DELETE FROM jobq.schedules;
DELETE FROM jobq.workers;
UPDATE jobq.leader SET holder = NULL, epoch = 0, acquired_at = NULL, lease_expires_at = NULL;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds'), ('worker_heartbeat_interval', '5 seconds'),
             ('worker_timeout', '30 seconds'), ('leader_ttl', '15 seconds'), ('maintain_interval', '1 second'),
             ('poll_interval', '1 second')) AS d(name, value)
WHERE s.name = d.name;

SELECT function_privs_are('jobq', 'schedule', ARRAY['text', 'text', 'text', 'jsonb', 'text', 'text', 'interval', 'text', 'interval', 'text', 'text', 'integer', 'integer', 'boolean'],
                          'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute schedule');
SELECT function_privs_are('jobq', 'register_worker', ARRAY['text', 'text', 'integer', 'text[]', 'integer', 'text'], 'worker_runtime', ARRAY['EXECUTE'],
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
