-- An application may preview cron expressions — cron_parse, cron_next, cron_slots, which are pure
-- — and nothing else of schedules, workers or the leadership: it cannot declare or remove a
-- schedule, register or steer a worker, lead or maintain, nor read the scheduler's tables.
BEGIN;
SELECT plan(24);

SELECT jobq_test.reset();

SELECT function_privs_are('jobq', 'cron_parse', ARRAY['text'], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute cron_parse');
SELECT function_privs_are('jobq', 'cron_next', ARRAY['text', 'timestamptz', 'text'], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute cron_next');
SELECT function_privs_are('jobq', 'cron_slots', ARRAY['text', 'timestamptz', 'timestamptz', 'text', 'integer'], 'jobq_app', ARRAY['EXECUTE'],
                          'jobq_app can execute cron_slots');
SELECT function_privs_are('jobq', 'schedule', ARRAY['text', 'text', 'text', 'jsonb', 'text', 'text', 'interval', 'text', 'interval', 'text', 'text', 'integer', 'integer', 'boolean'],
                          'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute schedule');
SELECT function_privs_are('jobq', 'unschedule', ARRAY['text'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute unschedule');
SELECT function_privs_are('jobq', 'register_worker', ARRAY['text', 'text', 'integer', 'text[]', 'integer', 'text', 'text[]'], 'jobq_app', ARRAY[]::text[],
                          'jobq_app cannot execute register_worker');
SELECT function_privs_are('jobq', 'worker_heartbeat', ARRAY['text', 'integer'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute worker_heartbeat');
SELECT function_privs_are('jobq', 'deregister_worker', ARRAY['text'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute deregister_worker');
SELECT function_privs_are('jobq', 'drain_worker', ARRAY['text'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute drain_worker');
SELECT function_privs_are('jobq', 'resume_worker', ARRAY['text'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute resume_worker');
SELECT function_privs_are('jobq', 'detach_worker', ARRAY['text'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute detach_worker');
SELECT function_privs_are('jobq', 'acquire_leadership', ARRAY['text', 'interval'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute acquire_leadership');
SELECT function_privs_are('jobq', 'maintain', ARRAY['text', 'bigint'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute maintain');
SELECT table_privs_are('jobq', 'schedules', 'jobq_app', ARRAY[]::text[], 'jobq_app has no privilege on jobq.schedules');
SELECT table_privs_are('jobq', 'schedule_runs', 'jobq_app', ARRAY[]::text[], 'jobq_app has no privilege on jobq.schedule_runs');
SELECT table_privs_are('jobq', 'workers', 'jobq_app', ARRAY[]::text[], 'jobq_app has no privilege on jobq.workers');
SELECT table_privs_are('jobq', 'leader', 'jobq_app', ARRAY[]::text[], 'jobq_app has no privilege on jobq.leader');

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-app', '@daily', 'x') $$, '42501', 'permission denied for function schedule', 'as jobq_app, schedule is denied');
SELECT throws_ok($$ SELECT jobq.maintain() $$, '42501', 'permission denied for function maintain', 'as jobq_app, maintain is denied');
SELECT throws_ok($$ SELECT jobq.acquire_leadership('pgtap-app') $$, '42501', 'permission denied for function acquire_leadership',
                 'as jobq_app, acquire_leadership is denied');
SELECT throws_ok($$ SELECT * FROM jobq.workers $$, '42501', 'permission denied for table workers', 'as jobq_app, reading jobq.workers is denied');
SELECT lives_ok($$ SELECT jobq.cron_next('0 3 * * *', '2026-05-05 17:42:00+00', 'Asia/Tokyo') $$, 'as jobq_app, cron_next previews the next slot');
SELECT lives_ok($$ SELECT jobq.cron_parse('*/5 * * * *') $$, 'as jobq_app, cron_parse parses');
SELECT lives_ok($$ SELECT jobq.cron_slots('0 18 * * *', now(), now() + interval '3 days') $$, 'as jobq_app, cron_slots lists slots');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
