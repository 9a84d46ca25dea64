-- Run now honours concurrency policy forbid as a cron tick does: while the schedule's last run
-- (a tick's job or an earlier run-now's) is live — queued, running or waiting for a retry —
-- jobq.run_schedule_now refuses with JOB.SCHEDULE_OVERLAP (JQ606), naming that job, and writes
-- nothing; once it has finished, run now enqueues again. A run-now's job is the schedule's last
-- run, so the next tick skips its slot (reason forbid) while it is live.
BEGIN;
SELECT plan(11);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', queue => 'pgtap_sched', concurrency_policy => 'forbid');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00';
CREATE TEMP TABLE tick AS SELECT job_id FROM jobq._enqueue_due_slots('2026-05-05 10:00:00+00');

-- The tick's job is queued: run now is refused, and nothing changes.
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
CREATE TEMP TABLE last_before AS SELECT last_job_id, next_slot_at, updated_at FROM jobq.schedules;
SELECT throws_ok($$ SELECT jobq.run_schedule_now('pgtap-hourly') $$, 'JQ606',
    format('JOB.SCHEDULE_OVERLAP: schedule pgtap-hourly has concurrency_policy forbid and its run, job %s, is still queued',
           (SELECT job_id FROM tick)),
    'run now while the tick''s job is queued: JQ606, naming the job and its state');
SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'the refusal wrote no job and no audit row');
SELECT results_eq($$ SELECT last_job_id, next_slot_at, updated_at FROM jobq.schedules $$, $$ SELECT * FROM last_before $$,
                  'the refusal left the schedule as it was');

-- Running, then waiting for its retry: still refused.
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_sched']);
SELECT throws_ok($$ SELECT jobq.run_schedule_now('pgtap-hourly') $$, 'JQ606', NULL, 'run now while the tick''s job is running: JQ606');
SELECT is(jobq.fail_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed), 'boom', retry_in => '1 hour'), 'retry_pending',
          'setup: the tick''s job failed and waits for its retry');
SELECT throws_ok($$ SELECT jobq.run_schedule_now('pgtap-hourly') $$, 'JQ606', NULL, 'run now while the tick''s job waits for its retry: JQ606');

-- Finished: run now enqueues, and its job is the schedule's last run.
SELECT FROM jobq.cancel_job((SELECT job_id FROM tick));
CREATE TEMP TABLE manual AS SELECT jobq.run_schedule_now('pgtap-hourly') AS id;
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM manual)), 'queued', 'with the tick''s job finished, run now enqueues');
SELECT is((SELECT last_job_id FROM jobq.schedules), (SELECT id FROM manual), 'the run-now''s job is the schedule''s last run');

-- The next tick and the next run-now see the run-now's job.
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason, job_id FROM jobq._enqueue_due_slots('2026-05-05 11:00:00+00') $$,
    $$ VALUES ('2026-05-05 11:00:00+00'::timestamptz, 'skipped'::text, 'forbid'::text, NULL::bigint) $$,
    'the 11:00 slot is skipped (forbid) while the run-now''s job is queued');
SELECT is((SELECT detail FROM jobq.schedule_runs WHERE slot_at = '2026-05-05 11:00:00+00'),
          jsonb_build_object('running_job_id', (SELECT id FROM manual)), 'the skipped slot names the run-now''s job');
SELECT throws_ok($$ SELECT jobq.run_schedule_now('pgtap-hourly') $$, 'JQ606', NULL, 'a second run now while the first''s job is queued: JQ606');

SELECT * FROM finish();
ROLLBACK;
