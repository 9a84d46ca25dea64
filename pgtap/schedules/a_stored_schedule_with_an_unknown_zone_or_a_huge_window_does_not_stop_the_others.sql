-- Rows written before the bounds (or by hand) must not stop maintain: a schedule whose zone the
-- tz database no longer knows is recorded as skipped (reason error) and stops (next_slot_at NULL,
-- until jobq.schedule declares it again) while the other schedules run; a backfill_window of a
-- million years runs the slots as an unbounded window would, without a datetime overflow.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-lost-zone', '*/5 * * * *', 'pgtap-tick');
SELECT FROM jobq.schedule('pgtap-huge-window', '*/5 * * * *', 'pgtap-tick');
SELECT FROM jobq.schedule('pgtap-plain', '*/5 * * * *', 'pgtap-tick');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00';
UPDATE jobq.schedules SET timezone = 'Mars/Olympus_Mons' WHERE name = 'pgtap-lost-zone';
UPDATE jobq.schedules SET backfill_window = '1000000 years' WHERE name = 'pgtap-huge-window';

SELECT results_eq(
    $$ SELECT schedule, slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 10:10:00+00') ORDER BY 1, 2 $$,
    $$ VALUES ('pgtap-huge-window'::text, '2026-05-05 10:00:00+00'::timestamptz, 'enqueued'::text, NULL::text),
              ('pgtap-huge-window', '2026-05-05 10:05:00+00', 'enqueued', NULL), ('pgtap-huge-window', '2026-05-05 10:10:00+00', 'enqueued', NULL),
              ('pgtap-lost-zone', '2026-05-05 10:00:00+00', 'skipped', 'error'),
              ('pgtap-plain', '2026-05-05 10:00:00+00', 'enqueued', NULL), ('pgtap-plain', '2026-05-05 10:05:00+00', 'enqueued', NULL),
              ('pgtap-plain', '2026-05-05 10:10:00+00', 'enqueued', NULL) $$,
    'the schedule with a lost zone is one error row; the one with a huge window and the plain one run their slots');
SELECT is((SELECT next_slot_at FROM jobq.schedules WHERE name = 'pgtap-lost-zone'), NULL::timestamptz,
          'the schedule whose zone is unknown stops (next_slot_at NULL)');
SELECT ok((SELECT detail ->> 'error' FROM jobq.schedule_runs WHERE schedule = 'pgtap-lost-zone') LIKE '%Mars/Olympus_Mons%',
          'its error row names the zone');
SELECT is((SELECT next_slot_at FROM jobq.schedules WHERE name = 'pgtap-huge-window'), '2026-05-05 10:15:00+00'::timestamptz,
          'the schedule with a huge window goes on');
SELECT lives_ok($$ SELECT jobq._maintain(NULL, NULL, '2026-05-05 10:20:00+00') $$, 'maintain keeps working');

SELECT * FROM finish();
ROLLBACK;
