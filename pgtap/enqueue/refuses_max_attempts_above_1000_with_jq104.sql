-- max_attempts is 1..1000: above is refused with JOB.MAX_ATTEMPTS_INVALID naming it.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('t', app_enqueue => true);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT jobq.enqueue('t', max_attempts => 1001) $$,
    'JQ104', 'JOB.MAX_ATTEMPTS_INVALID: max_attempts 1001 is outside 1..1000', 'max_attempts 1001 is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t", "max_attempts": 2147483647}]') $$,
    'JQ104', 'JOB.MAX_ATTEMPTS_INVALID: job 1: max_attempts 2147483647 is outside 1..1000', 'enqueue_many refuses the largest integer');
SELECT lives_ok($$ SELECT jobq.enqueue('t', max_attempts => 1000) $$, 'max_attempts 1000 is accepted');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 1, 'only the job within the limit was written');

SELECT * FROM finish();
ROLLBACK;
