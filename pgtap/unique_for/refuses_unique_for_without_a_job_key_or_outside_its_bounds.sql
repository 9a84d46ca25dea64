-- unique_for needs a job_key (JOB.INVALID_ARGUMENT, JQ100), is positive (JOB.LEASE_INVALID, JQ105)
-- and at most 365 days (JOB.OUT_OF_RANGE, JQ107), through enqueue and enqueue_many alike; a
-- refused call writes nothing.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('t', app_enqueue => true);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT throws_ok($$ SELECT jobq.enqueue('t', unique_for => '1 hour') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: unique_for needs a job_key: it is the period over which the key is unique',
    'unique_for without a job_key is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t"}, {"task": "t", "unique_for": "1 hour"}]') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job 2: unique_for needs a job_key: it is the period over which the key is unique',
    'enqueue_many refuses an element with unique_for and no job_key, naming it');
SELECT throws_ok($$ SELECT jobq.enqueue('t', job_key => 'k', unique_for => '0 seconds') $$,
    'JQ105', 'JOB.LEASE_INVALID: unique_for 00:00:00 is not positive', 'a zero unique_for is refused');
SELECT throws_ok($$ SELECT jobq.enqueue('t', job_key => 'k', unique_for => '-1 hour') $$,
    'JQ105', 'JOB.LEASE_INVALID: unique_for -01:00:00 is not positive', 'a negative unique_for is refused');
SELECT throws_ok($$ SELECT jobq.enqueue('t', job_key => 'k', unique_for => '365 days 00:00:01') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: unique_for 365 days 00:00:01 is above the limit of 365 days',
    'a unique_for one second above 365 days is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t", "job_key": "k", "unique_for": "1000000 years"}]') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: job 1: unique_for 1000000 years is above the limit of 365 days',
    'enqueue_many refuses a unique_for of 1000000 years, naming the element');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t", "job_key": "k", "unique_for": "soon"}]') $$,
    'JQ100', NULL, 'enqueue_many refuses a unique_for that is no interval');
SELECT lives_ok($$ SELECT jobq.enqueue('t', job_key => 'k', unique_for => '365 days') $$, 'a unique_for of 365 days is accepted');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 1, 'only the job within the limits was written');

SELECT * FROM finish();
ROLLBACK;
