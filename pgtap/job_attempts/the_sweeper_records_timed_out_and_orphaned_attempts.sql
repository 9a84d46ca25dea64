-- jobq._rescue (rescue_expired, maintain) records each lease it sweeps as a failed attempt: the
-- worker that lost it, its claim time, the sweep time, the reason and the message.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('slow', 'lost');

SELECT jobq.enqueue('slow', queue => 'q', timeout => '1 second', max_attempts => 1);
SELECT jobq.enqueue('lost', queue => 'q');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('worker-x', ARRAY['q'], 2, '1 hour');
UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 second' WHERE task = 'lost';

SELECT is((SELECT count(*) FROM jobq._rescue(10, now() + interval '1 minute')), 2::bigint, 'setup: both leases are swept');
SELECT results_eq(
    $$ SELECT a.task, a.attempt, a.worker, a.reason, a.error LIKE a.reason || ':%', a.error_code, a.started_at, a.ended_at
       FROM jobq.job_attempts a ORDER BY a.task $$,
    $$ VALUES ('lost'::text, 1, 'worker-x'::text, 'orphaned'::text, true, NULL::text, now(), now() + interval '1 minute'),
              ('slow', 1, 'worker-x', 'timed_out', true, NULL, now(), now() + interval '1 minute') $$,
    'the timed-out (dead) and the orphaned (requeued) attempt are recorded with worker, times and message');

SELECT * FROM finish();
ROLLBACK;
