-- Flow controls visible everywhere (issue 18): jobq.stats() and jobq.queue_summary() gain a last
-- column, limits jsonb, the object jobq.queue_states() shows (the concurrency and rate limits that
-- are set and fair; NULL for a queue without controls), from the one helper
-- jobq._queue_limits(jobq.queues) of sql/functions/60_operator.sql that all three call.
--
-- Their results change, so they are dropped here (jobq._stats too: the body of jobq.stats, with
-- the same result) and sql/functions/60_operator.sql defines them again. Nothing else depends on
-- them. Not a breaking change: runners do not call them, and every reader of the release before
-- names its columns (the Go client, the CLI and the dashboard select them by name).

-- +goose Up
DROP FUNCTION IF EXISTS jobq.stats(text,uuid);
DROP FUNCTION IF EXISTS jobq._stats(text,uuid);
DROP FUNCTION IF EXISTS jobq.queue_summary(integer);

-- +goose Down
-- stats, _stats and queue_summary with the limits column, and the helper, are
-- sql/functions/60_operator.sql's; the files of the release before define the three again without
-- it, as they were, when they are applied again (migrate down forgets their checksums).
DROP FUNCTION IF EXISTS jobq.stats(text,uuid);
DROP FUNCTION IF EXISTS jobq._stats(text,uuid);
DROP FUNCTION IF EXISTS jobq.queue_summary(integer);
DROP FUNCTION IF EXISTS jobq._queue_limits(jobq.queues);
