-- The time zone is an IANA name PostgreSQL knows. Anything else is refused with JQ602
-- (JOB.INVALID_TIMEZONE), by cron_next and cron_slots alike.
BEGIN;
SELECT plan(7);

-- Pure: no table is read or written.
SELECT throws_ok($$ SELECT jobq.cron_next('0 0 * * *', '2026-05-05 17:42:00+00', 'Mars/Olympus_Mons') $$, 'JQ602',
    'JOB.INVALID_TIMEZONE: time zone ''Mars/Olympus_Mons'' is not recognized', 'an unknown zone name is refused with JQ602');
SELECT throws_ok($$ SELECT jobq.cron_next('0 0 * * *', '2026-05-05 17:42:00+00', '') $$, 'JQ602',
    'JOB.INVALID_TIMEZONE: the time zone is empty', 'an empty zone is refused');
SELECT throws_ok($$ SELECT jobq.cron_next('0 0 * * *', '2026-05-05 17:42:00+00', NULL) $$, 'JQ602',
    'JOB.INVALID_TIMEZONE: the time zone is empty', 'a NULL zone is refused');
SELECT throws_ok($$ SELECT * FROM jobq.cron_slots('0 0 * * *', '2026-05-05 00:00:00+00', '2026-05-06 00:00:00+00', 'Asia/Tokio') $$, 'JQ602',
    'JOB.INVALID_TIMEZONE: time zone ''Asia/Tokio'' is not recognized', 'cron_slots refuses an unknown zone too');
SELECT throws_ok($$ SELECT jobq.cron_next('0 0 * * * *', '2026-05-05 17:42:00+00', 'Mars/Olympus_Mons') $$, 'JQ601', NULL,
    'a bad expression is reported before a bad zone');
SELECT lives_ok($$ SELECT jobq.cron_next('0 0 * * *', '2026-05-05 17:42:00+00', z) FROM unnest(ARRAY['UTC', 'Asia/Tokyo', 'America/New_York', 'Europe/Berlin', 'Etc/GMT-9']) AS z $$,
    'IANA names are accepted');
SELECT is(jobq.cron_next('0 0 * * *', '2026-05-05 17:42:00+00', 'asia/tokyo'), '2026-05-06 15:00:00+00'::timestamptz,
    'zone names are matched case-insensitively, as PostgreSQL does');

SELECT * FROM finish();
ROLLBACK;
