-- Fair claiming between stores (issue 18): within a queue and priority, a claim of a fair queue
-- serves the stores with due jobs in turn (round-robin in the order of their store_id, system
-- jobs, store NULL, being one more store), so that one store's backlog of 100,000 jobs does not
-- delay the ten jobs of each other store until it is worked off. Set per queue by an operator
-- (jobq.set_fair_claiming), off unless set. See docs/flow-control.md#fairness.
--
--   jobq.queues.fair       true: the claim takes the queue through jobq._claim_limited under
--                          its advisory lock, picking with jobq._pick_fair.
--   jobq.claim_cursors     per fair queue, the store the last claim served last: the next claim
--                          starts after it. Written only by the claim of a fair queue (jobq._pick_fair).
--   jobs_fair_idx          the waiting jobs by (queue, priority, store, run_at, id), the store of a
--                          system job read as the zero uuid: a fair claim steps from store to
--                          store (one probe each) and reads a store's head, whatever the other
--                          stores' backlogs. Partial like jobs_claim_idx: an enqueue (and a retry)
--                          writes one entry more, a claim none (a running job is outside it).

-- +goose Up
ALTER TABLE jobq.queues ADD COLUMN fair boolean NOT NULL DEFAULT false;
COMMENT ON TABLE jobq.queues IS 'Queue controls: a paused queue keeps its jobs and takes new ones, and no claim returns them until it is resumed; a limited queue has at most max_running jobs running (per queue, per store, per partition); a fair queue serves its stores in turn. Written by jobq.pause_queue / jobq.resume_queue, the jobq.set_*concurrency_limit and jobq.set_*rate_limit functions and jobq.set_fair_claiming; read by every claim.';
COMMENT ON COLUMN jobq.queues.fair IS 'Whether claims serve the stores of the queue in turn within each priority (jobq.set_fair_claiming); system jobs are one more store.';

CREATE TABLE jobq.claim_cursors (
    queue     text PRIMARY KEY,
    store_key uuid NOT NULL
);
COMMENT ON TABLE jobq.claim_cursors IS 'Per fair queue, the store (the zero uuid for system jobs) whose job the last claim took last; the next claim serves the stores after it first. Written and read by the pick of a fair queue (jobq._pick_fair); read by nobody else.';
ALTER TABLE jobq.claim_cursors ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.claim_cursors FORCE ROW LEVEL SECURITY;

CREATE INDEX jobs_fair_idx ON jobq.jobs (queue, priority, (coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), run_at, id)
    WHERE state IN ('queued', 'retry_pending');

-- +goose Down
-- The fair setter and pick are sql/functions'; the files of the release before do not define them.
DROP FUNCTION IF EXISTS jobq.set_fair_claiming(text,boolean);
DROP FUNCTION IF EXISTS jobq._fair_pick(text,integer,timestamp with time zone,uuid[],text,text[]);
DROP FUNCTION IF EXISTS jobq._pick_fair(text,integer,timestamp with time zone,uuid[],text,text[],bigint[]);
DROP INDEX jobq.jobs_fair_idx;
DROP TABLE jobq.claim_cursors;
ALTER TABLE jobq.queues DROP COLUMN fair;
COMMENT ON TABLE jobq.queues IS 'Queue controls: a paused queue keeps its jobs and takes new ones, and no claim returns them until it is resumed; a limited queue has at most max_running jobs running (per queue, per store, per partition). Written by jobq.pause_queue / jobq.resume_queue and the jobq.set_*concurrency_limit functions; read by every claim.';
