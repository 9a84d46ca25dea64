-- Only the jobs of fair queues pay an entry in jobs_fair_idx (issue 33: fewer writes per job).
-- jobs_fair_idx (00014) held every waiting job, though only the pick of a fair queue
-- (jobq._pick_fair) reads it: an enqueue of a plain queue wrote one index entry (about 85 B of
-- WAL) that nothing read, and enqueue_many of 400 jobs spent 9 % of its time on it.
--
--   jobq.jobs.fair   whether the job's queue is fair (jobq.queues.fair; false for a queue without
--                    a row), copied from jobq.queues by the statement that inserts the job, and
--                    rewritten for every job of the queue by jobq.set_fair_claiming, under a lock
--                    of jobq.jobs that keeps writers out while it does.
--   jobs_fair_idx    the same key, partial on the waiting jobs of fair queues only: the fair
--                    pick's statements name the flag (AND j.fair) so that they match it.

-- +goose Up
ALTER TABLE jobq.jobs ADD COLUMN fair boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN jobq.jobs.fair IS 'Whether the job''s queue is fair (jobq.queues.fair; false for a queue without a row): set from jobq.queues by the statement that inserts the job (jobq.enqueue, jobq.enqueue_many, jobq._enqueue, jobq._enqueue_keyed, jobq._revive), rewritten for every job of the queue by jobq.set_fair_claiming, which holds off writers of jobq.jobs while it does. The predicate of jobs_fair_idx: only the jobs of fair queues have an entry there.';
UPDATE jobq.jobs AS j SET fair = true FROM jobq.queues q WHERE q.name = j.queue AND q.fair;
DROP INDEX jobq.jobs_fair_idx;
CREATE INDEX jobs_fair_idx ON jobq.jobs (queue, priority, (coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), run_at, id)
    WHERE state IN ('queued', 'retry_pending') AND fair;
-- The enqueue runs as the gate, and its insert reads the queue's fair (jobq_app reads the table
-- already: nothing in it is a store's).
GRANT SELECT ON jobq.queues TO jobq_app_gate;

-- +goose Down
REVOKE SELECT ON jobq.queues FROM jobq_app_gate;
DROP INDEX jobq.jobs_fair_idx;
CREATE INDEX jobs_fair_idx ON jobq.jobs (queue, priority, (coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), run_at, id)
    WHERE state IN ('queued', 'retry_pending');
ALTER TABLE jobq.jobs DROP COLUMN fair;
