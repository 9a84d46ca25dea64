BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', max_attempts => 3) AS id;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('vanished-worker', ARRAY['q'], 1, '30 seconds');

SELECT is_empty($$ SELECT * FROM jobq.rescue_expired() $$, 'rescue_expired leaves a lease that has not expired yet');
SELECT is_empty($$ SELECT * FROM jobq._rescue(100, now() + interval '29 seconds') $$, 'nor one second before it expires');

SELECT results_eq(
    $$ SELECT job_id, outcome, reason FROM jobq._rescue(100, now() + interval '31 seconds') $$,
    $$ SELECT id, 'retry_pending'::text, 'orphaned'::text FROM job $$,
    'an expired lease is rescued: outcome retry_pending, reason orphaned');
SELECT results_eq(
    $$ SELECT state, reason, run_at, attempt, lease_token, lease_expires_at, updated_at FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('retry_pending'::text, 'orphaned'::text, now() + interval '31 seconds', 1, NULL::uuid, NULL::timestamptz, now() + interval '31 seconds') $$,
    'the orphaned job is due at once (run_at = sweep time), keeps its attempt and holds no lease');
SELECT matches((SELECT last_error FROM jobq.jobs WHERE id = (SELECT id FROM job)), '^orphaned: lease expired at .* \(worker vanished-worker\)$',
               'last_error says the lease expired and names the worker');
SELECT is((SELECT id FROM jobq._claim('w2', ARRAY['q'], 1, '30 seconds', now() + interval '31 seconds')), (SELECT id FROM job),
          'the orphaned job can be claimed again right away');

SELECT * FROM finish();
ROLLBACK;
