BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', timeout => '1 minute') AS id;
-- A long lease, renewed by heartbeats in real life: only the timeout can end this attempt.
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('slow-worker', ARRAY['q'], 1, '10 minutes');

SELECT is_empty($$ SELECT * FROM jobq._rescue(100, now() + interval '59 seconds') $$, 'a job within its timeout is left running');
SELECT results_eq(
    $$ SELECT job_id, outcome, reason FROM jobq._rescue(100, now() + interval '2 minutes') $$,
    $$ SELECT id, 'retry_pending'::text, 'timed_out'::text FROM job $$,
    'a job past its deadline is rescued as timed_out although its lease is still valid');
SELECT results_eq(
    $$ SELECT state, reason, attempt, lease_token FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('retry_pending'::text, 'timed_out'::text, 1, NULL::uuid) $$,
    'the timed-out job waits as retry_pending, keeps its attempt and holds no lease');
SELECT ok((SELECT run_at BETWEEN now() + interval '2 minutes 1 second' AND now() + interval '2 minutes 2 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          'a timed-out job retries after its backoff from the sweep time: within [base/2, base] = [1 s, 2 s]');
SELECT matches((SELECT last_error FROM jobq.jobs WHERE id = (SELECT id FROM job)), '^timed out: ran longer than its timeout of 00:01:00 \(worker slow-worker\)$',
               'last_error names the timeout and the worker');

-- When both the lease and the deadline have passed, the deadline decides the reason.
CREATE TEMP TABLE both_passed AS SELECT jobq.enqueue('t', queue => 'q2', timeout => '1 minute') AS id;
CREATE TEMP TABLE c2 AS SELECT * FROM jobq.claim_job('w', ARRAY['q2'], 1, '30 seconds');
SELECT results_eq(
    $$ SELECT job_id, reason FROM jobq._rescue(100, now() + interval '5 minutes') $$,
    $$ SELECT id, 'timed_out'::text FROM both_passed $$,
    'when both the lease and the deadline have passed, the reason is timed_out');

SELECT * FROM finish();
ROLLBACK;
