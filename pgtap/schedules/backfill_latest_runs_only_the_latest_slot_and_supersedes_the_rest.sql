-- With backfill latest, of the slots missed within the window only the latest runs; the others
-- are recorded as skipped with reason superseded. Slots older than the window are still one late
-- row. A schedule that is on time (one slot due) runs it as usual.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-tick', '*/10 * * * *', 'pgtap-tick', backfill_window => '1 hour', backfill => 'latest');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 11:00:00+00';

SELECT results_eq(
    $$ SELECT slot_at, outcome, reason, job_id IS NOT NULL FROM jobq._enqueue_due_slots('2026-05-05 11:45:00+00') $$,
    $$ VALUES ('2026-05-05 11:00:00+00'::timestamptz, 'skipped'::text, 'superseded'::text, false), ('2026-05-05 11:10:00+00', 'skipped', 'superseded', false),
              ('2026-05-05 11:20:00+00', 'skipped', 'superseded', false), ('2026-05-05 11:30:00+00', 'skipped', 'superseded', false),
              ('2026-05-05 11:40:00+00', 'enqueued', NULL, true) $$,
    'of five missed slots, 11:40 runs and the four before it are superseded');
SELECT results_eq($$ SELECT payload ->> 'slotAt' FROM jobq.jobs $$, $$ VALUES ('2026-05-05T11:40:00Z'::text) $$,
                  'one job, for the latest slot');

SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 11:50:00+00') $$,
    $$ VALUES ('2026-05-05 11:50:00+00'::timestamptz, 'enqueued'::text, NULL::text) $$,
    'on time, the one due slot runs');

-- Down from 12:00 until 14:45: the window begins at 13:45.
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 12:00:00+00';
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 14:45:00+00') $$,
    $$ VALUES ('2026-05-05 12:00:00+00'::timestamptz, 'skipped'::text, 'late'::text), ('2026-05-05 13:50:00+00', 'skipped', 'superseded'),
              ('2026-05-05 14:00:00+00', 'skipped', 'superseded'), ('2026-05-05 14:10:00+00', 'skipped', 'superseded'),
              ('2026-05-05 14:20:00+00', 'skipped', 'superseded'), ('2026-05-05 14:30:00+00', 'skipped', 'superseded'),
              ('2026-05-05 14:40:00+00', 'enqueued', NULL) $$,
    'after a longer downtime: one late row for what is older than the window, the window''s slots superseded but the latest');
SELECT is((SELECT count(*) FROM jobq.jobs), 3::bigint, 'three jobs in all: 11:40, 11:50 and 14:40');

SELECT * FROM finish();
ROLLBACK;
