-- A batch of store jobs from an application reads the caller's store (jobq.current_store_id, a
-- query of jobq.store_bindings) a few times a batch, not once a job: enqueue_many reads the
-- caller's facts before its fast path's check, and the gate's insert policy reads them in
-- sub-selects, once a statement. Read once a job, they took about half of a batch's time (1,000
-- store jobs, docs/benchmarks.md). pg_stat_xact_user_functions counts the calls.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-once-store', scope => 'store');
SET LOCAL track_functions = 'all';

CREATE FUNCTION pg_temp.store_reads() RETURNS bigint LANGUAGE sql AS $$
    SELECT coalesce(sum(f.calls), 0)::bigint FROM pg_catalog.pg_stat_xact_user_functions f
    WHERE f.schemaname = 'jobq' AND f.funcname = 'current_store_id'
$$;
CREATE TEMP TABLE before AS SELECT pg_temp.store_reads() AS n;

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT is((SELECT count(*) FROM jobq.enqueue_many(
              (SELECT jsonb_agg(jsonb_build_object('task', 'pgtap-once-store',
                                                   'payload', jsonb_build_object('storeId', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'n', g)))
               FROM generate_series(1, 200) AS g))),
          200::bigint, 'an application enqueues 200 jobs of its store in one batch');
RESET ROLE;

SELECT cmp_ok(pg_temp.store_reads() - (SELECT n FROM before), '<=', 10::bigint,
              'the batch read the caller''s store at most 10 times, not once or twice a job');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-once-store' AND store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'),
          200::bigint, 'every job belongs to the caller''s store');

SELECT * FROM finish();
ROLLBACK;
