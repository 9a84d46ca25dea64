-- The limits column of jobq.queue_states, jobq.queue_summary and jobq.stats has one definition,
-- the private helper jobq._queue_limits(jobq.queues): each of the three calls it, and no runtime
-- role may execute it (the public functions run it as the engine's owner).
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();

SELECT function_privs_are('jobq', '_queue_limits', ARRAY['jobq.queues'], r.role, ARRAY[]::text[],
                          format('%s cannot execute jobq._queue_limits', r.role))
FROM (VALUES ('jobq_operator'), ('jobq_app'), ('jobq_app_gate'), ('worker_runtime'), ('worker_fanout_owner'), ('jobq_viewer')) AS r(role)
ORDER BY r.role;
SELECT ok(NOT has_function_privilege('public', 'jobq._queue_limits(jobq.queues)', 'EXECUTE'), 'nor PUBLIC');
SELECT is(
    (SELECT array_agg(p.proname::text ORDER BY p.proname) FROM pg_catalog.pg_proc p
     WHERE p.pronamespace = 'jobq'::regnamespace AND p.prosrc LIKE '%jobq.\_queue\_limits(%' AND p.proname <> '_queue_limits'),
    ARRAY['_stats', 'queue_list', 'queue_states', 'queue_summary'],
    'queue_list, queue_states, queue_summary and the body of stats call it');

SELECT * FROM finish();
ROLLBACK;
