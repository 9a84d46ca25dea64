-- Clocks go forward in America/New_York at 07:00 UTC on 2026-03-08 (02:00 EST -> 03:00 EDT): 02:00-02:59
-- local does not exist, and a slot there runs just after the gap (02:15 -> 03:15 EDT). A leader
-- whose downtime ends inside or just after the gap enqueues every slot of its window once.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
-- Every 15 minutes, window 30 minutes; down from 00:00 EST (05:00 UTC), back at 03:10 EDT (07:10 UTC).
SELECT FROM jobq.schedule('pgtap-tick', '*/15 * * * *', 'pgtap-tick', timezone => 'America/New_York', backfill_window => '30 minutes');
UPDATE jobq.schedules SET next_slot_at = '2026-03-08 05:00:00+00';

SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-03-08 07:10:00+00') $$,
    $$ VALUES ('2026-03-08 05:00:00+00'::timestamptz, 'skipped'::text, 'late'::text),
              ('2026-03-08 06:45:00+00', 'enqueued', NULL), ('2026-03-08 07:00:00+00', 'enqueued', NULL) $$,
    'back at 03:10 EDT: the window (from 01:40 EST) holds 01:45 EST and 02:00 = 03:00 EDT, both enqueued');
SELECT results_eq(
    $$ SELECT slot_at, outcome FROM jobq._enqueue_due_slots('2026-03-08 07:45:00+00') $$,
    $$ VALUES ('2026-03-08 07:15:00+00'::timestamptz, 'enqueued'::text), ('2026-03-08 07:30:00+00', 'enqueued'),
              ('2026-03-08 07:45:00+00', 'enqueued') $$,
    'then 02:15 (= 03:15 EDT), 02:30 (= 03:30 EDT), 03:45 EDT, each instant once');

-- Daily at 02:30 (which does not exist that day), down since the day before, back at 03:40 EDT with a 1-hour window.
DELETE FROM jobq.schedules;
SELECT FROM jobq.schedule('pgtap-tick', '30 2 * * *', 'pgtap-tick', timezone => 'America/New_York', backfill_window => '1 hour');
UPDATE jobq.schedules SET next_slot_at = '2026-03-07 07:30:00+00';
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-03-08 07:40:00+00') $$,
    $$ VALUES ('2026-03-07 07:30:00+00'::timestamptz, 'skipped'::text, 'late'::text), ('2026-03-08 07:30:00+00', 'enqueued', NULL) $$,
    'daily at 02:30: the slot just after the gap (03:30 EDT) is in the window and runs');
SELECT is((SELECT next_slot_at FROM jobq.schedules WHERE name = 'pgtap-tick'), '2026-03-09 06:30:00+00'::timestamptz,
          'and the schedule goes on at 02:30 EDT the next day');

SELECT * FROM finish();
ROLLBACK;
