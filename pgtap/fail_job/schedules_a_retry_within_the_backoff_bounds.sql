-- A retryable failure puts the job back as retry_pending at now() + backoff_delay(attempt,
-- backoff_base, backoff_max) from the settings: within [ceiling/2, ceiling], ceiling =
-- min(backoff_max, backoff_base * 2^(attempt-1)).
BEGIN;
SELECT plan(12);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('flaky');

SELECT is(jobq.set_setting('backoff_base', '10 seconds'), '10 seconds', 'setup: backoff_base 10 seconds');
SELECT is(jobq.set_setting('backoff_max', '1 minute'), '1 minute', 'setup: backoff_max 1 minute');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('flaky', queue => 'q') AS id;

-- Attempt 1: ceiling 10 s.
CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c1), (SELECT lease_token FROM c1), 'HTTP 503', 'UPSTREAM_503'), 'retry_pending',
          'fail_job of a retryable attempt with attempts left returns retry_pending');
SELECT results_eq(
    $$ SELECT state, attempt, reason, last_error, error_code, lease_token, lease_expires_at FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('retry_pending'::text, 1, 'error'::text, 'HTTP 503'::text, 'UPSTREAM_503'::text, NULL::uuid, NULL::timestamptz) $$,
    'the failed job waits as retry_pending, keeps its attempt, records last_error and error_code, holds no lease');
SELECT ok((SELECT run_at BETWEEN now() + interval '5 seconds' AND now() + interval '10 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          'after attempt 1 the retry is due within [base/2, base] = [5 s, 10 s]');

-- Attempt 2: ceiling 20 s.
CREATE TEMP TABLE c2 AS SELECT * FROM jobq._claim('w', ARRAY['q'], 1, '30 seconds', now() + interval '1 hour');
SELECT is((SELECT attempt FROM c2), 2, 'the retry is claimed as attempt 2');
SELECT is(jobq.fail_job((SELECT id FROM c2), (SELECT lease_token FROM c2), 'HTTP 503 again'), 'retry_pending', 'attempt 2 fails');
SELECT ok((SELECT run_at BETWEEN now() + interval '10 seconds' AND now() + interval '20 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          'after attempt 2 the retry is due within [10 s, 20 s]');

-- Attempt 3: ceiling 40 s.
CREATE TEMP TABLE c3 AS SELECT * FROM jobq._claim('w', ARRAY['q'], 1, '30 seconds', now() + interval '2 hours');
SELECT is(jobq.fail_job((SELECT id FROM c3), (SELECT lease_token FROM c3), 'x'), 'retry_pending', 'attempt 3 fails');
SELECT ok((SELECT run_at BETWEEN now() + interval '20 seconds' AND now() + interval '40 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          'after attempt 3 the retry is due within [20 s, 40 s]');

-- Attempt 4: 80 s capped at backoff_max 60 s.
CREATE TEMP TABLE c4 AS SELECT * FROM jobq._claim('w', ARRAY['q'], 1, '30 seconds', now() + interval '3 hours');
SELECT is(jobq.fail_job((SELECT id FROM c4), (SELECT lease_token FROM c4), 'x'), 'retry_pending', 'attempt 4 fails');
SELECT ok((SELECT run_at BETWEEN now() + interval '30 seconds' AND now() + interval '60 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          'after attempt 4 the ceiling is capped at backoff_max: the retry is due within [30 s, 60 s]');

SELECT * FROM finish();
ROLLBACK;
