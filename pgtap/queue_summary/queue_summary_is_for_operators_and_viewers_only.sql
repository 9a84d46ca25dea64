-- jobq.queue_summary counts every store's jobs: operators and viewers may call it, applications
-- and the runtime may not (an application counts its own store with jobq.stats).
BEGIN;
SELECT plan(4);

SELECT function_privs_are('jobq', 'queue_summary', ARRAY['integer'], 'jobq_operator', ARRAY['EXECUTE'], 'jobq_operator can execute queue_summary');
SELECT function_privs_are('jobq', 'queue_summary', ARRAY['integer'], 'jobq_viewer', ARRAY['EXECUTE'], 'jobq_viewer can execute queue_summary');
SELECT function_privs_are('jobq', 'queue_summary', ARRAY['integer'], 'jobq_app', ARRAY[]::text[], 'jobq_app cannot execute queue_summary');
SELECT function_privs_are('jobq', 'queue_summary', ARRAY['integer'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute queue_summary');

SELECT * FROM finish();
ROLLBACK;
