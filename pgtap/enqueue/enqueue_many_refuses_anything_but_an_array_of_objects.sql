BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('a');

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
