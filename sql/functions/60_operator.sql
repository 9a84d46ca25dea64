-- jobq engine, operator. What operators do to jobs, queues and settings (retry, cancel, delete,
-- requeue, pause and resume a queue, set its concurrency limits, change a setting), how long each
-- queue's next job has waited, and each queue's stats (jobq.stats).
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Operator "retry now": runs a waiting job at once, or queues a dead or canceled job again.
-- A gate function, so an application may also retry its own store's jobs.
CREATE OR REPLACE FUNCTION jobq.retry_job(job_id bigint)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_state text;
    v_queue text;
BEGIN
    SELECT j.state, j.queue INTO v_state, v_queue FROM jobq.jobs j WHERE j.id = retry_job.job_id FOR UPDATE;
    IF FOUND THEN
        IF v_state = 'running' THEN
            PERFORM jobq._raise('JOB.STATE_CONFLICT', format('job %s is running; cancel it first or wait for it to end', retry_job.job_id));
        END IF;
        -- A blocked job waits for its parents or its sequence (45_workflows.sql): running it now
        -- would break the order its enqueuer asked for.
        IF v_state = 'blocked' THEN
            PERFORM jobq._raise('JOB.STATE_CONFLICT', format('job %s is blocked by its dependencies or its sequence (jobq.explain_job says which); '
                                                             'cancel or retry what it waits for', retry_job.job_id));
        END IF;
        UPDATE jobq.jobs AS j SET run_at = now(), state = 'queued', counted = false, updated_at = now() WHERE j.id = retry_job.job_id;
        INSERT INTO jobq.audit_log (action, job_id, detail)
        VALUES ('retry_job', retry_job.job_id, jsonb_build_object('previous_state', v_state));
        PERFORM jobq._wake(v_queue);
        RETURN 'queued';
    END IF;

    SELECT h.state INTO v_state FROM jobq.job_history h WHERE h.id = retry_job.job_id FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.NOT_FOUND', format('job %s', retry_job.job_id));
    ELSIF v_state = 'succeeded' THEN
        PERFORM jobq._raise('JOB.STATE_CONFLICT', format('job %s succeeded; enqueue a new job to run it again', retry_job.job_id));
    END IF;
    IF NOT EXISTS (SELECT 1 FROM jobq._revive(ARRAY[retry_job.job_id], 'retry_job')) THEN
        PERFORM jobq._raise('JOB.STATE_CONFLICT', format('job %s cannot be queued again: a live job holds its job_key', retry_job.job_id));
    END IF;
    RETURN 'queued';
END
$$;
COMMENT ON FUNCTION jobq.retry_job(bigint) IS
    'Operator "retry now": a waiting job (queued, retry_pending) runs at once, keeping its attempts; a dead or canceled job is queued again with attempt 0. Audited. Returns queued. Callers: operators, applications (own jobs). Locks the job row. Errors: JOB.NOT_FOUND, JOB.STATE_CONFLICT (running, blocked by its dependencies or sequence, succeeded, or its key is held by a live job).';
-- The gate needs CREATE on the schema at the moment it becomes the owner, and not after.
GRANT CREATE ON SCHEMA jobq TO jobq_app_gate;
ALTER FUNCTION jobq.retry_job(bigint) OWNER TO jobq_app_gate;
REVOKE CREATE ON SCHEMA jobq FROM jobq_app_gate;

-- Cancels a live job: it moves to history as canceled. A running job's lease stops working at
-- once, so its worker's heartbeat is refused (the runner cancels the handler) and its late
-- complete or fail changes nothing; its runner is notified at commit (NOTIFY jobq_control).
CREATE OR REPLACE FUNCTION jobq.cancel_job(job_id bigint)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_previous text;
    v_finished text;
BEGIN
    -- A job of a sequence: the sequence's lock before the row's, the order of an enqueue and of
    -- the trigger that releases the sequence's next job (45_workflows.sql). The cascade to the
    -- job's dependents then locks their rows while holding it, where an enqueue holding a
    -- dependent's row (its parent) waits for the same sequence: when PostgreSQL aborts this side
    -- of that deadlock, the subtransaction lets go of the sequence and the row, the enqueue
    -- finishes, and the cancel is taken again from the start.
    FOR v_try IN 1 .. 5 LOOP
        BEGIN
            PERFORM jobq._lock_sequences(ARRAY[j.store_id], ARRAY[j.sequence_key])
            FROM jobq.jobs j WHERE j.id = cancel_job.job_id AND j.sequence_key IS NOT NULL;
            WITH gone AS (
                DELETE FROM jobq.jobs AS j WHERE j.id = cancel_job.job_id RETURNING j AS job
            ), moved AS (
                INSERT INTO jobq.job_history
                SELECT h.* FROM gone CROSS JOIN LATERAL jobq._to_history(gone.job, 'canceled', 'canceled', NULL, NULL) AS h
                RETURNING jobq.job_history.id
            )
            SELECT (g.job).state INTO v_previous FROM gone g JOIN moved m ON m.id = (g.job).id;
            EXIT;
        EXCEPTION WHEN deadlock_detected THEN
            IF v_try = 5 THEN
                RAISE;
            END IF;
        END;
    END LOOP;

    IF v_previous IS NULL THEN
        -- Only a job the caller could have canceled is reported as ended: a store's login learns
        -- nothing of a system job (nor of another store's, which the row policies hide already).
        SELECT h.state INTO v_finished FROM jobq.job_history h
        WHERE h.id = cancel_job.job_id AND jobq._caller_reaches(h.store_id);
        IF v_finished IS NULL THEN
            PERFORM jobq._raise('JOB.NOT_FOUND', format('job %s', cancel_job.job_id));
        END IF;
        PERFORM jobq._raise('JOB.STATE_CONFLICT', format('job %s already ended as %s', cancel_job.job_id, v_finished));
    END IF;

    INSERT INTO jobq.audit_log (action, job_id, detail)
    VALUES ('cancel_job', cancel_job.job_id, jsonb_build_object('previous_state', v_previous));
    -- A running job's runner is told at commit, so its handler stops within moments rather than
    -- at its next heartbeat. The payload names only the job: the runner that holds it checks its
    -- lease with jobq.heartbeat_jobs before it stops anything (a NOTIFY is only a hint).
    IF v_previous = 'running' THEN
        PERFORM pg_catalog.pg_notify('jobq_control', 'cancel:' || cancel_job.job_id);
    END IF;
    RETURN 'canceled';
END
$$;
COMMENT ON FUNCTION jobq.cancel_job(bigint) IS
    'Cancels a live job (queued, retry_pending or running): it moves to jobq.job_history as canceled and its lease token stops working; for a running job it NOTIFYs jobq_control with cancel:<job id> at commit, so the runner stops the handler at once. Audited. Returns canceled. Callers: operators, applications (own jobs). Locks the job row (waits for a claim or finish in progress); when PostgreSQL aborts it in a deadlock with an enqueue into its sequence (40P01), starts over in a new subtransaction, up to 5 times. Errors: JOB.NOT_FOUND (also for a job the caller may not cancel: an application asking of a system job), JOB.STATE_CONFLICT (already ended).';
-- The gate needs CREATE on the schema at the moment it becomes the owner, and not after.
GRANT CREATE ON SCHEMA jobq TO jobq_app_gate;
ALTER FUNCTION jobq.cancel_job(bigint) OWNER TO jobq_app_gate;
REVOKE CREATE ON SCHEMA jobq FROM jobq_app_gate;

-- Deletes a job wherever it is, live or finished. The audit row keeps what was deleted.
CREATE OR REPLACE FUNCTION jobq.delete_job(job_id bigint)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_row jsonb;
    v_job jobq.jobs;
BEGIN
    -- A job of a sequence: the sequence's lock before the row's, and the whole taken again when
    -- PostgreSQL aborts it in a deadlock with an enqueue (as cancel_job).
    FOR v_try IN 1 .. 5 LOOP
        BEGIN
            PERFORM jobq._lock_sequences(ARRAY[j.store_id], ARRAY[j.sequence_key])
            FROM jobq.jobs j WHERE j.id = delete_job.job_id AND j.sequence_key IS NOT NULL;
            DELETE FROM jobq.jobs AS j WHERE j.id = delete_job.job_id RETURNING j.* INTO v_job;
            -- A live job leaves without a history row, so no trigger sees it end: its dependents
            -- and sequence are settled as for a job canceled (reason deleted).
            IF v_job.has_dependents OR v_job.depends_on IS NOT NULL OR v_job.sequence_key IS NOT NULL THEN
                PERFORM jobq._settle_ended(ARRAY(SELECT h FROM jobq._to_history(v_job, 'canceled', 'deleted', NULL, NULL) AS h));
            END IF;
            EXIT;
        EXCEPTION WHEN deadlock_detected THEN
            IF v_try = 5 THEN
                RAISE;
            END IF;
        END;
    END LOOP;
    IF v_job.id IS NOT NULL THEN
        v_row := to_jsonb(v_job);
        -- Its batch counts it canceled, and its waiters are told on jobq_done.
        IF v_job.batch_id IS NOT NULL THEN
            PERFORM jobq._batch_ended(ARRAY[v_job.batch_id], ARRAY['canceled']);
        END IF;
        PERFORM jobq._tell_done(ARRAY[delete_job.job_id]);
    ELSE
        DELETE FROM jobq.job_history AS h WHERE h.id = delete_job.job_id RETURNING to_jsonb(h) INTO v_row;
        -- A dead job that held its sequence lets the next job go.
        PERFORM jobq._unhold_sequences(ARRAY[delete_job.job_id]);
    END IF;
    IF v_row IS NULL THEN
        PERFORM jobq._raise('JOB.NOT_FOUND', format('job %s', delete_job.job_id));
    END IF;
    INSERT INTO jobq.audit_log (action, job_id, detail)
    VALUES ('delete_job', delete_job.job_id, jsonb_build_object('previous_state', v_row->>'state', 'job', v_row));
    RETURN v_row->>'state';
END
$$;
COMMENT ON FUNCTION jobq.delete_job(bigint) IS
    'Deletes a job from jobq.jobs or jobq.job_history; a running job''s lease stops working. A live job''s dependents and sequence are settled as for a canceled job (jobq._settle_ended: dependents with on_parent_failure cancel are canceled, the sequence''s next job released); a dead job holding its sequence releases it (jobq._unhold_sequences). A live job of a batch counts canceled in it (jobq._batch_ended), and a live job''s waiters are told on jobq_done (jobq._tell_done). Audited with the deleted row. Returns the state it had. Starts over, up to 5 times, when PostgreSQL aborts it in a deadlock with an enqueue into its sequence (40P01). Caller: operators. Errors: JOB.NOT_FOUND.';

-- Queues dead jobs again in bulk, oldest death first, filtered by task and time of death: after
-- the cause of an outage is fixed. Caller: operators.
CREATE OR REPLACE FUNCTION jobq.requeue_dead(task text DEFAULT NULL, finished_after timestamptz DEFAULT NULL, max_jobs integer DEFAULT 1000)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF requeue_dead.max_jobs IS NULL OR requeue_dead.max_jobs < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('max_jobs %s must be at least 1', coalesce(requeue_dead.max_jobs::text, 'NULL')));
    END IF;
    PERFORM jobq._check_int('max_jobs', requeue_dead.max_jobs, 1, jobq._limit('sweep'));
    -- NULL is every task; a blank name is no task's, and would quietly requeue nothing.
    IF btrim(requeue_dead.task) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'task is blank; pass NULL for every task');
    END IF;
    PERFORM jobq._check_text('task', requeue_dead.task, jobq._limit('task')::integer);
    PERFORM jobq._check_timestamp('finished_after', requeue_dead.finished_after);
    RETURN (
        SELECT count(*)
        FROM jobq._revive(ARRAY(
            SELECT h.id FROM jobq.job_history h
            WHERE h.state = 'dead'
              AND (requeue_dead.task IS NULL OR h.task = requeue_dead.task)
              AND (requeue_dead.finished_after IS NULL OR h.finished_at >= requeue_dead.finished_after)
            ORDER BY h.finished_at, h.id
            LIMIT requeue_dead.max_jobs
            FOR UPDATE SKIP LOCKED), 'requeue_dead'));
END
$$;
COMMENT ON FUNCTION jobq.requeue_dead(text,timestamp with time zone,integer) IS
    'Queues dead jobs again (attempt 0, run now), oldest death first, filtered by task (NULL: every task) and finished_after, at most max_jobs; a job whose key a live job holds is left dead. Audits each job. Returns the number queued. Caller: operators. Errors: JOB.INVALID_ARGUMENT (max_jobs NULL or below 1, task empty or spaces only), JOB.OUT_OF_RANGE (max_jobs above 100000, finished_after outside 1970..9999), JOB.VALUE_TOO_LONG (task above 100 characters).';

-- Moves finished jobs back to the queue (retry_job of a dead or canceled job, requeue_dead),
-- audits each, and wakes their queues through jobq._wake.
CREATE OR REPLACE FUNCTION jobq._revive(p_job_ids bigint[], p_action text)
RETURNS SETOF bigint
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_ids bigint[];
BEGIN
    WITH revived AS (
        -- The job keeps the trace context it was enqueued under, not the operator session's.
        INSERT INTO jobq.jobs (id, task, queue, payload, store_id, priority, run_at, state, attempt, max_attempts,
                               job_key, job_key_mode, timeout, backoff_base, backoff_max, reason, last_error, error_code, created_at,
                               traceparent, tracestate, depends_on, on_parent_failure, sequence_key, on_sequence_failure, fair)
        OVERRIDING SYSTEM VALUE
        SELECT h.id, h.task, h.queue, h.payload, h.store_id, h.priority, now(), 'queued', 0, h.max_attempts,
               h.job_key, h.job_key_mode, h.timeout, h.backoff_base, h.backoff_max, 'requeued', h.last_error, h.error_code, h.created_at,
               h.traceparent, h.tracestate, h.depends_on, h.on_parent_failure, h.sequence_key, h.on_sequence_failure,
               -- Its queue's fair now, read by this statement (jobq.jobs.fair).
               coalesce((SELECT q.fair FROM jobq.queues q WHERE q.name = h.queue), false)
        FROM jobq.job_history h
        WHERE h.id = ANY (p_job_ids)
        ORDER BY h.id
        ON CONFLICT DO NOTHING
        RETURNING jobq.jobs.id
    ), gone AS (
        DELETE FROM jobq.job_history AS h USING revived r WHERE h.id = r.id RETURNING h.id, h.state
    ), audited AS (
        INSERT INTO jobq.audit_log (action, job_id, detail)
        SELECT p_action, g.id, jsonb_build_object('previous_state', g.state) FROM gone g
    )
    SELECT coalesce(array_agg(r.id ORDER BY r.id), '{}') INTO v_ids FROM revived r;

    -- A dead job that held its sequence runs again first (its id is the sequence's lowest).
    PERFORM jobq._unhold_sequences(v_ids);

    PERFORM jobq._wake(q.queue)
    FROM (SELECT DISTINCT j.queue FROM jobq.jobs j WHERE j.id = ANY (v_ids)) AS q;
    RETURN QUERY SELECT unnest(v_ids);
END
$$;
COMMENT ON FUNCTION jobq._revive(bigint[],text) IS
    'Private. Moves finished jobs p_job_ids back to jobq.jobs as queued (attempt 0, run_at now, reason requeued), with their workflow columns (a revived job''s dependencies are not waited for again; it keeps its sequence key and, holding the lowest id, runs first), clears the holds of the sequences they held (jobq._unhold_sequences), audits each as p_action and returns the ids moved; a job whose key a live job holds is skipped.';

-- Changes one setting of jobq.settings, refusing a value of the wrong kind or outside its limits,
-- and audits the change. Runners pick it up at their next heartbeat. Caller: operators.
CREATE OR REPLACE FUNCTION jobq.set_setting(name text, value text)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_setting jobq.settings;
BEGIN
    SELECT * INTO v_setting FROM jobq.settings s WHERE s.name = set_setting.name FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SETTING', format('no setting is named %L', set_setting.name));
    END IF;
    BEGIN
        CASE v_setting.kind
            WHEN 'interval' THEN
                IF set_setting.value::interval <= interval '0' THEN
                    RAISE invalid_parameter_value;
                END IF;
            WHEN 'integer' THEN
                IF set_setting.value::integer < 1 THEN
                    RAISE invalid_parameter_value;
                END IF;
            WHEN 'boolean' THEN
                PERFORM set_setting.value::boolean;
            ELSE
                NULL;
        END CASE;
        IF set_setting.value IS NULL THEN
            RAISE invalid_parameter_value;
        END IF;
    EXCEPTION WHEN data_exception OR invalid_parameter_value OR invalid_text_representation THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SETTING',
            format('%L is not a valid positive %s for setting %s', set_setting.value, v_setting.kind, set_setting.name));
    END;

    -- Each value within its range: the same limits as the arguments the setting stands for.
    PERFORM jobq._check_text(format('value of setting %s', set_setting.name), set_setting.value, jobq._limit('setting_value')::integer);
    IF v_setting.kind = 'interval' THEN
        PERFORM jobq._check_interval(format('value of setting %s', set_setting.name), set_setting.value::interval,
            CASE set_setting.name
                WHEN 'history_retention' THEN jobq._limit_interval('history_retention')
                WHEN 'backoff_base' THEN jobq._limit_interval('backoff')
                WHEN 'backoff_max' THEN jobq._limit_interval('backoff')
                WHEN 'default_lease' THEN jobq._limit_interval('lease')
                WHEN 'continuation_retry_interval' THEN interval '1 minute'
                ELSE jobq._limit_interval('ttl')
            END);
    ELSIF v_setting.kind = 'integer' THEN
        PERFORM jobq._check_int(format('value of setting %s', set_setting.name), set_setting.value::bigint,
            CASE set_setting.name WHEN 'max_payload_bytes' THEN jobq._limit('min_payload_bytes') ELSE 1 END,
            CASE set_setting.name
                WHEN 'default_max_attempts' THEN jobq._limit('max_attempts')
                WHEN 'max_payload_bytes' THEN jobq._limit('max_payload_bytes')
                WHEN 'max_result_bytes' THEN jobq._limit('max_payload_bytes')
                WHEN 'continuation_retry_count' THEN 100
                ELSE 2147483647
            END);
    END IF;

    -- wakeup takes one of three words; what enqueue does with each is in jobq._insert_specs.
    IF v_setting.name = 'wakeup' AND set_setting.value NOT IN ('notify', 'wal', 'both') THEN
        PERFORM jobq._raise('JOB.UNKNOWN_SETTING',
            format('%L is not a wake-up mode for setting wakeup; use notify, wal or both', set_setting.value));
    END IF;
    IF v_setting.name = 'wakeup' AND set_setting.value <> 'notify' AND current_setting('wal_level') <> 'logical' THEN
        RAISE WARNING USING
            MESSAGE = format('jobq: wakeup is %s, but wal_level is %s: no runner can decode the wake-up messages',
                             set_setting.value, current_setting('wal_level')),
            HINT = 'Set wal_level = logical (it takes a restart); until then runners in WAL mode poll.';
    END IF;

    UPDATE jobq.settings AS s SET value = set_setting.value, updated_at = now() WHERE s.name = set_setting.name;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('set_setting', jsonb_build_object('name', set_setting.name, 'from', v_setting.value, 'to', set_setting.value));
    RETURN set_setting.value;
END
$$;
COMMENT ON FUNCTION jobq.set_setting(text,text) IS
    'Changes a jobq.settings value after checking it parses as the setting''s kind (intervals and integers must be positive; wakeup is notify, wal or both, with a warning when wal_level is not logical). Audited with old and new value. Returns the new value. Caller: operators. Errors: JOB.UNKNOWN_SETTING, JOB.VALUE_TOO_LONG (a value above 1000 characters), JOB.OUT_OF_RANGE (history_retention above 3650 days, backoff_base and backoff_max above 30 days, continuation_retry_interval above 1 minute, the other intervals above 1 day, default_max_attempts above 1000, continuation_retry_count above 100, max_payload_bytes outside 1024..268435456, max_result_bytes outside 1..268435456).';

-- How long the next due job of each queue has waited. A head job at -infinity (or any stored
-- run_at) gives a lag, never an error.
CREATE OR REPLACE FUNCTION jobq.queue_lag(queues text[] DEFAULT NULL)
RETURNS TABLE (queue text, lag interval)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM jobq._check_length('queues', queue_lag.queues, jobq._limit('queues')::integer);
    RETURN QUERY
    SELECT q.name, coalesce(jobq._ts_diff(now(), head.run_at), interval '0')
    FROM (
        SELECT DISTINCT u.name FROM unnest(queue_lag.queues) AS u(name) WHERE u.name IS NOT NULL
        UNION
        SELECT DISTINCT j.queue FROM jobq.jobs j WHERE queue_lag.queues IS NULL
    ) AS q
    LEFT JOIN LATERAL (
        SELECT j.run_at
        FROM jobq.jobs j
        WHERE j.ready AND j.state IN ('queued', 'retry_pending') AND j.queue = q.name AND j.run_at <= now()
        ORDER BY j.priority, j.run_at, j.id
        LIMIT 1
    ) AS head ON true
    ORDER BY q.name;
END
$$;
COMMENT ON FUNCTION jobq.queue_lag(text[]) IS
    'Per queue (the given ones, NULL elements ignored, or every queue with a live job when NULL): how long the next job due to be claimed has waited past its run_at (0 when none is due; at most 200000 years, for a run_at stored as -infinity). Reveals no job content. Callers: runners (metrics), operators. Errors: JOB.OUT_OF_RANGE (more than 1000 queues).';

-- The result before blocked jobs were counted (issue 35): CREATE OR REPLACE cannot add a column,
-- so the function is dropped and created again (its callers name their columns).
DROP FUNCTION IF EXISTS jobq.queue_depth(text[]);

-- How many live jobs each queue holds per state (blocked included: a job waiting for its parents
-- or its sequence is live), and how many died in the last hour: the runners' queue-depth gauges.
-- Counts only, like jobq.queue_lag.
CREATE OR REPLACE FUNCTION jobq.queue_depth(queues text[] DEFAULT NULL)
RETURNS TABLE (queue text, queued bigint, retry_pending bigint, running bigint, scheduled bigint,
               blocked bigint, dead_last_hour bigint)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_now constant timestamptz := now();
    v_queue text;
BEGIN
    PERFORM jobq._check_length('queues', queue_depth.queues, jobq._limit('queues')::integer);
    FOREACH v_queue IN ARRAY coalesce(queue_depth.queues, '{}'::text[]) LOOP
        PERFORM jobq._check_text('queues', v_queue, jobq._limit('queue')::integer);
    END LOOP;
    RETURN QUERY
    WITH q AS (
        SELECT DISTINCT u.name FROM unnest(queue_depth.queues) AS u(name) WHERE u.name IS NOT NULL
        UNION
        SELECT DISTINCT j.queue FROM jobq.jobs j WHERE queue_depth.queues IS NULL
    ), live AS (
        SELECT j.queue AS name,
               count(*) FILTER (WHERE j.state = 'queued' AND j.run_at <= v_now) AS queued,
               count(*) FILTER (WHERE j.state = 'retry_pending') AS retry_pending,
               count(*) FILTER (WHERE j.state = 'running') AS running,
               count(*) FILTER (WHERE j.state = 'queued' AND j.run_at > v_now) AS scheduled,
               count(*) FILTER (WHERE j.state = 'blocked') AS blocked
        FROM jobq.jobs j
        WHERE j.queue IN (SELECT q.name FROM q)
        GROUP BY j.queue
    ), dead AS (
        SELECT h.queue AS name, count(*) AS dead_last_hour
        FROM jobq.job_history h
        WHERE h.finished_at > v_now - interval '1 hour' AND h.state = 'dead'
          AND h.queue IN (SELECT q.name FROM q)
        GROUP BY h.queue
    )
    SELECT q.name, coalesce(live.queued, 0), coalesce(live.retry_pending, 0),
           coalesce(live.running, 0), coalesce(live.scheduled, 0), coalesce(live.blocked, 0),
           coalesce(dead.dead_last_hour, 0)
    FROM q
    LEFT JOIN live ON live.name = q.name
    LEFT JOIN dead ON dead.name = q.name
    ORDER BY q.name;
END
$$;
COMMENT ON FUNCTION jobq.queue_depth(text[]) IS
    'Per queue (the given ones, NULL elements ignored, or every queue with a live job when NULL): live jobs by state, queued (due), retry_pending, running, scheduled (queued with a future run_at), blocked (waiting for parents or a sequence: never counted as queued or scheduled), and dead_last_hour (jobs of jobq.job_history that died in the last hour, read through the finish-time indexes of history: each day''s BRIN, the default partition''s btree); zeros for a queue with none. Reveals no job content; locks nothing. Callers: runners (metrics), operators. Errors: JOB.OUT_OF_RANGE (more than 1000 queues), JOB.VALUE_TOO_LONG (a queue above 200 characters).';

-- The queues and tasks live workers serve now, one row per (queue, task), task NULL when a worker
-- of the queue serves every task (it registered no list: a runner of the release before). A
-- worker is live while it is active and has been heard from within worker_timeout: the rule by
-- which jobq.maintain marks the silent ones lost; a draining, detached, lost or stopped worker
-- claims nothing, and one that registered no task ({}) serves none. The one definition of "served"
-- behind every count of jobs not served (issue 30).
CREATE OR REPLACE FUNCTION jobq._served_by_live_workers(p_now timestamptz)
RETURNS TABLE (queue text, task text)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT DISTINCT q.name, t.name
    FROM jobq.workers w
    CROSS JOIN LATERAL pg_catalog.unnest(w.queues) AS q(name)
    LEFT JOIN LATERAL pg_catalog.unnest(w.tasks) AS t(name) ON true
    WHERE w.state = 'active'
      AND w.heartbeat_at >= jobq._ts_add(p_now, -jobq._setting_interval('worker_timeout'))
      AND (w.tasks IS NULL OR pg_catalog.cardinality(w.tasks) > 0)
$$;
COMMENT ON FUNCTION jobq._served_by_live_workers(timestamp with time zone) IS
    'Private. The (queue, task) pairs that live workers (state active, heartbeat within worker_timeout of p_now) serve; task NULL: every task of the queue (a worker registered without a list of tasks). Callers: jobq._not_served, jobq._stats. Reads jobq.workers; locks nothing. Errors: none.';

-- How many waiting jobs (queued or retry_pending, due or not) of queue p_queue no live worker
-- serves, counting up to p_cap + 1, and the run_at of the oldest due one. Nothing is read when a
-- live worker of the queue serves every task; otherwise the queue's waiting jobs are read through
-- jobs_claim_idx until p_cap + 1 are counted (all of them when fewer are not served), and the
-- oldest is the first entry of each priority past the served ones.
CREATE OR REPLACE FUNCTION jobq._not_served(p_queue text, p_now timestamptz, p_cap integer)
RETURNS TABLE (not_served bigint, oldest_at timestamptz)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_every boolean;
    v_tasks text[];
BEGIN
    SELECT coalesce(bool_or(s.task IS NULL), false), coalesce(array_agg(s.task) FILTER (WHERE s.task IS NOT NULL), '{}')
    INTO v_every, v_tasks
    FROM jobq._served_by_live_workers(p_now) AS s
    WHERE s.queue = p_queue;
    IF v_every THEN
        not_served := 0;
        oldest_at := NULL;
        RETURN NEXT;
        RETURN;
    END IF;
    SELECT count(*) INTO not_served FROM (SELECT 1 FROM jobq.jobs j
        WHERE j.queue = p_queue AND j.ready AND j.state IN ('queued', 'retry_pending') AND j.task <> ALL (v_tasks)
        LIMIT p_cap + 1) c;
    oldest_at := NULL;
    IF not_served > 0 THEN
        WITH RECURSIVE prio AS (
            (SELECT j.priority FROM jobq.jobs j WHERE j.queue = p_queue AND j.ready AND j.state IN ('queued', 'retry_pending')
             ORDER BY j.queue, j.priority LIMIT 1)
            UNION ALL
            SELECT (SELECT j.priority FROM jobq.jobs j
                    WHERE j.queue = p_queue AND j.ready AND j.state IN ('queued', 'retry_pending') AND j.priority > p.priority
                    ORDER BY j.queue, j.priority LIMIT 1)
            FROM prio p WHERE p.priority IS NOT NULL
        )
        SELECT min((SELECT j.run_at FROM jobq.jobs j
                    WHERE j.queue = p_queue AND j.ready AND j.state IN ('queued', 'retry_pending') AND j.priority = p.priority
                      AND j.run_at <= p_now AND j.task <> ALL (v_tasks)
                    ORDER BY j.queue, j.priority, j.run_at LIMIT 1))
        INTO oldest_at
        FROM prio p WHERE p.priority IS NOT NULL;
    END IF;
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION jobq._not_served(text,timestamp with time zone,integer) IS
    'Private. For queue p_queue: not_served, the waiting jobs (queued or retry_pending, due or not) whose task no live worker of the queue serves (jobq._served_by_live_workers), counted up to p_cap + 1; oldest_at, the run_at of the oldest of them that is due at p_now (NULL when none is). Reads nothing of jobq.jobs when a live worker serves every task of the queue; otherwise the queue''s waiting jobs through jobs_claim_idx. Callers: jobq.queue_summary, jobq.queue_not_served. Locks nothing. Errors: none.';

-- Per queue, the waiting jobs no live worker serves and how long the oldest due one has waited:
-- the runners' jobq_jobs_not_served gauges. Counts only, like jobq.queue_depth.
CREATE OR REPLACE FUNCTION jobq.queue_not_served(queues text[])
RETURNS TABLE (queue text, not_served bigint, oldest_age interval)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_now constant timestamptz := now();
    v_queue text;
BEGIN
    PERFORM jobq._check_length('queues', queue_not_served.queues, jobq._limit('queues')::integer);
    FOREACH v_queue IN ARRAY coalesce(queue_not_served.queues, '{}'::text[]) LOOP
        PERFORM jobq._check_text('queues', v_queue, jobq._limit('queue')::integer);
    END LOOP;
    RETURN QUERY
    SELECT q.name, n.not_served, jobq._ts_diff(v_now, n.oldest_at)
    FROM (SELECT DISTINCT u.name FROM unnest(queue_not_served.queues) AS u(name) WHERE u.name IS NOT NULL) q
    CROSS JOIN LATERAL jobq._not_served(q.name, v_now, 10000) AS n
    ORDER BY q.name;
END
$$;
COMMENT ON FUNCTION jobq.queue_not_served(text[]) IS
    'Per queue given (NULL elements and a NULL list give no row): not_served, the waiting jobs (queued or retry_pending, due or not) whose task no live worker of the queue serves (a live worker: active, heard from within worker_timeout; it serves the tasks it registered with jobq.register_worker, every task when it registered none), counted up to 10001; oldest_age, how long the oldest due one has waited past its run_at (NULL when none is due). Reveals no job content; locks nothing. Callers: runners (metrics), operators, viewers. Errors: JOB.OUT_OF_RANGE (more than 1000 queues), JOB.VALUE_TOO_LONG (a queue above 200 characters).';

-- Checks a queue name an operator passes: not NULL nor blank, at most 200 characters.
CREATE OR REPLACE FUNCTION jobq._check_queue_name(p_queue text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN jobq._check_name('queue', p_queue, jobq._limit('queue')::integer);
END
$$;
COMMENT ON FUNCTION jobq._check_queue_name(text) IS
    'Private. Returns p_queue when it is a usable queue name; raises JOB.INVALID_ARGUMENT (NULL or blank) or JOB.VALUE_TOO_LONG (above 200 characters).';

-- Pauses a queue: every claim skips it from the commit on (no runner restart); its jobs wait and
-- enqueue goes on. Idempotent: pausing a paused queue changes nothing and is not audited.
CREATE OR REPLACE FUNCTION jobq.pause_queue(queue text)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM jobq._check_queue_name(pause_queue.queue);
    INSERT INTO jobq.queues AS q (name, paused, paused_at, paused_by, updated_at)
    VALUES (pause_queue.queue, true, now(), session_user, now())
    ON CONFLICT ON CONSTRAINT queues_pkey DO UPDATE SET
        paused = true, paused_at = now(), paused_by = session_user, updated_at = now()
    WHERE NOT q.paused;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    INSERT INTO jobq.audit_log (action, detail) VALUES ('pause_queue', jsonb_build_object('queue', pause_queue.queue));
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq.pause_queue(text) IS
    'Pauses queue: from the commit on no claim returns its jobs (they wait; enqueue still works) until jobq.resume_queue. Returns true when the queue was not paused before (audited as pause_queue), false otherwise (nothing changes). Any queue name may be paused, known or not yet. Caller: operators. Locks the queue''s jobq.queues row. Errors: JOB.INVALID_ARGUMENT (NULL or blank queue), JOB.VALUE_TOO_LONG (queue above 200 characters).';

-- Resumes a paused queue: its due jobs are claimable at once, and the runners listening for it
-- are woken. Idempotent like pause_queue.
CREATE OR REPLACE FUNCTION jobq.resume_queue(queue text)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_paused_at timestamptz;
BEGIN
    PERFORM jobq._check_queue_name(resume_queue.queue);
    SELECT q.paused_at INTO v_paused_at FROM jobq.queues q WHERE q.name = resume_queue.queue AND q.paused FOR UPDATE;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    UPDATE jobq.queues AS q SET paused = false, paused_at = NULL, paused_by = NULL, updated_at = now()
    WHERE q.name = resume_queue.queue;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('resume_queue', jsonb_build_object('queue', resume_queue.queue, 'paused_at', v_paused_at));
    PERFORM jobq._wake(resume_queue.queue);
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq.resume_queue(text) IS
    'Resumes a paused queue: its due jobs are claimable from the commit on, and its runners are woken (jobq._wake). Returns true when the queue was paused (audited as resume_queue), false otherwise (nothing changes). Caller: operators. Locks the queue''s jobq.queues row. Errors: JOB.INVALID_ARGUMENT (NULL or blank queue), JOB.VALUE_TOO_LONG (queue above 200 characters).';

-- A queue's flow controls as one jsonb object: the concurrency and rate limits that are set and
-- fair, or NULL when it has none (p_queue NULL, a queue without a row of jobq.queues, included).
-- The one definition of the limits column that jobq.queue_states, jobq.queue_summary and
-- jobq.stats show, so that every view of a queue names its controls alike.
CREATE OR REPLACE FUNCTION jobq._queue_limits(p_queue jobq.queues)
RETURNS jsonb
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN p_queue.limited OR p_queue.fair THEN jsonb_strip_nulls(jsonb_build_object(
               'max_running', p_queue.max_running, 'max_running_per_store', p_queue.max_running_per_store,
               'partition_key', p_queue.partition_key, 'max_running_per_partition', p_queue.max_running_per_partition,
               'max_started', p_queue.max_started, 'started_per', p_queue.started_per,
               'max_started_per_store', p_queue.max_started_per_store, 'store_started_per', p_queue.store_started_per,
               'fair', CASE WHEN p_queue.fair THEN true END)) END
$$;
COMMENT ON FUNCTION jobq._queue_limits(jobq.queues) IS
    'Private. The limits of a row of jobq.queues as jsonb: max_running, max_running_per_store, partition_key, max_running_per_partition, max_started, started_per, max_started_per_store, store_started_per when set (intervals as PostgreSQL writes them), fair true when fair claiming is on; NULL when none is set or the row is NULL. Callers: jobq.queue_states, jobq.queue_summary, jobq._stats. Reads only its argument. Errors: none.';

-- The result before blocked jobs were counted (issue 35).
DROP FUNCTION IF EXISTS jobq.queue_states();

-- Every queue the engine knows, whichever table names it, with its pause, its limits and its job
-- counts (so that an operator sees running beside max_running). A function rather than a view: a
-- view over jobq.jobs would count only the rows the caller's row policies show.
CREATE OR REPLACE FUNCTION jobq.queue_states()
RETURNS TABLE (queue text, paused boolean, paused_at timestamptz, paused_by text,
               queued bigint, retry_pending bigint, running bigint, scheduled bigint, blocked bigint,
               limits jsonb)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    WITH counts AS (
        SELECT j.queue,
               count(*) FILTER (WHERE j.state = 'queued' AND j.run_at <= now()) AS queued,
               count(*) FILTER (WHERE j.state = 'retry_pending') AS retry_pending,
               count(*) FILTER (WHERE j.state = 'running') AS running,
               count(*) FILTER (WHERE j.state = 'queued' AND j.run_at > now()) AS scheduled,
               count(*) FILTER (WHERE j.state = 'blocked') AS blocked
        FROM jobq.jobs j
        GROUP BY j.queue
    ), known AS (
        SELECT c.queue AS name FROM counts c
        UNION SELECT q.name FROM jobq.queues q
        UNION SELECT u.name FROM jobq.workers w CROSS JOIN LATERAL unnest(w.queues) AS u(name)
        UNION SELECT coalesce(s.queue, t.queue, 'default') FROM jobq.schedules s JOIN jobq.tasks t ON t.name = s.task
    )
    SELECT k.name, coalesce(q.paused, false), q.paused_at, q.paused_by,
           coalesce(c.queued, 0), coalesce(c.retry_pending, 0), coalesce(c.running, 0), coalesce(c.scheduled, 0),
           coalesce(c.blocked, 0), jobq._queue_limits(q)
    FROM known k
    LEFT JOIN jobq.queues q ON q.name = k.name
    LEFT JOIN counts c ON c.queue = k.name
    ORDER BY k.name
$$;
COMMENT ON FUNCTION jobq.queue_states() IS
    'One row per queue the engine knows (a live job, a registered worker''s queues, a schedule''s queue, a row of jobq.queues), by name: whether it is paused (when, by whom) and its live jobs across every store: queued (due now), retry_pending, running, scheduled (queued with a future run_at), blocked (waiting for parents or a sequence); limits, the queue''s concurrency and rate limits that are set (max_running, max_running_per_store, partition_key, max_running_per_partition, max_started, started_per, max_started_per_store, store_started_per) and fair (true when jobq.set_fair_claiming turned fair claiming on), NULL when it has none of them. Reveals no job content. Reads every live job (a count, not an index probe). Caller: operators. Errors: none.';

-- The result before blocked jobs were counted (issue 35).
DROP FUNCTION IF EXISTS jobq.queue_summary(integer);

-- Every queue the engine knows with its live jobs counted through indexes only (but the blocked
-- ones, which no index holds: one pass over the live jobs counts them for every queue), each count stopping
-- after cap rows, and its flow controls (limits, which a viewer reads here): the overview of the
-- dashboard, which must answer in milliseconds at millions of jobs where jobq.queue_states()
-- counts every row.
CREATE OR REPLACE FUNCTION jobq.queue_summary(cap integer DEFAULT 10000)
RETURNS TABLE (queue text, paused boolean, paused_at timestamptz, paused_by text, due bigint,
               scheduled bigint, retry_pending bigint, running bigint, blocked bigint, oldest_due_at timestamptz,
               limits jsonb, not_served bigint, not_served_oldest_at timestamptz)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_now constant timestamptz := now();
    v_cap constant integer := coalesce(jobq._check_int('cap', queue_summary.cap, 1, 1000000), 10000)::integer;
    v_name text;
    v_blocked jsonb;  -- {queue: blocked jobs}, from one pass over the live jobs
BEGIN
    -- Blocked jobs are outside every index by state (docs/dependencies.md): one scan counts them
    -- for every queue at once, rather than one scan per queue.
    SELECT coalesce(jsonb_object_agg(b.queue, b.n), '{}') INTO v_blocked
    FROM (SELECT j.queue, count(*) AS n FROM jobq.jobs j WHERE j.state = 'blocked' GROUP BY j.queue) b;
    FOR v_name IN
        WITH RECURSIVE waiting AS (
            -- The distinct queues of waiting and running jobs: a loose scan of jobs_claim_idx, one
            -- probe per queue (a limited queue's running jobs are not in it; its row of
            -- jobq.queues, which holds its limits, names it below).
            (SELECT j.queue AS name FROM jobq.jobs j WHERE j.ready ORDER BY j.queue LIMIT 1)
            UNION ALL
            SELECT (SELECT j.queue FROM jobq.jobs j WHERE j.ready AND j.queue > w.name ORDER BY j.queue LIMIT 1)
            FROM waiting w WHERE w.name IS NOT NULL
        )
        SELECT w.name FROM waiting w WHERE w.name IS NOT NULL
        UNION SELECT b.name FROM jsonb_object_keys(v_blocked) AS b(name)
        UNION SELECT q.name FROM jobq.queues q
        UNION SELECT u.name FROM jobq.workers w CROSS JOIN LATERAL unnest(w.queues) AS u(name) WHERE w.state <> 'stopped'
        UNION SELECT coalesce(s.queue, t.queue, 'default') FROM jobq.schedules s JOIN jobq.tasks t ON t.name = s.task
        ORDER BY 1
    LOOP
        queue := v_name;
        SELECT coalesce(q.paused, false), q.paused_at, q.paused_by, jobq._queue_limits(q)
        INTO paused, paused_at, paused_by, limits
        FROM (SELECT 1) one LEFT JOIN jobq.queues q ON q.name = v_name;
        SELECT count(*) INTO due FROM (SELECT 1 FROM jobq.jobs j
            WHERE j.queue = v_name AND j.ready AND j.state IN ('queued', 'retry_pending') AND j.run_at <= v_now LIMIT v_cap + 1) c;
        SELECT count(*) INTO scheduled FROM (SELECT 1 FROM jobq.jobs j
            WHERE j.queue = v_name AND j.ready AND j.state IN ('queued', 'retry_pending') AND j.run_at > v_now LIMIT v_cap + 1) c;
        SELECT count(*) INTO retry_pending FROM (SELECT 1 FROM jobq.jobs j
            WHERE j.queue = v_name AND j.ready AND j.state = 'retry_pending' LIMIT v_cap + 1) c;
        -- Running: those of an unlimited claim in jobs_claim_idx, those of a limited one in
        -- jobs_counted_idx (jobq.jobs.ready is false for them).
        SELECT count(*) INTO running FROM (
            (SELECT 1 FROM jobq.jobs j WHERE j.queue = v_name AND j.ready AND j.state = 'running' LIMIT v_cap + 1)
            UNION ALL
            (SELECT 1 FROM jobq.jobs j WHERE j.counted AND j.queue = v_name LIMIT v_cap + 1)) c;
        running := least(running, v_cap + 1);
        blocked := least(coalesce((v_blocked ->> v_name)::bigint, 0), v_cap + 1);
        -- The oldest due job: the first entry of each priority of the queue in jobs_claim_idx.
        WITH RECURSIVE prio AS (
            (SELECT j.priority FROM jobq.jobs j WHERE j.queue = v_name AND j.ready AND j.state IN ('queued', 'retry_pending')
             ORDER BY j.queue, j.priority LIMIT 1)
            UNION ALL
            SELECT (SELECT j.priority FROM jobq.jobs j
                    WHERE j.queue = v_name AND j.ready AND j.state IN ('queued', 'retry_pending') AND j.priority > p.priority
                    ORDER BY j.queue, j.priority LIMIT 1)
            FROM prio p WHERE p.priority IS NOT NULL
        )
        SELECT min((SELECT j.run_at FROM jobq.jobs j
                    WHERE j.queue = v_name AND j.ready AND j.state IN ('queued', 'retry_pending') AND j.priority = p.priority
                    ORDER BY j.queue, j.priority, j.run_at LIMIT 1))
        INTO oldest_due_at
        FROM prio p WHERE p.priority IS NOT NULL;
        IF oldest_due_at > v_now THEN
            oldest_due_at := NULL;
        END IF;
        SELECT n.not_served, n.oldest_at INTO not_served, not_served_oldest_at
        FROM jobq._not_served(v_name, v_now, v_cap) AS n;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION jobq.queue_summary(integer) IS
    'One row per queue the engine knows (a live job, a registered worker''s queues unless stopped, a schedule''s queue, a row of jobq.queues), by name: whether it is paused (when, by whom), its live jobs across every store counted through indexes, each count stopping at cap + 1 (a value above cap means "more than cap"): due (queued or retry_pending with run_at now or past: what workers can claim), scheduled (the same with a future run_at), retry_pending (those waiting to retry, due or not), running, blocked (waiting for parents or a sequence: never due nor scheduled; counted by one scan of the live jobs, as no index holds them); oldest_due_at, the run_at of the oldest due job (NULL when none is due); and limits, the queue''s flow controls as jobq.queue_states shows them (jobq._queue_limits: the concurrency and rate limits that are set and fair; NULL when it has none); not_served, the waiting jobs (queued or retry_pending, due or not) whose task no live worker of the queue serves (jobq._not_served: a live worker is active and heard from within worker_timeout, and serves the tasks it registered, every task when it registered none), counted up to cap + 1, and not_served_oldest_at, the run_at of the oldest due one (NULL when none is due). cap defaults to 10000 (NULL too). Reveals no job content. Reads jobs_claim_idx, jobs_retry_idx, the running jobs, the blocked jobs by one scan of jobq.jobs (and, for a queue whose live workers serve a list of tasks, its waiting jobs until cap + 1 not served are counted); locks nothing. Callers: operators, viewers (the dashboard''s overview). Errors: JOB.OUT_OF_RANGE (cap outside 1..1000000).';

-- The live jobs of queue p_queue (NULL: every queue), of every store (p_all) or of store
-- p_store, grouped by queue, task, state and whether due at p_now, with the oldest run_at of each
-- group: one pass over the live jobs (grouping first and counting the few groups after cost a
-- third less than seven filtered aggregates on every row at 1,000,000 jobs, measured). The one
-- definition of the live counts: jobq._stats reads it live, jobq._count_live_jobs stores it.
CREATE OR REPLACE FUNCTION jobq._live_groups(p_queue text, p_all boolean, p_store uuid, p_now timestamptz)
RETURNS TABLE (queue text, task text, state text, due boolean, n bigint, oldest timestamptz)
LANGUAGE sql
STABLE
AS $$
    SELECT j.queue, j.task, j.state, j.run_at <= p_now, count(*), min(j.run_at)
    FROM jobq.jobs j
    WHERE (p_queue IS NULL OR j.queue = p_queue)
      AND (p_all OR j.store_id = p_store)
    GROUP BY j.queue, j.task, j.state, j.run_at <= p_now
$$;
COMMENT ON FUNCTION jobq._live_groups(text,boolean,uuid,timestamp with time zone) IS
    'Private. The live jobs of queue p_queue (NULL: every queue), of every store when p_all, else of store p_store, grouped by queue, task, state and due (run_at <= p_now): the count and the oldest run_at of each group. Inlined. Callers: jobq._stats (live), jobq._count_live_jobs (stored). Reads every live job of the scope; locks nothing.';

-- The setting stats_cached_above: the live jobs from which jobq.stats reads the counts jobq.maintain
-- keeps (100,000 when the row is missing).
CREATE OR REPLACE FUNCTION jobq._stats_cached_above()
RETURNS bigint
LANGUAGE sql
STABLE
AS $$
    SELECT coalesce((SELECT s.value::bigint FROM jobq.settings s WHERE s.name = 'stats_cached_above'), 100000)
$$;
COMMENT ON FUNCTION jobq._stats_cached_above() IS
    'Private. The setting stats_cached_above as a bigint (100000 when missing). Callers: jobq._live_counts_fresh, jobq._count_live_jobs.';

-- When the stored live counts (jobq.live_counts) were taken, if jobq.stats reads them at p_now
-- rather than counting live: they found at least stats_cached_above live jobs, and are younger
-- than three times the wait between two counts (so a missed maintain or two changes nothing, and
-- with no leader left the counts go live again). NULL: count live.
CREATE OR REPLACE FUNCTION jobq._live_counts_fresh(p_now timestamptz)
RETURNS timestamptz
LANGUAGE sql
STABLE
AS $$
    SELECT t.counted_at
    FROM jobq.live_counts_taken t
    WHERE t.total >= jobq._stats_cached_above()
      AND t.counted_at <= p_now
      AND t.counted_at > jobq._ts_add(p_now, -3 * jobq._live_count_wait(t.took))
$$;
COMMENT ON FUNCTION jobq._live_counts_fresh(timestamp with time zone) IS
    'Private. The time jobq.live_counts was counted when jobq.stats reads it at p_now in place of a live count: the count found at least stats_cached_above live jobs and is younger than 3 x jobq._live_count_wait of its duration (and not from after p_now); NULL otherwise (count live). Callers: jobq._stats, jobq.stats_counted_at. Reads jobq.live_counts_taken; locks nothing.';

-- The least wait after a count of the live jobs that took p_took before the next: the setting
-- stats_count_interval, or twenty times p_took when longer, so that counting costs at most a
-- twentieth of one core whatever the backlog.
CREATE OR REPLACE FUNCTION jobq._live_count_wait(p_took interval)
RETURNS interval
LANGUAGE sql
STABLE
AS $$
    SELECT greatest(coalesce(jobq._setting_interval('stats_count_interval'), interval '5 seconds'), 20 * p_took)
$$;
COMMENT ON FUNCTION jobq._live_count_wait(interval) IS
    'Private. greatest(stats_count_interval, 20 x p_took): the least time between two counts of the live jobs (jobq._count_live_jobs), and a third of the age up to which jobq.stats reads a count (jobq._live_counts_fresh). Callers: those two.';

-- Counts the live jobs into jobq.live_counts, when due at p_now: the last count is older than
-- jobq._live_count_wait of its duration (or stamped after p_now), and the live jobs, as last
-- counted or as the planner estimates them (pg_class.reltuples), number at least half of
-- stats_cached_above, rounded down (a small queue is never counted in the background: jobq.stats
-- counts it live). Skips when another count is under way (the row lock of
-- jobq.live_counts_taken). Returns whether it counted.
CREATE OR REPLACE FUNCTION jobq._count_live_jobs(p_now timestamptz)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_taken jobq.live_counts_taken;
    v_began timestamptz;
    v_total bigint;
BEGIN
    SELECT * INTO v_taken FROM jobq.live_counts_taken t FOR UPDATE SKIP LOCKED;
    -- Not due: counted within the wait (a count stamped after p_now, a clock moved back or a
    -- test's clock moved forward, is due).
    IF NOT FOUND
       OR v_taken.counted_at BETWEEN jobq._ts_add(p_now, -jobq._live_count_wait(v_taken.took)) AND p_now
       OR greatest(v_taken.total::float8,
                   (SELECT c.reltuples::float8 FROM pg_catalog.pg_class c WHERE c.oid = 'jobq.jobs'::regclass))
          < (jobq._stats_cached_above() / 2)::float8 THEN
        RETURN false;
    END IF;
    v_began := clock_timestamp();
    DELETE FROM jobq.live_counts;
    INSERT INTO jobq.live_counts (queue, task, state, due, n, oldest)
    SELECT g.queue, g.task, g.state, g.due, g.n, g.oldest FROM jobq._live_groups(NULL, true, NULL, p_now) AS g;
    SELECT coalesce(sum(c.n), 0)::bigint INTO v_total FROM jobq.live_counts c;
    UPDATE jobq.live_counts_taken AS t
    SET counted_at = p_now, took = least(greatest(clock_timestamp() - v_began, interval '0'), interval '1 hour'), total = v_total;
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq._count_live_jobs(timestamp with time zone) IS
    'Private. Counts every live job into jobq.live_counts (jobq._live_groups of every queue and store, due at p_now) and records the time, duration (clamped to 0..1 hour, whatever the clock does) and total in jobq.live_counts_taken, when the last count is after p_now or older than jobq._live_count_wait of its duration and the live jobs (as last counted, or pg_class.reltuples of jobq.jobs) number at least half of stats_cached_above; otherwise, or while another count holds the row of jobq.live_counts_taken (SKIP LOCKED), does nothing. Returns whether it counted. Caller: jobq._maintain. Reads every live job (no JIT); locks the row of jobq.live_counts_taken until commit.';

-- When the live counts jobq.stats reads now for the given store (NULL: every store) were taken:
-- the time of the count jobq.maintain keeps, or NULL when stats counts live (below
-- stats_cached_above live jobs, a count too old, one store's counts, an application's call).
CREATE OR REPLACE FUNCTION jobq.stats_counted_at(store_id uuid DEFAULT NULL)
RETURNS timestamptz
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN $1 IS NULL AND jobq._caller_sees_every_store() THEN jobq._live_counts_fresh(now()) END
$$;
COMMENT ON FUNCTION jobq.stats_counted_at(uuid) IS
    'When the live counts (queued, retry_pending, running, scheduled, blocked, oldest_due_age, not_served and its age) that jobq.stats and jobq.queue_list return now for store_id (NULL: every store) were counted: the time of the count jobq.maintain keeps, read while it found at least stats_cached_above live jobs and is recent (at most 3 x greatest(stats_count_interval, 20 x its duration) old); NULL when they are counted live at each call (always for one store''s counts and for applications). The history columns are always live. Callers: operators, viewers (the dashboard''s overview), applications. Errors: none.';

-- The results before blocked jobs were counted (issue 35).
DROP FUNCTION IF EXISTS jobq.stats(text,uuid);
DROP FUNCTION IF EXISTS jobq._stats(text,uuid);

-- Per-queue statistics for dashboards and `jobq stats`: live jobs by state, the lag of the oldest
-- due job, and from history the dead and succeeded counts, throughput and wait/run percentiles;
-- and the queue's flow controls (limits), which every caller sees: they are configuration.
-- The body lives in jobq._stats: a PL/pgSQL function may not name an argument like a result
-- column, and this signature keeps both as queue and store_id.
CREATE OR REPLACE FUNCTION jobq.stats(queue text DEFAULT NULL, store_id uuid DEFAULT NULL)
RETURNS TABLE (queue text, store_id uuid, queued bigint, retry_pending bigint, running bigint,
               scheduled bigint, blocked bigint, oldest_due_age interval, dead_last_hour bigint,
               dead_last_day bigint, succeeded_last_hour bigint, succeeded_per_minute numeric,
               wait_p50 interval, wait_p95 interval, run_p50 interval, run_p95 interval, limits jsonb,
               not_served bigint, not_served_oldest_age interval)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM jobq._stats($1, $2)
$$;
COMMENT ON FUNCTION jobq.stats(text,uuid) IS
    'One row per queue, by name: every queue with a live job, a job finished in the last hour or a job dead in the last day, or only the given queue (a row of zeros when it has none). Live jobs: queued (due), retry_pending, running, scheduled (queued with a future run_at), blocked (waiting for parents or a sequence: never counted as queued or scheduled), oldest_due_age (now() minus the oldest run_at of a due queued or retry_pending job, saturating at 200000 years; NULL when none is due). From jobq.job_history by finished_at: dead_last_hour, dead_last_day, succeeded_last_hour, succeeded_per_minute (over the last hour, 2 decimals), and over the jobs finished in the last hour that were claimed the p50/p95 (percentile_cont) of wait (claimed_at - run_at of the last attempt) and run (finished_at - claimed_at). limits: the queue''s flow controls as jobq.queue_states shows them (jobq._queue_limits: the concurrency and rate limits that are set and fair; NULL when it has none), the same for every caller (configuration, not job content). not_served: the waiting jobs (queued or retry_pending, due or not) whose task no live worker of the queue serves (jobq._served_by_live_workers: active, heard from within worker_timeout, serving the tasks it registered or every task), and not_served_oldest_age, how long the oldest due one has waited past its run_at (NULL when none is due). Operators and viewers (jobq_viewer) see every store (store_id NULL in the result) or pass store_id to count one store; an application counts only its session''s store (jobq.current_store_id(); nothing when it has none), never system jobs. Reveals no job content. Reads live jobs by one scan, the last hour of history through the finish-time indexes of its days (BRIN; one pass) and the last day''s dead jobs through job_history_dead_idx (index only); runs without JIT and with work_mem 32MB (jobq._stats); locks nothing. Callers: operators, viewers, applications. Errors: JOB.INVALID_ARGUMENT (blank queue), JOB.VALUE_TOO_LONG (queue above 200 characters), JOB.TENANT_MISMATCH (an application passing a store other than its session''s).';

-- The body of jobq.stats (which runs it as the engine's owner): checks the arguments, settles
-- the store to count, then aggregates live jobs and the last day of history per queue, each
-- with its limits (jobq._queue_limits). Its scan of the live jobs runs in one process: it runs as
-- jobq_migrator, whose row policies apply (FORCE ROW LEVEL SECURITY), and PostgreSQL plans no
-- parallel scan for it then, even at zero parallel costs (PostgreSQL 15, observed).
CREATE OR REPLACE FUNCTION jobq._stats(p_queue text, p_store_id uuid)
RETURNS TABLE (queue text, store_id uuid, queued bigint, retry_pending bigint, running bigint,
               scheduled bigint, blocked bigint, oldest_due_age interval, dead_last_hour bigint,
               dead_last_day bigint, succeeded_last_hour bigint, succeeded_per_minute numeric,
               wait_p50 interval, wait_p95 interval, run_p50 interval, run_p95 interval, limits jsonb,
               not_served bigint, not_served_oldest_age interval)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
SET jit = off
SET work_mem = '32MB'
AS $$
DECLARE
    v_now constant timestamptz := now();
    v_hour constant timestamptz := now() - interval '1 hour';
    v_day constant timestamptz := now() - interval '1 day';
    v_session uuid;
    v_all boolean;     -- count every store, system jobs included (operators without a store)
    v_store uuid;      -- else the one store to count
    v_counted timestamptz;  -- when the stored counts read were taken; NULL: counted live
BEGIN
    IF p_queue IS NOT NULL THEN
        PERFORM jobq._check_queue_name(p_queue);
    END IF;
    IF jobq._caller_sees_every_store() THEN
        v_all := p_store_id IS NULL;
        v_store := p_store_id;
    ELSE
        v_session := jobq.current_store_id();
        IF p_store_id IS NOT NULL AND p_store_id IS DISTINCT FROM v_session THEN
            PERFORM jobq._raise('JOB.TENANT_MISMATCH',
                format('store %s is not this session''s store (app.current_store_id = %s)',
                       p_store_id, coalesce(v_session::text, 'unset')));
        END IF;
        v_all := false;
        v_store := v_session;
    END IF;

    -- Every store counted, and the count jobq.maintain keeps is recent and large enough: read
    -- it instead of every live job (jobq._live_counts_fresh; NULL: count live).
    v_counted := CASE WHEN v_all THEN jobq._live_counts_fresh(v_now) END;

    RETURN QUERY
    WITH by_state AS (
        -- The live jobs by queue, task, state and whether due (a handful of groups): whether a
        -- task is served is then asked once per (queue, task), not once per job. Either branch
        -- runs, never both (each a one-time filter on v_counted).
        SELECT c.queue AS name, c.task, c.state, c.due, c.n, c.oldest
        FROM jobq.live_counts c
        WHERE v_counted IS NOT NULL AND (p_queue IS NULL OR c.queue = p_queue)
        UNION ALL
        SELECT g.queue, g.task, g.state, g.due, g.n, g.oldest
        FROM jobq._live_groups(p_queue, v_all, v_store, v_now) AS g
        WHERE v_counted IS NULL
    ), by_task AS (
        SELECT b.name, b.task,
               coalesce(sum(b.n) FILTER (WHERE b.state = 'queued' AND b.due), 0) AS queued,
               coalesce(sum(b.n) FILTER (WHERE b.state = 'retry_pending'), 0) AS retry_pending,
               coalesce(sum(b.n) FILTER (WHERE b.state = 'running'), 0) AS running,
               coalesce(sum(b.n) FILTER (WHERE b.state = 'queued' AND NOT b.due), 0) AS scheduled,
               coalesce(sum(b.n) FILTER (WHERE b.state = 'blocked'), 0) AS blocked,
               coalesce(sum(b.n) FILTER (WHERE b.state IN ('queued', 'retry_pending')), 0) AS waiting,
               min(b.oldest) FILTER (WHERE b.state IN ('queued', 'retry_pending') AND b.due) AS oldest_due
        FROM by_state b
        GROUP BY b.name, b.task
    ), served AS MATERIALIZED (
        SELECT s.queue, s.task FROM jobq._served_by_live_workers(v_now) AS s
    ), live AS (
        SELECT b.name,
               sum(b.queued)::bigint AS queued, sum(b.retry_pending)::bigint AS retry_pending,
               sum(b.running)::bigint AS running, sum(b.scheduled)::bigint AS scheduled,
               sum(b.blocked)::bigint AS blocked,
               min(b.oldest_due) AS oldest_due,
               -- Not served: no live worker of the queue serves every task, nor this one.
               coalesce(sum(b.waiting) FILTER (WHERE NOT b.served), 0)::bigint AS not_served,
               min(b.oldest_due) FILTER (WHERE NOT b.served) AS not_served_oldest
        FROM (SELECT t.*, EXISTS (SELECT 1 FROM served s WHERE s.queue = t.name AND (s.task IS NULL OR s.task = t.task)) AS served
              FROM by_task t) b
        GROUP BY b.name
    ), last_hour AS (
        -- The last hour's finished jobs, one pass over the BRIN ranges of the last hour in the
        -- day partitions of history (btree in the default partition): counts and,
        -- over those that were claimed, the percentiles (they sort what they read).
        SELECT h.queue AS name,
               count(*) FILTER (WHERE h.state = 'dead') AS dead_last_hour,
               count(*) FILTER (WHERE h.state = 'succeeded') AS succeeded_last_hour,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY jobq._ts_diff(h.claimed_at, h.run_at)) FILTER (WHERE h.claimed_at IS NOT NULL) AS wait_p50,
               percentile_cont(0.95) WITHIN GROUP (ORDER BY jobq._ts_diff(h.claimed_at, h.run_at)) FILTER (WHERE h.claimed_at IS NOT NULL) AS wait_p95,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY jobq._ts_diff(h.finished_at, h.claimed_at)) FILTER (WHERE h.claimed_at IS NOT NULL) AS run_p50,
               percentile_cont(0.95) WITHIN GROUP (ORDER BY jobq._ts_diff(h.finished_at, h.claimed_at)) FILTER (WHERE h.claimed_at IS NOT NULL) AS run_p95
        FROM jobq.job_history h
        WHERE h.finished_at > v_hour
          AND (p_queue IS NULL OR h.queue = p_queue)
          AND (v_all OR h.store_id = v_store)
        GROUP BY h.queue
    ), dead_day AS (
        -- The last day's dead jobs: an index-only scan of job_history_dead_idx (finish time, with
        -- queue and store included), never a scan of the whole day of history.
        SELECT h.queue AS name, count(*) AS dead_last_day
        FROM jobq.job_history h
        WHERE h.state = 'dead' AND h.finished_at > v_day
          AND (p_queue IS NULL OR h.queue = p_queue)
          AND (v_all OR h.store_id = v_store)
        GROUP BY h.queue
    ), done AS (
        SELECT coalesce(t.name, d.name) AS name, coalesce(t.dead_last_hour, 0) AS dead_last_hour,
               coalesce(d.dead_last_day, 0) AS dead_last_day, coalesce(t.succeeded_last_hour, 0) AS succeeded_last_hour,
               t.wait_p50, t.wait_p95, t.run_p50, t.run_p95
        FROM last_hour t
        FULL JOIN dead_day d ON d.name = t.name
    )
    SELECT coalesce(l.name, d.name),
           CASE WHEN v_all THEN NULL ELSE v_store END,
           coalesce(l.queued, 0), coalesce(l.retry_pending, 0), coalesce(l.running, 0), coalesce(l.scheduled, 0),
           coalesce(l.blocked, 0), jobq._ts_diff(v_now, l.oldest_due),
           coalesce(d.dead_last_hour, 0), coalesce(d.dead_last_day, 0), coalesce(d.succeeded_last_hour, 0),
           round(coalesce(d.succeeded_last_hour, 0)::numeric / 60, 2),
           d.wait_p50, d.wait_p95, d.run_p50, d.run_p95,
           jobq._queue_limits(q),
           coalesce(l.not_served, 0), jobq._ts_diff(v_now, l.not_served_oldest)
    FROM live l
    FULL JOIN done d ON d.name = l.name
    LEFT JOIN jobq.queues q ON q.name = coalesce(l.name, d.name)
    ORDER BY 1;
    -- A named queue without live jobs or recent history still gets its row.
    IF p_queue IS NOT NULL AND NOT FOUND THEN
        RETURN QUERY SELECT p_queue, CASE WHEN v_all THEN NULL ELSE v_store END, 0::bigint, 0::bigint, 0::bigint, 0::bigint,
                            0::bigint, NULL::interval, 0::bigint, 0::bigint, 0::bigint, 0.00::numeric,
                            NULL::interval, NULL::interval, NULL::interval, NULL::interval,
                            (SELECT jobq._queue_limits(q) FROM jobq.queues q WHERE q.name = p_queue),
                            0::bigint, NULL::interval;
    END IF;
END
$$;
COMMENT ON FUNCTION jobq._stats(text,uuid) IS
    'Private. The body of jobq.stats (see there), run as the engine''s owner: checks the arguments, counts every store for an operator without p_store_id, else one store (an application: its session''s, JOB.TENANT_MISMATCH for another). Runs without JIT (compiling its scan of a million live jobs cost more than it saved) and with work_mem 32MB (the percentiles'' sorts of an hour of history stay in memory). Locks nothing.';


-- Concurrency and rate limits (issue 18, docs/flow-control.md) --------------------------------
-- Five controls of jobq.queues, each set with one call, audited, and enforced by every claim
-- from its commit on (jobq._claim_limited): at most max_running jobs of a queue running across
-- every worker, per store within it, and per value of a payload field; at most max_started jobs
-- started in any window of a given length, per queue and per store. A limit applies to the
-- claims that start after it commits; jobs already running count towards it and are not stopped.

-- The signature before rate limits.
DROP FUNCTION IF EXISTS jobq._set_queue_limit(text,text,integer,text);

-- Locks the jobq.queues row of p_queue FOR UPDATE, for a setter of one of its controls, and
-- says whether there is one. With p_create, a queue without a row gets one, if the engine knows
-- it: a typo would set a control nothing reads. Callers: jobq._set_queue_limit,
-- jobq.set_fair_claiming.
CREATE OR REPLACE FUNCTION jobq._lock_queue_row(p_queue text, p_create boolean)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM FROM jobq.queues q WHERE q.name = p_queue FOR UPDATE;
    IF FOUND OR NOT p_create THEN
        RETURN FOUND;
    END IF;
    IF p_queue <> 'default'
       AND NOT EXISTS (SELECT 1 FROM jobq.tasks t WHERE t.queue = p_queue)
       AND NOT EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.queue = p_queue AND j.ready) -- waiting or running
       AND NOT EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.counted AND j.queue = p_queue) -- running, limited
       AND NOT EXISTS (SELECT 1 FROM jobq.workers w WHERE p_queue = ANY (w.queues) AND w.state <> 'stopped')
       AND NOT EXISTS (SELECT 1 FROM jobq.schedules s JOIN jobq.tasks t ON t.name = s.task
                       WHERE coalesce(s.queue, t.queue, 'default') = p_queue) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format(
            'queue %L is not known: no declared task, live job, registered worker, schedule or queue control names it', p_queue));
    END IF;
    INSERT INTO jobq.queues AS q (name) VALUES (p_queue) ON CONFLICT ON CONSTRAINT queues_pkey DO NOTHING;
    PERFORM FROM jobq.queues q WHERE q.name = p_queue FOR UPDATE;
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq._lock_queue_row(text,boolean) IS
    'Private. Locks the jobq.queues row of p_queue FOR UPDATE and returns true; when it has none: with p_create, inserts one (ON CONFLICT DO NOTHING, then locks it) and returns true, unless the queue is unknown to the engine (not default, and no declared task, live job, registered worker not stopped or schedule names it), which raises JOB.INVALID_ARGUMENT; without p_create, returns false and writes nothing. Callers: jobq._set_queue_limit, jobq.set_fair_claiming.';

-- Sets or removes (NULL) one limit of a queue: the scope is queue, store or partition (then
-- p_partition_key names the payload field) for the concurrency limits, rate or store_rate (then
-- p_per is the window) for the rate limits. Refuses a limit outside 1..1000000 and a queue
-- nothing knows (no declared task, live job, worker, schedule or control names it: a typo would
-- limit nothing), audits a change and wakes the queue's runners (a raised or removed limit frees
-- slots). Callers: jobq.set_concurrency_limit, jobq.set_store_concurrency_limit,
-- jobq.set_partition_concurrency_limit, jobq.set_rate_limit and jobq.set_store_rate_limit.
CREATE OR REPLACE FUNCTION jobq._set_queue_limit(p_queue text, p_scope text, p_max_running integer, p_partition_key text DEFAULT NULL,
                                                 p_per interval DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_old jobq.queues;
    v_from jsonb;
    v_to jsonb;
BEGIN
    PERFORM jobq._check_queue_name(p_queue);
    PERFORM jobq._check_int('max_running', p_max_running, 1, jobq._limit('running'));
    IF p_scope = 'partition' THEN
        IF (p_partition_key IS NULL) <> (p_max_running IS NULL) THEN
            PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
                'partition_key and max_running must be both set, or both NULL to remove the limit');
        END IF;
        IF btrim(p_partition_key) = '' THEN
            PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'partition_key is blank');
        END IF;
        PERFORM jobq._check_text('partition_key', p_partition_key, jobq._limit('queue')::integer);
    END IF;
    IF p_scope IN ('rate', 'store_rate') THEN
        IF (p_per IS NULL) <> (p_max_running IS NULL) THEN
            PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'max_started and per must be both set, or both NULL to remove the limit');
        END IF;
        PERFORM jobq._check_interval('per', p_per, jobq._limit_interval('ttl'));
    END IF;
    -- A limit removed from a queue without controls: nothing to remove.
    IF NOT jobq._lock_queue_row(p_queue, p_max_running IS NOT NULL) THEN
        RETURN false;
    END IF;
    SELECT * INTO v_old FROM jobq.queues q WHERE q.name = p_queue;
    v_from := CASE p_scope
        WHEN 'queue' THEN jsonb_build_object('max_running', v_old.max_running)
        WHEN 'store' THEN jsonb_build_object('max_running', v_old.max_running_per_store)
        WHEN 'rate' THEN jsonb_build_object('max_started', v_old.max_started, 'per', v_old.started_per)
        WHEN 'store_rate' THEN jsonb_build_object('max_started', v_old.max_started_per_store, 'per', v_old.store_started_per)
        ELSE jsonb_build_object('partition_key', v_old.partition_key, 'max_running', v_old.max_running_per_partition)
    END;
    v_to := CASE p_scope
        WHEN 'partition' THEN jsonb_build_object('partition_key', p_partition_key, 'max_running', p_max_running)
        WHEN 'rate' THEN jsonb_build_object('max_started', p_max_running, 'per', p_per)
        WHEN 'store_rate' THEN jsonb_build_object('max_started', p_max_running, 'per', p_per)
        ELSE jsonb_build_object('max_running', p_max_running)
    END;
    IF v_from = v_to THEN
        RETURN false;
    END IF;
    UPDATE jobq.queues AS q
    SET max_running               = CASE WHEN p_scope = 'queue' THEN p_max_running ELSE q.max_running END,
        max_running_per_store     = CASE WHEN p_scope = 'store' THEN p_max_running ELSE q.max_running_per_store END,
        partition_key             = CASE WHEN p_scope = 'partition' THEN p_partition_key ELSE q.partition_key END,
        max_running_per_partition = CASE WHEN p_scope = 'partition' THEN p_max_running ELSE q.max_running_per_partition END,
        max_started               = CASE WHEN p_scope = 'rate' THEN p_max_running ELSE q.max_started END,
        started_per               = CASE WHEN p_scope = 'rate' THEN p_per ELSE q.started_per END,
        max_started_per_store     = CASE WHEN p_scope = 'store_rate' THEN p_max_running ELSE q.max_started_per_store END,
        store_started_per         = CASE WHEN p_scope = 'store_rate' THEN p_per ELSE q.store_started_per END,
        updated_at                = now()
    WHERE q.name = p_queue;
    -- A queue turned limited: the jobs claimed while it was not are not flagged counted (nor
    -- those of claims in flight, which read it unlimited); the limits count them too until they
    -- are flagged (jobq._settle_counted), once this transaction and every one with a lower id
    -- have ended and no snapshot older than its end is held: the id after this one's.
    UPDATE jobq.queues AS q SET counted_recheck = true, counted_recheck_after = (pg_current_xact_id()::text::numeric + 1)::text::xid8
    WHERE q.name = p_queue AND q.limited AND NOT coalesce(v_old.limited, false);
    -- Without a rate limit the queue's log of starts is of no use.
    DELETE FROM jobq.claim_starts AS s
    WHERE s.queue = p_queue
      AND NOT EXISTS (SELECT 1 FROM jobq.queues q
                      WHERE q.name = p_queue AND (q.max_started IS NOT NULL OR q.max_started_per_store IS NOT NULL));
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('set_concurrency_limit', jsonb_build_object('queue', p_queue, 'scope', p_scope, 'from', v_from, 'to', v_to));
    PERFORM jobq._wake(p_queue);
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq._set_queue_limit(text,text,integer,text,interval) IS
    'Private. Sets (or, with p_max_running NULL, removes) the limit of p_queue of scope queue (max_running), store (max_running_per_store), partition (partition_key and max_running_per_partition), rate (max_started and started_per = p_per) or store_rate (max_started_per_store and store_started_per = p_per) in jobq.queues (removing the last rate limit deletes the queue''s jobq.claim_starts rows); audits a change as set_concurrency_limit (queue, scope, from, to) and wakes the queue (jobq._wake). Returns true when the limit changed, false when it was already so (nothing written). Locks the queue''s jobq.queues row. Errors: JOB.INVALID_ARGUMENT (queue NULL, blank or unknown; partition_key blank, or one of partition_key and max_running NULL), JOB.VALUE_TOO_LONG (queue or partition_key above 200 characters), JOB.OUT_OF_RANGE (max_running outside 1..1000000, p_per above 1 day), JOB.LEASE_INVALID (p_per not positive); JOB.INVALID_ARGUMENT also when only one of max_started and p_per is NULL.';

-- At most max_running jobs of queue running at once across every worker (a payment provider's
-- limit, a report that saturates the database); NULL removes the limit. Caller: operators.
CREATE OR REPLACE FUNCTION jobq.set_concurrency_limit(queue text, max_running integer)
RETURNS boolean
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._set_queue_limit($1, 'queue', $2)
$$;
COMMENT ON FUNCTION jobq.set_concurrency_limit(text,integer) IS
    'Sets the concurrency limit of queue: from the commit on no claim takes a job of it while max_running of its jobs are running (across every worker and store); the others stay queued, use no attempt, and are claimed when a running job ends in any way. NULL removes the limit. Returns true when the limit changed (audited as set_concurrency_limit, scope queue; the queue''s runners are woken), false when it was already so. Caller: operators. Locks the queue''s jobq.queues row. Errors: JOB.INVALID_ARGUMENT (queue NULL, blank, or not known to the engine: no declared task, live job, registered worker, schedule or queue control names it), JOB.VALUE_TOO_LONG (queue above 200 characters), JOB.OUT_OF_RANGE (max_running outside 1..1000000).';

-- At most max_running jobs of queue running at once per store (system jobs are one more store),
-- so that one store's burst cannot take every slot; NULL removes the limit. Caller: operators.
CREATE OR REPLACE FUNCTION jobq.set_store_concurrency_limit(queue text, max_running integer)
RETURNS boolean
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._set_queue_limit($1, 'store', $2)
$$;
COMMENT ON FUNCTION jobq.set_store_concurrency_limit(text,integer) IS
    'Sets the per-store concurrency limit of queue: from the commit on no claim takes a job of a store while max_running jobs of that store are running in the queue; system jobs (no store) count as one more store. The others stay queued and use no attempt. NULL removes the limit. Returns true when it changed (audited as set_concurrency_limit, scope store; the queue''s runners are woken), false otherwise. Caller: operators. Locks the queue''s jobq.queues row. Errors: as jobq.set_concurrency_limit.';

-- At most max_running jobs of queue running at once per value of one payload field (at most one
-- sync per customer: partition_key 'customerId', max_running 1); both NULL remove the limit.
-- Caller: operators.
CREATE OR REPLACE FUNCTION jobq.set_partition_concurrency_limit(queue text, partition_key text, max_running integer)
RETURNS boolean
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._set_queue_limit($1, 'partition', $3, $2)
$$;
COMMENT ON FUNCTION jobq.set_partition_concurrency_limit(text,text,integer) IS
    'Sets the per-partition concurrency limit of queue: from the commit on no claim takes a job while max_running running jobs of the queue have the same value of payload ->> partition_key (a top-level field, compared as text); a job without the field is not limited by it. The others stay queued and use no attempt. partition_key and max_running both NULL remove the limit. Returns true when it changed (audited as set_concurrency_limit, scope partition; the queue''s runners are woken), false otherwise. Caller: operators. Locks the queue''s jobq.queues row. Errors: as jobq.set_concurrency_limit, and JOB.INVALID_ARGUMENT (partition_key blank, or only one of partition_key and max_running NULL), JOB.VALUE_TOO_LONG (partition_key above 200 characters).';

-- At most max_started jobs of queue started in any window of length per (a provider that allows
-- 100 calls a minute): a sliding window, exact, over the log of the queue's starts; both NULL
-- remove the limit. Caller: operators.
CREATE OR REPLACE FUNCTION jobq.set_rate_limit(queue text, max_started integer, per interval)
RETURNS boolean
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._set_queue_limit($1, 'rate', $2, NULL, $3)
$$;
COMMENT ON FUNCTION jobq.set_rate_limit(text,integer,interval) IS
    'Sets the rate limit of queue: from the commit on no claim starts a job of it when max_started of its jobs were started (claimed) in the window of length per that ends at the claim (a sliding window over jobq.claim_starts, exact: no window of length per ever holds more than max_started starts). The others stay queued, use no attempt, and are claimed when the window has room. max_started and per both NULL remove the limit. Returns true when it changed (audited as set_concurrency_limit, scope rate; the queue''s runners are woken), false otherwise. Caller: operators. Locks the queue''s jobq.queues row. Errors: as jobq.set_concurrency_limit, and JOB.INVALID_ARGUMENT (only one of max_started and per NULL), JOB.LEASE_INVALID (per not positive), JOB.OUT_OF_RANGE (per above 1 day).';

-- At most max_started jobs of queue started per store (system jobs are one more store) in any
-- window of length per; both NULL remove the limit. Caller: operators.
CREATE OR REPLACE FUNCTION jobq.set_store_rate_limit(queue text, max_started integer, per interval)
RETURNS boolean
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._set_queue_limit($1, 'store_rate', $2, NULL, $3)
$$;
COMMENT ON FUNCTION jobq.set_store_rate_limit(text,integer,interval) IS
    'Sets the per-store rate limit of queue: from the commit on no claim starts a job of a store when max_started jobs of that store were started in the queue in the window of length per that ends at the claim (sliding, exact); system jobs (no store) count as one more store. The others stay queued and use no attempt. Both NULL remove the limit. Returns true when it changed (audited as set_concurrency_limit, scope store_rate; the queue''s runners are woken), false otherwise. Caller: operators. Locks the queue''s jobq.queues row. Errors: as jobq.set_rate_limit.';

-- Claims of queue serve its stores in turn within each priority (fair = true), so that one store's
-- backlog does not delay the other stores' jobs, or in plain claim order again (false). Refuses a
-- queue nothing knows, as the limit setters do; audits a change and wakes the queue's runners.
-- Only the jobs flagged fair (jobq.jobs.fair) are in jobs_fair_idx, which the fair pick reads:
-- turning the queue fair flags every job of it this transaction sees, and leaves the jobs it
-- cannot see (inserted by transactions that read the queue before this one committed) to
-- jobq.maintain (jobq._settle_fair_flags). Turning it off leaves the flags: plain claims read
-- jobs_claim_idx, which holds every waiting job. Caller: operators.
CREATE OR REPLACE FUNCTION jobq.set_fair_claiming(queue text, fair boolean)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_old boolean;
BEGIN
    PERFORM jobq._check_queue_name(set_fair_claiming.queue);
    IF set_fair_claiming.fair IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'fair is NULL (true serves the stores in turn, false claims in plain order)');
    END IF;
    -- Turned off for a queue without controls: off already (its jobs were inserted unflagged).
    IF NOT jobq._lock_queue_row(set_fair_claiming.queue, set_fair_claiming.fair) THEN
        RETURN false;
    END IF;
    SELECT q.fair INTO v_old FROM jobq.queues q WHERE q.name = set_fair_claiming.queue;
    IF set_fair_claiming.fair THEN
        -- Every job of the queue, in every state (a running or blocked job that comes to wait keeps
        -- its flag), locked in id order as heartbeats and completions lock theirs, so that none of
        -- them deadlocks with this; a claim never waits for it (SKIP LOCKED). None when set again
        -- and every job agrees. maintain flags the ones this cannot see, once they can be seen.
        UPDATE jobq.jobs AS j SET fair = true
        WHERE j.id IN (SELECT u.id FROM jobq.jobs u WHERE u.queue = set_fair_claiming.queue AND NOT u.fair ORDER BY u.id FOR UPDATE);
        UPDATE jobq.queues AS q SET fair_recheck = true, fair_recheck_after = NULL WHERE q.name = set_fair_claiming.queue;
    END IF;
    IF v_old = set_fair_claiming.fair THEN
        RETURN false;
    END IF;
    -- Turned off, the queue needs no recheck (its flags are left as they are).
    UPDATE jobq.queues AS q SET fair = set_fair_claiming.fair, updated_at = now(), fair_recheck = set_fair_claiming.fair
    WHERE q.name = set_fair_claiming.queue;
    -- The turn of a fair queue: claims move it, never insert it (jobq._pick_fair). It starts
    -- after the system jobs' key, the zero uuid.
    IF set_fair_claiming.fair THEN
        INSERT INTO jobq.claim_cursors AS c (queue, store_key)
        VALUES (set_fair_claiming.queue, '00000000-0000-0000-0000-000000000000')
        ON CONFLICT ON CONSTRAINT claim_cursors_pkey DO NOTHING;
    ELSE
        DELETE FROM jobq.claim_cursors AS c WHERE c.queue = set_fair_claiming.queue;
    END IF;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('set_fair_claiming', jsonb_build_object('queue', set_fair_claiming.queue, 'from', v_old, 'to', set_fair_claiming.fair));
    PERFORM jobq._wake(set_fair_claiming.queue);
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq.set_fair_claiming(text,boolean) IS
    'Turns fair claiming of queue on (true) or off (false): from the commit on, claims of a fair queue serve its stores in turn within each priority (round-robin in store_id order, system jobs being one more store; jobq._pick_fair; turning it on inserts the queue''s turn in jobq.claim_cursors, turning it off deletes it), from the head whatever the runner''s position; off, the queue is claimed in plain (priority, run_at, id) order. Composes with the concurrency and rate limits. Returns true when it changed (audited as set_fair_claiming: queue, from, to; the queue''s runners are woken), false when it was already so. Turning it on (or setting it on again) flags every job of the queue this transaction sees, whatever its state (jobq.jobs.fair: only flagged jobs are in jobs_fair_idx, which fair claims read), by one scan of jobq.jobs, locking them in id order (it waits for a claim, heartbeat or completion that holds one; no claim waits for it: until it commits, claims pass over the jobs it holds), and marks the queue for jobq.maintain, which flags the jobs inserted unflagged by transactions older than this one once none of them is left (jobq._settle_fair_flags): until then a fair claim does not see such a job. Turning it off leaves the flags. Caller: operators. Locks the queue''s jobq.queues row and the queue''s unflagged jobs. Errors: JOB.INVALID_ARGUMENT (queue NULL, blank, or not known to the engine; fair NULL), JOB.VALUE_TOO_LONG (queue above 200 characters).';

-- Flags the jobs of fair queues that jobq.set_fair_claiming could not see: an insert that read
-- its queue's fair before the setter committed (a statement already running, or a REPEATABLE READ
-- snapshot taken earlier) wrote the job unflagged, out of jobs_fair_idx. For each queue the
-- setter marked (jobq.queues.fair_recheck), the first call records the first transaction id not
-- yet assigned (every such inserter has a lower one); a later call, once every transaction below
-- it has ended and no backend holds a snapshot older than it, flags the queue's unflagged jobs
-- and clears the mark. Rows another transaction holds are passed over (SKIP LOCKED) and the mark
-- stays until a call finds none left, so maintain never waits here. Returns the jobs flagged.
-- Caller: jobq._maintain.
CREATE OR REPLACE FUNCTION jobq._settle_fair_flags()
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_queue jobq.queues;
    v_flagged bigint := 0::bigint;
    v_n bigint;
    v_snap constant pg_snapshot := pg_current_snapshot();
BEGIN
    FOR v_queue IN SELECT * FROM jobq.queues q WHERE q.fair_recheck ORDER BY q.name FOR UPDATE SKIP LOCKED LOOP
        IF v_queue.fair_recheck_after IS NULL THEN
            UPDATE jobq.queues AS q SET fair_recheck_after = pg_snapshot_xmax(v_snap) WHERE q.name = v_queue.name;
        ELSIF pg_snapshot_xmin(v_snap) >= v_queue.fair_recheck_after
              AND NOT jobq._snapshot_older_than(v_queue.fair_recheck_after) THEN
            UPDATE jobq.jobs AS j SET fair = true
            WHERE j.id IN (SELECT u.id FROM jobq.jobs u WHERE u.queue = v_queue.name AND NOT u.fair ORDER BY u.id FOR UPDATE SKIP LOCKED);
            GET DIAGNOSTICS v_n = ROW_COUNT;
            v_flagged := v_flagged + v_n;
            IF NOT EXISTS (SELECT 1 FROM jobq.jobs u WHERE u.queue = v_queue.name AND NOT u.fair) THEN
                UPDATE jobq.queues AS q SET fair_recheck = false, fair_recheck_after = NULL WHERE q.name = v_queue.name;
            END IF;
        END IF;
    END LOOP;
    RETURN v_flagged;
END
$$;
COMMENT ON FUNCTION jobq._settle_fair_flags() IS
    'Private. For each queue jobq.set_fair_claiming turned fair (jobq.queues.fair_recheck): the first call records pg_snapshot_xmax of its snapshot in fair_recheck_after; a call whose snapshot''s xmin has reached it, while no backend holds a snapshot older than it (jobq._snapshot_older_than), sets jobq.jobs.fair on every unflagged job of the queue it can lock (SKIP LOCKED) and clears the mark once none is left (jobq.set_fair_claiming clears it when it turns the queue plain again). Returns the jobs flagged. Never waits: the queue rows and jobs another transaction holds are passed over until a later call. Caller: jobq._maintain.';

-- Flags (jobq.jobs.counted) the running jobs of limited queue p_queue that claims made while it
-- was not limited, once no such claim can still commit (jobq.queues.counted_recheck_after passed
-- and no older snapshot held), and clears counted_recheck once none is left; a queue no longer
-- limited just loses the mark. Returns whether the mark is still set. Never waits: jobs another
-- transaction holds are flagged by a later call. Callers: jobq._limited_counts and
-- jobq._shared_claim_room (under the queue's lock, before they count), jobq._settle_counted_flags.
CREATE OR REPLACE FUNCTION jobq._settle_counted(p_queue text)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_queue jobq.queues;
BEGIN
    SELECT * INTO v_queue FROM jobq.queues q WHERE q.name = p_queue AND q.counted_recheck FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN coalesce((SELECT q.counted_recheck FROM jobq.queues q WHERE q.name = p_queue), false);
    END IF;
    IF v_queue.limited
       AND NOT (pg_snapshot_xmin(pg_current_snapshot()) >= v_queue.counted_recheck_after
                AND NOT jobq._snapshot_older_than(v_queue.counted_recheck_after)) THEN
        RETURN true;
    END IF;
    IF v_queue.limited THEN
        UPDATE jobq.jobs AS j SET counted = true
        WHERE j.id IN (SELECT u.id FROM jobq.jobs u
                       WHERE u.ready AND u.queue = p_queue AND u.state = 'running' AND NOT u.counted
                       ORDER BY u.id FOR UPDATE SKIP LOCKED);
        IF EXISTS (SELECT 1 FROM jobq.jobs u
                   WHERE u.ready AND u.queue = p_queue AND u.state = 'running' AND NOT u.counted) THEN
            RETURN true;
        END IF;
    END IF;
    UPDATE jobq.queues AS q SET counted_recheck = false, counted_recheck_after = NULL WHERE q.name = p_queue;
    RETURN false;
END
$$;
COMMENT ON FUNCTION jobq._settle_counted(text) IS
    'Private. For queue p_queue while jobq.queues.counted_recheck is set: once pg_snapshot_xmin of the current snapshot has reached counted_recheck_after and no backend holds a snapshot older than it (jobq._snapshot_older_than), sets jobq.jobs.counted on every running unflagged job of the queue (read through jobs_claim_idx) it can lock (SKIP LOCKED) and clears the mark once none is left; a queue no longer limited loses the mark at once. Returns whether the mark is still set. Never waits (the queue row and the jobs SKIP LOCKED). Callers: jobq._limited_counts, jobq._shared_claim_room, jobq._settle_counted_flags.';

-- Settles the counted flags of every queue a limit turned limited (jobq._settle_counted), for the
-- queues no limited claim has settled yet. Caller: jobq._maintain.
CREATE OR REPLACE FUNCTION jobq._settle_counted_flags()
RETURNS integer
LANGUAGE sql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT count(*) FILTER (WHERE jobq._settle_counted(q.name))::integer
    FROM (SELECT q.name FROM jobq.queues q WHERE q.counted_recheck ORDER BY q.name) AS q
$$;
COMMENT ON FUNCTION jobq._settle_counted_flags() IS
    'Private. jobq._settle_counted for each queue whose counted_recheck is set; returns how many keep the mark. Caller: jobq._maintain.';

-- Whether any backend holds a snapshot older than p_xid (pg_stat_activity.backend_xmin below
-- it): such a snapshot may not show a change committed by a transaction that p_xid followed.
-- Compared by age, as backend_xmin is a 32-bit transaction id. Caller: jobq._settle_fair_flags.
CREATE OR REPLACE FUNCTION jobq._snapshot_older_than(p_xid xid8)
RETURNS boolean
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (SELECT 1 FROM pg_stat_activity a
                   WHERE a.backend_xmin IS NOT NULL
                     AND age(a.backend_xmin) > age((p_xid::text::numeric % 4294967296)::text::xid))
$$;
COMMENT ON FUNCTION jobq._snapshot_older_than(xid8) IS
    'Private. True when some backend''s snapshot (pg_stat_activity.backend_xmin, visible to every role) is older than transaction id p_xid, compared by age (backend_xmin has 32 bits). Caller: jobq._settle_fair_flags.';
