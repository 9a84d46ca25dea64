-- Clocks go back in America/New_York at 06:00 UTC on 2026-11-01 (02:00 EDT -> 01:00 EST): 01:00-01:59
-- local happens twice. A leader whose downtime ends inside the repeated hour enqueues every slot
-- of the backfill window, in both passes; one that keeps running enqueues the slots of both
-- passes too. (Before migration 00024 the walk from the window's start jumped to the second pass
-- or past it, and lost the slots in between.)
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
-- Every 15 minutes in New York, window 1 hour; down from 00:00 EDT (04:00 UTC), back at 01:20 EST (06:20 UTC).
SELECT FROM jobq.schedule('pgtap-tick', '*/15 * * * *', 'pgtap-tick', timezone => 'America/New_York', backfill_window => '1 hour');
UPDATE jobq.schedules SET next_slot_at = '2026-11-01 04:00:00+00';

SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-11-01 06:20:00+00') $$,
    $$ VALUES ('2026-11-01 04:00:00+00'::timestamptz, 'skipped'::text, 'late'::text),
              ('2026-11-01 05:30:00+00', 'enqueued', NULL), ('2026-11-01 05:45:00+00', 'enqueued', NULL),
              ('2026-11-01 06:00:00+00', 'enqueued', NULL), ('2026-11-01 06:15:00+00', 'enqueued', NULL) $$,
    'back at 01:20 EST: the window (from 01:20 EDT) holds 01:30 and 01:45 EDT and 01:00 and 01:15 EST, all enqueued');
SELECT is((SELECT next_slot_at FROM jobq.schedules WHERE name = 'pgtap-tick'), '2026-11-01 06:30:00+00'::timestamptz,
          'the schedule goes on at 01:30 EST');
SELECT results_eq(
    $$ SELECT slot_at, outcome FROM jobq._enqueue_due_slots('2026-11-01 07:00:00+00') $$,
    $$ VALUES ('2026-11-01 06:30:00+00'::timestamptz, 'enqueued'::text), ('2026-11-01 06:45:00+00', 'enqueued'),
              ('2026-11-01 07:00:00+00', 'enqueued') $$,
    'the rest of the second pass runs, then 02:00 EST');
SELECT is((SELECT count(DISTINCT j.payload ->> 'slotAt') FROM jobq.jobs j WHERE j.task = 'pgtap-tick'), 7::bigint,
          'seven jobs, one per slot instant');

-- A leader that never stopped: from 01:50 EDT (05:50 UTC) maintain every 5 minutes to 02:05 EST.
DELETE FROM jobq.schedules;
SELECT FROM jobq.schedule('pgtap-tick', '*/15 * * * *', 'pgtap-tick', timezone => 'America/New_York');
UPDATE jobq.schedules SET next_slot_at = jobq.cron_next('*/15 * * * *', '2026-11-01 05:50:00+00', 'America/New_York');
CREATE TEMP TABLE ran AS
SELECT d.slot_at, d.outcome FROM generate_series('2026-11-01 05:50:00+00'::timestamptz, '2026-11-01 07:05:00+00', interval '5 minutes') AS t(at)
CROSS JOIN LATERAL jobq._enqueue_due_slots(t.at) AS d;
SELECT results_eq(
    $$ SELECT slot_at, outcome FROM ran ORDER BY slot_at $$,
    $$ VALUES ('2026-11-01 06:00:00+00'::timestamptz, 'enqueued'::text), ('2026-11-01 06:15:00+00', 'enqueued'),
              ('2026-11-01 06:30:00+00', 'enqueued'), ('2026-11-01 06:45:00+00', 'enqueued'), ('2026-11-01 07:00:00+00', 'enqueued') $$,
    'a running leader enqueues 01:00, 01:15, 01:30, 01:45 EST (the second pass) and 02:00 EST');

-- A fixed hour runs once: daily at 01:30, down since the day before, back at 01:40 EST with a 2-hour window.
DELETE FROM jobq.schedules;
SELECT FROM jobq.schedule('pgtap-tick', '30 1 * * *', 'pgtap-tick', timezone => 'America/New_York', backfill_window => '2 hours');
UPDATE jobq.schedules SET next_slot_at = '2026-10-31 05:30:00+00';
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-11-01 06:40:00+00') $$,
    $$ VALUES ('2026-10-31 05:30:00+00'::timestamptz, 'skipped'::text, 'late'::text), ('2026-11-01 05:30:00+00', 'enqueued', NULL) $$,
    'daily at 01:30: the first pass (01:30 EDT) is in the window and runs; the second pass is no slot');

SELECT * FROM finish();
ROLLBACK;
