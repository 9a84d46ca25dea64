-- jobq_operator, the people who run the queue, may use every function of schedules, workers and
-- the leadership — declare and remove schedules, drain, resume and detach workers, run maintain —
-- and read the scheduler's tables, but write them only through those functions.
BEGIN;
SELECT plan(24);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 4);

SELECT function_privs_are('jobq', 'schedule', ARRAY['text', 'text', 'text', 'jsonb', 'text', 'text', 'interval', 'text', 'interval', 'text', 'text', 'integer', 'integer', 'boolean'],
                          'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute schedule');
SELECT function_privs_are('jobq', 'unschedule', ARRAY['text'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute unschedule');
SELECT function_privs_are('jobq', 'drain_worker', ARRAY['text'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute drain_worker');
SELECT function_privs_are('jobq', 'resume_worker', ARRAY['text'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute resume_worker');
SELECT function_privs_are('jobq', 'detach_worker', ARRAY['text'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute detach_worker');
SELECT function_privs_are('jobq', 'register_worker', ARRAY['text', 'text', 'integer', 'text[]', 'integer', 'text', 'text[]'], 'jobq_operator', ARRAY['EXECUTE'],
                          'jobq_operator can execute register_worker');
SELECT function_privs_are('jobq', 'worker_heartbeat', ARRAY['text', 'integer'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute worker_heartbeat');
SELECT function_privs_are('jobq', 'deregister_worker', ARRAY['text'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute deregister_worker');
SELECT function_privs_are('jobq', 'acquire_leadership', ARRAY['text', 'interval'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute acquire_leadership');
SELECT function_privs_are('jobq', 'maintain', ARRAY['text', 'bigint'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute maintain');
SELECT function_privs_are('jobq', 'cron_parse', ARRAY['text'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute cron_parse');
SELECT function_privs_are('jobq', 'cron_next', ARRAY['text', 'timestamptz', 'text'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute cron_next');
SELECT function_privs_are('jobq', 'cron_slots', ARRAY['text', 'timestamptz', 'timestamptz', 'text', 'integer'], 'jobq_operator', ARRAY['EXECUTE'],
                          'jobq_operator can execute cron_slots');
SELECT table_privs_are('jobq', 'schedules', 'jobq_operator', ARRAY['SELECT'], 'jobq_operator can only read jobq.schedules');
SELECT table_privs_are('jobq', 'schedule_runs', 'jobq_operator', ARRAY['SELECT'], 'jobq_operator can only read jobq.schedule_runs');
SELECT table_privs_are('jobq', 'workers', 'jobq_operator', ARRAY['SELECT'], 'jobq_operator can only read jobq.workers');
SELECT table_privs_are('jobq', 'leader', 'jobq_operator', ARRAY['SELECT'], 'jobq_operator can only read jobq.leader');

SET LOCAL ROLE jobq_operator;
SELECT ok(jobq.schedule('pgtap-tick', '@yearly', 'pgtap-tick') > now(), 'as jobq_operator, schedule declares a schedule');
SELECT lives_ok($$ SELECT jobq.drain_worker('pgtap-w1'), jobq.resume_worker('pgtap-w1') $$, 'as jobq_operator, drain_worker and resume_worker work');
SELECT is(jobq.detach_worker('pgtap-w1'), 0, 'as jobq_operator, detach_worker works');
SELECT is(jobq.maintain() -> 'fenced', 'false'::jsonb, 'as jobq_operator, maintain runs (unfenced)');
SELECT lives_ok($$ SELECT jobq.unschedule('pgtap-tick') $$, 'as jobq_operator, unschedule removes the schedule');
SELECT throws_ok($$ UPDATE jobq.workers SET state = 'active' $$, '42501', 'permission denied for table workers',
                 'as jobq_operator, workers change only through the audited functions');
SELECT lives_ok($$ SELECT jobq.cron_next('0 18 * * *', '2026-05-05 17:42:00+00') $$, 'as jobq_operator, cron_next previews a slot');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
