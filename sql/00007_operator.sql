-- jobq schema step 7: operator actions — retry now, cancel, delete, requeue dead jobs in bulk,
-- change a setting. Each one writes a row to jobq.audit_log (actor = session_user).

-- +goose Up

-- Moves finished jobs back into jobq.jobs as fresh queued jobs (attempt 0, run now), keeping
-- their ids. A job whose job_key is held by a live job stays where it is and is not returned.
-- +goose StatementBegin
CREATE FUNCTION jobq._revive(p_job_ids bigint[], p_action text)
RETURNS SETOF bigint
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_ids bigint[];
BEGIN
    WITH revived AS (
        INSERT INTO jobq.jobs (id, task, queue, payload, store_id, priority, run_at, state, attempt, max_attempts,
                               job_key, job_key_mode, timeout, backoff_base, backoff_max, reason, last_error, error_code, created_at)
        OVERRIDING SYSTEM VALUE
        SELECT h.id, h.task, h.queue, h.payload, h.store_id, h.priority, now(), 'queued', 0, h.max_attempts,
               h.job_key, h.job_key_mode, h.timeout, h.backoff_base, h.backoff_max, 'requeued', h.last_error, h.error_code, h.created_at
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

    PERFORM pg_notify('jobq', q.queue)
    FROM (SELECT DISTINCT j.queue FROM jobq.jobs j WHERE j.id = ANY (v_ids)) AS q;
    RETURN QUERY SELECT unnest(v_ids);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._revive(bigint[], text) IS
    'Private. Moves finished jobs p_job_ids back to jobq.jobs as queued (attempt 0, run_at now, reason requeued), '
    'audits each as p_action and returns the ids moved; a job whose key a live job holds is skipped.';

-- Runs a job now: a waiting job's run_at becomes now(); a dead or canceled job is queued again
-- with a fresh set of attempts. Returns the job's state afterwards (queued).
-- +goose StatementBegin
CREATE FUNCTION jobq.retry_job(job_id bigint)
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
        UPDATE jobq.jobs AS j SET run_at = now(), state = 'queued', updated_at = now() WHERE j.id = retry_job.job_id;
        INSERT INTO jobq.audit_log (action, job_id, detail)
        VALUES ('retry_job', retry_job.job_id, jsonb_build_object('previous_state', v_state));
        PERFORM pg_notify('jobq', v_queue);
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.retry_job(bigint) IS
    'Operator "retry now": a waiting job (queued, retry_pending) runs at once, keeping its attempts; a dead or canceled '
    'job is queued again with attempt 0. Audited. Returns queued. Callers: operators, applications (own jobs). Locks the '
    'job row. Errors: JOB.NOT_FOUND, JOB.STATE_CONFLICT (running, succeeded, or its key is held by a live job).';

-- Cancels a live job: it moves to history as canceled. A running job's lease stops working at
-- once, so its worker's heartbeat is refused (the runner cancels the handler) and its late
-- complete or fail changes nothing.
-- +goose StatementBegin
CREATE FUNCTION jobq.cancel_job(job_id bigint)
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
    WITH gone AS (
        DELETE FROM jobq.jobs AS j WHERE j.id = cancel_job.job_id RETURNING j AS job
    ), moved AS (
        INSERT INTO jobq.job_history
        SELECT h.* FROM gone CROSS JOIN LATERAL jobq._to_history(gone.job, 'canceled', 'canceled', NULL, NULL) AS h
        RETURNING jobq.job_history.id
    )
    SELECT (g.job).state INTO v_previous FROM gone g JOIN moved m ON m.id = (g.job).id;

    IF v_previous IS NULL THEN
        SELECT h.state INTO v_finished FROM jobq.job_history h WHERE h.id = cancel_job.job_id;
        IF v_finished IS NULL THEN
            PERFORM jobq._raise('JOB.NOT_FOUND', format('job %s', cancel_job.job_id));
        END IF;
        PERFORM jobq._raise('JOB.STATE_CONFLICT', format('job %s already ended as %s', cancel_job.job_id, v_finished));
    END IF;

    INSERT INTO jobq.audit_log (action, job_id, detail)
    VALUES ('cancel_job', cancel_job.job_id, jsonb_build_object('previous_state', v_previous));
    RETURN 'canceled';
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.cancel_job(bigint) IS
    'Cancels a live job (queued, retry_pending or running): it moves to jobq.job_history as canceled and its lease '
    'token stops working. Audited. Returns canceled. Callers: operators, applications (own jobs). Locks the job row '
    '(waits for a claim or finish in progress). Errors: JOB.NOT_FOUND, JOB.STATE_CONFLICT (already ended).';

-- Deletes a job wherever it is, live or finished. The audit row keeps what was deleted.
-- +goose StatementBegin
CREATE FUNCTION jobq.delete_job(job_id bigint)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_row jsonb;
BEGIN
    DELETE FROM jobq.jobs AS j WHERE j.id = delete_job.job_id RETURNING to_jsonb(j) INTO v_row;
    IF v_row IS NULL THEN
        DELETE FROM jobq.job_history AS h WHERE h.id = delete_job.job_id RETURNING to_jsonb(h) INTO v_row;
    END IF;
    IF v_row IS NULL THEN
        PERFORM jobq._raise('JOB.NOT_FOUND', format('job %s', delete_job.job_id));
    END IF;
    INSERT INTO jobq.audit_log (action, job_id, detail)
    VALUES ('delete_job', delete_job.job_id, jsonb_build_object('previous_state', v_row->>'state', 'job', v_row));
    RETURN v_row->>'state';
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.delete_job(bigint) IS
    'Deletes a job from jobq.jobs or jobq.job_history; a running job''s lease stops working. Audited with the deleted '
    'row. Returns the state it had. Caller: operators. Errors: JOB.NOT_FOUND.';

-- Queues dead jobs again in bulk, oldest first: those of one task (or all), that died at or
-- after finished_after (or ever), at most max_jobs. Returns how many were queued.
-- +goose StatementBegin
CREATE FUNCTION jobq.requeue_dead(task text DEFAULT NULL, finished_after timestamptz DEFAULT NULL, max_jobs integer DEFAULT 1000)
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.requeue_dead(text, timestamptz, integer) IS
    'Queues dead jobs again (attempt 0, run now), oldest death first, filtered by task and finished_after, at most '
    'max_jobs; a job whose key a live job holds is left dead. Audits each job. Returns the number queued. '
    'Caller: operators. Errors: JOB.INVALID_ARGUMENT.';

-- Changes a setting after checking that the value parses as the setting's kind.
-- +goose StatementBegin
CREATE FUNCTION jobq.set_setting(name text, value text)
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

    UPDATE jobq.settings AS s SET value = set_setting.value, updated_at = now() WHERE s.name = set_setting.name;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('set_setting', jsonb_build_object('name', set_setting.name, 'from', v_setting.value, 'to', set_setting.value));
    RETURN set_setting.value;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.set_setting(text, text) IS
    'Changes a jobq.settings value after checking it parses as the setting''s kind (intervals and integers must be '
    'positive). Audited with old and new value. Returns the new value. Caller: operators. Errors: JOB.UNKNOWN_SETTING.';

GRANT EXECUTE ON FUNCTION jobq.retry_job(bigint), jobq.cancel_job(bigint) TO jobq_app, jobq_operator;
GRANT EXECUTE ON FUNCTION
    jobq.delete_job(bigint),
    jobq.requeue_dead(text, timestamptz, integer),
    jobq.set_setting(text, text)
TO jobq_operator;

-- +goose Down
DROP FUNCTION jobq.set_setting(text, text);
DROP FUNCTION jobq.requeue_dead(text, timestamptz, integer);
DROP FUNCTION jobq.delete_job(bigint);
DROP FUNCTION jobq.cancel_job(bigint);
DROP FUNCTION jobq.retry_job(bigint);
DROP FUNCTION jobq._revive(bigint[], text);
