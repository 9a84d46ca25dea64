-- Only the jobs of fair queues pay an entry in jobs_fair_idx (issue 33: fewer writes per job).
-- jobs_fair_idx (00014) held every waiting job, though only the pick of a fair queue
-- (jobq._pick_fair) reads it: an enqueue into a plain queue wrote one index entry (about 85 B of
-- WAL) that nothing read, and enqueue_many of 400 jobs spent 9 % of its time on it.
--
--   jobq.jobs.fair                whether the job has an entry in jobs_fair_idx while it waits:
--                                 copied from jobq.queues.fair by the statement that inserts the
--                                 job, set for every job of the queue by jobq.set_fair_claiming
--                                 when it turns fair claiming on, and for the jobs it could not
--                                 see (inserted by transactions that read the queue before it
--                                 committed) by jobq.maintain once no such transaction is left
--                                 (jobq._settle_fair_flags). Turning fair claiming off leaves it.
--   jobs_fair_idx                 the same key, partial on the waiting jobs flagged fair: the fair
--                                 pick's statements name the flag (AND j.fair) so that they match it.
--   jobq.queues.fair_recheck      true from jobq.set_fair_claiming turning the queue fair until
--                                 maintain has flagged every job the setter could not see.
--   jobq.queues.fair_recheck_after the first transaction id not yet assigned when maintain first
--                                 saw the recheck due (every transaction that could have read the
--                                 queue before the setter committed has a lower one); NULL until then.

-- +goose Up
ALTER TABLE jobq.jobs ADD COLUMN fair boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN jobq.jobs.fair IS 'Whether the job has an entry in jobs_fair_idx (the predicate of that index beside the waiting states): set from jobq.queues.fair by the statement that inserts the job (jobq.enqueue, jobq.enqueue_many, jobq._enqueue, jobq._enqueue_keyed, jobq._revive), for every job of the queue by jobq.set_fair_claiming when it turns fair claiming on, and for jobs inserted by transactions older than that setter by jobq.maintain (jobq._settle_fair_flags). Turning fair claiming off leaves it: only a fair claim reads jobs_fair_idx.';
ALTER TABLE jobq.queues ADD COLUMN fair_recheck boolean NOT NULL DEFAULT false;
ALTER TABLE jobq.queues ADD COLUMN fair_recheck_after xid8;
COMMENT ON COLUMN jobq.queues.fair_recheck IS 'True from jobq.set_fair_claiming turning the queue fair until jobq.maintain (jobq._settle_fair_flags) has flagged every job of the queue that a transaction older than the setter inserted unflagged.';
COMMENT ON COLUMN jobq.queues.fair_recheck_after IS 'The first transaction id not yet assigned when jobq.maintain first saw fair_recheck: once every lower one has ended and no snapshot older than it is held, no job of the queue can still be inserted unflagged; NULL until maintain saw it.';
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
ALTER TABLE jobq.queues DROP COLUMN fair_recheck_after;
ALTER TABLE jobq.queues DROP COLUMN fair_recheck;
ALTER TABLE jobq.jobs DROP COLUMN fair;
