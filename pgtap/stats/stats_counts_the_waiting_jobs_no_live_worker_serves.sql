-- jobq.stats' not_served: per queue, the waiting jobs (queued or retry_pending, due or not) whose
-- task no live worker of the queue serves, and not_served_oldest_age, how long the oldest due one
-- has waited. A live worker is active and heard from within worker_timeout; it serves the tasks it
-- registered, every task when it registered none. Draining, lost and silent workers serve nothing;
-- a worker of another queue serves nothing here; running jobs are never counted.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('task-a', 'task-b');
SELECT jobq.enqueue('task-a', queue => 'q1', run_at => now() - interval '10 minutes');
SELECT jobq.enqueue('task-b', queue => 'q1', run_at => now() - interval '5 minutes');
SELECT jobq.enqueue('task-b', queue => 'q1', run_at => now() + interval '1 hour');
SELECT jobq.enqueue('task-a', queue => 'q2', run_at => now() - interval '1 minute');

CREATE TEMP VIEW ns AS
    SELECT queue, not_served, date_trunc('minute', not_served_oldest_age + interval '5 seconds') AS oldest
    FROM jobq.stats() ORDER BY queue;
GRANT SELECT ON ns TO PUBLIC;

SELECT results_eq($$ SELECT * FROM ns $$,
    $$ VALUES ('q1', 3::bigint, interval '10 minutes'), ('q2', 1::bigint, interval '1 minute') $$,
    'no worker: every waiting job is not served, the scheduled one too; the oldest due one''s age');

SELECT jobq.register_worker('w-a', 'n', 1, ARRAY['q1'], 1, '', ARRAY['task-a']);
SELECT results_eq($$ SELECT * FROM ns $$,
    $$ VALUES ('q1', 2::bigint, interval '5 minutes'), ('q2', 1::bigint, interval '1 minute') $$,
    'a live worker of q1 serving task-a: task-b of q1 is not served, and q2 is not served at all');

-- Running jobs are not waiting.
SELECT jobq.claim_job('w-a', ARRAY['q1'], 10, interval '1 minute', tasks => ARRAY['task-a']);
SELECT is((SELECT not_served FROM ns WHERE queue = 'q1'), 2::bigint, 'a running job is not counted');

SELECT jobq.register_worker('w-all', 'n', 2, ARRAY['q1', 'q2'], 1, '');
SELECT results_eq($$ SELECT queue, not_served, oldest FROM ns $$,
    $$ VALUES ('q1', 0::bigint, NULL::interval), ('q2', 0::bigint, NULL::interval) $$,
    'a live worker registered without a list serves every task of its queues');

-- A draining worker claims nothing: it serves nothing.
SELECT jobq.drain_worker('w-all');
SELECT is((SELECT not_served FROM ns WHERE queue = 'q1'), 2::bigint, 'a draining worker serves nothing');
SELECT jobq.resume_worker('w-all');
SELECT is((SELECT not_served FROM ns WHERE queue = 'q1'), 0::bigint, 'resumed, it serves again');

-- Silent past worker_timeout (not yet marked lost): not live.
UPDATE jobq.workers SET heartbeat_at = now() - interval '31 seconds' WHERE id = 'w-all';
SELECT is((SELECT not_served FROM ns WHERE queue = 'q1'), 2::bigint, 'a worker silent past worker_timeout serves nothing');
UPDATE jobq.workers SET heartbeat_at = now(), state = 'lost' WHERE id = 'w-all';
SELECT is((SELECT not_served FROM ns WHERE queue = 'q1'), 2::bigint, 'a lost worker serves nothing');

-- A worker registered without handlers ({}) serves nothing either.
SELECT jobq.register_worker('w-none', 'n', 3, ARRAY['q2'], 1, '', '{}');
SELECT is((SELECT not_served FROM ns WHERE queue = 'q2'), 1::bigint, 'a worker without handlers serves nothing');

SELECT * FROM finish();
ROLLBACK;
