-- jobq schema, area 5: the operator's controls — the state of each queue an operator paused, and
-- the pause of a schedule (kept apart from its declared `enabled`, so that a runner re-declaring
-- the schedule from code does not undo an operator's pause).
--
--   jobq.queues      one row per queue an operator ever paused or resumed (jobq.pause_queue,
--                    jobq.resume_queue). A queue without a row is not paused. The claim probes it
--                    by primary key once per queue it is asked for.
--   jobq.schedules   gains paused_at and paused_by (jobq.pause_schedule, jobq.resume_schedule).

-- +goose Up
CREATE TABLE jobq.queues (
    name       text PRIMARY KEY CHECK (name <> '' AND char_length(name) <= 200),
    paused     boolean NOT NULL DEFAULT false,
    paused_at  timestamptz,
    paused_by  text,
    updated_at timestamptz NOT NULL DEFAULT now(),
    CHECK (paused = (paused_at IS NOT NULL))
);
COMMENT ON TABLE jobq.queues IS 'Queue controls: a paused queue keeps its jobs and takes new ones, and no claim returns them until it is resumed. Written by jobq.pause_queue / jobq.resume_queue; read by every claim.';
GRANT SELECT ON jobq.queues TO jobq_operator, worker_runtime, jobq_app;

ALTER TABLE jobq.schedules
    ADD COLUMN paused_at timestamptz,
    ADD COLUMN paused_by text;
COMMENT ON COLUMN jobq.schedules.paused_at IS 'When an operator paused the schedule (jobq.pause_schedule); NULL when it runs. A paused schedule enqueues no slot; jobq.resume_schedule restarts it from the next slot after now().';
COMMENT ON COLUMN jobq.schedules.paused_by IS 'The session_user who paused the schedule.';

-- +goose Down
ALTER TABLE jobq.schedules DROP COLUMN paused_by, DROP COLUMN paused_at;
DROP TABLE jobq.queues;
