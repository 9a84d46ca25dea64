-- snooze_jobs: the batch form a runner uses to hand its jobs back at shutdown.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id FROM generate_series(1, 3);
CREATE TEMP TABLE c AS SELECT id, lease_token, attempt FROM jobq.claim_job('w', ARRAY['q'], 3);

SELECT results_eq(
    $$ SELECT s.outcome, s.run_at FROM jobq.snooze_jobs(
           (SELECT array_agg(id ORDER BY id) FROM c) || ARRAY[(SELECT min(id) FROM c)],
           (SELECT array_agg(lease_token ORDER BY id) FROM c) || ARRAY[gen_random_uuid()]) AS s $$,
    $$ VALUES ('queued'::text, now()), ('queued', now()), ('queued', now()), ('lease_lost', NULL::timestamptz) $$,
    'snooze_jobs reports one row per input lease, in order: queued with run_at = now() + delay, or lease_lost');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'queued' AND attempt = 0 AND lease_token IS NULL), 3::bigint,
          'every handed-back job is queued again, holds no lease and has its attempt back');
SELECT is((SELECT count(*) FROM jobq.claim_job('w2', ARRAY['q'], 10)), 3::bigint,
          'handed-back jobs with delay 0 can be claimed again at once');
SELECT throws_ok($$ SELECT * FROM jobq.snooze_jobs(ARRAY[1], ARRAY[gen_random_uuid()], '-1 second') $$,
    'JQ105', 'JOB.LEASE_INVALID: delay -00:00:01 must be zero or positive', 'snooze_jobs refuses a negative delay');
SELECT throws_ok($$ SELECT * FROM jobq.snooze_jobs(ARRAY[1, 2], ARRAY[gen_random_uuid()]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job_ids and lease_tokens must have the same length',
    'snooze_jobs refuses arrays of different lengths');

SELECT * FROM finish();
ROLLBACK;
