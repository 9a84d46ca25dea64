BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

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
