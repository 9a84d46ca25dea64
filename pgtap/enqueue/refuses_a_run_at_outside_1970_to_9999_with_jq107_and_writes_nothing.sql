-- run_at is finite, from 1970-01-01 to 9999-12-31 (UTC): -infinity, infinity and earlier or later
-- timestamps are refused with JOB.OUT_OF_RANGE naming run_at, and nothing is written. (Keyed, or
-- through enqueue_many: keyless enqueue checks it once the fast path calls jobq._spec_in_bounds.)
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('t', app_enqueue => true);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
SET LOCAL TimeZone = 'UTC';

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT jobq.enqueue('t', run_at => '-infinity', job_key => 'k') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: run_at -infinity is outside 1970-01-01 .. 9999-12-31 (UTC)', 'run_at -infinity is refused');
SELECT throws_ok($$ SELECT jobq.enqueue('t', run_at => 'infinity', job_key => 'k') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: run_at infinity is outside 1970-01-01 .. 9999-12-31 (UTC)', 'run_at infinity is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t"}, {"task": "t", "run_at": "1969-12-31T23:59:59Z"}]') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: job 2: run_at 1969-12-31 23:59:59+00 is outside 1970-01-01 .. 9999-12-31 (UTC)',
    'enqueue_many refuses a keyless job due before 1970, naming the element');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t", "run_at": "10000-01-01T00:00:00Z"}]') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: job 1: run_at 10000-01-01 00:00:00+00 is outside 1970-01-01 .. 9999-12-31 (UTC)',
    'enqueue_many refuses a job due in year 10000');
SELECT lives_ok($$ SELECT jobq.enqueue_many('[{"task": "t", "run_at": "1970-01-01T00:00:00Z"}, {"task": "t", "run_at": "9999-12-31T23:59:59Z"}]') $$,
    'the first and last accepted instants are accepted');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 2, 'only the jobs within the range were written');

SELECT * FROM finish();
ROLLBACK;
