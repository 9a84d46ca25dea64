-- A job written before the limits (or by hand) with a timeout no timestamp can hold: claim_job
-- claims it with the deadline infinity, and goes on claiming the queue's other jobs, as any role.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

-- As the superuser: values the API refuses today.
INSERT INTO jobq.jobs (task, queue, max_attempts, timeout, run_at) VALUES
    ('t', 'q', 3, interval '1000000 years', now() - interval '2 minutes'),
    ('t', 'q', 3, interval '178000000 years', now() - interval '1 minute');
SELECT jobq.enqueue('t', queue => 'q');

SET LOCAL ROLE worker_runtime;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1);
SELECT is((SELECT deadline_at FROM claimed), 'infinity'::timestamptz,
          'claim_job claims a job whose stored timeout of 1000000 years reaches past the last timestamp: its deadline is infinity');
SELECT is((SELECT count(*) FROM jobq.claim_job('w', ARRAY['q'], 5)), 2::bigint,
          'the next claims of the queue go on: the 178000000-year timeout and the normal job are claimed');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE queue = 'q' AND state = 'running'), 3::bigint, 'all three jobs run');
SELECT ok((SELECT bool_and(deadline_at = 'infinity' OR deadline_at IS NULL) FROM jobq.jobs WHERE queue = 'q'),
          'no deadline overflowed: each is infinity, or NULL for the job without a timeout');
SELECT is_empty($$ SELECT * FROM jobq.rescue_expired() $$, 'rescue_expired sweeps none of them (no deadline has passed)');

SELECT * FROM finish();
ROLLBACK;
