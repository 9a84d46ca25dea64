-- jobq schema step 18: wake-up modes.
--
-- Every transaction that NOTIFYs takes one lock, shared by the whole cluster, while it commits,
-- so enqueuers queue behind each other under load. This step adds a second way to wake runners:
-- enqueue emits a transactional logical message (pg_logical_emit_message(true, 'jobq', queue))
-- and runners in WAL mode decode it from a temporary replication slot (pgoutput) once the
-- transaction commits. The setting wakeup decides what enqueue sends: notify (the default, as
-- before), wal or both, so it never NOTIFYs when no runner listens that way. The other places
-- that make a job due at once (retry_job, requeue_dead, snooze_jobs with no delay) obey it too,
-- through jobq._wake(p_queue text). The messages carry
-- queue names only, never job rows; the publication the runners name publishes no table.

-- +goose Up

INSERT INTO jobq.settings (name, kind, value, description) VALUES
    ('wakeup', 'text', 'notify', 'How enqueue wakes runners when a job is due: notify (NOTIFY jobq), wal (a logical message for runners in WAL mode, no NOTIFY) or both.');

-- pgoutput needs a publication to name. This one publishes no table: runners in WAL mode read the
-- wake-up messages and nothing else.
CREATE PUBLICATION jobq_wakeup;
COMMENT ON PUBLICATION jobq_wakeup IS 'Named by runners in WAL wake-up mode (pgoutput with messages); publishes no table on purpose.';

-- The one insert path of every enqueue; it wakes runners as the setting wakeup says.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._insert_specs(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS TABLE (ord bigint, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_zero constant uuid := '00000000-0000-0000-0000-000000000000'::uuid;
    v_now constant timestamptz := now();
    v_default_attempts constant integer := (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts');
    v_specs jobq.job_spec[];
    v_queues text[];
    v_wakeup text;
BEGIN
    IF p_specs IS NULL OR cardinality(p_specs) = 0 THEN
        RETURN;
    END IF;
    PERFORM jobq._validate_specs(p_specs, p_label_index);

    v_specs := ARRAY(
        SELECT ROW(btrim(s.task), coalesce(s.payload, '{}'), coalesce(s.queue, 'default'), coalesce(s.run_at, v_now),
                   coalesce(s.priority, 0), coalesce(s.max_attempts, v_default_attempts), s.job_key,
                   CASE WHEN s.job_key IS NOT NULL THEN coalesce(s.job_key_mode, 'replace') END, s.store_id, s.timeout, s.backoff_base, s.backoff_max)::jobq.job_spec
        FROM unnest(p_specs) WITH ORDINALITY AS s
        ORDER BY s.ordinality);

    -- Keyless jobs: ids drawn first so each is reported at its input position.
    RETURN QUERY
    WITH src AS MATERIALIZED (
        SELECT s.ordinality AS ord, nextval('jobq.jobs_id_seq'::regclass) AS id, s.*
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NULL
    ), ins AS (
        INSERT INTO jobq.jobs (id, task, queue, payload, store_id, priority, run_at, max_attempts,
                               timeout, backoff_base, backoff_max)
        OVERRIDING SYSTEM VALUE
        SELECT src.id, src.task, src.queue, src.payload, src.store_id, src.priority, src.run_at, src.max_attempts,
               src.timeout, src.backoff_base, src.backoff_max
        FROM src
    )
    SELECT src.ord, src.id FROM src;

    -- Keyed jobs, all modes in one ordered pass; within a batch the last spec of a key wins.
    RETURN QUERY
    WITH positioned AS (
        SELECT s.ordinality AS ord, coalesce(s.store_id, v_zero) AS store_key, s.job_key
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
    ), last_per_key AS (
        SELECT DISTINCT ON (coalesce(s.store_id, v_zero), s.job_key)
               ROW(s.task, s.payload, s.queue, s.run_at, s.priority, s.max_attempts, s.job_key, s.job_key_mode,
                   s.store_id, s.timeout, s.backoff_base, s.backoff_max)::jobq.job_spec AS spec
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
        ORDER BY coalesce(s.store_id, v_zero), s.job_key, s.ordinality DESC
    )
    SELECT p.ord, k.job_id
    FROM jobq._enqueue_keyed(ARRAY(SELECT l.spec FROM last_per_key l)) AS k
    JOIN positioned p ON p.store_key = k.store_key AND p.job_key = k.job_key;

    -- Wake the runners of each queue that got a due job, once per queue and call, the way the
    -- setting wakeup says (read once, and only when a job is due): notify sends NOTIFY jobq
    -- (PostgreSQL folds identical notifications of a transaction into one); wal emits a
    -- transactional logical message, prefix jobq, that runners in WAL mode decode once the
    -- transaction commits, and no NOTIFY, so the commit takes no lock shared by every notifying
    -- transaction; both does the two. A missing or unknown value counts as notify.
    v_queues := ARRAY(SELECT DISTINCT s.queue FROM unnest(v_specs) AS s WHERE s.run_at <= v_now);
    IF cardinality(v_queues) > 0 THEN
        v_wakeup := coalesce((SELECT s.value FROM jobq.settings s WHERE s.name = 'wakeup'), 'notify');
        IF v_wakeup <> 'wal' THEN
            PERFORM pg_notify('jobq', q.queue) FROM unnest(v_queues) AS q(queue);
        END IF;
        IF v_wakeup IN ('wal', 'both') THEN
            PERFORM pg_logical_emit_message(true, 'jobq', q.queue) FROM unnest(v_queues) AS q(queue);
        END IF;
    END IF;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._insert_specs(jobq.job_spec[], boolean) IS
    'Private. Inserts resolved specs (see jobq._enqueue): applies the global defaults, inserts keyless jobs in one '
    'statement and keyed ones through _enqueue_keyed, then wakes runners once per queue with a due job as the setting '
    'wakeup says: NOTIFY channel jobq (notify), a transactional logical message with prefix jobq and the queue name as '
    'content (wal), or both. Returns (ord, job_id).';

-- Wakes the runners of one queue the way the setting wakeup says. Enqueue (jobq._insert_specs)
-- reads the setting once per call and does the same; every other place that makes a job due at
-- once wakes its queue through here: jobq.retry_job, jobq.requeue_dead (both by jobq._revive)
-- and jobq.snooze_jobs with no delay.
-- +goose StatementBegin
CREATE FUNCTION jobq._wake(p_queue text)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_wakeup text;
BEGIN
    IF p_queue IS NULL THEN
        RETURN;
    END IF;
    v_wakeup := coalesce((SELECT s.value FROM jobq.settings s WHERE s.name = 'wakeup'), 'notify');
    IF v_wakeup <> 'wal' THEN
        PERFORM pg_catalog.pg_notify('jobq', p_queue);
    END IF;
    IF v_wakeup IN ('wal', 'both') THEN
        PERFORM pg_catalog.pg_logical_emit_message(true, 'jobq', p_queue);
    END IF;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._wake(text) IS
    'Private. Wakes the runners of queue p_queue as the setting wakeup says: NOTIFY channel jobq with the queue name '
    '(notify, and any value but wal or both), a transactional logical message with prefix jobq and the queue name as '
    'content (wal), or both; nothing for a NULL queue. Both take effect only if the transaction commits. Callers: '
    'jobq._revive (retry_job, requeue_dead), jobq.snooze_jobs; EXECUTE for jobq_app_gate, which runs retry_job.';
GRANT EXECUTE ON FUNCTION jobq._wake(text) TO jobq_app_gate;

-- Retry now and requeue_dead (through jobq._revive) and a snooze with no delay wake as enqueue
-- does: their bodies are those of 00005 and 00007 with pg_notify replaced by jobq._wake.
-- +goose StatementBegin
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

    PERFORM jobq._wake(q.queue)
    FROM (SELECT DISTINCT j.queue FROM jobq.jobs j WHERE j.id = ANY (v_ids)) AS q;
    RETURN QUERY SELECT unnest(v_ids);
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
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
        UPDATE jobq.jobs AS j SET run_at = now(), state = 'queued', updated_at = now() WHERE j.id = retry_job.job_id;
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
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval DEFAULT '0 seconds')
RETURNS TABLE (job_id bigint, outcome text, run_at timestamptz)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF snooze_jobs.delay IS NULL OR snooze_jobs.delay < interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('delay %s must be zero or positive', coalesce(snooze_jobs.delay::text, 'NULL')));
    END IF;
    IF cardinality(snooze_jobs.job_ids) IS DISTINCT FROM cardinality(snooze_jobs.lease_tokens) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids and lease_tokens must have the same length');
    END IF;

    RETURN QUERY
    WITH back AS (
        UPDATE jobq.jobs AS j
        SET state            = 'queued',
            run_at           = now() + snooze_jobs.delay,
            attempt          = j.attempt - 1,
            lease_token      = NULL,
            lease_expires_at = NULL,
            deadline_at      = NULL,
            updated_at       = now()
        FROM unnest(snooze_jobs.job_ids, snooze_jobs.lease_tokens) AS s(id, token)
        WHERE j.id = ANY (snooze_jobs.job_ids)
          AND j.id = s.id AND j.lease_token = s.token AND j.state = 'running'
        RETURNING j.id, s.token, j.run_at, j.queue
    ), woken AS (
        SELECT count(jobq._wake(q.queue)) AS n
        FROM (SELECT DISTINCT b.queue FROM back b WHERE snooze_jobs.delay = interval '0') AS q
    )
    SELECT s.id, CASE WHEN b.id IS NULL THEN 'lease_lost' ELSE 'queued' END, b.run_at
    FROM unnest(snooze_jobs.job_ids, snooze_jobs.lease_tokens) WITH ORDINALITY AS s(id, token, ord)
    LEFT JOIN back b ON b.id = s.id AND b.token = s.token
    CROSS JOIN woken
    ORDER BY s.ord;
END
$$;
-- +goose StatementEnd

-- Changes a setting after checking that the value parses as the setting's kind; wakeup takes
-- notify, wal or both.
-- +goose StatementBegin
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.set_setting(text, text) IS
    'Changes a jobq.settings value after checking it parses as the setting''s kind (intervals and integers must be '
    'positive; wakeup is notify, wal or both, with a warning when wal_level is not logical). Audited with old and new '
    'value. Returns the new value. Caller: operators. Errors: JOB.UNKNOWN_SETTING.';

-- +goose Down

-- +goose StatementBegin
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._insert_specs(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS TABLE (ord bigint, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_zero constant uuid := '00000000-0000-0000-0000-000000000000'::uuid;
    v_now constant timestamptz := now();
    v_default_attempts constant integer := (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts');
    v_specs jobq.job_spec[];
BEGIN
    IF p_specs IS NULL OR cardinality(p_specs) = 0 THEN
        RETURN;
    END IF;
    PERFORM jobq._validate_specs(p_specs, p_label_index);

    v_specs := ARRAY(
        SELECT ROW(btrim(s.task), coalesce(s.payload, '{}'), coalesce(s.queue, 'default'), coalesce(s.run_at, v_now),
                   coalesce(s.priority, 0), coalesce(s.max_attempts, v_default_attempts), s.job_key,
                   CASE WHEN s.job_key IS NOT NULL THEN coalesce(s.job_key_mode, 'replace') END, s.store_id, s.timeout, s.backoff_base, s.backoff_max)::jobq.job_spec
        FROM unnest(p_specs) WITH ORDINALITY AS s
        ORDER BY s.ordinality);

    -- Keyless jobs: ids drawn first so each is reported at its input position.
    RETURN QUERY
    WITH src AS MATERIALIZED (
        SELECT s.ordinality AS ord, nextval('jobq.jobs_id_seq'::regclass) AS id, s.*
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NULL
    ), ins AS (
        INSERT INTO jobq.jobs (id, task, queue, payload, store_id, priority, run_at, max_attempts,
                               timeout, backoff_base, backoff_max)
        OVERRIDING SYSTEM VALUE
        SELECT src.id, src.task, src.queue, src.payload, src.store_id, src.priority, src.run_at, src.max_attempts,
               src.timeout, src.backoff_base, src.backoff_max
        FROM src
    )
    SELECT src.ord, src.id FROM src;

    -- Keyed jobs, all modes in one ordered pass; within a batch the last spec of a key wins.
    RETURN QUERY
    WITH positioned AS (
        SELECT s.ordinality AS ord, coalesce(s.store_id, v_zero) AS store_key, s.job_key
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
    ), last_per_key AS (
        SELECT DISTINCT ON (coalesce(s.store_id, v_zero), s.job_key)
               ROW(s.task, s.payload, s.queue, s.run_at, s.priority, s.max_attempts, s.job_key, s.job_key_mode,
                   s.store_id, s.timeout, s.backoff_base, s.backoff_max)::jobq.job_spec AS spec
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
        ORDER BY coalesce(s.store_id, v_zero), s.job_key, s.ordinality DESC
    )
    SELECT p.ord, k.job_id
    FROM jobq._enqueue_keyed(ARRAY(SELECT l.spec FROM last_per_key l)) AS k
    JOIN positioned p ON p.store_key = k.store_key AND p.job_key = k.job_key;

    -- NOTIFY is a hint that work is due; identical notifications in one transaction are folded
    -- into one by PostgreSQL, so a burst of enqueues wakes each queue's listeners once.
    PERFORM pg_notify('jobq', q.queue)
    FROM (SELECT DISTINCT s.queue FROM unnest(v_specs) AS s WHERE s.run_at <= v_now) AS q;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._insert_specs(jobq.job_spec[], boolean) IS
    'Private. Inserts resolved specs (see jobq._enqueue): applies the global defaults, inserts keyless jobs in one '
    'statement and keyed ones through _enqueue_keyed, NOTIFYs channel jobq per queue with a due job. Returns (ord, job_id).';

-- The bodies of 00005 and 00007 again, then no jobq._wake.
-- +goose StatementBegin
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
-- +goose StatementBegin
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
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval DEFAULT '0 seconds')
RETURNS TABLE (job_id bigint, outcome text, run_at timestamptz)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF snooze_jobs.delay IS NULL OR snooze_jobs.delay < interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('delay %s must be zero or positive', coalesce(snooze_jobs.delay::text, 'NULL')));
    END IF;
    IF cardinality(snooze_jobs.job_ids) IS DISTINCT FROM cardinality(snooze_jobs.lease_tokens) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids and lease_tokens must have the same length');
    END IF;

    RETURN QUERY
    WITH back AS (
        UPDATE jobq.jobs AS j
        SET state            = 'queued',
            run_at           = now() + snooze_jobs.delay,
            attempt          = j.attempt - 1,
            lease_token      = NULL,
            lease_expires_at = NULL,
            deadline_at      = NULL,
            updated_at       = now()
        FROM unnest(snooze_jobs.job_ids, snooze_jobs.lease_tokens) AS s(id, token)
        WHERE j.id = ANY (snooze_jobs.job_ids)
          AND j.id = s.id AND j.lease_token = s.token AND j.state = 'running'
        RETURNING j.id, s.token, j.run_at, j.queue
    ), woken AS (
        SELECT count(pg_notify('jobq', q.queue)) AS n
        FROM (SELECT DISTINCT b.queue FROM back b WHERE snooze_jobs.delay = interval '0') AS q
    )
    SELECT s.id, CASE WHEN b.id IS NULL THEN 'lease_lost' ELSE 'queued' END, b.run_at
    FROM unnest(snooze_jobs.job_ids, snooze_jobs.lease_tokens) WITH ORDINALITY AS s(id, token, ord)
    LEFT JOIN back b ON b.id = s.id AND b.token = s.token
    CROSS JOIN woken
    ORDER BY s.ord;
END
$$;
-- +goose StatementEnd
DROP FUNCTION jobq._wake(text);

DROP PUBLICATION jobq_wakeup;
DELETE FROM jobq.settings WHERE name = 'wakeup';
