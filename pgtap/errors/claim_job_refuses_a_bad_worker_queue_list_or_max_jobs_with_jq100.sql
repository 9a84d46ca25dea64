BEGIN;
SELECT plan(9);

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

SELECT * FROM finish();
ROLLBACK;
