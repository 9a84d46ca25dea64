-- Schedules enqueue their slots under unsafe_dedupe keys without unique_for: a slot's job, a
-- manual run and a repeated run of a slot behave as before, even when the schedule's task is also
-- enqueued with unique_for under another key.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick', queue => 'pgtap_sched');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 17:45:00+00';
SELECT FROM jobq.enqueue('pgtap-tick', queue => 'pgtap_sched', job_key => 'pgtap:tick', unique_for => '1 day');

SELECT results_eq(
    $$ SELECT slot_at, outcome, job_id IS NOT NULL FROM jobq._enqueue_due_slots('2026-05-05 17:50:00+00') $$,
    $$ VALUES ('2026-05-05 17:45:00+00'::timestamptz, 'enqueued'::text, true), ('2026-05-05 17:50:00+00', 'enqueued', true) $$,
    'the due slots are enqueued');
SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots('2026-05-05 17:50:00+00') $$, 'a second call handles nothing');
CREATE TEMP TABLE manual AS SELECT jobq.run_schedule_now('pgtap-tick') AS id;
SELECT is((SELECT job_key_mode FROM jobq.jobs WHERE id = (SELECT id FROM manual)), 'unsafe_dedupe', 'a manual run is enqueued as before');
SELECT is((SELECT count(*) FROM jobq.jobs), 4::bigint, 'jobs: the keyed one, two slots, the manual run');

SELECT * FROM finish();
ROLLBACK;
