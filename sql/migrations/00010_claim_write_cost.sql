-- What a claim and a heartbeat write (issue 17). Measured with pg_waldump over a drain of 100,000
-- no-op jobs: 10.09 WAL records and 973 bytes a job, of them 2 heap LOCK records (one is the claim's
-- FOR UPDATE; the other is logged by the claim's UPDATE when the new row version does not fit in
-- the full page of the old one and must go to another page) and 5 btree entries (jobs_pkey,
-- jobs_lease_idx and jobs_locked_by_idx on the claim; job_history_pkey and
-- job_history_finished_idx on completion).
--
-- fillfactor 40: a job's page keeps room for the claimed versions of its rows (a claimed row is
-- larger: worker, token and lease times filled), so the claim's UPDATE stays on the page: one
-- LOCK record a job fewer, and the old and new versions share a page. It applies to pages written
-- from now on; pages of jobs already waiting keep theirs.
--
-- jobs_locked_by_idx goes: every claim and every heartbeat wrote an entry in it, and only rare
-- paths read it (a worker's jobs when it is detached, lost, or hands back a lost claim). Those
-- now read the running jobs through jobs_lease_idx (it holds only running jobs) and filter by
-- worker.

-- +goose Up
DROP INDEX jobq.jobs_locked_by_idx;
ALTER TABLE jobq.jobs SET (fillfactor = 40);

-- +goose Down
ALTER TABLE jobq.jobs RESET (fillfactor);
CREATE INDEX jobs_locked_by_idx ON jobq.jobs (locked_by) WHERE state = 'running';
