BEGIN;
SELECT plan(5);

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
SELECT FROM jobq.define_task('digest');

CREATE TEMP TABLE first AS
SELECT jobq.enqueue('digest', '{"v": 1}', job_key => 'pgtap:digest:7', queue => 'pgtap_digest') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['pgtap_digest']);
SELECT is(jobq.fail_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed), 'boom', retry_in => '1 hour'),
          'retry_pending', 'setup: the keyed job failed once and waits for its retry in an hour');

CREATE TEMP TABLE second AS
SELECT jobq.enqueue('digest', '{"v": 2}', run_at => now() + interval '1 day', job_key => 'pgtap:digest:7',
                    job_key_mode => 'preserve_run_at') AS id;

SELECT is((SELECT id FROM second), (SELECT id FROM first), 'preserve_run_at returns the id of the job that holds the key');
SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT id FROM first)), '{"v": 2}'::jsonb,
          'preserve_run_at replaces the payload');
SELECT results_eq(
    $$ SELECT run_at, attempt, state, reason FROM jobq.jobs WHERE id = (SELECT id FROM first) $$,
    $$ VALUES (now() + interval '1 hour', 1, 'retry_pending'::text, 'error'::text) $$,
    'preserve_run_at keeps run_at, attempt, state and reason of the waiting job');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:digest:7'), 1::bigint, 'preserve_run_at creates no second job');

SELECT * FROM finish();
ROLLBACK;
