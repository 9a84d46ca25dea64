-- A job with many attempts and a long backoff_base: past attempt 40 the ceiling is backoff_max,
-- so a failure must still schedule a retry at most backoff_max away. (jobq.backoff_ceiling caps
-- the exponent at 40, but base * 2^40 overflows the interval type for a base of a minute or more.)
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', max_attempts => 100, backoff_base => '1 minute') AS id;
-- As if attempts 1..44 had already failed (superuser shortcut instead of 44 claim/fail rounds).
UPDATE jobq.jobs SET attempt = 44, state = 'retry_pending' WHERE id = (SELECT id FROM job);
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);

SELECT lives_ok(
    $$ SELECT jobq.fail_job((SELECT id FROM c), (SELECT lease_token FROM c), 'still failing') $$,
    'fail_job of attempt 45 with backoff_base 1 minute does not raise');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM job)), 'retry_pending',
          'attempt 45 of 100 goes back to the queue as retry_pending');
SELECT ok(coalesce((SELECT run_at BETWEEN now() + interval '30 minutes' AND now() + interval '1 hour'
                    FROM jobq.jobs WHERE id = (SELECT id FROM job) AND state = 'retry_pending'), false),
          'its retry is due within [backoff_max/2, backoff_max] = [30 min, 1 hour]');

SELECT * FROM finish();
ROLLBACK;
