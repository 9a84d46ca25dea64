-- What a claim with positions passes over, and a claim from the head takes: a job that sorts
-- before the position in its priority — committed late by a long transaction (run_at = the
-- transaction's start), enqueued with a past run_at or a cron catch-up slot — and the job at
-- the position itself when it is back in the queue. Positions are per queue.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT jobq.enqueue('t', queue => 'q'), jobq.enqueue('t', queue => 'r');
CREATE TEMP TABLE claimed AS
    SELECT c.id, c.queue, c.priority::integer AS priority, c.run_at FROM jobq.claim_job('w', ARRAY['q', 'r'], 2) AS c;
-- The job claimed last in q goes back to the queue (a hand-back keeps its id; its run_at is
-- set to the hand-back's now(), the same as the claim's in this one transaction).
UPDATE jobq.jobs SET state = 'queued', run_at = (SELECT run_at FROM claimed WHERE queue = 'q'),
       lease_token = NULL, locked_by = NULL, lease_expires_at = NULL, deadline_at = NULL
WHERE id = (SELECT id FROM claimed WHERE queue = 'q');
CREATE TEMP TABLE late AS SELECT jobq.enqueue('t', queue => 'q', run_at => now() - interval '1 second') AS id;
CREATE TEMP TABLE late_r AS SELECT jobq.enqueue('t', queue => 'r', run_at => now() - interval '1 second') AS id;

SELECT is((SELECT count(*) FROM claimed), 2::bigint, 'one job of each queue was claimed first, giving each queue a position');
GRANT SELECT ON claimed, late, late_r TO worker_runtime;
SET LOCAL ROLE worker_runtime;
SELECT is_empty(
    $$ SELECT id FROM jobq.claim_job('w', ARRAY['q'], 10, '30 seconds',
                                     ARRAY[(SELECT priority FROM claimed WHERE queue = 'q')],
                                     ARRAY[(SELECT run_at FROM claimed WHERE queue = 'q')],
                                     ARRAY[(SELECT id FROM claimed WHERE queue = 'q')]) $$,
    'a claim after the position passes over the job at the position and a job with an earlier run_at');
SELECT results_eq(
    $$ SELECT id FROM jobq.claim_job('w', ARRAY['q', 'r'], 10, '30 seconds',
                                     ARRAY[(SELECT priority FROM claimed WHERE queue = 'q'), NULL],
                                     ARRAY[(SELECT run_at FROM claimed WHERE queue = 'q'), NULL],
                                     ARRAY[(SELECT id FROM claimed WHERE queue = 'q'), NULL]) $$,
    $$ SELECT id FROM late_r $$,
    'a queue whose position is NULL is claimed from its head in the same call');
SELECT results_eq(
    $$ SELECT id FROM jobq.claim_job('w', ARRAY['q'], 10, '30 seconds') ORDER BY id $$,
    $$ SELECT id FROM (SELECT id FROM claimed WHERE queue = 'q' UNION ALL SELECT id FROM late) AS x ORDER BY id $$,
    'a claim from the head takes both');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state <> 'running'), 0::bigint, 'no job is left waiting');
SELECT is((SELECT array_agg(attempt ORDER BY id) FROM jobq.jobs WHERE id IN (SELECT id FROM late UNION ALL SELECT id FROM late_r)),
          ARRAY[1, 1], 'the jobs passed over used no attempt until they were claimed');

SELECT * FROM finish();
ROLLBACK;
