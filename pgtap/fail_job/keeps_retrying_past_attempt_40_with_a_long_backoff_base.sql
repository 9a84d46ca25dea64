-- A job with many attempts and a long backoff_base: past attempt 40 the ceiling is backoff_max,
-- so a failure must still schedule a retry at most backoff_max away. (jobq.backoff_ceiling caps
-- the exponent at 40, but base * 2^40 overflows the interval type for a base of a minute or more.)
BEGIN;
SELECT plan(3);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;
-- The tasks this file enqueues: every enqueue needs a declared task (jobq.define_task is
-- idempotent and puts back a task whose declaration differs).
SELECT FROM jobq.define_task('t');

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
