BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', '{"a": 1}', queue => 'q', max_attempts => 3) AS id;
CREATE TEMP TABLE created AS SELECT created_at FROM jobq.jobs WHERE id = (SELECT id FROM job);
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c), (SELECT lease_token FROM c), 'fatal', 'E_FATAL', retryable => false), 'dead', 'setup: the job is dead');

SELECT is(jobq.retry_job((SELECT id FROM job)), 'queued', 'retry_job of a dead job returns queued');
SELECT results_eq(
    $$ SELECT id, state, attempt, max_attempts, run_at, reason, payload, last_error, error_code, lease_token, created_at
       FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ SELECT (SELECT id FROM job), 'queued'::text, 0, 3, now(), 'requeued'::text, '{"a": 1}'::jsonb, 'fatal'::text, 'E_FATAL'::text,
              NULL::uuid, created_at FROM created $$,
    'the dead job is back in jobq.jobs with the same id: queued, attempt 0, due now, reason requeued, history kept');
SELECT is_empty($$ SELECT 1 FROM jobq.job_history WHERE id = (SELECT id FROM job) $$, 'the job left jobq.job_history');

-- A canceled job comes back the same way.
CREATE TEMP TABLE other AS SELECT jobq.enqueue('t', queue => 'q2') AS id;
SELECT is(jobq.cancel_job((SELECT id FROM other)), 'canceled', 'setup: a second job is canceled');
SELECT is(jobq.retry_job((SELECT id FROM other)), 'queued', 'retry_job of a canceled job returns queued');
SELECT results_eq(
    $$ SELECT state, attempt, reason FROM jobq.jobs WHERE id = (SELECT id FROM other) $$,
    $$ VALUES ('queued'::text, 0, 'requeued'::text) $$,
    'the canceled job is queued again with attempt 0, reason requeued');

SELECT * FROM finish();
ROLLBACK;
