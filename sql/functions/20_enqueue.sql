-- jobq engine, enqueue. Putting jobs in the queue: enqueue and enqueue_many, with a fast path for
-- plain jobs; the one implementation (_enqueue) behind them, its checks, and keyed merging.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The signature before unique_for (issue 18): CREATE OR REPLACE cannot add an argument.
DROP FUNCTION IF EXISTS jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval);
-- The signature before dependencies and sequences (issue 35).
DROP FUNCTION IF EXISTS jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval);

-- Enqueues one job. A keyless job that passes every check is inserted here directly (the fast
-- path); a keyed or refused one goes through jobq._enqueue, the one implementation. The task row
-- is read by its columns, not t.*, so a new column of jobq.tasks cannot shift them; the settings
-- the fast path needs are read in the same statement. Every statement of the fast path but the
-- task's lookup and the INSERT is an expression plpgsql evaluates without a query (no PERFORM,
-- no nested plpgsql call): the wake-up is jobq._wake_as, inlined.
CREATE OR REPLACE FUNCTION jobq.enqueue(
    task         text,
    payload      jsonb       DEFAULT '{}',
    run_at       timestamptz DEFAULT NULL,
    job_key      text        DEFAULT NULL,
    job_key_mode text        DEFAULT 'replace',
    max_attempts integer     DEFAULT NULL,
    priority     integer     DEFAULT NULL,
    queue        text        DEFAULT NULL,
    store_id     uuid        DEFAULT NULL,
    timeout      interval    DEFAULT NULL,
    backoff_base interval    DEFAULT NULL,
    backoff_max  interval    DEFAULT NULL,
    unique_for   interval    DEFAULT NULL,
    depends_on          bigint[] DEFAULT NULL,
    on_parent_failure   text     DEFAULT NULL,
    sequence_key        text     DEFAULT NULL,
    on_sequence_failure text     DEFAULT NULL
)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_spec constant jobq.job_spec := ROW(enqueue.task, enqueue.payload, enqueue.queue, enqueue.run_at, enqueue.priority,
                                         enqueue.max_attempts, enqueue.job_key, enqueue.job_key_mode, enqueue.store_id,
                                         enqueue.timeout, enqueue.backoff_base, enqueue.backoff_max,
                                         enqueue.unique_for)::jobq.job_spec;
    v_task jobq.tasks;
    v_default_attempts integer;
    v_job jobq.job_spec;
    v_id bigint;
    v_wakeup text;
    v_doorbell boolean;
    v_wf jsonb;
BEGIN
    -- A job with dependencies or a sequence (jobq._workflow_prepare, 45_workflows.sql): checked,
    -- its parents and sequence locked before its id is drawn, attached after its insert.
    IF enqueue.depends_on IS NOT NULL OR enqueue.on_parent_failure IS NOT NULL OR enqueue.sequence_key IS NOT NULL
       OR enqueue.on_sequence_failure IS NOT NULL THEN
        v_wf := jobq._workflow_spec(enqueue.depends_on, NULL, enqueue.on_parent_failure, enqueue.sequence_key,
                                    enqueue.on_sequence_failure);
        PERFORM jobq._workflow_prepare(ARRAY[v_wf], ARRAY[enqueue.store_id], ARRAY[enqueue.job_key], false);
        v_id := (SELECT e.job_id FROM jobq._enqueue(ARRAY[v_spec], false) AS e);
        PERFORM jobq._attach_workflow(ARRAY[v_id], ARRAY[v_wf], false);
        RETURN v_id;
    END IF;

    IF enqueue.job_key IS NULL THEN
        SELECT t.name, t.scope, t.payload_schema, t.max_attempts, t.queue, t.priority, t.timeout, t.backoff_base,
               t.backoff_max, t.description, t.created_at, t.updated_at, t.app_enqueue,
               (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts'),
               (SELECT s.value FROM jobq.settings s WHERE s.name = 'wakeup'),
               (SELECT s.value::boolean FROM jobq.settings s WHERE s.name = 'doorbell')
        INTO v_task.name, v_task.scope, v_task.payload_schema, v_task.max_attempts, v_task.queue, v_task.priority,
             v_task.timeout, v_task.backoff_base, v_task.backoff_max, v_task.description, v_task.created_at,
             v_task.updated_at, v_task.app_enqueue, v_default_attempts, v_wakeup, v_doorbell
        FROM jobq.tasks t
        WHERE t.name = pg_catalog.btrim(enqueue.task);

        IF FOUND AND jobq._enqueue_takes_fast_path(v_spec, v_task) THEN
            v_job := jobq._resolve_spec(v_spec, v_task, v_default_attempts);
            -- The queue's fair as this statement reads it (jobq.jobs.fair): a job inserted
            -- unflagged after a setter of fair claiming committed is flagged by maintain.
            INSERT INTO jobq.jobs (task, queue, payload, store_id, priority, run_at, max_attempts,
                                   timeout, backoff_base, backoff_max, fair)
            VALUES (v_job.task, v_job.queue, v_job.payload, v_job.store_id, v_job.priority, v_job.run_at, v_job.max_attempts,
                    v_job.timeout, v_job.backoff_base, v_job.backoff_max,
                    coalesce((SELECT q.fair FROM jobq.queues q WHERE q.name = v_job.queue), false))
            RETURNING jobs.id INTO v_id;
            -- A due job wakes its queue's runners, as the settings wakeup and doorbell say. A
            -- condition rather than PERFORM, which would run a query.
            IF v_job.run_at <= pg_catalog.now() THEN
                IF jobq._wake_as(v_job.queue, v_wakeup, v_doorbell) THEN
                    NULL; -- sent; false when the doorbell found no runner waiting
                END IF;
            END IF;
            RETURN v_id;
        END IF;
    END IF;

    RETURN (SELECT e.job_id FROM jobq._enqueue(ARRAY[v_spec], false) AS e);
END
$$;
COMMENT ON FUNCTION jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval,bigint[],text,text,text) IS
    'Enqueues one job and returns its id (the existing job''s id when job_key matched). run_at NULL = now; queue NULL = default; priority NULL = 0; max_attempts NULL = setting default_max_attempts; job_key_mode replace | preserve_run_at | unsafe_dedupe; unique_for (with a job_key; NULL = off, else more than 0 and at most 365 days): the job holding the key in the same store that was enqueued (created_at) within the last unique_for, live in any state or finished (jobq.job_history), is returned and nothing is written, otherwise the key''s mode applies. depends_on (job ids of the same store, live or finished; at most 10000), on_parent_failure (cancel, the default, or run), sequence_key (at most 500 characters) and on_sequence_failure (hold, the default, or continue): the job waits, blocked, until every parent succeeded and every earlier job of its sequence ended (docs/dependencies.md; jobq._workflow_prepare, jobq._attach_workflow; not beside a job_key). A keyless job without a workflow that passes every check is inserted directly (jobq._enqueue_takes_fast_path, jobq._resolve_spec); a keyed or refused one goes through jobq._enqueue. Callers: applications (jobq_app), handlers (worker_runtime), operators. Locks the job row it writes. Errors: JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, JOB.UNKNOWN_JOB_KEY_MODE, JOB.MAX_ATTEMPTS_INVALID, JOB.LEASE_INVALID (timeout), JOB.INVALID_ARGUMENT, JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, JOB.STORE_REQUIRED, JOB.STORE_NOT_ALLOWED, JOB.TENANT_MISMATCH, JOB.DEPENDENCY_NOT_FOUND, JOB.DEPENDENCY_CYCLE, JOB.TOO_MANY_DEPENDENCIES, JOB.WORKFLOW_KEYED.';
-- The gate needs CREATE on the schema at the moment it becomes the owner, and not after.
GRANT CREATE ON SCHEMA jobq TO jobq_app_gate;
ALTER FUNCTION jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval,bigint[],text,text,text) OWNER TO jobq_app_gate;
REVOKE CREATE ON SCHEMA jobq FROM jobq_app_gate;

-- Enqueues a batch of jobs given as a JSON array, all or nothing, and returns their ids in input
-- order. A batch of plain jobs that all pass is inserted in one statement; any other goes through
-- jobq._enqueue. Callers: applications, handlers, operators (the Go client's EnqueueMany).
CREATE OR REPLACE FUNCTION jobq.enqueue_many(jobs jsonb)
RETURNS SETOF bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_fields constant text[] := ARRAY['task', 'payload', 'queue', 'run_at', 'priority', 'max_attempts', 'job_key',
                                      'job_key_mode', 'store_id', 'timeout', 'backoff_base', 'backoff_max', 'unique_for'];
    v_wf_fields constant text[] := ARRAY['ref', 'depends_on', 'depends_on_refs', 'on_parent_failure', 'sequence_key',
                                         'on_sequence_failure'];
    v_specs jobq.job_spec[];
    v_bad record;
    v_default_attempts integer;
    v_wf jsonb[];
    v_ids bigint[];
    v_restricted boolean;
    v_operator boolean;
BEGIN
    IF jobs IS NULL OR jsonb_typeof(jobs) <> 'array' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('jobs must be a JSON array of job objects, not %s', coalesce(jsonb_typeof(jobs), 'NULL')));
    END IF;
    IF jsonb_array_length(jobs) > jobq._limit('enqueue_many') THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('jobs has %s elements; the limit is %s', jsonb_array_length(jobs), jobq._limit('enqueue_many')));
    END IF;
    -- Every element an object, every key a field of jobq.job_spec: a misspelt key is an error,
    -- not a silent default. An element with only known keys is empty once they are removed.
    SELECT e.n AS position, jsonb_typeof(e.v) AS kind,
           (SELECT k.key FROM jsonb_object_keys(CASE WHEN jsonb_typeof(e.v) = 'object' THEN e.v - v_fields - v_wf_fields END) AS k(key)
            LIMIT 1) AS key
    INTO v_bad
    FROM jsonb_array_elements(jobs) WITH ORDINALITY AS e(v, n)
    WHERE jsonb_typeof(e.v) <> 'object' OR e.v - v_fields - v_wf_fields <> '{}'::jsonb
    ORDER BY e.n
    LIMIT 1;
    IF FOUND THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', CASE
            WHEN v_bad.kind <> 'object' THEN format('job %s: every element of jobs must be a JSON object, not %s', v_bad.position, v_bad.kind)
            ELSE format('job %s: unknown field %L (fields: task, payload, queue, run_at, priority, max_attempts, job_key, '
                        'job_key_mode, store_id, timeout, backoff_base, backoff_max, unique_for, ref, depends_on, depends_on_refs, '
                        'on_parent_failure, sequence_key, on_sequence_failure)', v_bad.position, v_bad.key)
        END);
    END IF;

    BEGIN
        v_specs := ARRAY(SELECT r FROM jsonb_populate_recordset(NULL::jobq.job_spec, jobs) AS r);
    EXCEPTION WHEN data_exception THEN
        -- A field that does not parse as its type ("run_at": "soon"): find and name the element.
        FOR v_i IN 1 .. jsonb_array_length(jobs) LOOP
            BEGIN
                PERFORM jsonb_populate_record(NULL::jobq.job_spec, jobs -> (v_i - 1));
            EXCEPTION WHEN data_exception THEN
                PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('job %s: %s', v_i, SQLERRM));
            END;
        END LOOP;
        RAISE;
    END;

    -- Elements with dependencies or a sequence (45_workflows.sql): checked, parents and sequences
    -- locked before the ids are drawn, attached after the insert, all through jobq._enqueue.
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(jobs) AS e(v) WHERE e.v ?| v_wf_fields) THEN
        v_wf := jobq._workflow_specs(jobs);
        PERFORM jobq._workflow_prepare(v_wf, ARRAY(SELECT s.store_id FROM unnest(v_specs) WITH ORDINALITY AS s ORDER BY s.ordinality),
                                       ARRAY(SELECT s.job_key FROM unnest(v_specs) WITH ORDINALITY AS s ORDER BY s.ordinality), true);
        v_ids := ARRAY(SELECT e.job_id FROM jobq._enqueue(v_specs, true) AS e ORDER BY e.ord);
        PERFORM jobq._attach_workflow(v_ids, v_wf, true);
        RETURN QUERY SELECT u.id FROM unnest(v_ids) WITH ORDINALITY AS u(id, n) ORDER BY u.n;
        RETURN;
    END IF;

    -- The fast path: every element keyless and passing every check (tasks joined once, by hash).
    -- The caller's facts are read once, not once an element; the session's store in a sub-select,
    -- read only if a store job needs it (jobq.current_store_id is planned at each call).
    v_restricted := jobq._caller_is_restricted();
    v_operator := jobq._caller_is_operator();
    IF NOT EXISTS (SELECT 1
                   FROM unnest(v_specs) AS s
                   LEFT JOIN jobq.tasks t ON t.name = btrim(s.task)
                   WHERE NOT jobq._enqueue_takes_fast_path_as(s, t, v_restricted, v_operator,
                                                              (SELECT jobq.current_store_id()))) THEN
        v_default_attempts := (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts');
        -- Ids drawn in input order, so each is returned at its position.
        RETURN QUERY
        WITH src AS MATERIALIZED (
            SELECT r.ord, nextval('jobq.jobs_id_seq'::regclass) AS id, r.task, r.queue, r.payload, r.store_id, r.priority,
                   r.run_at, r.max_attempts, r.timeout, r.backoff_base, r.backoff_max
            FROM (SELECT s.ordinality AS ord,
                         (jobq._resolve_spec(ROW(s.task, s.payload, s.queue, s.run_at, s.priority, s.max_attempts, s.job_key,
                                                 s.job_key_mode, s.store_id, s.timeout, s.backoff_base, s.backoff_max,
                                                 s.unique_for)::jobq.job_spec,
                                             t, v_default_attempts)).*
                  FROM unnest(v_specs) WITH ORDINALITY AS s
                  JOIN jobq.tasks t ON t.name = btrim(s.task)
                  ORDER BY s.ordinality) AS r
        ), ins AS (
            -- fair from jobq.queues in this statement, as in jobq.enqueue (jobq.jobs.fair).
            INSERT INTO jobq.jobs (id, task, queue, payload, store_id, priority, run_at, max_attempts,
                                   timeout, backoff_base, backoff_max, fair)
            OVERRIDING SYSTEM VALUE
            SELECT src.id, src.task, src.queue, src.payload, src.store_id, src.priority, src.run_at, src.max_attempts,
                   src.timeout, src.backoff_base, src.backoff_max, coalesce(q.fair, false)
            FROM src
            LEFT JOIN jobq.queues q ON q.name = src.queue
        ), woken AS (
            -- Each queue that got a due job wakes once (jobq._wake: as the settings wakeup and
            -- doorbell say), from the rows as resolved for the INSERT.
            SELECT count(jobq._wake(q.queue)) AS n FROM (SELECT DISTINCT src.queue FROM src WHERE src.run_at <= now()) AS q
        )
        SELECT src.id FROM src CROSS JOIN woken ORDER BY src.ord;
        RETURN;
    END IF;

    RETURN QUERY
    SELECT e.job_id FROM jobq._enqueue(v_specs, true) AS e ORDER BY e.ord;
END
$$;
COMMENT ON FUNCTION jobq.enqueue_many(jsonb) IS
    'Enqueues many jobs from a JSON array of objects whose keys are the fields of jobq.job_spec (task, payload, queue, run_at, priority, max_attempts, job_key, job_key_mode, store_id, timeout, backoff_base, backoff_max, unique_for: as jobq.enqueue''s arguments; unique_for as an interval string such as "1 hour"), and the workflow fields (docs/dependencies.md): ref (a name for the element, unique in the call), depends_on (job ids), depends_on_refs (refs of earlier elements), on_parent_failure, sequence_key, on_sequence_failure (JOB.DEPENDENCY_NOT_FOUND, JOB.DEPENDENCY_CYCLE, JOB.UNKNOWN_REF, JOB.TOO_MANY_DEPENDENCIES, JOB.WORKFLOW_KEYED). Unknown fields and values that do not parse are errors too (JOB.INVALID_ARGUMENT); so are more than 100000 elements (JOB.OUT_OF_RANGE). All or nothing: one invalid element raises its JOB.* error naming its position and writes nothing. A batch of keyless jobs that all pass every check is inserted in one statement (jobq._enqueue_takes_fast_path, jobq._resolve_spec); any other goes through jobq._enqueue. Locks the job rows it writes. Returns the ids in input order. Callers: applications, handlers, operators.';
-- The gate needs CREATE on the schema at the moment it becomes the owner, and not after.
GRANT CREATE ON SCHEMA jobq TO jobq_app_gate;
ALTER FUNCTION jobq.enqueue_many(jsonb) OWNER TO jobq_app_gate;
REVOKE CREATE ON SCHEMA jobq FROM jobq_app_gate;

-- The one enqueue implementation: validates the specs, resolves their tasks, checks the caller's
-- tenancy, then inserts. Callers: jobq.enqueue and jobq.enqueue_many when a spec leaves the fast
-- path, and jobq._run_schedule for the slots of a schedule.
CREATE OR REPLACE FUNCTION jobq._enqueue(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS TABLE (ord bigint, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_specs jobq.job_spec[];
BEGIN
    IF p_specs IS NULL OR cardinality(p_specs) = 0 THEN
        RETURN;
    END IF;
    PERFORM jobq._validate_specs(p_specs, p_label_index);
    v_specs := jobq._resolve_tasks(p_specs, p_label_index);
    PERFORM jobq._check_tenant(v_specs, p_label_index);
    RETURN QUERY SELECT i.ord, i.job_id FROM jobq._insert_specs(v_specs, p_label_index) AS i;
END
$$;
COMMENT ON FUNCTION jobq._enqueue(jobq.job_spec[],boolean) IS
    'Private. The one enqueue implementation behind jobq.enqueue and jobq.enqueue_many for what their fast path does not take, and behind cron slots (jobq._run_schedule): validates (JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, JOB.VALUE_TOO_LONG, JOB.OUT_OF_RANGE, JOB.PAYLOAD_TOO_LARGE, ...), resolves tasks (JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, JOB.STORE_REQUIRED, JOB.STORE_NOT_ALLOWED), checks the caller (JOB.TENANT_MISMATCH, JOB.STORE_NOT_BOUND, JOB.NOT_ALLOWED), then inserts through jobq._insert_specs (which jobq.fan_out''s private half calls directly). Writes nothing when it raises. Returns (ord, job_id) for every input position.';

-- Raises the catalogued error of the first invalid spec. The cheap first test is
-- jobq._spec_in_bounds; only the first failing spec is described, the shape errors (task,
-- payload, mode, attempts, empty values) before the limits.
CREATE OR REPLACE FUNCTION jobq._validate_specs(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bad record;
    v_mixed record;
    v_code text;
    v_detail text;
    v_label text;
BEGIN
    -- A cheap test finds the first bad spec; only that one is described.
    SELECT s.ordinality AS position, s.* INTO v_bad
    FROM unnest(p_specs) WITH ORDINALITY AS s
    WHERE NOT jobq._spec_in_bounds(ROW(s.task, s.payload, s.queue, s.run_at, s.priority, s.max_attempts, s.job_key,
                                       s.job_key_mode, s.store_id, s.timeout, s.backoff_base, s.backoff_max,
                                       s.unique_for)::jobq.job_spec)
    ORDER BY s.ordinality
    LIMIT 1;
    IF NOT FOUND THEN
        -- Within one batch a key takes one mode and one unique_for: "last wins" is only defined for
        -- one mode, and "first wins" (unique_for) only when every spec of the key has the same window.
        -- Two values differ when their least and greatest do: plain aggregates, which PostgreSQL
        -- groups by hash (count(DISTINCT ...) sorted every key: 190 ms against 75 ms for 100,000).
        SELECT min(s.ordinality) AS position, s.job_key,
               min(coalesce(s.job_key_mode, 'replace')) <> max(coalesce(s.job_key_mode, 'replace')) AS modes INTO v_mixed
        FROM unnest(p_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
        GROUP BY s.store_id, s.job_key
        HAVING min(coalesce(s.job_key_mode, 'replace')) <> max(coalesce(s.job_key_mode, 'replace'))
            OR min(s.unique_for) <> max(s.unique_for)
            OR count(s.unique_for) NOT IN (0, count(*))
        ORDER BY 1
        LIMIT 1;
        IF FOUND THEN
            PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('%sjob_key %L appears with different %s in one batch',
                CASE WHEN p_label_index THEN format('job %s: ', v_mixed.position) ELSE '' END, v_mixed.job_key,
                CASE WHEN v_mixed.modes THEN 'job_key_modes' ELSE 'unique_for values' END));
        END IF;
        RETURN;
    END IF;

    v_label := CASE WHEN p_label_index THEN format('job %s: ', v_bad.position) ELSE '' END;
    IF v_bad.task IS NULL OR btrim(v_bad.task) = '' THEN
        v_code := 'JOB.TASK_REQUIRED';
        v_detail := 'task is NULL or empty';
    ELSIF v_bad.payload IS NOT NULL AND jsonb_typeof(v_bad.payload) <> 'object' THEN
        v_code := 'JOB.PAYLOAD_NOT_OBJECT';
        v_detail := format('payload is a JSON %s, not an object', jsonb_typeof(v_bad.payload));
    ELSIF v_bad.job_key_mode NOT IN ('replace', 'preserve_run_at', 'unsafe_dedupe') THEN
        v_code := 'JOB.UNKNOWN_JOB_KEY_MODE';
        v_detail := format('job_key_mode %L is not replace, preserve_run_at or unsafe_dedupe', v_bad.job_key_mode);
    ELSIF v_bad.max_attempts < 1 THEN
        v_code := 'JOB.MAX_ATTEMPTS_INVALID';
        v_detail := format('max_attempts is %s; it must be at least 1', v_bad.max_attempts);
    ELSIF btrim(v_bad.queue) = '' THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'queue is empty';
    ELSIF v_bad.job_key = '' THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'job_key is empty; pass NULL for no key';
    ELSIF v_bad.priority NOT BETWEEN -32768 AND 32767 THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := format('priority %s is outside -32768..32767', v_bad.priority);
    ELSIF v_bad.timeout <= interval '0' THEN
        v_code := 'JOB.LEASE_INVALID';
        v_detail := format('timeout %s is not positive', v_bad.timeout);
    ELSIF v_bad.store_id = '00000000-0000-0000-0000-000000000000'::uuid THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'store_id 00000000-0000-0000-0000-000000000000 is reserved for system jobs; pass NULL';
    ELSIF v_bad.backoff_base <= interval '0' OR v_bad.backoff_max <= interval '0' THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'backoff_base and backoff_max must be positive';
    ELSIF v_bad.unique_for IS NOT NULL AND v_bad.job_key IS NULL THEN
        v_code := 'JOB.INVALID_ARGUMENT';
        v_detail := 'unique_for needs a job_key: it is the period over which the key is unique';
    ELSE
        -- The limits: each check raises, naming the field.
        PERFORM jobq._check_payload(v_label || 'payload', v_bad.payload);
        PERFORM jobq._check_text(v_label || 'queue', v_bad.queue, jobq._limit('queue')::integer);
        PERFORM jobq._check_text(v_label || 'job_key', v_bad.job_key, jobq._limit('job_key')::integer);
        PERFORM jobq._check_timestamp(v_label || 'run_at', v_bad.run_at);
        PERFORM jobq._check_int(v_label || 'max_attempts', v_bad.max_attempts, 1, jobq._limit('max_attempts'), 'JOB.MAX_ATTEMPTS_INVALID');
        PERFORM jobq._check_interval(v_label || 'timeout', v_bad.timeout, jobq._limit_interval('timeout'));
        PERFORM jobq._check_interval(v_label || 'backoff_base', v_bad.backoff_base, jobq._limit_interval('backoff'));
        PERFORM jobq._check_interval(v_label || 'backoff_max', v_bad.backoff_max, jobq._limit_interval('backoff'));
        PERFORM jobq._check_interval(v_label || 'unique_for', v_bad.unique_for, jobq._limit_interval('delay'));
        RAISE EXCEPTION 'jobq internal error: job spec % is out of bounds but no check names why', v_bad.position;
    END IF;
    PERFORM jobq._raise(v_code, v_label || v_detail);
END
$$;
COMMENT ON FUNCTION jobq._validate_specs(jobq.job_spec[],boolean) IS
    'Private. Raises the catalogued error of the first spec outside its domain (jobq._spec_in_bounds): JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, JOB.UNKNOWN_JOB_KEY_MODE, JOB.MAX_ATTEMPTS_INVALID, JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT, JOB.PAYLOAD_TOO_LARGE, JOB.VALUE_TOO_LONG (queue, job_key), JOB.OUT_OF_RANGE (run_at, timeout, backoff, unique_for); unique_for without a job_key and a key with different modes or unique_for values within the batch are JOB.INVALID_ARGUMENT; with p_label_index the message starts with the position (job N: ). Locks nothing.';

-- The domain of a job spec, in one expression the planner inlines: every field within its limits,
-- NULL wherever an enqueue default applies. jobq._validate_specs uses it as its cheap first test;
-- the fast path of enqueue uses it too.
CREATE OR REPLACE FUNCTION jobq._spec_in_bounds(p_spec jobq.job_spec)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT p_spec.task IS NOT NULL AND pg_catalog.btrim(p_spec.task) <> ''
       AND (p_spec.payload IS NULL
            OR (pg_catalog.jsonb_typeof(p_spec.payload) = 'object'
                AND (pg_catalog.pg_column_size(p_spec.payload) <= 1024
                     OR pg_catalog.pg_column_size(p_spec.payload) <= jobq._max_payload_bytes())))
       AND (p_spec.queue IS NULL
            OR (pg_catalog.btrim(p_spec.queue) <> '' AND pg_catalog.char_length(p_spec.queue) <= jobq._limit('queue')))
       AND (p_spec.run_at IS NULL OR jobq._ts_in_range(p_spec.run_at))
       AND (p_spec.priority IS NULL OR p_spec.priority BETWEEN -32768 AND 32767)
       AND (p_spec.max_attempts IS NULL OR p_spec.max_attempts BETWEEN 1 AND jobq._limit('max_attempts'))
       AND (p_spec.job_key IS NULL
            OR (p_spec.job_key <> '' AND pg_catalog.char_length(p_spec.job_key) <= jobq._limit('job_key')))
       AND (p_spec.job_key_mode IS NULL OR p_spec.job_key_mode IN ('replace', 'preserve_run_at', 'unsafe_dedupe'))
       AND (p_spec.store_id IS NULL OR p_spec.store_id <> '00000000-0000-0000-0000-000000000000'::uuid)
       AND (p_spec.timeout IS NULL
            OR (p_spec.timeout > interval '0' AND p_spec.timeout <= jobq._limit_interval('timeout')))
       AND (p_spec.backoff_base IS NULL
            OR (p_spec.backoff_base > interval '0' AND p_spec.backoff_base <= jobq._limit_interval('backoff')))
       AND (p_spec.backoff_max IS NULL
            OR (p_spec.backoff_max > interval '0' AND p_spec.backoff_max <= jobq._limit_interval('backoff')))
       AND (p_spec.unique_for IS NULL
            OR (p_spec.job_key IS NOT NULL
                AND p_spec.unique_for > interval '0' AND p_spec.unique_for <= jobq._limit_interval('delay')))
$$;
COMMENT ON FUNCTION jobq._spec_in_bounds(jobq.job_spec) IS
    'Private. Whether every field of a job spec is within its domain: task not blank; payload a JSON object of at most max_payload_bytes; queue not blank, at most 200 characters; run_at from 1970 to 9999 (UTC); priority a smallint; max_attempts 1..1000; job_key not empty, at most 500 characters; job_key_mode replace, preserve_run_at or unsafe_dedupe; store_id not the zero uuid; timeout in (0, 7 days]; backoff_base and backoff_max in (0, 30 days]; unique_for in (0, 365 days] and only with a job_key. NULL fields pass (the enqueue defaults apply). Never NULL, raises nothing, locks nothing; inlined. Callers: jobq._validate_specs, the enqueue fast path.';

-- Whether a spec may skip jobq._enqueue: it has no job_key, and no check of _validate_specs
-- (jobq._spec_in_bounds), _resolve_tasks (against task p_task, NULL when undeclared) or
-- _check_tenant would refuse it. It must take nothing the slow path refuses
-- (pgtap/enqueue/fast_path_equivalence.sql). The caller's facts are given, as jobq._caller_is_restricted(),
-- jobq._caller_is_operator() and jobq.current_store_id() say, so that a batch reads them once
-- rather than once a job. Inlined.
CREATE OR REPLACE FUNCTION jobq._enqueue_takes_fast_path_as(p_spec jobq.job_spec, p_task jobq.tasks, p_restricted boolean,
                                                            p_operator boolean, p_session_store uuid)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT NOT coalesce(
           -- A key merges with the live job that holds it: the keyed path; unique_for needs a key.
           p_spec.job_key IS NOT NULL
        OR p_spec.unique_for IS NOT NULL
           -- _validate_specs: every field within its domain (jobq._spec_in_bounds, never NULL).
        OR NOT jobq._spec_in_bounds(p_spec)
           -- _resolve_tasks: declared, keeps its contract (an empty contract always does), fits the scope.
        OR p_task.name IS NULL
        OR (p_task.payload_schema <> '{}'::jsonb
            AND jobq.payload_problem(p_task.payload_schema, coalesce(p_spec.payload, '{}'::jsonb)) IS NOT NULL)
        OR (p_task.scope = 'system' AND p_spec.store_id IS NOT NULL)
        OR (p_task.scope = 'store' AND p_spec.store_id IS NULL
            AND NOT coalesce(p_spec.payload ->> 'storeId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', false))
        OR (p_task.scope = 'store' AND p_spec.store_id IS NOT NULL AND p_spec.payload ? 'storeId'
            AND (CASE WHEN p_spec.payload ->> 'storeId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                      THEN (p_spec.payload ->> 'storeId')::uuid END) IS DISTINCT FROM p_spec.store_id)
           -- _validate_specs of the resolved spec: a task's queue may be blank, a payload's storeId all zeros.
        OR pg_catalog.btrim(p_task.queue) = ''
        OR (p_task.scope = 'store' AND p_spec.store_id IS NULL
            AND p_spec.payload ->> 'storeId' ~* '^0{8}-0{4}-0{4}-0{4}-0{12}$')
           -- _check_tenant: inside a gate function, a store job of another store than the
           -- session's, for a caller without jobq_operator's rights.
        OR (p_task.scope = 'store' AND CURRENT_USER = 'jobq_app_gate'
            AND coalesce(p_spec.store_id,
                         CASE WHEN p_spec.payload ->> 'storeId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                              THEN (p_spec.payload ->> 'storeId')::uuid END)
                IS DISTINCT FROM p_session_store
            AND NOT p_operator)
           -- _check_tenant: an application (restricted caller) enqueues a system task only when the
           -- task is declared app_enqueue.
        OR (p_task.scope = 'system' AND NOT p_task.app_enqueue AND CURRENT_USER = 'jobq_app_gate'
            AND p_restricted),
        false)
$$;
COMMENT ON FUNCTION jobq._enqueue_takes_fast_path_as(jobq.job_spec,jobq.tasks,boolean,boolean,uuid) IS
    'Private. Whether a spec may be inserted directly, the caller being as given: it has no job_key and no check of jobq._enqueue (_validate_specs, _resolve_tasks against p_task, NULL when undeclared, _check_tenant with the caller p_restricted (jobq._caller_is_restricted()), p_operator (jobq._caller_is_operator()) and of store p_session_store (jobq.current_store_id())) would refuse it. Raises nothing, locks nothing; inlined. Callers: jobq._enqueue_takes_fast_path, jobq.enqueue_many (the facts read once a batch, the store in a sub-select read only when a store job needs it).';

-- Whether a spec may skip jobq._enqueue, for the caller of this statement: jobq._enqueue_takes_fast_path_as
-- with the caller's facts, each read only where the check needs it. Inlined.
CREATE OR REPLACE FUNCTION jobq._enqueue_takes_fast_path(p_spec jobq.job_spec, p_task jobq.tasks)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT jobq._enqueue_takes_fast_path_as(p_spec, p_task, jobq._caller_is_restricted(), jobq._caller_is_operator(),
                                            jobq.current_store_id())
$$;
COMMENT ON FUNCTION jobq._enqueue_takes_fast_path(jobq.job_spec,jobq.tasks) IS
    'Private. Whether jobq.enqueue may insert a spec directly: it has no job_key and no check of jobq._enqueue (_validate_specs, _resolve_tasks against p_task, NULL when undeclared, _check_tenant) would refuse it; otherwise it hands it to jobq._enqueue, which raises or merges. jobq._enqueue_takes_fast_path_as for the caller of the statement. Raises nothing, locks nothing; inlined. Caller: jobq.enqueue.';

-- The one insert path of every enqueue; it wakes runners through jobq._wake.
CREATE OR REPLACE FUNCTION jobq._insert_specs(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS TABLE (ord bigint, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_now constant timestamptz := now();
    v_default_attempts constant integer := (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'default_max_attempts');
    v_specs jobq.job_spec[];
    v_keyed_ords bigint[];
    v_keyed_ids bigint[];
    v_queues text[];
BEGIN
    IF p_specs IS NULL OR cardinality(p_specs) = 0 THEN
        RETURN;
    END IF;
    PERFORM jobq._validate_specs(p_specs, p_label_index);

    v_specs := ARRAY(
        SELECT ROW(btrim(s.task), coalesce(s.payload, '{}'), coalesce(s.queue, 'default'), coalesce(s.run_at, v_now),
                   coalesce(s.priority, 0), coalesce(s.max_attempts, v_default_attempts), s.job_key,
                   CASE WHEN s.job_key IS NOT NULL THEN coalesce(s.job_key_mode, 'replace') END, s.store_id, s.timeout, s.backoff_base, s.backoff_max,
                   CASE WHEN s.job_key IS NOT NULL THEN s.unique_for END)::jobq.job_spec
        FROM unnest(p_specs) WITH ORDINALITY AS s
        ORDER BY s.ordinality);

    -- Keyless jobs: ids drawn first so each is reported at its input position.
    RETURN QUERY
    WITH src AS MATERIALIZED (
        SELECT s.ordinality AS ord, nextval('jobq.jobs_id_seq'::regclass) AS id, s.*
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NULL
    ), ins AS (
        -- fair from jobq.queues in this statement, as in jobq.enqueue (jobq.jobs.fair).
        INSERT INTO jobq.jobs (id, task, queue, payload, store_id, priority, run_at, max_attempts,
                               timeout, backoff_base, backoff_max, fair)
        OVERRIDING SYSTEM VALUE
        SELECT src.id, src.task, src.queue, src.payload, src.store_id, src.priority, src.run_at, src.max_attempts,
               src.timeout, src.backoff_base, src.backoff_max, coalesce(q.fair, false)
        FROM src
        LEFT JOIN jobq.queues q ON q.name = src.queue
    )
    SELECT src.ord, src.id FROM src;

    -- Keyed jobs, all modes in one ordered pass; within a batch the last spec of a key wins, or the
    -- first when it has unique_for (as when they come one after the other: the first is enqueued,
    -- the others find it within the window).
    WITH positioned AS (
        SELECT s.ordinality AS ord, jobq._store_key(s.store_id) AS store_key, s.job_key
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
    ), last_per_key AS (
        SELECT DISTINCT ON (jobq._store_key(s.store_id), s.job_key)
               ROW(s.task, s.payload, s.queue, s.run_at, s.priority, s.max_attempts, s.job_key, s.job_key_mode,
                   s.store_id, s.timeout, s.backoff_base, s.backoff_max, s.unique_for)::jobq.job_spec AS spec
        FROM unnest(v_specs) WITH ORDINALITY AS s
        WHERE s.job_key IS NOT NULL
        ORDER BY jobq._store_key(s.store_id), s.job_key,
                 CASE WHEN s.unique_for IS NOT NULL THEN s.ordinality ELSE -s.ordinality END
    )
    SELECT coalesce(array_agg(p.ord), '{}'), coalesce(array_agg(k.job_id), '{}')
    INTO v_keyed_ords, v_keyed_ids
    FROM jobq._enqueue_keyed(ARRAY(SELECT l.spec FROM last_per_key l)) AS k
    JOIN positioned p ON p.store_key = k.store_key AND p.job_key = k.job_key;
    RETURN QUERY SELECT k.ord, k.id FROM unnest(v_keyed_ords, v_keyed_ids) AS k(ord, id);

    -- Wake the runners of each queue that got a due job, once per queue and call, through
    -- jobq._wake: as the settings wakeup and doorbell say (NOTIFY jobq, with the doorbell only
    -- when a runner of the queue waits; a logical message under wal; both). PostgreSQL folds
    -- identical notifications of a transaction into one.
    -- A spec with unique_for wakes only when this call wrote its job (inserted or merged: its
    -- updated_at is this transaction's now()); the existing job it returns instead wakes no one.
    v_queues := ARRAY(SELECT DISTINCT s.queue
                      FROM unnest(v_specs) WITH ORDINALITY AS s
                      WHERE s.run_at <= v_now
                        AND (s.unique_for IS NULL
                             OR EXISTS (SELECT 1
                                        FROM unnest(v_keyed_ords, v_keyed_ids) AS k(ord, id)
                                        JOIN jobq.jobs j ON j.id = k.id
                                        WHERE k.ord = s.ordinality AND j.updated_at = v_now)));
    PERFORM jobq._wake(q.queue) FROM unnest(v_queues) AS q(queue);
END
$$;
COMMENT ON FUNCTION jobq._insert_specs(jobq.job_spec[],boolean) IS
    'Private. Inserts resolved specs (see jobq._enqueue): applies the global defaults, inserts keyless jobs in one statement and keyed ones through _enqueue_keyed, then wakes runners once per queue with a due job it wrote (a job that unique_for returned instead wakes no one) through jobq._wake: as the settings wakeup and doorbell say. Returns (ord, job_id).';

-- The job unique_for returns: the newest job of key p_job_key in store p_store_key (the zero uuid
-- for system jobs) enqueued after p_since, live in any state or finished (only finished ones with
-- p_finished_only), NULL when there is none. One statement, so one snapshot (it is STABLE: it reads
-- with its caller's): a job that ends leaves jobq.jobs for jobq.job_history in one transaction, so
-- it is seen in exactly one of them. A definer, so that each side is one probe of its key index
-- (jobs_job_key_idx, job_history_job_key_idx): under the gate's row policies PostgreSQL will not
-- use the index's coalesce(store_id, ...) column (the expression is not leakproof) and scans the
-- whole index instead. It reads only the store it is given; its one caller, jobq._enqueue_keyed,
-- passes a spec's own store, which jobq._check_tenant has already let the caller reach.
CREATE OR REPLACE FUNCTION jobq._job_of_key_since(p_store_key uuid, p_job_key text, p_since timestamptz, p_finished_only boolean)
RETURNS bigint
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.id
    FROM ((SELECT j.id, j.created_at
           FROM jobq.jobs j
           WHERE NOT p_finished_only
             AND coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid) = p_store_key
             AND j.job_key = p_job_key
             AND j.created_at > p_since)
          UNION ALL
          (SELECT h.id, h.created_at
           FROM jobq.job_history h
           WHERE coalesce(h.store_id, '00000000-0000-0000-0000-000000000000'::uuid) = p_store_key
             AND h.job_key = p_job_key
             AND h.created_at > p_since
           ORDER BY h.created_at DESC
           LIMIT 1)) AS x
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT 1
$$;
COMMENT ON FUNCTION jobq._job_of_key_since(uuid,text,timestamp with time zone,boolean) IS
    'Private. The id of the newest job of key p_job_key in store p_store_key (the zero uuid for system jobs) created after p_since: live in any state or finished (jobq.job_history), or only finished with p_finished_only; NULL when none. STABLE: reads with its caller''s snapshot. SECURITY DEFINER so each table is one probe of its key index (row policies would hide the index''s store column); it reads only the store it is given. Caller: jobq._enqueue_keyed (unique_for), with a spec''s own store. Locks nothing.';

-- Inserts or merges the jobs that carry a job_key, each under its own mode, without races or
-- deadlocks between concurrent enqueuers of the same keys; a spec with unique_for first looks for
-- the job that holds its key and was enqueued within the window, live or finished, and takes that
-- one instead. Caller: jobq._insert_specs.
CREATE OR REPLACE FUNCTION jobq._enqueue_keyed(p_specs jobq.job_spec[])
RETURNS TABLE (store_key uuid, job_key text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_pending jobq.job_spec[] := p_specs;
    -- Whether any spec has unique_for: the checks below that only it needs are skipped otherwise
    -- (a fan-out of 10,000 keys pays nothing for them).
    v_unique constant boolean := EXISTS (SELECT 1 FROM unnest(p_specs) AS s WHERE s.unique_for IS NOT NULL);
    v_store_keys uuid[] := '{}'::uuid[];
    v_job_keys text[] := '{}'::text[];
    v_job_ids bigint[] := '{}'::bigint[];
    v_inserted bigint[] := '{}'::bigint[];
    v_round_store_keys uuid[];
    v_round_job_keys text[];
    v_round_job_ids bigint[];
    v_round_inserted bigint[];
    v_late_new bigint[];
    v_late_old bigint[];
    v_round integer := 0;
BEGIN
    WHILE cardinality(v_pending) > 0 LOOP
        v_round := v_round + 1;
        IF v_round > 50 THEN
            RAISE EXCEPTION 'jobq internal error: job_key enqueue did not settle after 50 rounds';
        END IF;

        WITH recent AS (
            -- unique_for: the newest job of the key and store enqueued within the window, live in
            -- any state or finished, as this statement sees it (jobq._job_of_key_since).
            SELECT jobq._store_key(s.store_id) AS store_key, s.job_key AS key, r.id
            FROM unnest(v_pending) AS s
            CROSS JOIN LATERAL jobq._job_of_key_since(jobq._store_key(s.store_id), s.job_key, now() - s.unique_for, false) AS r(id)
            WHERE v_unique AND s.unique_for IS NOT NULL AND r.id IS NOT NULL
        ), ins AS (
            -- Insert, or merge into the waiting job; unsafe_dedupe and running jobs are left as they are.
            -- fair from jobq.queues in this statement, as in jobq.enqueue (jobq.jobs.fair); a merge
            -- that moves the job to another queue takes that queue's.
            INSERT INTO jobq.jobs AS j (task, queue, payload, store_id, priority, run_at, max_attempts,
                                        job_key, job_key_mode, timeout, backoff_base, backoff_max, fair)
            SELECT s.task, s.queue, s.payload, s.store_id, s.priority, s.run_at, s.max_attempts,
                   s.job_key, s.job_key_mode, s.timeout, s.backoff_base, s.backoff_max,
                   coalesce((SELECT q.fair FROM jobq.queues q WHERE q.name = s.queue), false)
            FROM unnest(v_pending) AS s
            WHERE NOT EXISTS (SELECT 1 FROM recent r WHERE r.store_key = jobq._store_key(s.store_id) AND r.key = s.job_key)
            ORDER BY jobq._store_key(s.store_id), s.job_key
            ON CONFLICT ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), job_key)
                WHERE job_key IS NOT NULL
            DO UPDATE SET
                task         = EXCLUDED.task,
                queue        = EXCLUDED.queue,
                fair         = EXCLUDED.fair,
                payload      = EXCLUDED.payload,
                priority     = EXCLUDED.priority,
                max_attempts = EXCLUDED.max_attempts,
                timeout      = EXCLUDED.timeout,
                backoff_base = EXCLUDED.backoff_base,
                backoff_max  = EXCLUDED.backoff_max,
                job_key_mode = EXCLUDED.job_key_mode,
                run_at       = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.run_at ELSE EXCLUDED.run_at END,
                attempt      = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.attempt ELSE 0 END,
                state        = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.state ELSE 'queued' END,
                reason       = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.reason ELSE 'replaced' END,
                last_error   = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.last_error END,
                error_code   = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.error_code END,
                updated_at   = now()
            WHERE j.state <> 'running' AND EXCLUDED.job_key_mode <> 'unsafe_dedupe'
              -- A job that would not change is left as it is (found below): a repeated
              -- fan-out rewrites no row.
              AND NOT ((j.task, j.queue, j.payload, j.priority, j.max_attempts, j.timeout, j.backoff_base, j.backoff_max,
                        j.job_key_mode)
                       IS NOT DISTINCT FROM
                       (EXCLUDED.task, EXCLUDED.queue, EXCLUDED.payload, EXCLUDED.priority, EXCLUDED.max_attempts,
                        EXCLUDED.timeout, EXCLUDED.backoff_base, EXCLUDED.backoff_max, EXCLUDED.job_key_mode)
                       AND (EXCLUDED.job_key_mode = 'preserve_run_at'
                            OR (j.run_at = EXCLUDED.run_at AND j.attempt = 0 AND j.state = 'queued'
                                AND j.last_error IS NULL AND j.error_code IS NULL)))
              -- unique_for: a job enqueued within the window that this statement's snapshot did
              -- not see (committed since it began) is left as it is; the next round finds it.
              AND NOT (v_unique
                       AND EXISTS (SELECT 1 FROM unnest(v_pending) AS u
                                   WHERE jobq._store_key(u.store_id) = jobq._store_key(EXCLUDED.store_id)
                                     AND u.job_key = EXCLUDED.job_key
                                     AND j.created_at > now() - u.unique_for))
            RETURNING jobq._store_key(j.store_id) AS store_key, j.job_key AS key, j.id, j.xmax = 0 AS inserted
        ), found AS (
            SELECT i.store_key, i.key, i.id, i.inserted FROM ins i
            UNION ALL
            SELECT r.store_key, r.key, r.id, false FROM recent r
            UNION ALL
            -- The live job that holds the key, as this statement saw it: under unsafe_dedupe any,
            -- otherwise a waiting one left unchanged because nothing differed.
            SELECT jobq._store_key(j.store_id), j.job_key, j.id, false
            FROM jobq.jobs j
            JOIN unnest(v_pending) AS s
              ON jobq._store_key(j.store_id) = jobq._store_key(s.store_id) AND j.job_key = s.job_key
            WHERE (s.job_key_mode = 'unsafe_dedupe' OR j.state <> 'running')
              AND NOT EXISTS (SELECT 1 FROM ins i WHERE i.store_key = jobq._store_key(s.store_id) AND i.key = s.job_key)
              AND NOT EXISTS (SELECT 1 FROM recent r WHERE r.store_key = jobq._store_key(s.store_id) AND r.key = s.job_key)
        )
        SELECT coalesce(array_agg(f.store_key), '{}'), coalesce(array_agg(f.key), '{}'), coalesce(array_agg(f.id), '{}'),
               coalesce(array_agg(f.id) FILTER (WHERE f.inserted), '{}')
        INTO v_round_store_keys, v_round_job_keys, v_round_job_ids, v_round_inserted
        FROM found f;

        v_store_keys := v_store_keys || v_round_store_keys;
        v_job_keys := v_job_keys || v_round_job_keys;
        v_job_ids := v_job_ids || v_round_job_ids;
        v_inserted := v_inserted || v_round_inserted;

        -- Every pending key settled this round (found holds at most one row a key, each a pending
        -- spec's): no key is left to hand over or to try again. So it ends every batch whose keys no
        -- running job holds after one round (a fan-out: 100,000 keys compared twice less, about 250 ms).
        IF cardinality(v_round_job_ids) = cardinality(v_pending) THEN
            EXIT;
        END IF;

        -- replace / preserve_run_at keys held by a running job: it gives the key up; the next round
        -- inserts. Not one enqueued within a spec's unique_for: the next round finds it.
        UPDATE jobq.jobs AS j
        SET job_key = NULL, job_key_mode = NULL, updated_at = now()
        FROM unnest(v_pending) AS s
        LEFT JOIN unnest(v_round_store_keys, v_round_job_keys) AS r(store_key, key)
          ON r.store_key = jobq._store_key(s.store_id) AND r.key = s.job_key
        WHERE r.key IS NULL
          AND s.job_key_mode <> 'unsafe_dedupe'
          AND jobq._store_key(j.store_id) = jobq._store_key(s.store_id)
          AND j.job_key = s.job_key
          AND j.state = 'running'
          AND NOT coalesce(j.created_at > now() - s.unique_for, false);

        v_pending := ARRAY(
            SELECT s
            FROM unnest(v_pending) AS s
            LEFT JOIN unnest(v_round_store_keys, v_round_job_keys) AS r(store_key, key)
              ON r.store_key = jobq._store_key(s.store_id) AND r.key = s.job_key
            WHERE r.key IS NULL);
    END LOOP;

    -- unique_for, the one window the look-up cannot see: another job of the key was enqueued after
    -- this call's snapshot and finished before its insert (it held the key while this insert waited
    -- on it, then left jobq.jobs). A new statement sees it in jobq.job_history: the row this call
    -- inserted, seen by no one else yet, goes again, and that job's id is returned instead.
    IF v_unique AND cardinality(v_inserted) > 0 THEN
        WITH late AS (
            SELECT j.id AS new_id, o.id AS old_id
            FROM jobq.jobs j
            JOIN unnest(p_specs) AS s
              ON jobq._store_key(s.store_id) = jobq._store_key(j.store_id) AND s.job_key = j.job_key
            CROSS JOIN LATERAL jobq._job_of_key_since(jobq._store_key(j.store_id), j.job_key, now() - s.unique_for, true) AS o(id)
            WHERE j.id = ANY (v_inserted) AND s.unique_for IS NOT NULL AND o.id IS NOT NULL
        ), gone AS (
            DELETE FROM jobq.jobs AS j USING late l WHERE j.id = l.new_id
        )
        SELECT array_agg(l.new_id), array_agg(l.old_id) INTO v_late_new, v_late_old FROM late l;
        IF v_late_new IS NOT NULL THEN
            v_job_ids := ARRAY(SELECT coalesce(l.old_id, r.id)
                               FROM unnest(v_job_ids) WITH ORDINALITY AS r(id, n)
                               LEFT JOIN unnest(v_late_new, v_late_old) AS l(new_id, old_id) ON l.new_id = r.id
                               ORDER BY r.n);
        END IF;
    END IF;

    RETURN QUERY SELECT r.store_key, r.key, r.id FROM unnest(v_store_keys, v_job_keys, v_job_ids) AS r(store_key, key, id);
END
$$;
COMMENT ON FUNCTION jobq._enqueue_keyed(jobq.job_spec[]) IS
    'Private. Enqueues specs with a job_key, each under its own mode (replace, preserve_run_at, unsafe_dedupe), race-free and deadlock-free; specs must be complete (defaults applied) and unique per (store, key). A spec with unique_for takes the job of its key and store enqueued (created_at) within the window, live in any state or finished (jobq.job_history, through job_history_job_key_idx), and writes nothing for it; race-free too, also when that job finished while this insert waited on it (the row inserted then is deleted again, unseen). Locks the keyed rows it inserts or merges. Returns (store_key, job_key, job_id) per key.';
