BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', max_attempts => 10) AS id;
CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);

SELECT is(jobq.fail_job((SELECT id FROM c1), (SELECT lease_token FROM c1), 'invalid address', 'BAD_INPUT', retryable => false), 'dead',
          'a non-retryable failure returns dead although attempts are left');
SELECT is_empty($$ SELECT 1 FROM jobq.jobs WHERE id = (SELECT id FROM job) $$, 'the job is gone from jobq.jobs');
SELECT results_eq(
    $$ SELECT state, reason, attempt, last_error, error_code FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('dead'::text, 'not_retryable'::text, 1, 'invalid address'::text, 'BAD_INPUT'::text) $$,
    'the job is in history as dead, reason not_retryable, attempt 1');

SELECT * FROM finish();
ROLLBACK;
