BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('later');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('later', run_at => now() + interval '10 minutes', queue => 'q') AS id;

SELECT is_empty($$ SELECT * FROM jobq.claim_job('w1', ARRAY['q']) $$, 'claim_job does not claim a job whose run_at is in the future');
SELECT is_empty($$ SELECT * FROM jobq._claim('w1', ARRAY['q'], 1, '30 seconds', now() + interval '9 minutes 59 seconds') $$,
                'the job is not claimed one second before its run_at');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM job)), 'queued', 'the job stays queued until it is due');
SELECT results_eq(
    $$ SELECT id, claimed_at, lease_expires_at FROM jobq._claim('w1', ARRAY['q'], 1, '30 seconds', now() + interval '10 minutes') $$,
    $$ SELECT id, now() + interval '10 minutes', now() + interval '10 minutes 30 seconds' FROM job $$,
    'the job is claimed once run_at has come, with the lease counted from the claim time');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM job)), 'running', 'the due job is running');

SELECT * FROM finish();
ROLLBACK;
