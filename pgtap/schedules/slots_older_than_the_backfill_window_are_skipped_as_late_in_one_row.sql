-- After downtime longer than the backfill window, the slots older than the window never run: the
-- whole late stretch is recorded as one schedule_runs row, skipped with reason late, naming its
-- first slot (and, in detail, where the window began and the schedule resumes). Slots within the
-- window run.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
-- Every 5 minutes, window 15 minutes (the default); down from 10:00 until 12:00.
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00';

SELECT results_eq(
    $$ SELECT slot_at, outcome, reason, job_id IS NOT NULL FROM jobq._enqueue_due_slots('2026-05-05 12:00:00+00') $$,
    $$ VALUES ('2026-05-05 10:00:00+00'::timestamptz, 'skipped'::text, 'late'::text, false),
              ('2026-05-05 11:45:00+00', 'enqueued', NULL, true), ('2026-05-05 11:50:00+00', 'enqueued', NULL, true),
              ('2026-05-05 11:55:00+00', 'enqueued', NULL, true), ('2026-05-05 12:00:00+00', 'enqueued', NULL, true) $$,
    'the 21 slots from 10:00 to 11:40 are one late row naming 10:00; the slots from 11:45 (the window) on run');
SELECT results_eq(
    $$ SELECT outcome, reason, job_id, detail FROM jobq.schedule_runs WHERE slot_at = '2026-05-05 10:00:00+00' $$,
    $$ VALUES ('skipped'::text, 'late'::text, NULL::bigint,
              jsonb_build_object('late_before', '2026-05-05 11:45:00+00'::timestamptz, 'resumes_at', '2026-05-05 11:45:00+00'::timestamptz,
                                 'backfill_window', '00:15:00')) $$,
    'the late row has no job; its detail says where the window began, where the schedule resumed and how long the window is');
SELECT is((SELECT count(*) FROM jobq.schedule_runs), 5::bigint, 'one row for the late stretch, one per slot that ran');
SELECT is_empty($$ SELECT * FROM jobq.jobs WHERE (payload ->> 'slotAt')::timestamptz < '2026-05-05 11:45:00+00' $$,
                'no slot older than the window got a job');
SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots('2026-05-05 12:00:00+00') $$, 'the late slots do not come back later');

-- The edge: a slot exactly at the start of the window runs; one a moment older is late.
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 12:05:00+00';
SELECT results_eq(
    $$ SELECT slot_at, outcome FROM jobq._enqueue_due_slots('2026-05-05 12:20:00+00') $$,
    $$ VALUES ('2026-05-05 12:05:00+00'::timestamptz, 'enqueued'::text), ('2026-05-05 12:10:00+00', 'enqueued'), ('2026-05-05 12:15:00+00', 'enqueued'),
              ('2026-05-05 12:20:00+00', 'enqueued') $$,
    'a slot exactly backfill_window old still runs');
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 12:40:00.000001+00') $$,
    $$ VALUES ('2026-05-05 12:25:00+00'::timestamptz, 'skipped'::text, 'late'::text), ('2026-05-05 12:30:00+00', 'enqueued', NULL),
              ('2026-05-05 12:35:00+00', 'enqueued', NULL), ('2026-05-05 12:40:00+00', 'enqueued', NULL) $$,
    'a slot a microsecond older than the window is late');

SELECT * FROM finish();
ROLLBACK;
