-- Clocks go back: in America/New_York on 2026-11-01, 02:00 EDT becomes 01:00 EST (06:00 UTC), so
-- 01:00-01:59 local happens twice. An expression whose hour field names hours runs a repeated
-- local time once, at its first occurrence (daylight time: 01:30 local -> 05:30 UTC), as Vixie
-- cron does; the second pass of that local time is no slot. (Until migration 00024 it ran at the
-- second occurrence; wildcard-hour expressions run both passes: see
-- a_wildcard_hour_expression_runs_both_passes_of_a_repeated_hour.sql.)
BEGIN;
SELECT plan(6);

-- Pure: no table is read or written.
SELECT is(jobq.cron_next('30 1 * * *', '2026-11-01 00:00:00+00', 'America/New_York'), '2026-11-01 05:30:00+00'::timestamptz,
          '01:30 local happens twice on 2026-11-01: the slot is at 05:30 UTC (01:30 EDT, the first pass)');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('30 1 * * *', '2026-10-31 00:00:00+00', '2026-11-03 00:00:00+00', 'America/New_York') AS s $$,
    $$ VALUES ('2026-10-31 05:30:00+00'::timestamptz), ('2026-11-01 05:30:00+00'), ('2026-11-02 06:30:00+00') $$,
    'daily at 01:30 runs once on the day of the change, not twice');
SELECT is(jobq.cron_next('30 1 * * *', '2026-11-01 05:30:00+00', 'America/New_York'), '2026-11-02 06:30:00+00'::timestamptz,
          'from the first 01:30 (05:30 UTC, EDT) the next slot is the next day''s: the repeated 01:30 does not run again');
SELECT is(jobq.cron_next('30 1 * * *', '2026-11-01 06:10:00+00', 'America/New_York'), '2026-11-02 06:30:00+00'::timestamptz,
          'from inside the second pass (01:10 EST) the 01:30 EST instant is no slot either: next day');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('*/20 1 * * *', '2026-11-01 04:00:00+00', '2026-11-01 08:00:00+00', 'America/New_York') AS s $$,
    $$ VALUES ('2026-11-01 05:00:00+00'::timestamptz), ('2026-11-01 05:20:00+00'), ('2026-11-01 05:40:00+00') $$,
    'every 20 minutes of the 01 hour: 01:00, 01:20, 01:40 once each, in the first pass');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('30 2 * * *', '2026-10-24 00:00:00+00', '2026-10-27 00:00:00+00', 'Europe/Berlin') AS s $$,
    $$ VALUES ('2026-10-24 00:30:00+00'::timestamptz), ('2026-10-25 00:30:00+00'), ('2026-10-26 01:30:00+00') $$,
    'in Europe/Berlin on 2026-10-25 (03:00 CEST -> 02:00 CET), 02:30 local runs once, at 00:30 UTC (02:30 CEST)');

SELECT * FROM finish();
ROLLBACK;
