BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', '{"n": 1}', queue => 'q', max_attempts => 2) AS id;

CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c1), (SELECT lease_token FROM c1), 'first'), 'retry_pending', 'attempt 1 of 2 is retried');

CREATE TEMP TABLE c2 AS SELECT * FROM jobq._claim('w', ARRAY['q'], 1, '30 seconds', now() + interval '1 hour');
SELECT is(jobq.fail_job((SELECT id FROM c2), (SELECT lease_token FROM c2), 'second', 'E_SECOND'), 'dead',
          'failing attempt max_attempts returns dead');
SELECT is_empty($$ SELECT 1 FROM jobq.jobs WHERE id = (SELECT id FROM job) $$, 'the dead job is gone from jobq.jobs');
SELECT results_eq(
    $$ SELECT state, reason, attempt, max_attempts, last_error, error_code, payload, finished_at FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('dead'::text, 'exhausted'::text, 2, 2, 'second'::text, 'E_SECOND'::text, '{"n": 1}'::jsonb, now()) $$,
    'the job is in history as dead, reason exhausted, with the last error');
SELECT is_empty($$ SELECT * FROM jobq._claim('w', ARRAY['q'], 1, '30 seconds', now() + interval '1 year') $$,
                'a dead job is never claimed again');

SELECT * FROM finish();
ROLLBACK;
