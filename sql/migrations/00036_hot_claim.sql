-- A claim that writes no index entry (issue 33: fewer writes per job). PostgreSQL makes an update
-- HOT, a new row version in the same page with no new index entry, only when no column that an
-- index of the table reads (its keys, expressions and predicates) changes. The claim changes
-- state, attempt, the lease columns and updated_at: before this migration it wrote two entries a
-- job (the primary key and jobs_lease_idx), because jobs_claim_idx, jobs_lease_idx,
-- jobs_deadline_idx, jobs_retry_idx and jobs_fair_idx named state. Now no index of jobq.jobs names
-- a column the claim changes (pgtap/claim/a_claim_is_a_hot_update.sql), and the running jobs are
-- found otherwise:
--
--   jobq.jobs.ready      state <> 'blocked' and not counted, generated: the predicate of
--                        jobs_claim_idx and jobs_fair_idx, which hold the waiting jobs and the
--                        running jobs of queues without limits. The picks name the waiting states
--                        beside it and step over running entries (a runner's claim starts after
--                        its last one, so mostly over other runners'). A plain claim leaves it
--                        true; a limited queue's claim sets counted, and its job moves from these
--                        indexes to jobs_counted_idx (so its update is not HOT, as before).
--   jobq.jobs.counted    true while a job of a limited queue runs: set by the claim from
--                        jobq.queues.limited, cleared by every change out of running (a CHECK
--                        says it). jobs_counted_idx holds only these: it is how the limits count
--                        a queue's running jobs. A claim of any other queue leaves it false.
--   jobq.queues.counted_recheck, counted_recheck_after
--                        a queue turned limited while it had running jobs claimed unlimited:
--                        the limits also count those (through jobs_claim_idx) until
--                        every one is flagged, once no claim that read the queue unlimited can
--                        still commit (jobq._settle_counted: the queue's next limited claim, or
--                        jobq.maintain), as fair_recheck does for jobq.jobs.fair.
--   jobq.leases          one row a claim of a queue: the jobs a worker took from it in one call, and check_at, no
--                        later than the first lease end or deadline among them still running.
--                        The sweep reads the rows due; a worker's jobs are read through its rows.
--                        jobq._settle_leases moves check_at on, or deletes the row once none of
--                        its jobs runs under that worker. Two index entries a claim, none a job.
--   jobq.leases_recheck  one row while jobs running before this migration, or claimed by a
--                        claim that began before it committed, may have no jobq.leases row:
--                        jobq.maintain writes theirs once no older transaction is left.
--
-- Adding ready rewrites jobq.jobs (a stored generated column) under its ACCESS EXCLUSIVE lock.

-- +goose Up
ALTER TABLE jobq.jobs ADD COLUMN counted boolean NOT NULL DEFAULT false;
ALTER TABLE jobq.jobs ADD COLUMN ready boolean NOT NULL GENERATED ALWAYS AS (state <> 'blocked' AND NOT counted) STORED;
COMMENT ON COLUMN jobq.jobs.ready IS 'state <> ''blocked'' and not counted, generated: the predicate of jobs_claim_idx and jobs_fair_idx, which hold the waiting jobs and the running jobs of queues without limits. No index names state, so that a claim is a HOT update; a claim of a limited queue sets counted, so its job leaves those indexes for jobs_counted_idx.';
COMMENT ON COLUMN jobq.jobs.counted IS 'True while a job of a limited queue runs (set by the claim from jobq.queues.limited; by jobq.maintain for a job claimed before its queue turned limited): jobs_counted_idx, read by the concurrency limits, holds only these. False out of running (jobs_counted_running).';
ALTER TABLE jobq.jobs ADD CONSTRAINT jobs_counted_running CHECK (NOT counted OR state = 'running');
UPDATE jobq.jobs AS j SET counted = true FROM jobq.queues q WHERE q.name = j.queue AND q.limited AND j.state = 'running';

ALTER TABLE jobq.queues ADD COLUMN counted_recheck boolean NOT NULL DEFAULT false;
ALTER TABLE jobq.queues ADD COLUMN counted_recheck_after xid8;
COMMENT ON COLUMN jobq.queues.counted_recheck IS 'True from a limit set on a queue that had none until jobq._settle_counted has flagged (jobq.jobs.counted) every running job of the queue claimed unlimited; meanwhile the limits count those too.';
COMMENT ON COLUMN jobq.queues.counted_recheck_after IS 'The transaction id after that of the limit''s setter: once every lower one has ended and no snapshot older than it is held, no claim that read the queue unlimited can still commit.';

CREATE TABLE jobq.leases (
    worker_id text NOT NULL,
    job_ids   bigint[] NOT NULL CHECK (cardinality(job_ids) >= 1),
    check_at  timestamptz NOT NULL
);
COMMENT ON TABLE jobq.leases IS
    'One row a claim of a queue: the jobs worker_id took from one queue in one call (jobq._claim) and check_at, no later than the first lease end or deadline among them still running under that worker. The sweep (jobq._rescue) reads the rows due; the readers of a worker''s running jobs read its rows. jobq._settle_leases moves check_at on, or deletes the row once none of its jobs runs under worker_id. The engine''s alone.';
CREATE INDEX leases_check_idx ON jobq.leases (check_at);
CREATE INDEX leases_worker_idx ON jobq.leases (worker_id, check_at);
-- The receipts of the jobs running now, before row security (its policy is 70_tenancy.sql's).
INSERT INTO jobq.leases (worker_id, job_ids, check_at)
SELECT j.locked_by, array_agg(j.id ORDER BY j.id), min(least(j.lease_expires_at, j.deadline_at))
FROM jobq.jobs j WHERE j.state = 'running' GROUP BY j.locked_by;
ALTER TABLE jobq.leases ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.leases FORCE ROW LEVEL SECURITY;

CREATE TABLE jobq.leases_recheck (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    after     xid8
);
COMMENT ON TABLE jobq.leases_recheck IS
    'One row while a running job may have no jobq.leases row: jobs claimed by a claim that began before migration 00036 committed. jobq._settle_leases records in after the first transaction id not yet assigned, and once every lower one has ended writes a jobq.leases row for each running job without one, then deletes this row. The engine''s alone.';
INSERT INTO jobq.leases_recheck DEFAULT VALUES;
ALTER TABLE jobq.leases_recheck ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.leases_recheck FORCE ROW LEVEL SECURITY;

DROP INDEX jobq.jobs_lease_idx;
DROP INDEX jobq.jobs_deadline_idx;
DROP INDEX jobq.jobs_retry_idx;
DROP INDEX jobq.jobs_claim_idx;
CREATE INDEX jobs_claim_idx ON jobq.jobs (queue, priority, run_at, id) WHERE ready;
DROP INDEX jobq.jobs_fair_idx;
CREATE INDEX jobs_fair_idx ON jobq.jobs (queue, priority, (coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), run_at, id)
    WHERE ready AND fair;
CREATE INDEX jobs_counted_idx ON jobq.jobs (queue) WHERE counted;

-- +goose Down
DROP INDEX jobq.jobs_counted_idx;
DROP INDEX jobq.jobs_fair_idx;
CREATE INDEX jobs_fair_idx ON jobq.jobs (queue, priority, (coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), run_at, id)
    WHERE state IN ('queued', 'retry_pending') AND fair;
DROP INDEX jobq.jobs_claim_idx;
CREATE INDEX jobs_claim_idx ON jobq.jobs (queue, priority, run_at, id) WHERE state IN ('queued', 'retry_pending');
CREATE INDEX jobs_retry_idx ON jobq.jobs (queue, run_at) WHERE state = 'retry_pending';
CREATE INDEX jobs_deadline_idx ON jobq.jobs (deadline_at) WHERE state = 'running' AND deadline_at IS NOT NULL;
CREATE INDEX jobs_lease_idx ON jobq.jobs (lease_expires_at) WHERE state = 'running';
-- The functions that read these tables are the files' of this release; the files of the release
-- before do not define them, so they go here (migrate down forgets them).
DROP TRIGGER IF EXISTS jobs_lease_shortened ON jobq.jobs;
DROP FUNCTION IF EXISTS jobq._lease_shortened();
DROP FUNCTION IF EXISTS jobq._running_counted(text);
DROP FUNCTION IF EXISTS jobq._settle_leases(timestamp with time zone, bigint[], integer);
DROP FUNCTION IF EXISTS jobq._settle_counted_flags();
DROP FUNCTION IF EXISTS jobq._settle_counted(text);
DROP FUNCTION IF EXISTS jobq._cover_running_jobs();
DROP FUNCTION IF EXISTS jobq._write_missing_receipts();
DROP TABLE jobq.leases_recheck;
DROP TABLE jobq.leases;
ALTER TABLE jobq.queues DROP COLUMN counted_recheck_after;
ALTER TABLE jobq.queues DROP COLUMN counted_recheck;
ALTER TABLE jobq.jobs DROP COLUMN ready;
ALTER TABLE jobq.jobs DROP CONSTRAINT jobs_counted_running;
ALTER TABLE jobq.jobs DROP COLUMN counted;
