BEGIN;
SELECT plan(6);

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
