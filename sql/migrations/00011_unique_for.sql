-- Uniqueness over time (issue 18): a job key declared unique for a period that includes finished
-- jobs. An enqueue with a job_key and unique_for returns the job that holds the key in the same
-- store and was enqueued (created_at) within the last unique_for, live in any state or finished,
-- and writes nothing; otherwise it enqueues as before (see docs/sql-api.md, unique_for).
--
--   jobq.job_spec            gains unique_for (interval): the new trailing field of an element of
--                            jobq.enqueue_many's JSON array and of jobq.enqueue's arguments.
--   job_history_job_key_idx  finished keyed jobs by (store, key, created_at): the look-up of the
--                            newest one within the window. Partial (job_key IS NOT NULL): a keyless
--                            job's completion writes no entry in it, so the write cost of the plain
--                            path is unchanged (the 5 btree entries of a drained job, 00010).

-- +goose Up
ALTER TYPE jobq.job_spec ADD ATTRIBUTE unique_for interval;
CREATE INDEX job_history_job_key_idx
    ON jobq.job_history ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), job_key, created_at)
    WHERE job_key IS NOT NULL;

-- +goose Down
-- enqueue's signature with unique_for is sql/functions/20_enqueue.sql's; the files of the release
-- before define the one without it when they are applied again (migrate down forgets them).
DROP FUNCTION IF EXISTS jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval);
DROP INDEX jobq.job_history_job_key_idx;
ALTER TYPE jobq.job_spec DROP ATTRIBUTE unique_for;
