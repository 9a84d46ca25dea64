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
SELECT FROM jobq.define_task('a');

CREATE TEMP TABLE before AS SELECT (SELECT count(*) FROM jobq.jobs) AS jobs;

SELECT throws_ok($$ SELECT jobq.enqueue_many('{"task": "a"}') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: jobs must be a JSON array of job objects, not object',
    'enqueue_many refuses a JSON object with JQ100');
SELECT throws_ok($$ SELECT jobq.enqueue_many('"a"') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: jobs must be a JSON array of job objects, not string',
    'enqueue_many refuses a JSON string with JQ100');
SELECT throws_ok($$ SELECT jobq.enqueue_many(NULL) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: jobs must be a JSON array of job objects, not NULL',
    'enqueue_many refuses NULL with JQ100');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "a"}, 1]') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job 2: every element of jobs must be a JSON object, not number',
    'enqueue_many refuses an array with a non-object element with JQ100');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before), 'the refused calls wrote no job');

SELECT * FROM finish();
ROLLBACK;
