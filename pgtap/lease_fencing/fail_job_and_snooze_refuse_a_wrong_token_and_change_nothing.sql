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
SELECT FROM jobq.define_task('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['q']);
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM job);

SELECT throws_ok(
    format('SELECT jobq.fail_job(%s, %L, %L)', (SELECT id FROM job), gen_random_uuid(), 'boom'),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM job)),
    'fail_job refuses a token that is not the claim''s with JQ201 JOB.LEASE_LOST');
SELECT throws_ok(
    format('SELECT jobq.fail_job(%s, %L, %L, retryable => false)', (SELECT id FROM job), gen_random_uuid(), 'boom'),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM job)),
    'fail_job refuses a wrong token for a non-retryable failure too');
SELECT throws_ok(
    format('SELECT jobq.snooze(%s, %L, %L)', (SELECT id FROM job), gen_random_uuid(), '1 minute'),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM job)),
    'snooze refuses a token that is not the claim''s with JQ201 JOB.LEASE_LOST');
SELECT is_empty($$ SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM job) EXCEPT SELECT * FROM snapshot $$,
                'the refused calls leave the running job exactly as it was');
SELECT is_empty($$ SELECT 1 FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
                'the refused calls write no history row');

SELECT * FROM finish();
ROLLBACK;
