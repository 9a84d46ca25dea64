BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('orphan', 'slow');

CREATE TEMP TABLE jobs AS
SELECT jobq.enqueue('orphan', queue => 'q', max_attempts => 1) AS orphan,
       jobq.enqueue('slow', queue => 'q', max_attempts => 1, timeout => '1 minute') AS slow;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 2, '30 seconds');
-- Keep the slow job's lease alive so that only its deadline passes.
SELECT is((SELECT count(*) FROM jobq.heartbeat_jobs('w', ARRAY(SELECT id FROM c WHERE task = 'slow'), ARRAY(SELECT lease_token FROM c WHERE task = 'slow'), '1 hour')),
          1::bigint, 'setup: the slow job''s lease is renewed for an hour');

SELECT set_eq(
    $$ SELECT job_id, outcome, reason FROM jobq._rescue(100, now() + interval '2 minutes') $$,
    $$ SELECT orphan AS job_id, 'dead'::text AS outcome, 'orphaned'::text AS reason FROM jobs UNION ALL SELECT slow, 'dead', 'timed_out' FROM jobs $$,
    'jobs that used their last attempt are reported dead with reason orphaned or timed_out');
SELECT is_empty($$ SELECT 1 FROM jobq.jobs WHERE id IN (SELECT orphan FROM jobs UNION ALL SELECT slow FROM jobs) $$,
                'the dead jobs are gone from jobq.jobs');
SELECT results_eq(
    $$ SELECT state, reason, attempt, last_error LIKE 'orphaned: %' FROM jobq.job_history WHERE id = (SELECT orphan FROM jobs) $$,
    $$ VALUES ('dead'::text, 'orphaned'::text, 1, true) $$,
    'the orphaned one is in history as dead, reason orphaned, with the rescue message as last_error');
SELECT results_eq(
    $$ SELECT state, reason, attempt, last_error LIKE 'timed out: %' FROM jobq.job_history WHERE id = (SELECT slow FROM jobs) $$,
    $$ VALUES ('dead'::text, 'timed_out'::text, 1, true) $$,
    'the timed-out one is in history as dead, reason timed_out, with the rescue message as last_error');

SELECT * FROM finish();
ROLLBACK;
