-- jobq schema, area 3: scheduling and the runners — cron schedules and their run records, the
-- registered workers, the one leadership row with its fencing epoch, and the publication runners
-- in WAL wake-up mode name.

-- +goose Up
CREATE TABLE jobq.schedules (
    name               text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' AND length(name) <= 100),
    cron               text NOT NULL,
    fields             jobq.cron_fields NOT NULL,
    timezone           text NOT NULL DEFAULT 'UTC',
    task               text NOT NULL REFERENCES jobq.tasks (name),
    payload            jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(payload) = 'object'),
    slot_key           text DEFAULT 'slotAt' CHECK (slot_key <> ''),
    queue              text CHECK (queue <> ''),
    priority           smallint,
    max_attempts       integer CHECK (max_attempts >= 1),
    concurrency_policy text NOT NULL DEFAULT 'allow' CHECK (concurrency_policy IN ('allow', 'forbid', 'replace')),
    backfill_window    interval NOT NULL DEFAULT '15 minutes' CHECK (backfill_window >= interval '0'),
    backfill           text NOT NULL DEFAULT 'all' CHECK (backfill IN ('all', 'latest')),
    jitter             interval NOT NULL DEFAULT '0' CHECK (jitter >= interval '0'),
    enabled            boolean NOT NULL DEFAULT true,
    next_slot_at       timestamptz,
    last_slot_at       timestamptz,
    last_job_id        bigint,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE jobq.schedules IS 'Cron schedules: one job of task per slot. Written by jobq.schedule / jobq.unschedule; advanced by jobq.maintain.';
CREATE INDEX schedules_due_idx ON jobq.schedules (next_slot_at) WHERE enabled;

CREATE TABLE jobq.schedule_runs (
    schedule   text NOT NULL REFERENCES jobq.schedules (name) ON DELETE CASCADE,
    slot_at    timestamptz NOT NULL,
    outcome    text NOT NULL CHECK (outcome IN ('enqueued', 'skipped')),
    reason     text CHECK (reason IN ('late', 'forbid', 'superseded', 'error')),
    job_id     bigint,
    detail     jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (schedule, slot_at)
);
COMMENT ON TABLE jobq.schedule_runs IS 'One row per handled slot of a schedule: the job it enqueued, or why it was skipped. The primary key makes a slot run once.';
CREATE INDEX schedule_runs_created_at_idx ON jobq.schedule_runs USING brin (created_at);
GRANT SELECT ON jobq.schedules, jobq.schedule_runs TO jobq_operator, worker_runtime;

CREATE TABLE jobq.workers (
    id               text PRIMARY KEY CHECK (id <> ''),
    node             text NOT NULL,
    pid              integer,
    queues           text[] NOT NULL,
    concurrency      integer NOT NULL CHECK (concurrency >= 1),
    version          text NOT NULL DEFAULT '',
    running          integer NOT NULL DEFAULT 0,
    state            text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'draining', 'detached', 'lost', 'stopped')),
    started_at       timestamptz NOT NULL DEFAULT now(),
    heartbeat_at     timestamptz NOT NULL DEFAULT now(),
    state_changed_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE jobq.workers IS 'Registered runners: node, pid, queues, concurrency, load (running), heartbeat and state.';

CREATE TABLE jobq.leader (
    singleton        boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    holder           text,
    epoch            bigint NOT NULL DEFAULT 0,
    acquired_at      timestamptz,
    lease_expires_at timestamptz
);
COMMENT ON TABLE jobq.leader IS 'The one leadership: holder, fencing epoch (grows on every change of leader) and lease.';
INSERT INTO jobq.leader DEFAULT VALUES;
GRANT SELECT ON jobq.workers, jobq.leader TO jobq_operator, worker_runtime;

-- pgoutput needs a publication to name. This one publishes no table: runners in WAL mode read the
-- wake-up messages and nothing else.
CREATE PUBLICATION jobq_wakeup;
COMMENT ON PUBLICATION jobq_wakeup IS 'Named by runners in WAL wake-up mode (pgoutput with messages); publishes no table on purpose.';

-- +goose Down
DROP PUBLICATION jobq_wakeup;
DROP TABLE jobq.leader;
DROP TABLE jobq.workers;
DROP TABLE jobq.schedule_runs;
DROP TABLE jobq.schedules CASCADE;
