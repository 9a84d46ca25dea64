-- Concurrency policy forbid: while the previous slot's job is live (queued, waiting for a retry,
-- or running), a slot is skipped with reason forbid, naming that job; once it has finished, the
-- next slot runs again.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', queue => 'pgtap_sched', concurrency_policy => 'forbid');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00';
CREATE TEMP TABLE first AS SELECT job_id FROM jobq._enqueue_due_slots('2026-05-05 10:00:00+00');

SELECT results_eq(
    $$ SELECT slot_at, outcome, reason, job_id FROM jobq._enqueue_due_slots('2026-05-05 11:00:00+00') $$,
    $$ VALUES ('2026-05-05 11:00:00+00'::timestamptz, 'skipped'::text, 'forbid'::text, NULL::bigint) $$,
    'the 11:00 slot is skipped (forbid) while the 10:00 job is queued');
SELECT is((SELECT detail FROM jobq.schedule_runs WHERE slot_at = '2026-05-05 11:00:00+00'),
          jsonb_build_object('running_job_id', (SELECT job_id FROM first)), 'the skipped slot names the live job that blocked it');
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_sched']);
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 12:00:00+00') $$,
    $$ VALUES ('2026-05-05 12:00:00+00'::timestamptz, 'skipped'::text, 'forbid'::text) $$,
    'the 12:00 slot is skipped while the 10:00 job is running');
SELECT is(jobq.fail_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed), 'boom', retry_in => '1 hour'), 'retry_pending',
          'setup: the 10:00 job failed and waits for its retry');
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 13:00:00+00') $$,
    $$ VALUES ('2026-05-05 13:00:00+00'::timestamptz, 'skipped'::text, 'forbid'::text) $$,
    'the 13:00 slot is skipped while the 10:00 job waits for its retry');

-- An operator runs the retry now; the job runs and succeeds.
SELECT FROM jobq.retry_job((SELECT job_id FROM first));
CREATE TEMP TABLE claimed_now AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_sched']);
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM claimed_now), (SELECT lease_token FROM claimed_now)),
                'setup: the 10:00 job ran again and succeeded');
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 14:00:00+00') $$,
    $$ VALUES ('2026-05-05 14:00:00+00'::timestamptz, 'enqueued'::text, NULL::text) $$,
    'with the previous job finished, the 14:00 slot runs');

SELECT * FROM finish();
ROLLBACK;
