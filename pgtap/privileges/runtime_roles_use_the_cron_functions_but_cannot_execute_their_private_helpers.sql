-- cron_parse, cron_next and cron_slots are SECURITY DEFINER (pinned search_path): worker_runtime,
-- jobq_app and jobq_operator call them, and none of them can execute the private helpers they
-- use (_cron_field, _cron_value, _cron_next, _cron_local_next, _cron_instant, _check_timezone).
-- Pure: the calls read and write nothing.
BEGIN;
SELECT plan(12);

SELECT is_definer('jobq', 'cron_parse', ARRAY['text'], 'cron_parse is SECURITY DEFINER');
SELECT is_definer('jobq', 'cron_next', ARRAY['text', 'timestamp with time zone', 'text'], 'cron_next is SECURITY DEFINER');
SELECT is_definer('jobq', 'cron_slots', ARRAY['text', 'timestamp with time zone', 'timestamp with time zone', 'text', 'integer'], 'cron_slots is SECURITY DEFINER');
SELECT is_empty(
    $$ SELECT p.oid::regprocedure, r.rolname
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       CROSS JOIN (VALUES ('worker_runtime'), ('jobq_app'), ('jobq_operator')) AS r(rolname)
       WHERE n.nspname = 'jobq' AND (p.proname LIKE '\_cron%' OR p.proname = '_check_timezone')
         AND has_function_privilege(r.rolname, p.oid, 'EXECUTE') $$,
    'no runtime role can execute a private cron helper');
SELECT is((SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE n.nspname = 'jobq' AND (p.proname LIKE '\_cron%' OR p.proname = '_check_timezone')), 6::bigint,
          'setup: the six private cron helpers exist');

SET LOCAL ROLE worker_runtime;
SELECT is(jobq.cron_next('0 * * * *', '2026-11-01 05:30:00+00', 'America/New_York'), '2026-11-01 06:00:00+00'::timestamptz,
          'as worker_runtime, cron_next works');
SELECT throws_ok($$ SELECT jobq._cron_next(jobq.cron_parse('* * * * *'), now(), 'UTC') $$, '42501',
                 'permission denied for function _cron_next', 'as worker_runtime, the private _cron_next is denied');
RESET ROLE;
SET LOCAL ROLE jobq_app;
SELECT is((SELECT count(*) FROM jobq.cron_slots('*/10 * * * *', '2026-05-05 00:00:00+00', '2026-05-05 01:00:00+00')), 6::bigint,
          'as jobq_app, cron_slots works');
SELECT throws_ok($$ SELECT jobq._check_timezone('UTC') $$, '42501', 'permission denied for function _check_timezone',
                 'as jobq_app, the private _check_timezone is denied');
SELECT throws_ok($$ SELECT jobq._cron_field('*', 'minute', 0, 59, NULL) $$, '42501', 'permission denied for function _cron_field',
                 'as jobq_app, the private _cron_field is denied');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT is((jobq.cron_parse('*/5 * * * *')).minutes[2], 5, 'as jobq_operator, cron_parse works');
SELECT throws_ok($$ SELECT jobq._cron_value('5', 'minute', 0, 59, NULL) $$, '42501', 'permission denied for function _cron_value',
                 'as jobq_operator, the private _cron_value is denied');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
