-- The trace context of a job (issue 34, item 4): the W3C traceparent and tracestate of whoever
-- enqueued it, so the runner's span of each attempt continues the producer's trace.
--
--   jobq.jobs.traceparent, tracestate   captured from the session settings jobq.traceparent and
--                                       jobq.tracestate when the row is inserted (the columns'
--                                       defaults): any producer links its jobs by
--                                       set_config('jobq.traceparent', '00-...-...-01', true) in
--                                       the transaction of its enqueue, whatever its language or
--                                       driver, and every path that inserts a job (enqueue,
--                                       enqueue_many, keyed merges, the fan-out) captures it.
--                                       A traceparent that is not version 00's 55 characters of
--                                       lowercase hex (or whose trace or span id is all zeros) is
--                                       ignored, as the W3C receiver rules say: the job is
--                                       enqueued without a trace context and starts a trace of
--                                       its own. So is a tracestate beside no valid traceparent,
--                                       longer than 512 characters or not printable ASCII. An
--                                       enqueue never fails because of them.
--   jobq.job_history.traceparent, tracestate   the same, kept with the finished job.

-- +goose Up
ALTER TABLE jobq.jobs
    ADD COLUMN traceparent text
        DEFAULT (CASE WHEN pg_catalog.current_setting('jobq.traceparent', true) ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
                       AND pg_catalog.substr(pg_catalog.current_setting('jobq.traceparent', true), 4, 32) <> pg_catalog.repeat('0', 32)
                       AND pg_catalog.substr(pg_catalog.current_setting('jobq.traceparent', true), 37, 16) <> pg_catalog.repeat('0', 16)
                      THEN pg_catalog.current_setting('jobq.traceparent', true) END)
        CHECK (char_length(traceparent) = 55),
    ADD COLUMN tracestate text
        DEFAULT (CASE WHEN pg_catalog.current_setting('jobq.traceparent', true) ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
                       AND pg_catalog.substr(pg_catalog.current_setting('jobq.traceparent', true), 4, 32) <> pg_catalog.repeat('0', 32)
                       AND pg_catalog.substr(pg_catalog.current_setting('jobq.traceparent', true), 37, 16) <> pg_catalog.repeat('0', 16)
                       AND pg_catalog.char_length(pg_catalog.current_setting('jobq.tracestate', true)) BETWEEN 1 AND 512
                       AND pg_catalog.current_setting('jobq.tracestate', true) ~ '^[ -~]*$'
                      THEN pg_catalog.current_setting('jobq.tracestate', true) END)
        CHECK (char_length(tracestate) <= 512);
COMMENT ON COLUMN jobq.jobs.traceparent IS
    'The W3C traceparent of the enqueuer (session setting jobq.traceparent at the insert; a malformed one is ignored): each attempt''s span continues this trace.';
COMMENT ON COLUMN jobq.jobs.tracestate IS
    'The W3C tracestate of the enqueuer (session setting jobq.tracestate beside a valid traceparent, at most 512 printable ASCII characters; else ignored).';

ALTER TABLE jobq.job_history
    ADD COLUMN traceparent text CHECK (char_length(traceparent) = 55),
    ADD COLUMN tracestate text CHECK (char_length(tracestate) <= 512);
COMMENT ON COLUMN jobq.job_history.traceparent IS 'The finished job''s jobq.jobs.traceparent.';
COMMENT ON COLUMN jobq.job_history.tracestate IS 'The finished job''s jobq.jobs.tracestate.';

-- +goose Down
ALTER TABLE jobq.job_history DROP COLUMN traceparent, DROP COLUMN tracestate;
ALTER TABLE jobq.jobs DROP COLUMN traceparent, DROP COLUMN tracestate;
