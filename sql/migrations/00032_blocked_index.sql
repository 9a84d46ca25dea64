-- +goose Up
-- Blocked jobs (waiting for their parents or their sequence) are in no index of jobq.jobs but the
-- primary key: jobq.queue_summary counts them per queue through this one, an index-only read of
-- the blocked jobs alone, as its other counts are, instead of a scan of every live job. Only a
-- job with a workflow ever enters it (and leaves it when released), so other jobs write nothing
-- to it.
CREATE INDEX jobs_blocked_idx ON jobq.jobs (queue) WHERE state = 'blocked';

-- +goose Down
DROP INDEX jobq.jobs_blocked_idx;
