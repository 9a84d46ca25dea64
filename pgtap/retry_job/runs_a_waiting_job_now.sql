BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE jobs AS
SELECT jobq.enqueue('t', queue => 'q', run_at => now() + interval '1 day') AS scheduled,
       jobq.enqueue('t', queue => 'r') AS failing;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['r']);
SELECT is(jobq.fail_job((SELECT id FROM c), (SELECT lease_token FROM c), 'x', retry_in => '1 hour'), 'retry_pending',
          'setup: one job waits an hour for its retry');

SELECT is(jobq.retry_job((SELECT scheduled FROM jobs)), 'queued', 'retry_job of a scheduled job returns queued');
SELECT results_eq(
    $$ SELECT state, run_at, attempt FROM jobq.jobs WHERE id = (SELECT scheduled FROM jobs) $$,
    $$ VALUES ('queued'::text, now(), 0) $$,
    'a scheduled job is due now after retry_job');

SELECT is(jobq.retry_job((SELECT failing FROM jobs)), 'queued', 'retry_job of a retry_pending job returns queued');
SELECT results_eq(
    $$ SELECT state, run_at, attempt, last_error FROM jobq.jobs WHERE id = (SELECT failing FROM jobs) $$,
    $$ VALUES ('queued'::text, now(), 1, 'x'::text) $$,
    'a retry_pending job is queued and due now, keeping its attempts and last error');
SELECT set_eq($$ SELECT id FROM jobq.claim_job('w', ARRAY['q', 'r'], 10) $$, $$ SELECT scheduled FROM jobs UNION ALL SELECT failing FROM jobs $$,
              'both jobs can be claimed at once');

SELECT * FROM finish();
ROLLBACK;
