-- With backfill all (the default), every slot missed within the backfill window runs: one job
-- per slot, oldest first, each with its own slotAt.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
-- Every 10 minutes, window one hour; down from 11:00 until 11:45 (shorter than the window).
SELECT FROM jobq.schedule('pgtap-tick', '*/10 * * * *', 'pgtap-tick', backfill_window => '1 hour');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 11:00:00+00';

SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 11:45:00+00') $$,
    $$ VALUES ('2026-05-05 11:00:00+00'::timestamptz, 'enqueued'::text, NULL::text), ('2026-05-05 11:10:00+00', 'enqueued', NULL),
              ('2026-05-05 11:20:00+00', 'enqueued', NULL), ('2026-05-05 11:30:00+00', 'enqueued', NULL), ('2026-05-05 11:40:00+00', 'enqueued', NULL) $$,
    'all five missed slots run, none is late');
SELECT results_eq(
    $$ SELECT payload ->> 'slotAt', run_at FROM jobq.jobs ORDER BY id $$,
    $$ VALUES ('2026-05-05T11:00:00Z'::text, '2026-05-05 11:00:00+00'::timestamptz), ('2026-05-05T11:10:00Z', '2026-05-05 11:10:00+00'),
              ('2026-05-05T11:20:00Z', '2026-05-05 11:20:00+00'), ('2026-05-05T11:30:00Z', '2026-05-05 11:30:00+00'),
              ('2026-05-05T11:40:00Z', '2026-05-05 11:40:00+00') $$,
    'one job per slot, enqueued oldest first, each naming its own slot');
SELECT is((SELECT next_slot_at FROM jobq.schedules), '2026-05-05 11:50:00+00'::timestamptz, 'the schedule then waits for 11:50');

SELECT * FROM finish();
ROLLBACK;
