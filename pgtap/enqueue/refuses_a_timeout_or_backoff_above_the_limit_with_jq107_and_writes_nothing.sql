-- timeout is at most 7 days, backoff_base and backoff_max at most 30 days: a larger one is refused
-- with JOB.OUT_OF_RANGE naming it, and nothing is written. (Keyed, or through enqueue_many:
-- keyless enqueue checks it once the fast path calls jobq._spec_in_bounds.)
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('t', app_enqueue => true);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT jobq.enqueue('t', queue => 'q', timeout => '1000000 years') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: timeout 1000000 years is above the limit of 7 days', 'a timeout of 1000000 years is refused');
SELECT throws_ok($$ SELECT jobq.enqueue('t', timeout => '7 days 00:00:01') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: timeout 7 days 00:00:01 is above the limit of 7 days', 'a timeout one second above 7 days is refused');
SELECT throws_ok($$ SELECT jobq.enqueue('t', timeout => '1 second', backoff_base => '1000000 years',
                                        backoff_max => '1000000 years') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: backoff_base 1000000 years is above the limit of 30 days', 'a backoff_base of 1000000 years is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t", "backoff_max": "31 days"}]') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: job 1: backoff_max 31 days is above the limit of 30 days',
    'enqueue_many refuses a keyless job with a backoff_max of 31 days, naming the element');
SELECT lives_ok($$ SELECT jobq.enqueue('t', timeout => '7 days', backoff_base => '30 days', backoff_max => '1 mon') $$,
    'a timeout of 7 days and backoffs of 30 days are accepted');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 1, 'only the job within the limits was written');

SELECT * FROM finish();
ROLLBACK;
