-- jobq schema step 12: schedules. A schedule enqueues its (system) task once per cron slot.
-- Cron only wakes; the database decides (seed 001): the slot key (schedule, slot_at) is the
-- primary key of jobq.schedule_runs, so however many runners tick at once, a slot gets exactly
-- one job — or one row saying why it was skipped.
--
-- Missed slots after downtime: slots within the schedule's backfill_window of now run (all of
-- them, or only the latest: backfill = 'latest'); older ones are recorded as skipped (reason
-- late) and never run (seed 002 SCHEDULER_SKIP_LATE_RUNS_AFTER_SECONDS).
-- Concurrency policy, when a slot comes while the previous slot's job is still live:
--   allow    run it anyway;
--   forbid   skip the slot (reason forbid);
--   replace  cancel the previous job (reason replaced) and run the new one.

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

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.UNKNOWN_SCHEDULE', 'JQ603', 'No schedule has this name.', 'SELECT name FROM jobq.schedules lists them.');

-- Declares or updates a schedule; idempotent (runners sync their code-declared schedules with it
-- at start-up). A new schedule, or a changed cron or time zone, starts from the first slot after
-- now(); otherwise the schedule keeps its place. Returns the next slot.
-- +goose StatementBegin
CREATE FUNCTION jobq.schedule(
    name               text,
    cron               text,
    task               text,
    payload            jsonb    DEFAULT '{}',
    timezone           text     DEFAULT 'UTC',
    concurrency_policy text     DEFAULT 'allow',
    backfill_window    interval DEFAULT '15 minutes',
    backfill           text     DEFAULT 'all',
    jitter             interval DEFAULT '0',
    slot_key           text     DEFAULT 'slotAt',
    queue              text     DEFAULT NULL,
    priority           integer  DEFAULT NULL,
    max_attempts       integer  DEFAULT NULL,
    enabled            boolean  DEFAULT true
)
RETURNS timestamptz
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_fields jobq.cron_fields;
    v_scope text;
    v_schema jsonb;
    v_problem text;
    v_next timestamptz;
    v_changed boolean;
BEGIN
    IF schedule.name IS NULL OR schedule.name !~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' OR length(schedule.name) > 100 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('schedule name %L is not kebab-case', schedule.name));
    END IF;
    v_fields := jobq.cron_parse(schedule.cron);
    PERFORM jobq._check_timezone(schedule.timezone);
    SELECT t.scope, t.payload_schema INTO v_scope, v_schema FROM jobq.tasks t WHERE t.name = schedule.task;
    IF v_scope IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', schedule.task));
    ELSIF v_scope <> 'system' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('schedules run system tasks; %s is store-scoped (schedule a system task that calls jobq.fan_out)', schedule.task));
    END IF;
    IF schedule.payload IS NULL OR jsonb_typeof(schedule.payload) <> 'object' THEN
        PERFORM jobq._raise('JOB.PAYLOAD_NOT_OBJECT', 'the schedule payload must be a JSON object');
    END IF;
    IF schedule.concurrency_policy IS NULL OR schedule.concurrency_policy NOT IN ('allow', 'forbid', 'replace') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('concurrency_policy %L is not allow, forbid or replace', schedule.concurrency_policy));
    END IF;
    IF schedule.backfill IS NULL OR schedule.backfill NOT IN ('all', 'latest') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('backfill %L is not all or latest', schedule.backfill));
    END IF;
    IF schedule.backfill_window IS NULL OR schedule.backfill_window < interval '0'
       OR schedule.jitter IS NULL OR schedule.jitter < interval '0' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'backfill_window and jitter must be zero or positive');
    END IF;
    IF schedule.max_attempts < 1 THEN
        PERFORM jobq._raise('JOB.MAX_ATTEMPTS_INVALID', format('max_attempts is %s; it must be at least 1', schedule.max_attempts));
    END IF;
    IF schedule.slot_key = '' OR schedule.queue = '' OR schedule.priority NOT BETWEEN -32768 AND 32767
       OR schedule.enabled IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            'slot_key and queue must not be empty, priority must fit -32768..32767, and enabled must not be NULL');
    END IF;
    -- The jobs it will enqueue must keep the task's contract (with the slot key filled in).
    v_problem := jobq.payload_problem(v_schema, CASE WHEN schedule.slot_key IS NULL THEN schedule.payload
        ELSE schedule.payload || jsonb_build_object(schedule.slot_key, '2000-01-01T00:00:00Z') END);
    IF v_problem IS NOT NULL THEN
        PERFORM jobq._raise('JOB.PAYLOAD_INVALID', format('schedule %s, task %s: %s', schedule.name, schedule.task, v_problem));
    END IF;
    v_next := jobq._cron_next(v_fields, now(), schedule.timezone);
    IF v_next IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%L never fires', schedule.cron));
    END IF;

    INSERT INTO jobq.schedules AS s (name, cron, fields, timezone, task, payload, slot_key, queue, priority, max_attempts,
                                     concurrency_policy, backfill_window, backfill, jitter, enabled, next_slot_at)
    VALUES (schedule.name, schedule.cron, v_fields, schedule.timezone, schedule.task, schedule.payload, schedule.slot_key,
            schedule.queue, schedule.priority, schedule.max_attempts, schedule.concurrency_policy, schedule.backfill_window,
            schedule.backfill, schedule.jitter, schedule.enabled, v_next)
    ON CONFLICT ON CONSTRAINT schedules_pkey DO UPDATE SET
        cron = EXCLUDED.cron, fields = EXCLUDED.fields, timezone = EXCLUDED.timezone, task = EXCLUDED.task,
        payload = EXCLUDED.payload, slot_key = EXCLUDED.slot_key, queue = EXCLUDED.queue, priority = EXCLUDED.priority,
        max_attempts = EXCLUDED.max_attempts, concurrency_policy = EXCLUDED.concurrency_policy,
        backfill_window = EXCLUDED.backfill_window, backfill = EXCLUDED.backfill, jitter = EXCLUDED.jitter,
        enabled = EXCLUDED.enabled,
        next_slot_at = CASE WHEN (s.cron, s.timezone) IS DISTINCT FROM (EXCLUDED.cron, EXCLUDED.timezone) OR s.next_slot_at IS NULL
                            THEN EXCLUDED.next_slot_at ELSE s.next_slot_at END,
        updated_at = now()
    WHERE (s.cron, s.timezone, s.task, s.payload, s.slot_key, s.queue, s.priority, s.max_attempts, s.concurrency_policy,
           s.backfill_window, s.backfill, s.jitter, s.enabled)
          IS DISTINCT FROM
          (EXCLUDED.cron, EXCLUDED.timezone, EXCLUDED.task, EXCLUDED.payload, EXCLUDED.slot_key, EXCLUDED.queue,
           EXCLUDED.priority, EXCLUDED.max_attempts, EXCLUDED.concurrency_policy, EXCLUDED.backfill_window,
           EXCLUDED.backfill, EXCLUDED.jitter, EXCLUDED.enabled);
    v_changed := FOUND;
    IF v_changed THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('schedule', jsonb_build_object('schedule', schedule.name, 'cron', schedule.cron, 'task', schedule.task,
                                               'timezone', schedule.timezone, 'enabled', schedule.enabled));
    END IF;

    RETURN (SELECT s.next_slot_at FROM jobq.schedules s WHERE s.name = schedule.name);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.schedule(text, text, text, jsonb, text, text, interval, text, interval, text, text, integer, integer, boolean) IS
    'Declares or updates the schedule name: task (a declared system task) runs at every slot of cron in timezone '
    '(default UTC), with payload plus {slot_key: slot instant} (default key slotAt; NULL adds none). Idempotent: '
    'nothing changes when nothing differs; a changed cron or time zone restarts from the next slot after now(). '
    'Returns the next slot. A change is audited. Callers: operators, runners syncing code-declared schedules. Errors: '
    'JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.UNKNOWN_TASK, JOB.INVALID_ARGUMENT, JOB.PAYLOAD_NOT_OBJECT, '
    'JOB.PAYLOAD_INVALID (the payload breaks the task''s contract), JOB.MAX_ATTEMPTS_INVALID.';

-- Removes a schedule and its run records. Audited.
-- +goose StatementBegin
CREATE FUNCTION jobq.unschedule(name text)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_row jsonb;
BEGIN
    DELETE FROM jobq.schedules AS s WHERE s.name = unschedule.name
    RETURNING jsonb_build_object('cron', s.cron, 'task', s.task, 'timezone', s.timezone) INTO v_row;
    IF v_row IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SCHEDULE', format('schedule %L', unschedule.name));
    END IF;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('unschedule', jsonb_build_object('schedule', unschedule.name) || v_row);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.unschedule(text) IS
    'Removes schedule name and its run records; its jobs already enqueued stay. Audited. Caller: operators. '
    'Errors: JOB.UNKNOWN_SCHEDULE.';

-- Handles the slots of one schedule from its next_slot_at up to p_now (at most p_max_slots),
-- applying backfill and concurrency policy. The caller holds the schedule's row lock.
-- +goose StatementBegin
CREATE FUNCTION jobq._run_schedule(p_s jobq.schedules, p_now timestamptz, p_max_slots integer)
RETURNS TABLE (slot_at timestamptz, outcome text, reason text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_window_start constant timestamptz := p_now - p_s.backfill_window;
    v_slot timestamptz := p_s.next_slot_at;
    v_slots timestamptz[] := '{}'::timestamptz[];
    v_first_in_window timestamptz;
    v_previous bigint := p_s.last_job_id;
    v_job bigint;
    v_at timestamptz;
    v_last timestamptz := p_s.last_slot_at;
    v_iso text;
BEGIN
    -- A late stretch (downtime): one row, naming its first slot; none of it runs.
    IF v_slot < v_window_start THEN
        v_first_in_window := jobq._cron_next(p_s.fields, v_window_start - interval '1 microsecond', p_s.timezone);
        INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason, detail)
        VALUES (p_s.name, v_slot, 'skipped', 'late',
                jsonb_build_object('late_before', v_window_start, 'resumes_at', v_first_in_window,
                                   'backfill_window', p_s.backfill_window::text))
        ON CONFLICT DO NOTHING;
        slot_at := v_slot; outcome := 'skipped'; reason := 'late'; job_id := NULL;
        RETURN NEXT;
        v_last := v_slot;
        v_slot := v_first_in_window;
    END IF;

    WHILE v_slot IS NOT NULL AND v_slot <= p_now AND cardinality(v_slots) < p_max_slots LOOP
        v_slots := v_slots || v_slot;
        v_slot := jobq._cron_next(p_s.fields, v_slot, p_s.timezone);
    END LOOP;

    FOREACH v_at IN ARRAY v_slots LOOP
        v_last := v_at;
        IF p_s.backfill = 'latest' AND v_at < v_slots[cardinality(v_slots)] THEN
            INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason)
            VALUES (p_s.name, v_at, 'skipped', 'superseded') ON CONFLICT DO NOTHING;
            slot_at := v_at; outcome := 'skipped'; reason := 'superseded'; job_id := NULL;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF p_s.concurrency_policy <> 'allow' AND v_previous IS NOT NULL
           AND EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.id = v_previous) THEN
            IF p_s.concurrency_policy = 'forbid' THEN
                INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason, detail)
                VALUES (p_s.name, v_at, 'skipped', 'forbid', jsonb_build_object('running_job_id', v_previous))
                ON CONFLICT DO NOTHING;
                slot_at := v_at; outcome := 'skipped'; reason := 'forbid'; job_id := NULL;
                RETURN NEXT;
                CONTINUE;
            END IF;
            -- replace: the previous run is canceled; its lease, if running, stops working.
            WITH gone AS (
                DELETE FROM jobq.jobs AS j WHERE j.id = v_previous RETURNING j AS job
            )
            INSERT INTO jobq.job_history
            SELECT h.* FROM gone CROSS JOIN LATERAL jobq._to_history(gone.job, 'canceled', 'replaced', NULL, NULL) AS h;
        END IF;

        -- The slot is claimed first: the primary key decides, so a slot never gets a second job.
        INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome)
        VALUES (p_s.name, v_at, 'enqueued') ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            CONTINUE;
        END IF;
        v_iso := to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
        SELECT e.job_id INTO v_job
        FROM jobq._enqueue(ARRAY[ROW(
            p_s.task,
            CASE WHEN p_s.slot_key IS NULL THEN p_s.payload ELSE p_s.payload || jsonb_build_object(p_s.slot_key, v_iso) END,
            p_s.queue,
            v_at + p_s.jitter * ((hashtext(p_s.name || v_iso)::bigint + 2147483648) / 4294967295.0),
            p_s.priority, p_s.max_attempts,
            'schedule:' || p_s.name || ':' || v_iso, 'unsafe_dedupe', NULL, NULL, NULL, NULL)::jobq.job_spec], false) AS e;
        UPDATE jobq.schedule_runs AS r SET job_id = v_job WHERE r.schedule = p_s.name AND r.slot_at = v_at;
        v_previous := v_job;
        slot_at := v_at; outcome := 'enqueued'; reason := NULL; job_id := v_job;
        RETURN NEXT;
    END LOOP;

    UPDATE jobq.schedules AS s
    SET next_slot_at = v_slot, last_slot_at = v_last, last_job_id = v_previous, updated_at = now()
    WHERE s.name = p_s.name;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._run_schedule(jobq.schedules, timestamptz, integer) IS
    'Private. Handles the due slots of one schedule (caller holds its row lock): late stretch skipped, backfill, '
    'concurrency policy, one job per slot with job key schedule:<name>:<slot>. Returns one row per slot handled.';

-- Enqueues the due slots of every schedule at time p_now; schedules another caller is handling
-- are skipped (SKIP LOCKED), so many callers at once never double a slot. A schedule whose jobs
-- the engine refuses (its task changed under it) does not stop the others: its due slots are
-- recorded as skipped (reason error, with the message) and it moves on to its next slot.
-- +goose StatementBegin
CREATE FUNCTION jobq._enqueue_due_slots(p_now timestamptz, p_max_schedules integer DEFAULT 100)
RETURNS TABLE (schedule text, slot_at timestamptz, outcome text, reason text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_s jobq.schedules;
    v_message text;
BEGIN
    FOR v_s IN
        SELECT * FROM jobq.schedules s
        WHERE s.enabled AND s.next_slot_at <= p_now
        ORDER BY s.next_slot_at
        LIMIT p_max_schedules
        FOR UPDATE SKIP LOCKED
    LOOP
        BEGIN
            RETURN QUERY SELECT v_s.name, r.slot_at, r.outcome, r.reason, r.job_id FROM jobq._run_schedule(v_s, p_now, 1000) AS r;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS v_message = MESSAGE_TEXT;
            INSERT INTO jobq.schedule_runs AS r (schedule, slot_at, outcome, reason, detail)
            VALUES (v_s.name, v_s.next_slot_at, 'skipped', 'error', jsonb_build_object('error', v_message))
            ON CONFLICT DO NOTHING;
            UPDATE jobq.schedules AS s
            SET next_slot_at = jobq._cron_next(v_s.fields, p_now, v_s.timezone), updated_at = now()
            WHERE s.name = v_s.name;
            schedule := v_s.name; slot_at := v_s.next_slot_at; outcome := 'skipped'; reason := 'error'; job_id := NULL;
            RETURN NEXT;
        END;
    END LOOP;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._enqueue_due_slots(timestamptz, integer) IS
    'Private to jobq.maintain. Handles the due slots of at most p_max_schedules schedules at time p_now (SKIP LOCKED); '
    'a schedule whose job the engine refuses is skipped (reason error) without stopping the others.';

GRANT EXECUTE ON FUNCTION
    jobq.schedule(text, text, text, jsonb, text, text, interval, text, interval, text, text, integer, integer, boolean)
TO worker_runtime, jobq_operator;
GRANT EXECUTE ON FUNCTION jobq.unschedule(text) TO jobq_operator;

-- +goose Down
DROP FUNCTION jobq._enqueue_due_slots(timestamptz, integer);
DROP FUNCTION jobq._run_schedule(jobq.schedules, timestamptz, integer);
DROP FUNCTION jobq.unschedule(text);
DROP FUNCTION jobq.schedule(text, text, text, jsonb, text, text, interval, text, interval, text, text, integer, integer, boolean);
DELETE FROM jobq.error_codes WHERE sqlstate = 'JQ603';
DROP TABLE jobq.schedule_runs;
DROP TABLE jobq.schedules;
