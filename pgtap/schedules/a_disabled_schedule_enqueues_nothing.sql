-- A disabled schedule is left alone: no slot of it is handled, recorded or enqueued, and it keeps
-- its next_slot_at. Enabled again, it resumes from there (slots older than its backfill window
-- are then skipped as late).
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick', enabled => false);
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 17:45:00+00';

SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots('2026-05-05 18:00:00+00') $$, 'a disabled schedule''s due slots are not handled');
SELECT is_empty($$ SELECT * FROM jobq.schedule_runs $$, 'nothing is recorded');
SELECT is_empty($$ SELECT * FROM jobq.jobs $$, 'nothing is enqueued');
SELECT is((SELECT next_slot_at FROM jobq.schedules), '2026-05-05 17:45:00+00'::timestamptz, 'the schedule keeps its next slot');

SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick', enabled => true);
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 18:10:00+00') $$,
    $$ VALUES ('2026-05-05 17:45:00+00'::timestamptz, 'skipped'::text, 'late'::text), ('2026-05-05 17:55:00+00', 'enqueued', NULL),
              ('2026-05-05 18:00:00+00', 'enqueued', NULL), ('2026-05-05 18:05:00+00', 'enqueued', NULL), ('2026-05-05 18:10:00+00', 'enqueued', NULL) $$,
    'enabled again, it resumes from its next slot: those before the 15-minute window are skipped as late, the rest run');

SELECT * FROM finish();
ROLLBACK;
