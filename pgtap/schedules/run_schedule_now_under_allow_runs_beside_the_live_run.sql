-- Run now under concurrency policy allow (the default) runs beside a live run, as a cron tick
-- does: the tick's job stays, the run-now's job is added and becomes the schedule's last run.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', queue => 'pgtap_sched');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00';
CREATE TEMP TABLE tick AS SELECT job_id FROM jobq._enqueue_due_slots('2026-05-05 10:00:00+00');

CREATE TEMP TABLE manual AS SELECT jobq.run_schedule_now('pgtap-hourly') AS id;
SELECT results_eq($$ SELECT id FROM jobq.jobs ORDER BY id $$, $$ SELECT job_id FROM tick UNION ALL SELECT id FROM manual $$,
                  'both the tick''s job and the run-now''s job are live');
SELECT is((SELECT last_job_id FROM jobq.schedules), (SELECT id FROM manual), 'the run-now''s job is the schedule''s last run');
SELECT is_empty($$ SELECT 1 FROM jobq.audit_log WHERE action = 'schedule_replaced' $$, 'nothing is replaced');

SELECT * FROM finish();
ROLLBACK;
