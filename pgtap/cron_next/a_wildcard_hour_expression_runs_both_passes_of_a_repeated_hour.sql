-- A slot is every instant whose wall-clock time matches. When the hour field is every hour (*,
-- */1, 0-23), the expression keeps its cadence in real time across the fall-back change: the
-- repeated local hour runs in both passes (America/New_York 2026-11-01: 01:00 EDT = 05:00 UTC and
-- 01:00 EST = 06:00 UTC). Searching from any instant, even one inside either pass, finds the next
-- one: no slot of the repeated hour is skipped.
BEGIN;
SELECT plan(6);

-- Pure: no table is read or written.
SELECT is(jobq.cron_next('0 * * * *', '2026-11-01 05:30:00+00', 'America/New_York'), '2026-11-01 06:00:00+00'::timestamptz,
          'from 01:30 EDT, hourly runs next at 01:00 EST (06:00 UTC), not at 02:00 EST');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('0 * * * *', '2026-11-01 03:00:00+00', '2026-11-01 09:00:00+00', 'America/New_York') AS s $$,
    $$ VALUES ('2026-11-01 04:00:00+00'::timestamptz), ('2026-11-01 05:00:00+00'), ('2026-11-01 06:00:00+00'), ('2026-11-01 07:00:00+00'),
              ('2026-11-01 08:00:00+00'), ('2026-11-01 09:00:00+00') $$,
    'hourly across the change: one slot per real hour, 01:00 local twice (EDT, EST)');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('*/30 * * * *', '2026-11-01 04:00:00+00', '2026-11-01 07:00:00+00', 'America/New_York') AS s $$,
    $$ VALUES ('2026-11-01 04:30:00+00'::timestamptz), ('2026-11-01 05:00:00+00'), ('2026-11-01 05:30:00+00'), ('2026-11-01 06:00:00+00'),
              ('2026-11-01 06:30:00+00'), ('2026-11-01 07:00:00+00') $$,
    '*/30 across the change: every 30 minutes of real time');
SELECT is(jobq.cron_next('*/15 */1 * * *', '2026-11-01 05:50:00+00', 'America/New_York'), '2026-11-01 06:00:00+00'::timestamptz,
          '*/1 is every hour too: from 01:50 EDT the next slot is 01:00 EST');
SELECT is(jobq.cron_next('45 0-23 * * *', '2026-11-01 05:50:00+00', 'America/New_York'), '2026-11-01 06:45:00+00'::timestamptz,
          '0-23 is every hour too: from 01:50 EDT the next slot is 01:45 EST');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('30 * * * *', '2026-04-04 14:00:00+00', '2026-04-04 16:00:00+00', 'Australia/Lord_Howe') AS s $$,
    $$ VALUES ('2026-04-04 14:30:00+00'::timestamptz), ('2026-04-04 15:00:00+00'), ('2026-04-04 16:00:00+00') $$,
    'Lord Howe goes back 30 minutes (02:00 +11 -> 01:30 +10:30 at 15:00 UTC): 01:30 local runs at 14:30 and 15:00 UTC, 02:30 at 16:00');

SELECT * FROM finish();
ROLLBACK;
