-- +goose Up
-- The dead jobs of the last day, per queue (jobq.stats's dead_last_day, the dashboard's overview),
-- are read from the dead jobs' own index by finish time rather than from a scan of the whole day
-- of history (1.7 million rows at 10 million kept): the index leads with finished_at. A dead job
-- of a task, oldest death first (jobq.requeue_dead), reads the same index: the task is its second
-- column. Only dead jobs are in it, so a success still writes no entry to it.
DROP INDEX jobq.job_history_dead_idx;
CREATE INDEX job_history_dead_idx ON jobq.job_history (finished_at, task) WHERE state = 'dead';

-- +goose Down
DROP INDEX jobq.job_history_dead_idx;
CREATE INDEX job_history_dead_idx ON jobq.job_history (task, finished_at) WHERE state = 'dead';
