-- Concurrency and rate limits (issue 18): at most N jobs of a queue running across every worker, at most M
-- per store within the queue (system jobs, store NULL, count as one more store), and at most K per
-- value of a declared payload field (partition_key, e.g. customerId). The claim enforces them
-- (sql/functions/30_claim.sql, jobq._claim_limited) by counting the queue's running rows, under a
-- transaction-level advisory lock per limited queue, so there is no counter to keep in step: every
-- way out of running frees its slot by itself. Rate limits: at most N jobs of a queue started in
-- any window of a given length (and per store), a sliding window over a log of the starts
-- (jobq.claim_starts) that only claims of rate-limited queues write and prune. See
-- docs/flow-control.md.
--
--   jobq.queues  gains the limits (set by jobq.set_concurrency_limit,
--                jobq.set_store_concurrency_limit, jobq.set_partition_concurrency_limit,
--                jobq.set_rate_limit, jobq.set_store_rate_limit; NULL: no limit) and limited,
--                true when any is set: the claim reads paused and limited in
--                the one primary-key probe per queue it already made for the pause, so a queue
--                without limits is claimed with the same statements as before.
--   jobq.claim_starts  one row per job started (claimed) in a rate-limited queue, with its store
--                and the instant of the claim; the claim counts the rows of the window and
--                deletes those older than it. No role but the engine reads or writes it.
--
-- jobq.queue_states() gains a column, limits: its result changes, so it is dropped here and
-- sql/functions/60_operator.sql defines it again.
--
-- No index is added: a limited queue's claim counts the running rows through jobs_lease_idx (it
-- holds only running jobs), so the claim of a queue without limits writes no more index entries
-- than before (00010).

-- +goose Up
ALTER TABLE jobq.queues
    ADD COLUMN max_running integer CHECK (max_running BETWEEN 1 AND 1000000),
    ADD COLUMN max_running_per_store integer CHECK (max_running_per_store BETWEEN 1 AND 1000000),
    ADD COLUMN partition_key text CHECK (btrim(partition_key) <> '' AND char_length(partition_key) <= 200),
    ADD COLUMN max_running_per_partition integer CHECK (max_running_per_partition BETWEEN 1 AND 1000000),
    ADD COLUMN max_started integer CHECK (max_started BETWEEN 1 AND 1000000),
    ADD COLUMN started_per interval CHECK (started_per > interval '0' AND started_per <= interval '1 day'),
    ADD COLUMN max_started_per_store integer CHECK (max_started_per_store BETWEEN 1 AND 1000000),
    ADD COLUMN store_started_per interval CHECK (store_started_per > interval '0' AND store_started_per <= interval '1 day'),
    ADD COLUMN limited boolean NOT NULL GENERATED ALWAYS AS (
        max_running IS NOT NULL OR max_running_per_store IS NOT NULL OR max_running_per_partition IS NOT NULL
        OR max_started IS NOT NULL OR max_started_per_store IS NOT NULL) STORED,
    ADD CONSTRAINT queues_partition_limit_complete CHECK ((partition_key IS NULL) = (max_running_per_partition IS NULL)),
    ADD CONSTRAINT queues_rate_limit_complete CHECK ((max_started IS NULL) = (started_per IS NULL)),
    ADD CONSTRAINT queues_store_rate_limit_complete CHECK ((max_started_per_store IS NULL) = (store_started_per IS NULL));
COMMENT ON COLUMN jobq.queues.max_running IS 'At most this many jobs of the queue running at once across every worker (jobq.set_concurrency_limit); NULL: no limit.';
COMMENT ON COLUMN jobq.queues.max_running_per_store IS 'At most this many running jobs of the queue per store_id; system jobs (no store) count as one more store (jobq.set_store_concurrency_limit); NULL: no limit.';
COMMENT ON COLUMN jobq.queues.partition_key IS 'The payload field whose value partitions the queue for max_running_per_partition (jobq.set_partition_concurrency_limit); a job without the field is not limited by it.';
COMMENT ON COLUMN jobq.queues.max_running_per_partition IS 'At most this many running jobs of the queue per value of payload ->> partition_key; NULL: no limit.';
COMMENT ON COLUMN jobq.queues.max_started IS 'At most this many jobs of the queue started (claimed) in any window of started_per (jobq.set_rate_limit); NULL: no limit.';
COMMENT ON COLUMN jobq.queues.started_per IS 'The length of the sliding window of max_started (at most 1 day).';
COMMENT ON COLUMN jobq.queues.max_started_per_store IS 'At most this many jobs of the queue started per store (system jobs: one more store) in any window of store_started_per (jobq.set_store_rate_limit); NULL: no limit.';
COMMENT ON COLUMN jobq.queues.store_started_per IS 'The length of the sliding window of max_started_per_store (at most 1 day).';
COMMENT ON COLUMN jobq.queues.limited IS 'Whether any concurrency limit is set: the claim takes the queue''s advisory lock and counts its running jobs only then.';
COMMENT ON TABLE jobq.queues IS 'Queue controls: a paused queue keeps its jobs and takes new ones, and no claim returns them until it is resumed; a limited queue has at most max_running jobs running (per queue, per store, per partition). Written by jobq.pause_queue / jobq.resume_queue and the jobq.set_*concurrency_limit functions; read by every claim.';

CREATE TABLE jobq.claim_starts (
    queue      text NOT NULL,
    store_id   uuid,
    started_at timestamptz NOT NULL
);
COMMENT ON TABLE jobq.claim_starts IS 'The jobs started (claimed) in rate-limited queues, one row each, with the instant of the claim: the log the sliding windows of jobq.queues.max_started and max_started_per_store count. Written and pruned by the claim (jobq._claim_limited); read by nobody else.';
CREATE INDEX claim_starts_queue_idx ON jobq.claim_starts (queue, started_at);
ALTER TABLE jobq.claim_starts ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.claim_starts FORCE ROW LEVEL SECURITY;
DROP FUNCTION IF EXISTS jobq.queue_states();

-- +goose Down
-- The limit setters are sql/functions/60_operator.sql's; the files of the release before do not
-- define them, so they go here (migrate down forgets them).
DROP FUNCTION IF EXISTS jobq.set_concurrency_limit(text,integer);
DROP FUNCTION IF EXISTS jobq.set_store_concurrency_limit(text,integer);
DROP FUNCTION IF EXISTS jobq.set_partition_concurrency_limit(text,text,integer);
DROP FUNCTION IF EXISTS jobq.set_rate_limit(text,integer,interval);
DROP FUNCTION IF EXISTS jobq.set_store_rate_limit(text,integer,interval);
DROP FUNCTION IF EXISTS jobq._set_queue_limit(text,text,integer,text,interval);
DROP FUNCTION IF EXISTS jobq._claim_limited(text,text,integer,interval,timestamp with time zone);
DROP FUNCTION IF EXISTS jobq._lock_limited_queues(text[]);
-- queue_states with the limits column; the files of the release before define it without.
DROP FUNCTION IF EXISTS jobq.queue_states();
COMMENT ON TABLE jobq.queues IS 'Queue controls: a paused queue keeps its jobs and takes new ones, and no claim returns them until it is resumed. Written by jobq.pause_queue / jobq.resume_queue; read by every claim.';
DROP TABLE jobq.claim_starts;
ALTER TABLE jobq.queues
    DROP CONSTRAINT queues_store_rate_limit_complete,
    DROP CONSTRAINT queues_rate_limit_complete,
    DROP CONSTRAINT queues_partition_limit_complete,
    DROP COLUMN limited,
    DROP COLUMN store_started_per,
    DROP COLUMN max_started_per_store,
    DROP COLUMN started_per,
    DROP COLUMN max_started,
    DROP COLUMN max_running_per_partition,
    DROP COLUMN partition_key,
    DROP COLUMN max_running_per_store,
    DROP COLUMN max_running;
