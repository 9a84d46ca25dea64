-- One enqueue_many takes at most 100000 jobs.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('t', app_enqueue => true);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT count(*) FROM jobq.enqueue_many((SELECT jsonb_agg(jsonb_build_object('task', 't')) FROM generate_series(1, 100001))) $$,
    'JQ107', 'JOB.OUT_OF_RANGE: jobs has 100001 elements; the limit is 100000', '100001 jobs are refused');
SELECT is((SELECT count(*) FROM jobq.enqueue_many((SELECT jsonb_agg(jsonb_build_object('task', 't')) FROM generate_series(1, 10000)))),
          10000::bigint, '10000 jobs are accepted (the limit is not the batch limit of 10000 of the lease functions)');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 10000, 'the refused batch wrote nothing');

SELECT * FROM finish();
ROLLBACK;
