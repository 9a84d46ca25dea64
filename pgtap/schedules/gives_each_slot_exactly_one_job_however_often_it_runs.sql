-- A slot gets exactly one job. jobq._enqueue_due_slots(p_now) — the step of jobq.maintain that
-- runs the schedules — handles each due slot once: calling it twice at one instant, or at many
-- instants in a row, records one jobq.schedule_runs row and enqueues one job per slot. The slot
-- key (schedule, slot_at) is the primary key of schedule_runs, so even a caller that works from
-- an old next_slot_at (as a runner racing another would) adds no second job.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick', queue => 'pgtap_sched');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 17:45:00+00';

SELECT results_eq(
    $$ SELECT schedule, slot_at, outcome, reason, job_id IS NOT NULL FROM jobq._enqueue_due_slots('2026-05-05 17:50:00+00') $$,
    $$ VALUES ('pgtap-tick'::text, '2026-05-05 17:45:00+00'::timestamptz, 'enqueued'::text, NULL::text, true),
              ('pgtap-tick', '2026-05-05 17:50:00+00', 'enqueued', NULL, true) $$,
    'the first call at 17:50 enqueues the two due slots, 17:45 and 17:50');
SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots('2026-05-05 17:50:00+00') $$, 'a second call at the same instant handles nothing');
SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots('2026-05-05 17:54:59+00') $$, 'a call before the next slot handles nothing');

CREATE TEMP TABLE later AS
SELECT t.at, d.* FROM unnest(ARRAY['2026-05-05 17:55:00+00', '2026-05-05 17:55:00+00', '2026-05-05 17:57:30+00',
                                   '2026-05-05 18:00:00.5+00', '2026-05-05 18:01:00+00']::timestamptz[]) WITH ORDINALITY AS t(at, n)
CROSS JOIN LATERAL jobq._enqueue_due_slots(t.at) AS d;
SELECT results_eq($$ SELECT at, slot_at FROM later ORDER BY at, slot_at $$,
                  $$ VALUES ('2026-05-05 17:55:00+00'::timestamptz, '2026-05-05 17:55:00+00'::timestamptz),
                            ('2026-05-05 18:00:00.5+00', '2026-05-05 18:00:00+00') $$,
                  'calls at 17:55, 17:55, 17:57:30, 18:00:00.5 and 18:01 handle 17:55 once and 18:00 once');

SELECT results_eq(
    $$ SELECT r.slot_at, r.outcome, count(j.id) FROM jobq.schedule_runs r LEFT JOIN jobq.jobs j ON j.id = r.job_id
       GROUP BY r.slot_at, r.outcome ORDER BY r.slot_at $$,
    $$ VALUES ('2026-05-05 17:45:00+00'::timestamptz, 'enqueued'::text, 1::bigint), ('2026-05-05 17:50:00+00', 'enqueued', 1),
              ('2026-05-05 17:55:00+00', 'enqueued', 1), ('2026-05-05 18:00:00+00', 'enqueued', 1) $$,
    'one schedule_runs row per slot, each naming its one job');
SELECT is((SELECT count(*) FROM jobq.jobs), 4::bigint, 'four slots, four jobs');
SELECT results_eq($$ SELECT next_slot_at, last_slot_at, last_job_id FROM jobq.schedules $$,
                  $$ SELECT '2026-05-05 18:05:00+00'::timestamptz, '2026-05-05 18:00:00+00'::timestamptz, max(id) FROM jobq.jobs $$,
                  'the schedule moved on: next slot 18:05, last slot 18:00 and its job');

-- A caller that read the schedule before the slots above were handled.
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 17:45:00+00';
SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots('2026-05-05 18:00:00+00') $$,
                'working from an old next_slot_at, the handled slots are recognised and reported as nothing new');
SELECT results_eq($$ SELECT (SELECT count(*) FROM jobq.jobs), (SELECT count(*) FROM jobq.schedule_runs) $$,
                  $$ VALUES (4::bigint, 4::bigint) $$, 'still one job and one run row per slot');

SELECT * FROM finish();
ROLLBACK;
