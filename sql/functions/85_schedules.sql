-- jobq engine, schedules. Declaring schedules, enqueueing one job for each of their due slots
-- under their backfill and concurrency policies, and an operator's pause, resume and run-now.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Declares a schedule, or brings it up to date: a system task run at every slot of a cron
-- expression in a time zone, with backfill and concurrency policies. Idempotent, so runners can
-- sync the schedules declared in code at every start. Callers: operators, runners.
CREATE OR REPLACE FUNCTION jobq.schedule(
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
    PERFORM jobq._check_interval('backfill_window', schedule.backfill_window, jobq._limit_interval('backfill_window'), true);
    PERFORM jobq._check_interval('jitter', schedule.jitter, jobq._limit_interval('jitter'), true);
    IF schedule.max_attempts < 1 THEN
        PERFORM jobq._raise('JOB.MAX_ATTEMPTS_INVALID', format('max_attempts is %s; it must be at least 1', schedule.max_attempts));
    END IF;
    PERFORM jobq._check_int('max_attempts', schedule.max_attempts, 1, jobq._limit('max_attempts'), 'JOB.MAX_ATTEMPTS_INVALID');
    PERFORM jobq._check_text('slot_key', schedule.slot_key, jobq._limit('slot_key')::integer);
    PERFORM jobq._check_text('queue', schedule.queue, jobq._limit('queue')::integer);
    PERFORM jobq._check_payload('payload', schedule.payload);
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
COMMENT ON FUNCTION jobq.schedule(text,text,text,jsonb,text,text,interval,text,interval,text,text,integer,integer,boolean) IS
    'Declares or updates the schedule name: task (a declared system task) runs at every slot of cron in timezone (default UTC), with payload plus {slot_key: slot instant} (default key slotAt; NULL adds none). Idempotent: nothing changes when nothing differs; a changed cron or time zone restarts from the next slot after now(). Returns the next slot. A change is audited. Callers: operators, runners syncing code-declared schedules. Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.UNKNOWN_TASK, JOB.INVALID_ARGUMENT, JOB.PAYLOAD_NOT_OBJECT, JOB.PAYLOAD_INVALID (the payload breaks the task''s contract), JOB.MAX_ATTEMPTS_INVALID (outside 1..1000), JOB.LEASE_INVALID (negative backfill_window or jitter), JOB.OUT_OF_RANGE (backfill_window above 7 days, jitter above 1 day), JOB.VALUE_TOO_LONG (slot_key above 100, queue above 200 characters), JOB.PAYLOAD_TOO_LARGE.';

-- Removes a schedule and its run records. Audited.
CREATE OR REPLACE FUNCTION jobq.unschedule(name text)
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
COMMENT ON FUNCTION jobq.unschedule(text) IS
    'Removes schedule name and its run records; its jobs already enqueued stay. Audited. Caller: operators. Errors: JOB.UNKNOWN_SCHEDULE.';

-- Applies a schedule's concurrency policy before one more run of it, a cron tick's or an
-- operator's run-now alike (one home for the policy). The run before it is p_previous (the
-- schedule's last job); it is live while its row is in jobq.jobs (queued, running, waiting for a
-- retry). allow: nothing to do. forbid: returns the live run's id, and the caller enqueues nothing.
-- replace: the live run is canceled (its lease, if running, stops working) and audited as
-- schedule_replaced with p_detail, and the caller goes ahead. The caller holds the schedule's row
-- lock, so two callers never decide on the same previous run at once.
CREATE OR REPLACE FUNCTION jobq._apply_schedule_policy(p_s jobq.schedules, p_previous bigint, p_detail jsonb)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_s.concurrency_policy = 'allow' OR p_previous IS NULL
       OR NOT EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.id = p_previous) THEN
        RETURN NULL;
    END IF;
    IF p_s.concurrency_policy = 'forbid' THEN
        RETURN p_previous;
    END IF;
    -- replace. The cancel is audited like an operator's (actor: the session that ran maintain,
    -- or the operator who ran the schedule now).
    WITH gone AS (
        DELETE FROM jobq.jobs AS j WHERE j.id = p_previous RETURNING j AS job
    ), moved AS (
        INSERT INTO jobq.job_history
        SELECT h.* FROM gone CROSS JOIN LATERAL jobq._to_history(gone.job, 'canceled', 'replaced', NULL, NULL) AS h
    )
    INSERT INTO jobq.audit_log (action, job_id, detail)
    SELECT 'schedule_replaced', (g.job).id,
           jsonb_build_object('schedule', p_s.name, 'previous_state', (g.job).state) || p_detail
    FROM gone g;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION jobq._apply_schedule_policy(jobq.schedules,bigint,jsonb) IS
    'Private. The concurrency policy of schedule p_s before one more run (jobq._run_schedule''s slots, jobq.run_schedule_now), p_previous its last job; the caller holds the schedule''s row lock. Returns the id of the live run that forbids it (policy forbid), else NULL: allow, no live run, or replace, which has canceled the live run (history state canceled, reason replaced) and audited it as schedule_replaced (detail: schedule, previous_state and p_detail).';

-- Handles the slots of one schedule from its next_slot_at up to p_now (at most p_max_slots),
-- applying backfill and concurrency policy. The caller holds the schedule's row lock. The slots are
-- instants (jobq._cron_next): a window that begins or ends inside a repeated or skipped local
-- hour holds every slot of that stretch of real time.
CREATE OR REPLACE FUNCTION jobq._run_schedule(p_s jobq.schedules, p_now timestamptz, p_max_slots integer)
RETURNS TABLE (slot_at timestamptz, outcome text, reason text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- Safe for any stored window: never before the range cron evaluates (nor an overflow).
    v_window_start constant timestamptz := greatest(p_now - least(p_s.backfill_window, interval '1000 years'),
                                                    '1970-01-01 00:00:00.000001+00'::timestamptz);
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
        IF jobq._apply_schedule_policy(p_s, v_previous, jsonb_build_object('slot_at', v_at)) IS NOT NULL THEN
            INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason, detail)
            VALUES (p_s.name, v_at, 'skipped', 'forbid', jsonb_build_object('running_job_id', v_previous))
            ON CONFLICT DO NOTHING;
            slot_at := v_at; outcome := 'skipped'; reason := 'forbid'; job_id := NULL;
            RETURN NEXT;
            CONTINUE;
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
            'schedule:' || p_s.name || ':' || v_iso, 'unsafe_dedupe', NULL, NULL, NULL, NULL, NULL)::jobq.job_spec], false) AS e;
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
COMMENT ON FUNCTION jobq._run_schedule(jobq.schedules,timestamp with time zone,integer) IS
    'Private. Handles the due slots of one schedule (caller holds its row lock): late stretch skipped, backfill, concurrency policy (a replaced job is audited as schedule_replaced), one job per slot with job key schedule:<name>:<slot>; every slot of the backfill window runs, across DST changes too; any stored backfill_window is safe. Returns one row per slot handled.';

-- Enqueues the due slots of every schedule at time p_now; schedules another caller is handling
-- are skipped (SKIP LOCKED), so many callers at once never double a slot. A schedule whose jobs
-- the engine refuses (its task changed under it) does not stop the others: its due slots are
-- recorded as skipped (reason error, with the message) and it moves on to its next slot.
CREATE OR REPLACE FUNCTION jobq._enqueue_due_slots(p_now timestamptz, p_max_schedules integer DEFAULT 100)
RETURNS TABLE (schedule text, slot_at timestamptz, outcome text, reason text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_s jobq.schedules;
    v_message text;
    v_next timestamptz;
BEGIN
    FOR v_s IN
        SELECT * FROM jobq.schedules s
        WHERE s.enabled AND s.paused_at IS NULL AND s.next_slot_at <= p_now
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
            -- The next slot after now; a schedule whose zone the tz database no longer knows stops
            -- (next_slot_at NULL, until jobq.schedule declares it again) instead of stopping maintain.
            BEGIN
                v_next := jobq._cron_next(v_s.fields, p_now, v_s.timezone);
            EXCEPTION WHEN OTHERS THEN
                v_next := NULL;
            END;
            UPDATE jobq.schedules AS s SET next_slot_at = v_next, updated_at = now() WHERE s.name = v_s.name;
            schedule := v_s.name; slot_at := v_s.next_slot_at; outcome := 'skipped'; reason := 'error'; job_id := NULL;
            RETURN NEXT;
        END;
    END LOOP;
END
$$;
COMMENT ON FUNCTION jobq._enqueue_due_slots(timestamp with time zone,integer) IS
    'Private to jobq.maintain. Handles the due slots of at most p_max_schedules enabled, unpaused schedules at time p_now (SKIP LOCKED); a schedule whose job the engine refuses is skipped (reason error) without stopping the others; one whose next slot cannot be computed (its zone unknown) stops (next_slot_at NULL) until declared again.';

-- Checks a schedule name an operator passes and locks its row; JOB.UNKNOWN_SCHEDULE when none is
-- named so.
CREATE OR REPLACE FUNCTION jobq._lock_schedule(p_name text)
RETURNS jobq.schedules
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_s jobq.schedules;
BEGIN
    IF p_name IS NULL OR btrim(p_name) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'schedule name is NULL or empty');
    END IF;
    PERFORM jobq._check_text('name', p_name, 100);
    SELECT * INTO v_s FROM jobq.schedules s WHERE s.name = p_name FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SCHEDULE', format('schedule %L', p_name));
    END IF;
    RETURN v_s;
END
$$;
COMMENT ON FUNCTION jobq._lock_schedule(text) IS
    'Private. Locks and returns schedule p_name. Errors: JOB.INVALID_ARGUMENT (NULL or blank), JOB.VALUE_TOO_LONG (above 100 characters), JOB.UNKNOWN_SCHEDULE.';

-- Pauses a schedule without redeclaring it: maintain enqueues none of its slots until it is
-- resumed. Kept apart from `enabled`, so a runner syncing the declared schedules keeps the pause.
CREATE OR REPLACE FUNCTION jobq.pause_schedule(name text)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_s jobq.schedules := jobq._lock_schedule(pause_schedule.name);
BEGIN
    IF v_s.paused_at IS NOT NULL THEN
        RETURN false;
    END IF;
    UPDATE jobq.schedules AS s SET paused_at = now(), paused_by = session_user, updated_at = now()
    WHERE s.name = v_s.name;
    INSERT INTO jobq.audit_log (action, detail) VALUES ('pause_schedule', jsonb_build_object('schedule', v_s.name));
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq.pause_schedule(text) IS
    'Pauses schedule name: jobq.maintain enqueues none of its slots until jobq.resume_schedule; its jobs already enqueued stay. Re-declaring it (jobq.schedule) keeps the pause. Returns true when it was running (audited as pause_schedule), false when already paused. Caller: operators. Locks the schedule row. Errors: JOB.UNKNOWN_SCHEDULE, JOB.INVALID_ARGUMENT (NULL or blank name), JOB.VALUE_TOO_LONG (name above 100 characters).';

-- Resumes a paused schedule from its next slot after now(): the slots it missed while paused are
-- not backfilled, however long the pause.
CREATE OR REPLACE FUNCTION jobq.resume_schedule(name text)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_s jobq.schedules := jobq._lock_schedule(resume_schedule.name);
    v_next timestamptz;
BEGIN
    IF v_s.paused_at IS NULL THEN
        RETURN false;
    END IF;
    v_next := jobq._cron_next(v_s.fields, now(), v_s.timezone);
    UPDATE jobq.schedules AS s SET paused_at = NULL, paused_by = NULL, next_slot_at = v_next, updated_at = now()
    WHERE s.name = v_s.name;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('resume_schedule', jsonb_build_object('schedule', v_s.name, 'paused_at', v_s.paused_at, 'next_slot_at', v_next));
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq.resume_schedule(text) IS
    'Resumes a paused schedule from its next slot after now() (the slots of the pause are not backfilled). Returns true when it was paused (audited as resume_schedule), false otherwise. Caller: operators. Locks the schedule row. Errors: JOB.UNKNOWN_SCHEDULE, JOB.INVALID_ARGUMENT (NULL or blank name), JOB.VALUE_TOO_LONG (name above 100 characters), JOB.INVALID_TIMEZONE (its stored zone no longer known).';

-- Runs a schedule once now, outside its slots: one job of its task, its payload with the slot key
-- set to now, job key schedule:<name>:manual:<now>. Its slots and pause are untouched; its
-- concurrency policy applies as at a cron tick (jobq._apply_schedule_policy): under forbid a live
-- run refuses it, under replace the live run is canceled. The new job becomes the schedule's last
-- run, so the next tick and the next run-now apply the policy to it in turn.
CREATE OR REPLACE FUNCTION jobq.run_schedule_now(name text)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_s jobq.schedules := jobq._lock_schedule(run_schedule_now.name);
    v_iso constant text := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
    v_live bigint;
    v_job bigint;
BEGIN
    v_live := jobq._apply_schedule_policy(v_s, v_s.last_job_id, jsonb_build_object('run_now_at', v_iso));
    IF v_live IS NOT NULL THEN
        PERFORM jobq._raise('JOB.SCHEDULE_OVERLAP', format('schedule %s has concurrency_policy forbid and its run, job %s, is still %s',
            v_s.name, v_live, coalesce((SELECT j.state FROM jobq.jobs j WHERE j.id = v_live), 'live')));
    END IF;
    SELECT e.job_id INTO v_job
    FROM jobq._enqueue(ARRAY[ROW(
        v_s.task,
        CASE WHEN v_s.slot_key IS NULL THEN v_s.payload ELSE v_s.payload || jsonb_build_object(v_s.slot_key, v_iso) END,
        v_s.queue, now(), v_s.priority, v_s.max_attempts,
        'schedule:' || v_s.name || ':manual:' || v_iso, 'unsafe_dedupe', NULL, NULL, NULL, NULL, NULL)::jobq.job_spec], false) AS e;
    UPDATE jobq.schedules AS s SET last_job_id = v_job, updated_at = now() WHERE s.name = v_s.name;
    INSERT INTO jobq.audit_log (action, job_id, detail)
    VALUES ('run_schedule_now', v_job, jsonb_build_object('schedule', v_s.name, 'at', v_iso));
    RETURN v_job;
END
$$;
COMMENT ON FUNCTION jobq.run_schedule_now(text) IS
    'Enqueues one job of schedule name now, paused or not: its task, queue, priority and max_attempts, its payload with the slot key set to now (ISO 8601 UTC, microseconds), job key schedule:<name>:manual:<now>. Its concurrency policy applies as at a cron tick: forbid refuses while the schedule''s last run is live (JOB.SCHEDULE_OVERLAP, nothing written); replace cancels that run (audited as schedule_replaced); allow runs beside it. The job becomes the schedule''s last run (last_job_id), which the next tick''s policy sees; its slots and next_slot_at are unchanged. Audited as run_schedule_now. Returns the job id. Caller: operators. Locks the schedule row. Errors: JOB.SCHEDULE_OVERLAP, JOB.UNKNOWN_SCHEDULE, JOB.INVALID_ARGUMENT (NULL or blank name), JOB.VALUE_TOO_LONG (name above 100 characters), and the enqueue''s errors (JOB.PAYLOAD_INVALID when its task''s contract changed under it).';
