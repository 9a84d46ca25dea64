-- Clocks go forward: in America/New_York on 2026-03-08, 02:00 EST becomes 03:00 EDT (07:00 UTC),
-- so 02:00-02:59 local does not exist. A slot in the gap runs at the instant PostgreSQL maps it
-- to, just after the gap (02:30 local -> 03:30 EDT = 07:30 UTC); it is not skipped, and slots
-- around the gap strictly increase with none repeated.
BEGIN;
SELECT plan(6);

-- Pure: no table is read or written.
SELECT is(jobq.cron_next('30 2 * * *', '2026-03-08 05:00:00+00', 'America/New_York'), '2026-03-08 07:30:00+00'::timestamptz,
          '02:30 local does not exist on 2026-03-08: the slot runs at 07:30 UTC (03:30 EDT)');
SELECT is(jobq.cron_next('30 2 * * *', '2026-03-08 07:30:00+00', 'America/New_York'), '2026-03-09 06:30:00+00'::timestamptz,
          'the next day it runs at 02:30 EDT (06:30 UTC) again');
SELECT is(jobq.cron_next('0 2 * * *', '2026-03-08 00:00:00+00', 'America/New_York'), '2026-03-08 07:00:00+00'::timestamptz,
          '02:00 local runs at the end of the gap: 07:00 UTC (03:00 EDT)');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('*/30 * * * *', '2026-03-08 05:00:00+00', '2026-03-08 09:00:00+00', 'America/New_York') AS s $$,
    $$ VALUES ('2026-03-08 05:30:00+00'::timestamptz), ('2026-03-08 06:00:00+00'), ('2026-03-08 06:30:00+00'), ('2026-03-08 07:00:00+00'),
              ('2026-03-08 07:30:00+00'), ('2026-03-08 08:00:00+00'), ('2026-03-08 08:30:00+00'), ('2026-03-08 09:00:00+00') $$,
    '*/30 around the gap: one slot every 30 minutes of real time, none lost, none repeated');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('0 * * * *', '2026-03-08 04:30:00+00', '2026-03-08 09:00:00+00', 'America/New_York') AS s $$,
    $$ VALUES ('2026-03-08 05:00:00+00'::timestamptz), ('2026-03-08 06:00:00+00'), ('2026-03-08 07:00:00+00'), ('2026-03-08 08:00:00+00'),
              ('2026-03-08 09:00:00+00') $$,
    'hourly around the gap: 00:00, 01:00 EST, then 02:00 (= 03:00 EDT, once), 04:00, 05:00 EDT');
SELECT is(jobq.cron_next('30 2 * * *', '2026-03-29 00:00:00+00', 'Europe/Berlin'), '2026-03-29 01:30:00+00'::timestamptz,
          'in Europe/Berlin on 2026-03-29 (02:00 CET -> 03:00 CEST), 02:30 local runs at 01:30 UTC (03:30 CEST)');

SELECT * FROM finish();
ROLLBACK;
