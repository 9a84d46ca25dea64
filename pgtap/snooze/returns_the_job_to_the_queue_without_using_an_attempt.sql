BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', max_attempts => 1) AS id;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);

SELECT is(jobq.snooze((SELECT id FROM c), (SELECT lease_token FROM c), '10 minutes'), now() + interval '10 minutes',
          'snooze returns the new run_at, now() + delay');
SELECT results_eq(
    $$ SELECT state, run_at, attempt, lease_token, lease_expires_at FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('queued'::text, now() + interval '10 minutes', 0, NULL::uuid, NULL::timestamptz) $$,
    'a snoozed job is queued at now() + delay, holds no lease, and gets its attempt back');
SELECT is_empty($$ SELECT * FROM jobq._claim('w', ARRAY['q'], 1, '30 seconds', now() + interval '9 minutes') $$,
                'a snoozed job is not claimed before its delay has passed');

CREATE TEMP TABLE c2 AS SELECT * FROM jobq._claim('w', ARRAY['q'], 1, '30 seconds', now() + interval '10 minutes');
SELECT is((SELECT attempt FROM c2), 1, 'claimed again after the delay, it runs as attempt 1 again');
SELECT is(jobq.fail_job((SELECT id FROM c2), (SELECT lease_token FROM c2), 'x'), 'dead',
          'the snooze did not use the only attempt of a max_attempts 1 job: its first real failure buries it');
SELECT is((SELECT attempt FROM jobq.job_history WHERE id = (SELECT id FROM job)), 1, 'the history row counts one attempt');

SELECT * FROM finish();
ROLLBACK;
