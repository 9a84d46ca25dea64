BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE jobs AS
SELECT jobq.enqueue('t', queue => 'q') AS queued,
       jobq.enqueue('t', queue => 'r') AS running,
       jobq.enqueue('t', queue => 's') AS retry_pending;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['r', 's'], 2);
SELECT is(jobq.fail_job((SELECT id FROM c WHERE queue = 's'), (SELECT lease_token FROM c WHERE queue = 's'), 'x'), 'retry_pending',
          'setup: a queued, a running and a retry_pending job');

SELECT results_eq(
    $$ VALUES (jobq.cancel_job((SELECT queued FROM jobs))), (jobq.cancel_job((SELECT running FROM jobs))), (jobq.cancel_job((SELECT retry_pending FROM jobs))) $$,
    $$ VALUES ('canceled'), ('canceled'), ('canceled') $$,
    'cancel_job returns canceled for a queued, a running and a retry_pending job');
SELECT is_empty($$ SELECT 1 FROM jobq.jobs WHERE id IN (SELECT unnest(ARRAY[queued, running, retry_pending]) FROM jobs) $$,
                'canceled jobs are gone from jobq.jobs');
SELECT results_eq(
    $$ SELECT state, reason, finished_at FROM jobq.job_history WHERE id IN (SELECT unnest(ARRAY[queued, running, retry_pending]) FROM jobs) ORDER BY id $$,
    $$ VALUES ('canceled'::text, 'canceled'::text, now()), ('canceled', 'canceled', now()), ('canceled', 'canceled', now()) $$,
    'canceled jobs are in jobq.job_history as canceled, finished now');
SELECT is((SELECT attempt FROM jobq.job_history WHERE id = (SELECT running FROM jobs)), 1, 'the canceled running job keeps its attempt count');

SELECT * FROM finish();
ROLLBACK;
