BEGIN;
SELECT plan(14);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

-- JQ101 JOB.TASK_REQUIRED
SELECT throws_ok($$ SELECT jobq.enqueue(NULL) $$, 'JQ101', 'JOB.TASK_REQUIRED: task is NULL or empty', 'enqueue refuses a NULL task with JQ101');
SELECT throws_ok($$ SELECT jobq.enqueue('') $$, 'JQ101', 'JOB.TASK_REQUIRED: task is NULL or empty', 'enqueue refuses an empty task with JQ101');
SELECT throws_ok($$ SELECT jobq.enqueue('   ') $$, 'JQ101', 'JOB.TASK_REQUIRED: task is NULL or empty', 'enqueue refuses a blank task with JQ101');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"payload": {}}]') $$, 'JQ101', 'JOB.TASK_REQUIRED: job 1: task is NULL or empty',
                 'enqueue_many refuses an element without a task with JQ101');

-- JQ102 JOB.PAYLOAD_NOT_OBJECT
SELECT throws_ok($$ SELECT jobq.enqueue('t', '[1]') $$, 'JQ102', 'JOB.PAYLOAD_NOT_OBJECT: payload is a JSON array, not an object',
                 'enqueue refuses an array payload with JQ102');
SELECT throws_ok($$ SELECT jobq.enqueue('t', '"x"') $$, 'JQ102', 'JOB.PAYLOAD_NOT_OBJECT: payload is a JSON string, not an object',
                 'enqueue refuses a string payload with JQ102');
SELECT throws_ok($$ SELECT jobq.enqueue('t', '1') $$, 'JQ102', 'JOB.PAYLOAD_NOT_OBJECT: payload is a JSON number, not an object',
                 'enqueue refuses a number payload with JQ102');
SELECT throws_ok($$ SELECT jobq.enqueue('t', 'null') $$, 'JQ102', 'JOB.PAYLOAD_NOT_OBJECT: payload is a JSON null, not an object',
                 'enqueue refuses a JSON null payload with JQ102');

-- JQ103 JOB.UNKNOWN_JOB_KEY_MODE
SELECT throws_ok($$ SELECT jobq.enqueue('t', job_key => 'k', job_key_mode => 'upsert') $$,
    'JQ103', 'JOB.UNKNOWN_JOB_KEY_MODE: job_key_mode ''upsert'' is not replace, preserve_run_at or unsafe_dedupe',
    'enqueue refuses an unknown job_key_mode with JQ103');
SELECT throws_ok($$ SELECT jobq.enqueue('t', job_key => 'k', job_key_mode => 'REPLACE') $$,
    'JQ103', 'JOB.UNKNOWN_JOB_KEY_MODE: job_key_mode ''REPLACE'' is not replace, preserve_run_at or unsafe_dedupe',
    'job_key_mode is case-sensitive');

-- JQ104 JOB.MAX_ATTEMPTS_INVALID
SELECT throws_ok($$ SELECT jobq.enqueue('t', max_attempts => 0) $$,
    'JQ104', 'JOB.MAX_ATTEMPTS_INVALID: max_attempts is 0; it must be at least 1', 'enqueue refuses max_attempts 0 with JQ104');
SELECT throws_ok($$ SELECT jobq.enqueue('t', max_attempts => -1) $$,
    'JQ104', 'JOB.MAX_ATTEMPTS_INVALID: max_attempts is -1; it must be at least 1', 'enqueue refuses max_attempts -1 with JQ104');

SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'none of the refused enqueues wrote a job');
CREATE TEMP TABLE one AS SELECT jobq.enqueue('t', max_attempts => 1) AS id;
SELECT is((SELECT max_attempts FROM jobq.jobs WHERE id = (SELECT id FROM one)), 1, 'max_attempts 1 is accepted');

SELECT * FROM finish();
ROLLBACK;
