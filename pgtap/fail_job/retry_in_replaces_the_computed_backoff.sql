BEGIN;
SELECT plan(4);

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

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 2) $$, 'setup: two jobs');
CREATE TEMP TABLE claimed AS SELECT row_number() OVER (ORDER BY id) AS n, * FROM jobq.claim_job('w', ARRAY['q'], 2);

SELECT is(jobq.fail_job((SELECT id FROM claimed WHERE n = 1), (SELECT lease_token FROM claimed WHERE n = 1), 'rate limited',
                        retry_in => '5 minutes'), 'retry_pending', 'fail_job with retry_in returns retry_pending');
SELECT is((SELECT run_at FROM jobq.jobs WHERE id = (SELECT id FROM claimed WHERE n = 1)), now() + interval '5 minutes',
          'retry_in sets run_at to exactly now() + retry_in');
SELECT results_eq(
    $$ SELECT outcome, run_at FROM jobq.fail_jobs(ARRAY[(SELECT id FROM claimed WHERE n = 2)], ARRAY[(SELECT lease_token FROM claimed WHERE n = 2)],
                                                  ARRAY['retry now'], retry_in => ARRAY[interval '0']) $$,
    $$ VALUES ('retry_pending'::text, now()) $$,
    'a zero retry_in makes the job due at once, and fail_jobs returns the new run_at');

SELECT * FROM finish();
ROLLBACK;
