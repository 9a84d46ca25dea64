BEGIN;
SELECT plan(7);

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

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);

SELECT is(jobq.cancel_job((SELECT id FROM job)), 'canceled', 'setup: the running job is canceled');

SELECT throws_ok(format('SELECT jobq.heartbeat(%L, %s, %L)', 'w', (SELECT id FROM job), (SELECT lease_token FROM c)),
    'JQ201', NULL, 'heartbeat of a canceled job raises JQ201, so the runner stops the handler');
SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM job), (SELECT lease_token FROM c)),
    'JQ201', NULL, 'complete_job of a canceled job raises JQ201');
SELECT throws_ok(format('SELECT jobq.fail_job(%s, %L, %L)', (SELECT id FROM job), (SELECT lease_token FROM c), 'late'),
    'JQ201', NULL, 'fail_job of a canceled job raises JQ201');
SELECT throws_ok(format('SELECT jobq.snooze(%s, %L, %L)', (SELECT id FROM job), (SELECT lease_token FROM c), '0'),
    'JQ201', NULL, 'snooze of a canceled job raises JQ201');
SELECT results_eq(
    $$ SELECT state, reason FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('canceled'::text, 'canceled'::text) $$,
    'the canceled job stays canceled in history');
SELECT is_empty($$ SELECT 1 FROM jobq.jobs WHERE id = (SELECT id FROM job) $$, 'and nothing brought it back to jobq.jobs');

SELECT * FROM finish();
ROLLBACK;
