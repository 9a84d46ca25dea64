-- Run now honours concurrency policy replace as a cron tick does: the schedule's live last run is
-- canceled (history state canceled, reason replaced; a running job's lease stops working), audited
-- as schedule_replaced with the operator as actor, and the new job enqueued, in one transaction.
-- The run-now's job is then the last run that the next tick replaces in turn.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', queue => 'pgtap_sched', concurrency_policy => 'replace');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00';
CREATE TEMP TABLE tick AS SELECT job_id FROM jobq._enqueue_due_slots('2026-05-05 10:00:00+00');
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_sched']);
CREATE TEMP TABLE now_iso AS SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS iso;

CREATE TEMP TABLE manual AS SELECT jobq.run_schedule_now('pgtap-hourly') AS id;
SELECT results_eq($$ SELECT state, reason FROM jobq.job_history WHERE id = (SELECT job_id FROM tick) $$,
                  $$ VALUES ('canceled'::text, 'replaced'::text) $$, 'the running tick''s job is canceled as replaced');
SELECT is_empty($$ SELECT 1 FROM jobq.jobs WHERE id = (SELECT job_id FROM tick) $$, 'it is no longer live');
SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM claimed), (SELECT lease_token FROM claimed)),
                 'JQ201', NULL, 'its lease stops working: completing it is JOB.LEASE_LOST');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM manual)), 'queued', 'the run-now''s job is enqueued');
SELECT results_eq(
    $$ SELECT actor, job_id, detail FROM jobq.audit_log WHERE action = 'schedule_replaced' $$,
    $$ SELECT session_user::text COLLATE "default", (SELECT job_id FROM tick),
              jsonb_build_object('schedule', 'pgtap-hourly', 'previous_state', 'running', 'run_now_at', (SELECT iso FROM now_iso)) $$,
    'the cancel is audited as schedule_replaced by the operator, with the run-now''s instant');
SELECT is((SELECT last_job_id FROM jobq.schedules), (SELECT id FROM manual), 'the run-now''s job is the schedule''s last run');

-- The next tick replaces the run-now's job.
SELECT results_eq(
    $$ SELECT outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 11:00:00+00') $$,
    $$ VALUES ('enqueued'::text, NULL::text) $$, 'the 11:00 slot runs');
SELECT results_eq($$ SELECT state, reason FROM jobq.job_history WHERE id = (SELECT id FROM manual) $$,
                  $$ VALUES ('canceled'::text, 'replaced'::text) $$, 'and the run-now''s job is canceled as replaced');

SELECT * FROM finish();
ROLLBACK;
