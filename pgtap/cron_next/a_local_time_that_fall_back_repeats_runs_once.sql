-- Clocks go back: in America/New_York on 2026-11-01, 02:00 EDT becomes 01:00 EST (06:00 UTC), so
-- 01:00-01:59 local happens twice. A slot in that hour runs once, at its second occurrence
-- (standard time: 01:30 local -> 06:30 UTC), and slots across the change strictly increase.
BEGIN;
SELECT plan(6);

-- Pure: no table is read or written.
SELECT is(jobq.cron_next('30 1 * * *', '2026-11-01 00:00:00+00', 'America/New_York'), '2026-11-01 06:30:00+00'::timestamptz,
          '01:30 local happens twice on 2026-11-01: the slot is at 06:30 UTC (01:30 EST)');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('30 1 * * *', '2026-10-31 00:00:00+00', '2026-11-03 00:00:00+00', 'America/New_York') AS s $$,
    $$ VALUES ('2026-10-31 05:30:00+00'::timestamptz), ('2026-11-01 06:30:00+00'), ('2026-11-02 06:30:00+00') $$,
    'daily at 01:30 runs once on the day of the change, not twice');
SELECT is(jobq.cron_next('30 1 * * *', '2026-11-01 05:30:00+00', 'America/New_York'), '2026-11-02 06:30:00+00'::timestamptz,
          'from the first 01:30 (05:30 UTC, EDT) the next slot is the next day''s: the repeated 01:30 does not run again');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('0 * * * *', '2026-11-01 03:00:00+00', '2026-11-01 09:00:00+00', 'America/New_York') AS s $$,
    $$ VALUES ('2026-11-01 04:00:00+00'::timestamptz), ('2026-11-01 06:00:00+00'), ('2026-11-01 07:00:00+00'), ('2026-11-01 08:00:00+00'),
              ('2026-11-01 09:00:00+00') $$,
    'hourly across the change: 00:00 EDT, 01:00 (once, EST), 02:00, 03:00, 04:00 EST — each local hour once, strictly increasing');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('*/30 * * * *', '2026-11-01 04:00:00+00', '2026-11-01 07:00:00+00', 'America/New_York') AS s $$,
    $$ VALUES ('2026-11-01 04:30:00+00'::timestamptz), ('2026-11-01 06:00:00+00'), ('2026-11-01 06:30:00+00'), ('2026-11-01 07:00:00+00') $$,
    '*/30 across the change: 00:30 EDT, then 01:00 and 01:30 once each (EST), then 02:00 EST');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('30 2 * * *', '2026-10-24 00:00:00+00', '2026-10-27 00:00:00+00', 'Europe/Berlin') AS s $$,
    $$ VALUES ('2026-10-24 00:30:00+00'::timestamptz), ('2026-10-25 01:30:00+00'), ('2026-10-26 01:30:00+00') $$,
    'in Europe/Berlin on 2026-10-25 (03:00 CEST -> 02:00 CET), 02:30 local runs once, at 01:30 UTC (02:30 CET)');

SELECT * FROM finish();
ROLLBACK;
