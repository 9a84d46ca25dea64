-- History of a long retention kept in spans of days (issue 33). Since migration 00037 every
-- partition of jobq.job_history was one UTC day, so a retention of a year kept about 370 of them;
-- a lookup by id (jobq.job_result, jobq.explain_job, the workflows' parents) probes every
-- partition, and took 6.0 ms at 369 partitions against 0.35 ms at 16 (pgbench, docs/scaling.md).
-- Above 14 days of history_retention a partition now spans the retention divided by 14, rounded
-- up (jobq._history_span_days), so history keeps about 17 partitions whatever the retention; a
-- retention shortened later is held by deleting, row by row, the rows past it in a partition made
-- wider than the new setting asks (jobq._prune_history). The
-- functions are sql/functions/51_history.sql's; this migration restates what the table and the
-- setting say of it.

-- +goose Up
COMMENT ON TABLE jobq.job_history IS
    'Finished jobs (succeeded, dead, canceled), kept for the history_retention setting: partitioned by finished_at, one partition a UTC day, or a span of days (the retention divided by 14, rounded up) when history_retention is above 14 days (jobq.job_history_pYYYYMMDD, named for the day it starts, dropped whole once all of it is past retention), jobq.job_history_default for rows no partition holds, and jobq.job_history_before_00037 for history kept before migration 00037 (both pruned row by row).';
UPDATE jobq.settings SET description = 'How long finished jobs stay in jobq.job_history at least: jobq.maintain and jobq.prune_history drop a partition of it (a UTC day; above 14 days of retention a span of the retention divided by 14, rounded up) once all of it is past this, so a job stays at most one day (one span) longer, and delete one by one the rows no partition holds and, after this was shortened, the rows past it in a partition spanning more days than it now asks.'
WHERE name = 'history_retention';

-- +goose Down
COMMENT ON TABLE jobq.job_history IS
    'Finished jobs (succeeded, dead, canceled), kept for the history_retention setting: partitioned by finished_at, one partition a UTC day (jobq.job_history_pYYYYMMDD, dropped whole once all of it is past retention), jobq.job_history_default for rows no day holds, and jobq.job_history_before_00037 for history kept before migration 00037 (both pruned row by row).';
UPDATE jobq.settings SET description = 'How long finished jobs stay in jobq.job_history at least: jobq.maintain and jobq.prune_history drop a UTC day of it once all of that day is past this (so at most one day longer), and delete the rows no day holds one by one.'
WHERE name = 'history_retention';
-- The functions of this release that make spans go here (migrate down forgets them).
DROP FUNCTION IF EXISTS jobq._history_add_span(timestamp with time zone, integer);
DROP FUNCTION IF EXISTS jobq._history_span_days(interval);
