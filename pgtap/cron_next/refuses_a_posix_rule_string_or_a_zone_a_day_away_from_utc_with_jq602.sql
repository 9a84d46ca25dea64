-- A time zone is a zone name PostgreSQL knows (letters, digits, _ / + -, at most 64 characters)
-- whose UTC offset stays within a day. POSIX rule strings (with commas, colons or <...>), which
-- could change offset every day, and offsets of days are refused with JQ602
-- (JOB.INVALID_TIMEZONE). Pure: a refused call changes nothing.
BEGIN;
SELECT plan(7);

SELECT throws_ok($$ SELECT jobq.cron_next('0 0 * * *', '2026-01-01 00:00:00+00', 'AAA3BBB,J1/0,J2/0') $$, 'JQ602',
    'JOB.INVALID_TIMEZONE: time zone ''AAA3BBB,J1/0,J2/0'' is not a zone name (letters, digits, _ / + -, at most 64 characters)',
    'a POSIX rule string is refused');
SELECT throws_ok($$ SELECT jobq.cron_next('0 0 * * *', '2026-01-01 00:00:00+00', 'UTC+99:59:59') $$, 'JQ602', NULL,
    'an offset with colons is refused');
SELECT throws_ok($$ SELECT jobq.cron_next('0 0 * * *', '2026-01-01 00:00:00+00', 'ABC+167') $$, 'JQ602',
    'JOB.INVALID_TIMEZONE: time zone ''ABC+167'' is more than a day away from UTC', 'an offset of a week is refused');
SELECT throws_ok($$ SELECT jobq.cron_next('0 0 * * *', '2026-01-01 00:00:00+00', repeat('a', 100000)) $$, 'JQ602', NULL,
    'a 100000-character name is refused');
SELECT throws_ok($$ SELECT * FROM jobq.cron_slots('0 0 * * *', '2026-01-01 00:00:00+00', '2026-01-02 00:00:00+00', 'Mars/Olympus_Mons') $$, 'JQ602',
    'JOB.INVALID_TIMEZONE: time zone ''Mars/Olympus_Mons'' is not recognized', 'an unknown name is refused as before');
SELECT is(jobq.cron_next('0 0 * * *', '2026-01-01 00:00:00+00', 'Pacific/Kiritimati'), '2026-01-01 10:00:00+00'::timestamptz,
          'UTC+14 (Kiritimati) is accepted');
SELECT is(jobq.cron_next('0 0 * * *', '2026-01-01 00:00:00+00', 'EST5EDT'), '2026-01-01 05:00:00+00'::timestamptz,
          'a name such as EST5EDT is accepted');

SELECT * FROM finish();
ROLLBACK;
