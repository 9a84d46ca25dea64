-- cron_next and cron_slots evaluate instants from 1970-01-01 00:00 UTC to before 10000-01-01 00:00
-- UTC. An instant that is NULL, infinite or outside that range is refused with JQ100
-- (JOB.INVALID_ARGUMENT) naming the argument, at once (before 00024, 'infinity' never returned and
-- the range ends raised 22008). No slot is given beyond the range. The functions are pure: a
-- refused call changes nothing.
BEGIN;
SET LOCAL statement_timeout = '10s';  -- a loop that does not end fails this file instead of hanging it
SELECT plan(16);

SELECT throws_ok($$ SELECT jobq.cron_next('* * * * *', 'infinity') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: after is infinity; it must be an instant from 1970-01-01 00:00 UTC to before 10000-01-01 00:00 UTC',
    'after => infinity is refused, naming after');
SELECT throws_ok($$ SELECT jobq.cron_next('* * * * *', '-infinity') $$, 'JQ100', NULL, 'after => -infinity is refused');
SELECT throws_ok($$ SELECT jobq.cron_next('* * * * *', NULL) $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: after is NULL; it must be an instant from 1970-01-01 00:00 UTC to before 10000-01-01 00:00 UTC',
    'after => NULL is refused');
SELECT throws_ok($$ SELECT jobq.cron_next('* * * * *', '294276-12-31 23:00:00+00') $$, 'JQ100', NULL,
    'an instant near the end of timestamptz''s range is refused, not a datetime overflow');
SELECT throws_ok($$ SELECT jobq.cron_next('* * * * *', '4713-01-01 00:00:00+00 BC') $$, 'JQ100', NULL,
    'an instant near the start of timestamptz''s range is refused');
SELECT throws_ok($$ SELECT jobq.cron_next('0 0 1 1 *', '1969-12-31 23:59:59.999999+00') $$, 'JQ100', NULL,
    'a microsecond before 1970 is refused');
SELECT throws_ok($$ SELECT jobq.cron_next('0 0 1 1 *', '10000-01-01 00:00:00+00') $$, 'JQ100', NULL, '10000-01-01 is refused');
SELECT is(jobq.cron_next('0 0 1 1 *', '1970-01-01 00:00:00+00'), '1971-01-01 00:00:00+00'::timestamptz, '1970-01-01 is accepted');
SELECT is(jobq.cron_next('* * * * *', '9999-12-31 23:58:00+00'), '9999-12-31 23:59:00+00'::timestamptz,
          'the last minute of 9999 is a slot');
SELECT is(jobq.cron_next('* * * * *', '9999-12-31 23:59:00+00', 'Pacific/Kiritimati'), NULL::timestamptz,
          'no slot is given at or after 10000-01-01 UTC, whatever the zone: NULL');
SELECT throws_ok($$ SELECT * FROM jobq.cron_slots('* * * * *', '2026-01-01 00:00:00+00', 'infinity') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: to_at is infinity; it must be an instant from 1970-01-01 00:00 UTC to before 10000-01-01 00:00 UTC',
    'cron_slots refuses to_at => infinity, naming to_at');
SELECT throws_ok($$ SELECT * FROM jobq.cron_slots('* * * * *', '-infinity', '2026-01-01 00:00:00+00') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: from_at is -infinity; it must be an instant from 1970-01-01 00:00 UTC to before 10000-01-01 00:00 UTC',
    'cron_slots refuses from_at => -infinity, naming from_at');
SELECT throws_ok($$ SELECT * FROM jobq.cron_slots('* * * * *', '2026-01-01 00:00:00+00', NULL) $$, 'JQ100', NULL,
    'cron_slots refuses to_at => NULL');
SELECT throws_ok($$ SELECT * FROM jobq._cron_next(jobq.cron_parse('* * * * *'), '294276-12-31 23:59:59+00', 'UTC') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: the instant is 294276-12-31 23:59:59+00; it must be an instant from 1970-01-01 00:00 UTC to before 10000-01-01 00:00 UTC',
    'the private _cron_next (which maintain and schedule use) refuses it too');
SELECT throws_ok($$ SELECT * FROM jobq._cron_next(jobq.cron_parse('* * * * *'), 'infinity', 'UTC') $$, 'JQ100', NULL,
    'the private _cron_next refuses infinity');
SELECT is(jobq.cron_next('0 0 29 2 1', '2026-01-01 00:00:00+00', 'America/New_York'), '2026-02-02 05:00:00+00'::timestamptz,
          'a valid instant is answered as before (both day fields restricted: the 29th of February or a Monday)');

SELECT * FROM finish();
ROLLBACK;
