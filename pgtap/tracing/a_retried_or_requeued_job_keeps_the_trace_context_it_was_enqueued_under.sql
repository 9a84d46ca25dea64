-- A finished job brought back (jobq.retry_job of a dead or canceled job, jobq.requeue_dead) keeps
-- the trace context it was enqueued under, whatever the operator's session says.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT set_config('jobq.traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', true);
CREATE TEMP TABLE ids AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id FROM generate_series(1, 2);
SELECT set_config('jobq.traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', true);
SELECT jobq.cancel_job(id) FROM ids;
UPDATE jobq.job_history SET state = 'dead', reason = 'exhausted' WHERE id = (SELECT max(id) FROM ids);

SELECT is(jobq.retry_job((SELECT min(id) FROM ids)), 'queued', 'setup: the canceled job is retried');
SELECT is(jobq.requeue_dead('pgtap-x')::integer, 1, 'setup: the dead job is requeued');
SELECT is((SELECT count(*)::integer FROM jobq.jobs WHERE id IN (SELECT id FROM ids)
             AND traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'), 2,
          'the retried and the requeued job keep their own trace context, not the session''s');

SELECT * FROM finish();
ROLLBACK;
