BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

SELECT throws_ok($$ SELECT jobq.enqueue('t', queue => '  ') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: queue is empty', 'enqueue refuses a blank queue');
SELECT throws_ok($$ SELECT jobq.enqueue('t', job_key => '') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job_key is empty; pass NULL for no key', 'enqueue refuses an empty job_key');
SELECT throws_ok($$ SELECT jobq.enqueue('t', priority => 40000) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: priority 40000 is outside -32768..32767', 'enqueue refuses a priority outside smallint');
SELECT throws_ok($$ SELECT jobq.enqueue('t', backoff_base => '0') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: backoff_base and backoff_max must be positive', 'enqueue refuses a zero backoff_base');
SELECT throws_ok($$ SELECT jobq.enqueue('t', backoff_max => '-1 second') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: backoff_base and backoff_max must be positive', 'enqueue refuses a negative backoff_max');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'the refused enqueues wrote nothing');

SELECT * FROM finish();
ROLLBACK;
