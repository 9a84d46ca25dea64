-- All or nothing: one invalid element raises its catalogued error naming its position.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('ok', 'ok-too', 'a', 'b', 'c');

CREATE TEMP TABLE before AS SELECT (SELECT count(*) FROM jobq.jobs) AS jobs;

SELECT throws_ok(
    $$ SELECT jobq.enqueue_many('[{"task": "ok"}, {"task": ""}, {"task": "ok-too"}]') $$,
    'JQ101', 'JOB.TASK_REQUIRED: job 2: task is NULL or empty',
    'enqueue_many names the position of an element without a task');
SELECT throws_ok(
    $$ SELECT jobq.enqueue_many('[{"task": "ok"}, {"task": "b", "max_attempts": 0}]') $$,
    'JQ104', 'JOB.MAX_ATTEMPTS_INVALID: job 2: max_attempts is 0; it must be at least 1',
    'enqueue_many names the position of an element with max_attempts 0');
SELECT throws_ok(
    $$ SELECT jobq.enqueue_many('[{"task": "a", "job_key": "k"}, {"task": "b"}, {"task": "c", "payload": [1]}]') $$,
    'JQ102', 'JOB.PAYLOAD_NOT_OBJECT: job 3: payload is a JSON array, not an object',
    'enqueue_many names the position of an element whose payload is not an object');
SELECT throws_ok(
    $$ SELECT jobq.enqueue_many('[{"task": "a", "job_key_mode": "merge"}, {"task": ""}]') $$,
    'JQ103', 'JOB.UNKNOWN_JOB_KEY_MODE: job 1: job_key_mode ''merge'' is not replace, preserve_run_at or unsafe_dedupe',
    'enqueue_many reports the first invalid element');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before),
          'a refused batch writes no job, not even its valid elements');

SELECT throws_ok(
    $$ SELECT jobq.enqueue('') $$,
    'JQ101', 'JOB.TASK_REQUIRED: task is NULL or empty',
    'enqueue of one job does not name a position');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before),
          'a refused enqueue writes nothing');

SELECT * FROM finish();
ROLLBACK;
