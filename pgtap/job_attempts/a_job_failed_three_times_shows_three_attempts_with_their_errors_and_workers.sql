-- Every failed attempt keeps its error, code, worker, start, end and reason in jobq.job_attempts,
-- written by fail_jobs in the statement that fails the lease; a succeeded attempt has no row.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', max_attempts => 3) AS id;

CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('worker-1', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c1), (SELECT lease_token FROM c1), 'first', 'E1', true, '0 seconds'), 'retry_pending', 'setup: attempt 1 fails');
CREATE TEMP TABLE c2 AS SELECT * FROM jobq.claim_job('worker-2', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c2), (SELECT lease_token FROM c2), 'second', NULL, true, '0 seconds'), 'retry_pending', 'setup: attempt 2 fails');
CREATE TEMP TABLE c3 AS SELECT * FROM jobq.claim_job('worker-3', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c3), (SELECT lease_token FROM c3), 'third', 'E3'), 'dead', 'setup: attempt 3 fails and the job is dead');

SELECT results_eq(
    $$ SELECT attempt, worker, reason, error, error_code, task, queue, started_at IS NOT NULL, ended_at
       FROM jobq.job_attempts WHERE job_id = (SELECT id FROM job) ORDER BY attempt $$,
    $$ VALUES (1, 'worker-1'::text, 'error'::text, 'first'::text, 'E1'::text, 't'::text, 'q'::text, true, now()),
              (2, 'worker-2', 'error', 'second', NULL, 't', 'q', true, now()),
              (3, 'worker-3', 'exhausted', 'third', 'E3', 't', 'q', true, now()) $$,
    'three attempts, each with its worker, reason, error and code');

SELECT * FROM finish();
ROLLBACK;
