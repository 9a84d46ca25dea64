-- jobq schema step 21: history retention is found through a btree on finished_at.
--
-- jobq.maintain prunes history past history_retention every time it runs (every second, by the
-- leader). The BRIN index of step 1 does not order, leaves the newest stretch of the table
-- unsummarised until autovacuum gets to it, and without statistics the planner passed it over:
-- each maintain read all of jobq.job_history (0.1 s at 200,000 rows, seconds at millions) to
-- find nothing to prune. A btree on finished_at, which only ever grows at its right edge, gives
-- the oldest row in O(log n); step 22 makes maintain ask for it first.
--
-- The build holds a SHARE lock on jobq.job_history, so completions wait for it. On a large
-- history, build the index first by hand, without blocking anyone:
--   CREATE INDEX CONCURRENTLY job_history_finished_idx ON jobq.job_history (finished_at);
-- and this step then only drops the BRIN index.

-- +goose Up
CREATE INDEX IF NOT EXISTS job_history_finished_idx ON jobq.job_history (finished_at);
DROP INDEX jobq.job_history_finished_at_idx;

-- +goose Down
CREATE INDEX job_history_finished_at_idx ON jobq.job_history USING brin (finished_at);
DROP INDEX jobq.job_history_finished_idx;
