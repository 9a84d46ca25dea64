-- The replace policy's cancel of the previous run is audited like an operator's cancel: one
-- schedule_replaced row naming the job, the schedule, the slot that replaced it and its state.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', queue => 'pgtap_sched', concurrency_policy => 'replace');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00';
CREATE TEMP TABLE first AS SELECT job_id FROM jobq._enqueue_due_slots('2026-05-05 10:00:00+00');
SELECT is_empty($$ SELECT * FROM jobq.audit_log WHERE action = 'schedule_replaced' $$, 'a first run replaces nothing');
SELECT FROM jobq._enqueue_due_slots('2026-05-05 11:00:00+00');
SELECT results_eq(
    $$ SELECT action, actor, job_id, detail FROM jobq.audit_log WHERE action = 'schedule_replaced' $$,
    $$ SELECT 'schedule_replaced'::text, session_user::text COLLATE "default", job_id,
              jsonb_build_object('schedule', 'pgtap-hourly', 'slot_at', '2026-05-05 11:00:00+00'::timestamptz, 'previous_state', 'queued')
       FROM first $$,
    'the cancel of the 10:00 job is audited, naming the schedule and the 11:00 slot');

SELECT * FROM finish();
ROLLBACK;
