BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') $$, 'setup: one due job');

SELECT throws_ok($$ SELECT * FROM jobq.claim_job('', ARRAY['q']) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'claim_job refuses an empty worker_id');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job(NULL, ARRAY['q']) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'claim_job refuses a NULL worker_id');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY[]::text[]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: queues must be a non-empty array without NULLs', 'claim_job refuses an empty queue array');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q', NULL]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: queues must be a non-empty array without NULLs', 'claim_job refuses a queue array with a NULL');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 0) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: max_jobs 0 is outside 1..10000', 'claim_job refuses max_jobs 0');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 10001) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: max_jobs 10001 is outside 1..10000', 'claim_job refuses max_jobs above 10000');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], NULL) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: max_jobs NULL is outside 1..10000', 'claim_job refuses a NULL max_jobs');
SELECT is((SELECT state FROM jobq.jobs WHERE queue = 'q'), 'queued', 'the refused claims took nothing');

SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', '{{q,r},{s,t}}'::text[]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: queues must be a one-dimensional array, not 2-dimensional',
    'claim_job refuses a queue list of more than one dimension');
SELECT * FROM finish();
ROLLBACK;
