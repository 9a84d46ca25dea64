CREATE SCHEMA jobq;

ALTER SCHEMA jobq OWNER TO jobq_migrator;

COMMENT ON SCHEMA jobq IS 'jobq: a PostgreSQL-native job queue. Owned by jobq_migrator; runtime roles use its functions only.';

CREATE TYPE jobq.cron_fields AS (
	minutes integer[],
	hours integer[],
	days integer[],
	months integer[],
	dows integer[],
	any_day boolean,
	any_dow boolean
);

ALTER TYPE jobq.cron_fields OWNER TO jobq_migrator;

COMMENT ON TYPE jobq.cron_fields IS 'A parsed cron expression: the matching values of each field, and whether each day field is *.';

CREATE TYPE jobq.job_spec AS (
	task text,
	payload jsonb,
	queue text,
	run_at timestamp with time zone,
	priority integer,
	max_attempts integer,
	job_key text,
	job_key_mode text,
	store_id uuid,
	timeout interval,
	backoff_base interval,
	backoff_max interval,
	unique_for interval
);

ALTER TYPE jobq.job_spec OWNER TO jobq_migrator;

COMMENT ON TYPE jobq.job_spec IS 'One job to enqueue; the fields of an element of jobq.enqueue_many''s JSON array.';

CREATE FUNCTION jobq._acquire_leadership(p_worker_id text, p_ttl interval, p_now timestamp with time zone) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_epoch bigint;
    v_previous_epoch bigint;
BEGIN
    IF p_worker_id IS NULL OR btrim(p_worker_id) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id is NULL or empty');
    END IF;
    IF p_ttl IS NULL OR p_ttl <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('ttl %s is not positive', coalesce(p_ttl::text, 'NULL')));
    END IF;
    PERFORM jobq._check_interval('ttl', p_ttl, jobq._limit_interval('ttl'));
    PERFORM jobq._check_text('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
    -- A registered worker that an operator drained or detached does not lead.
    IF EXISTS (SELECT 1 FROM jobq.workers w WHERE w.id = p_worker_id AND w.state IN ('draining', 'detached')) THEN
        RETURN NULL;
    END IF;
    SELECT l.epoch INTO v_previous_epoch FROM jobq.leader l FOR UPDATE;
    -- The worker an operator demoted is held off until demoted_until (jobq.demote_leader). The
    -- test is in the WHERE clause, read under the row lock, so an acquisition that waited for the
    -- demotion's lock sees it.
    UPDATE jobq.leader AS l
    SET epoch            = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.epoch ELSE l.epoch + 1 END,
        acquired_at      = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.acquired_at ELSE p_now END,
        holder           = p_worker_id,
        lease_expires_at = jobq._ts_add(p_now, p_ttl)
    WHERE (l.holder IS NULL OR l.lease_expires_at <= p_now OR l.holder = p_worker_id)
      AND NOT coalesce(l.demoted_holder = p_worker_id AND l.demoted_until > p_now, false)
    RETURNING l.epoch INTO v_epoch;
    IF v_epoch IS NOT NULL AND v_epoch <> v_previous_epoch THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('leader_changed', jsonb_build_object('worker_id', p_worker_id, 'epoch', v_epoch));
    END IF;
    RETURN v_epoch;
END
$$;

ALTER FUNCTION jobq._acquire_leadership(p_worker_id text, p_ttl interval, p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._acquire_leadership(p_worker_id text, p_ttl interval, p_now timestamp with time zone) IS 'Private. The leadership at time p_now; see jobq.acquire_leadership. NULL for a registered worker that is draining or detached, and for the worker jobq.demote_leader demoted until its demoted_until.';

CREATE FUNCTION jobq._app_may_enqueue(p_task text) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT coalesce((SELECT t.app_enqueue FROM jobq.tasks t WHERE t.name = p_task AND t.scope = 'system'), false)
$$;

ALTER FUNCTION jobq._app_may_enqueue(p_task text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._app_may_enqueue(p_task text) IS 'Private. Whether task p_task is a system task that applications may enqueue (jobq.tasks.app_enqueue). Used by the gate''s insert policy. Locks nothing.';

CREATE FUNCTION jobq._apply_grants() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
-- VOLATILE for its GRANT and REVOKE, which plpgsql_check does not count as writes:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_fn record;
    v_n integer := 0;
BEGIN
    FOR v_fn IN
        SELECT p.oid::regprocedure AS sig, pg_get_userbyid(p.proowner) AS owner
        FROM pg_proc p
        WHERE p.pronamespace = 'jobq'::regnamespace OR p.oid = 'public.list_store_ids_for_fan_out'::regproc
    LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', v_fn.sig);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM %s', v_fn.sig,
                       (SELECT string_agg(quote_ident(r), ', ') FROM unnest(jobq._runtime_roles()) AS r WHERE r <> v_fn.owner));
    END LOOP;
    FOR v_fn IN SELECT g.fn, g.roles FROM jobq._function_grants() AS g LOOP
        IF to_regprocedure(v_fn.fn) IS NULL THEN
            RAISE EXCEPTION 'jobq._function_grants() names %, which does not exist', v_fn.fn;
        END IF;
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', to_regprocedure(v_fn.fn),
                       (SELECT string_agg(quote_ident(r), ', ') FROM unnest(v_fn.roles) AS r));
        v_n := v_n + 1;
    END LOOP;
    RETURN v_n;
END
$$;

ALTER FUNCTION jobq._apply_grants() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._apply_grants() IS 'Private. Revokes EXECUTE on every function of schema jobq and public.list_store_ids_for_fan_out from PUBLIC and every role of jobq._runtime_roles() but its owner, then grants the rows of jobq._function_grants(); returns how many functions it granted. Raises for a declared function that does not exist. Caller: this file, applied by jobq migrate up after every other function file (as jobq_migrator, the owner of the functions or a member of their owner).';

CREATE TABLE jobq.schedules (
    name text NOT NULL,
    cron text NOT NULL,
    fields jobq.cron_fields NOT NULL,
    timezone text DEFAULT 'UTC'::text NOT NULL,
    task text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    slot_key text DEFAULT 'slotAt'::text,
    queue text,
    priority smallint,
    max_attempts integer,
    concurrency_policy text DEFAULT 'allow'::text NOT NULL,
    backfill_window interval DEFAULT '00:15:00'::interval NOT NULL,
    backfill text DEFAULT 'all'::text NOT NULL,
    jitter interval DEFAULT '00:00:00'::interval NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    next_slot_at timestamp with time zone,
    last_slot_at timestamp with time zone,
    last_job_id bigint,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    paused_at timestamp with time zone,
    paused_by text,
    CONSTRAINT schedules_backfill_check CHECK ((backfill = ANY (ARRAY['all'::text, 'latest'::text]))),
    CONSTRAINT schedules_backfill_window_check CHECK ((backfill_window >= '00:00:00'::interval)),
    CONSTRAINT schedules_concurrency_policy_check CHECK ((concurrency_policy = ANY (ARRAY['allow'::text, 'forbid'::text, 'replace'::text]))),
    CONSTRAINT schedules_jitter_check CHECK ((jitter >= '00:00:00'::interval)),
    CONSTRAINT schedules_max_attempts_check CHECK ((max_attempts >= 1)),
    CONSTRAINT schedules_name_check CHECK (((name ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$'::text) AND (length(name) <= 100))),
    CONSTRAINT schedules_payload_check CHECK ((jsonb_typeof(payload) = 'object'::text)),
    CONSTRAINT schedules_queue_check CHECK ((queue <> ''::text)),
    CONSTRAINT schedules_slot_key_check CHECK ((slot_key <> ''::text))
);

ALTER TABLE jobq.schedules OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.schedules IS 'Cron schedules: one job of task per slot. Written by jobq.schedule / jobq.unschedule; advanced by jobq.maintain.';

COMMENT ON COLUMN jobq.schedules.paused_at IS 'When an operator paused the schedule (jobq.pause_schedule); NULL when it runs. A paused schedule enqueues no slot; jobq.resume_schedule restarts it from the next slot after now().';

COMMENT ON COLUMN jobq.schedules.paused_by IS 'The session_user who paused the schedule.';

CREATE FUNCTION jobq._apply_schedule_policy(p_s jobq.schedules, p_previous bigint, p_detail jsonb) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._apply_schedule_policy(p_s jobq.schedules, p_previous bigint, p_detail jsonb) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._apply_schedule_policy(p_s jobq.schedules, p_previous bigint, p_detail jsonb) IS 'Private. The concurrency policy of schedule p_s before one more run (jobq._run_schedule''s slots, jobq.run_schedule_now), p_previous its last job; the caller holds the schedule''s row lock. Returns the id of the live run that forbids it (policy forbid), else NULL: allow, no live run, or replace, which has canceled the live run (history state canceled, reason replaced) and audited it as schedule_replaced (detail: schedule, previous_state and p_detail).';

CREATE FUNCTION jobq._attach_workflow(p_ids bigint[], p_wf jsonb[], p_label_index boolean) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_bad record;
    v_doom bigint[];
    v_errors text[];
    v_ords bigint[];
    v_children bigint[];
    v_parents bigint[];
    v_by_ref boolean[];
BEGIN
    -- The edges asked for, one per (child, parent): parents by id and by ref (p_ids of earlier
    -- positions), as parallel arrays read with unnest below.
    SELECT coalesce(array_agg(t.ord ORDER BY t.ord, t.parent), '{}'), coalesce(array_agg(t.id ORDER BY t.ord, t.parent), '{}'),
           coalesce(array_agg(t.parent ORDER BY t.ord, t.parent), '{}'), coalesce(array_agg(t.by_ref ORDER BY t.ord, t.parent), '{}')
    INTO v_ords, v_children, v_parents, v_by_ref
    FROM (SELECT DISTINCT ON (x.id, e.parent) x.ord, x.id, e.parent, e.by_ref
          FROM unnest(p_ids, p_wf) WITH ORDINALITY AS x(id, wf, ord)
          CROSS JOIN LATERAL (
              SELECT (d.v #>> '{}')::bigint AS parent, false AS by_ref
              FROM jsonb_array_elements(CASE WHEN jsonb_typeof(x.wf -> 'depends_on') = 'array' THEN x.wf -> 'depends_on' END) AS d(v)
              UNION ALL
              SELECT p_ids[(r.v #>> '{}')::integer], true
              FROM jsonb_array_elements(CASE WHEN jsonb_typeof(x.wf -> 'ref_ords') = 'array' THEN x.wf -> 'ref_ords' END) AS r(v)
          ) AS e
          WHERE x.wf IS NOT NULL
          ORDER BY x.id, e.parent, e.by_ref) AS t;

    -- A parent given by id that this call inserted: itself, or a later (or earlier) element
    -- whose id was guessed. Only refs may name the call's own jobs, and only earlier ones.
    SELECT e.ord, e.parent INTO v_bad FROM unnest(v_ords, v_children, v_parents, v_by_ref) AS e(ord, child, parent, by_ref)
    WHERE NOT e.by_ref AND e.parent = ANY (p_ids) ORDER BY e.ord LIMIT 1;
    IF FOUND THEN
        PERFORM jobq._raise('JOB.DEPENDENCY_CYCLE', CASE WHEN p_label_index
            THEN format('job %s: job %s is enqueued by this call (name earlier elements with "ref")', v_bad.ord, v_bad.parent)
            ELSE format('job %s cannot depend on itself', v_bad.parent) END);
    END IF;

    -- Every parent a job of the child's store, live or finished; a new statement, so a parent that
    -- finished while jobq._workflow_prepare waited for its row is seen in jobq.job_history.
    SELECT e.ord, e.parent INTO v_bad
    FROM unnest(v_ords, v_children, v_parents, v_by_ref) AS e(ord, child, parent, by_ref)
    JOIN jobq.jobs c ON c.id = e.child
    WHERE NOT EXISTS (SELECT 1 FROM jobq.jobs p WHERE p.id = e.parent AND p.store_id IS NOT DISTINCT FROM c.store_id)
      AND NOT EXISTS (SELECT 1 FROM jobq.job_history h WHERE h.id = e.parent AND h.store_id IS NOT DISTINCT FROM c.store_id)
    ORDER BY e.ord
    LIMIT 1;
    IF FOUND THEN
        PERFORM jobq._raise('JOB.DEPENDENCY_NOT_FOUND', CASE WHEN p_label_index
            THEN format('job %s: no job %s of its store, live or finished', v_bad.ord, v_bad.parent)
            ELSE format('no job %s of this store, live or finished', v_bad.parent) END);
    END IF;

    -- The job records its workflow; the parents learn that they have dependents.
    UPDATE jobq.jobs AS j
    SET depends_on = g.parents,
        on_parent_failure = CASE WHEN g.parents IS NOT NULL THEN coalesce(x.wf ->> 'on_parent_failure', 'cancel') END,
        sequence_key = x.wf ->> 'sequence_key',
        on_sequence_failure = CASE WHEN x.wf ->> 'sequence_key' IS NOT NULL THEN coalesce(x.wf ->> 'on_sequence_failure', 'hold') END
    FROM unnest(p_ids, p_wf) AS x(id, wf)
    LEFT JOIN (SELECT e.child, array_agg(e.parent ORDER BY e.parent) AS parents
               FROM unnest(v_children, v_parents) AS e(child, parent)
               GROUP BY e.child) AS g ON g.child = x.id
    WHERE j.id = x.id AND x.wf IS NOT NULL;

    UPDATE jobq.jobs AS p SET has_dependents = true
    WHERE p.id IN (SELECT e.parent FROM unnest(v_ords, v_children, v_parents, v_by_ref) AS e(ord, child, parent, by_ref)) AND NOT p.has_dependents;

    INSERT INTO jobq.job_dependencies (child_id, parent_id, store_id)
    SELECT e.child, e.parent, c.store_id
    FROM unnest(v_ords, v_children, v_parents, v_by_ref) AS e(ord, child, parent, by_ref)
    JOIN jobq.jobs c ON c.id = e.child
    WHERE EXISTS (SELECT 1 FROM jobq.jobs p WHERE p.id = e.parent);

    -- Blocked: a job with an edge still waiting, or behind a live job of its sequence, or in a
    -- held sequence.
    UPDATE jobq.jobs AS j SET state = 'blocked'
    WHERE j.id = ANY (p_ids)
      AND (EXISTS (SELECT 1 FROM jobq.job_dependencies d WHERE d.child_id = j.id)
           OR (j.sequence_key IS NOT NULL AND NOT jobq._heads_sequence(j.id, j.store_id, j.sequence_key)));

    -- A parent that already ended dead or canceled: its dependents that asked for it are canceled
    -- at once (with whatever of this call depends on them).
    SELECT array_agg(f.child ORDER BY f.child), array_agg(f.why ORDER BY f.child)
    INTO v_doom, v_errors
    FROM (SELECT DISTINCT ON (e.child) e.child, format('its dependency %s ended %s', h.id, h.state) AS why
          FROM unnest(v_ords, v_children, v_parents, v_by_ref) AS e(ord, child, parent, by_ref)
          JOIN jobq.jobs c ON c.id = e.child AND c.on_parent_failure = 'cancel'
          JOIN jobq.job_history h ON h.id = e.parent AND h.state IN ('dead', 'canceled')
          ORDER BY e.child, e.parent) AS f;
    IF v_doom IS NOT NULL THEN
        PERFORM jobq._cancel_with_dependents(v_doom, v_errors);
    END IF;
END
$$;

ALTER FUNCTION jobq._attach_workflow(p_ids bigint[], p_wf jsonb[], p_label_index boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._attach_workflow(p_ids bigint[], p_wf jsonb[], p_label_index boolean) IS 'Private. Attaches the workflow specs p_wf to the jobs p_ids just inserted (same order): refuses a parent given by id that this call inserted (JOB.DEPENDENCY_CYCLE) and a parent that is no job of the child''s store live or in jobq.job_history (JOB.DEPENDENCY_NOT_FOUND: unknown, pruned, another store''s, a system job for a store''s job and the other way round); sets depends_on, on_parent_failure, sequence_key, on_sequence_failure; marks live parents has_dependents; inserts the waiting edges (jobq.job_dependencies; a succeeded parent is satisfied at once); sets blocked what must wait; cancels at once (jobq._cancel_with_dependents) a job whose parent ended dead or canceled when it asked for cancel. SECURITY DEFINER: the caller''s store was checked by jobq._check_tenant, and parents are matched to the child''s store here. Locks the rows it writes. Callers: jobq.enqueue, jobq.enqueue_many.';

CREATE FUNCTION jobq._await_sequences(p_store_ids uuid[], p_keys text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    PERFORM jobq._lock_sequences(p_store_ids, p_keys);
    -- JQ709 never leaves this block: it only lets the locks just taken go.
    RAISE EXCEPTION USING ERRCODE = 'JQ709', MESSAGE = 'jobq: sequences awaited';
EXCEPTION
    WHEN SQLSTATE 'JQ709' OR deadlock_detected THEN NULL;
END
$$;

ALTER FUNCTION jobq._await_sequences(p_store_ids uuid[], p_keys text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._await_sequences(p_store_ids uuid[], p_keys text[]) IS 'Private. Waits for every transaction holding the advisory lock of a (store, sequence key) given (jobq._lock_sequences) to end, and holds none of the locks afterwards (taken in a subtransaction rolled back at once; a deadlock while waiting is let go, the caller''s next try meets it). Caller: jobq._workflow_prepare, after PostgreSQL aborted its side of a deadlock with a cancel.';

CREATE FUNCTION jobq._batch_callback_fields() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT ARRAY['task', 'payload', 'queue', 'priority', 'max_attempts', 'job_key', 'job_key_mode', 'timeout',
                 'backoff_base', 'backoff_max', 'unique_for']::text[]
$$;

ALTER FUNCTION jobq._batch_callback_fields() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._batch_callback_fields() IS 'Private. The fields a batch callback spec may have (those of an enqueue_many element but store_id and run_at). Immutable.';

CREATE TABLE jobq.batches (
    id bigint NOT NULL,
    store_id uuid,
    description text,
    on_success jsonb,
    on_complete jsonb,
    on_discard jsonb,
    total bigint DEFAULT 0 NOT NULL,
    succeeded bigint DEFAULT 0 NOT NULL,
    dead bigint DEFAULT 0 NOT NULL,
    canceled bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    sealed_at timestamp with time zone,
    settled_at timestamp with time zone,
    callback_job_ids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    callback_error text,
    CONSTRAINT batches_callback_error_check CHECK ((char_length(callback_error) <= 10000)),
    CONSTRAINT batches_check CHECK (((succeeded >= 0) AND (dead >= 0) AND (canceled >= 0) AND (((succeeded + dead) + canceled) <= total))),
    CONSTRAINT batches_check1 CHECK (((settled_at IS NULL) OR ((sealed_at IS NOT NULL) AND (((succeeded + dead) + canceled) = total)))),
    CONSTRAINT batches_description_check CHECK ((char_length(description) <= 1000)),
    CONSTRAINT batches_on_complete_check CHECK ((jsonb_typeof(on_complete) = 'object'::text)),
    CONSTRAINT batches_on_discard_check CHECK ((jsonb_typeof(on_discard) = 'object'::text)),
    CONSTRAINT batches_on_success_check CHECK ((jsonb_typeof(on_success) = 'object'::text))
);

ALTER TABLE ONLY jobq.batches FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.batches OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.batches IS 'Batches of jobs (jobq.create_batch, jobq.batch_enqueue, jobq.seal_batch): counts kept by the trigger jobq_batches_count on jobq.job_history; the callbacks are enqueued once, when the batch is sealed and all its jobs ended (settled_at).';

COMMENT ON COLUMN jobq.batches.total IS 'Jobs added to the batch (jobq.batch_enqueue).';

COMMENT ON COLUMN jobq.batches.canceled IS 'Jobs of the batch that ended canceled, or were deleted live (jobq.delete_job).';

COMMENT ON COLUMN jobq.batches.callback_job_ids IS 'The callback jobs enqueued when the batch settled, in the order on_success, on_complete, on_discard.';

COMMENT ON COLUMN jobq.batches.callback_error IS 'Why a callback could not be enqueued at the settle (e.g. its task was deleted since): the settle and the completion that caused it go on.';

CREATE FUNCTION jobq._batch_callback_job(p_spec jsonb, p_batch jobq.batches) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
    SELECT (p_spec - 'store_id' - 'payload')
        || CASE WHEN p_batch.store_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('store_id', p_batch.store_id) END
        || jsonb_build_object('payload',
               CASE WHEN pg_catalog.jsonb_typeof(p_spec -> 'payload') = 'object' THEN p_spec -> 'payload' ELSE '{}'::jsonb END
               || jsonb_build_object('batch', jsonb_build_object(
                      'id', p_batch.id, 'total', p_batch.total, 'succeeded', p_batch.succeeded, 'dead', p_batch.dead,
                      'canceled', p_batch.canceled,
                      'pending', p_batch.total - p_batch.succeeded - p_batch.dead - p_batch.canceled)))
$$;

ALTER FUNCTION jobq._batch_callback_job(p_spec jsonb, p_batch jobq.batches) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._batch_callback_job(p_spec jsonb, p_batch jobq.batches) IS 'Private. The jobq.enqueue_many element of callback spec p_spec of batch p_batch: store_id the batch''s (none for a system batch), payload the spec''s (an object; {} when absent) plus "batch": {id, total, succeeded, dead, canceled, pending}. Raises nothing, locks nothing.';

CREATE FUNCTION jobq._batch_ended(p_batch_ids bigint[], p_states text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_batches bigint[];
BEGIN
    v_batches := ARRAY(SELECT DISTINCT e.batch_id FROM unnest(p_batch_ids) AS e(batch_id) WHERE e.batch_id IS NOT NULL ORDER BY 1);
    IF cardinality(v_batches) = 0 THEN
        RETURN;
    END IF;
    PERFORM 1 FROM jobq.batches b WHERE b.id = ANY (v_batches) ORDER BY b.id FOR UPDATE;
    UPDATE jobq.batches AS b
    SET succeeded = b.succeeded + c.succeeded, dead = b.dead + c.dead, canceled = b.canceled + c.canceled
    FROM (SELECT e.batch_id,
                 count(*) FILTER (WHERE e.state = 'succeeded') AS succeeded,
                 count(*) FILTER (WHERE e.state = 'dead') AS dead,
                 count(*) FILTER (WHERE e.state = 'canceled') AS canceled
          FROM unnest(p_batch_ids, p_states) AS e(batch_id, state)
          WHERE e.batch_id IS NOT NULL
          GROUP BY e.batch_id) AS c
    WHERE b.id = c.batch_id;
    PERFORM jobq._settle_batches(v_batches);
END
$$;

ALTER FUNCTION jobq._batch_ended(p_batch_ids bigint[], p_states text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._batch_ended(p_batch_ids bigint[], p_states text[]) IS 'Private. Adds ended jobs (batch p_batch_ids[i] ended in state p_states[i]: succeeded, dead, canceled) to their batches'' counts, one UPDATE for all, after locking the batches in id order; then settles those it completes (jobq._settle_batches). Callers: jobq._batches_count (the trigger), jobq.delete_job.';

CREATE FUNCTION jobq._batches_count() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_batch_ids bigint[];
    v_states text[];
BEGIN
    SELECT array_agg(e.batch_id), array_agg(e.state) INTO v_batch_ids, v_states
    FROM ended e WHERE e.batch_id IS NOT NULL;
    IF v_batch_ids IS NOT NULL THEN
        PERFORM jobq._batch_ended(v_batch_ids, v_states);
    END IF;
    RETURN NULL;
END
$$;

ALTER FUNCTION jobq._batches_count() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._batches_count() IS 'Private. Statement-level AFTER INSERT trigger function of jobq.job_history (trigger jobq_batches_count, transition table ended): counts the inserted rows that have a batch_id in their batches (jobq._batch_ended); returns after one scan of the transition table when none has.';

CREATE FUNCTION jobq._calendar_day_ok(p_day text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$
    SELECT CASE
        WHEN p_day IS NULL OR p_day !~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' OR p_day LIKE '0000%' THEN false
        ELSE pg_catalog.substr(p_day, 9, 2)::integer <=
             CASE pg_catalog.substr(p_day, 6, 2)
                 WHEN '02' THEN CASE WHEN pg_catalog.substr(p_day, 1, 4)::integer % 4 = 0
                                          AND (pg_catalog.substr(p_day, 1, 4)::integer % 100 <> 0
                                               OR pg_catalog.substr(p_day, 1, 4)::integer % 400 = 0)
                                     THEN 29 ELSE 28 END
                 WHEN '04' THEN 30 WHEN '06' THEN 30 WHEN '09' THEN 30 WHEN '11' THEN 30
                 ELSE 31
             END
    END
$_$;

ALTER FUNCTION jobq._calendar_day_ok(p_day text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._calendar_day_ok(p_day text) IS 'Private. Whether p_day is a calendar day YYYY-MM-DD of years 0001 to 9999 (month lengths and leap years as PostgreSQL''s date type has them); false for anything else, NULL included. Never raises; inlined. Caller: jobq._json_type_ok (the date and timestamp payload types).';

CREATE FUNCTION jobq._caller() RETURNS name
    LANGUAGE sql STABLE
    AS $$
    SELECT CASE WHEN pg_catalog.current_setting('role') = 'none' THEN session_user
                ELSE pg_catalog.current_setting('role')::name END
$$;

ALTER FUNCTION jobq._caller() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._caller() IS 'Private. The role the caller acts as (SET ROLE, else session_user).';

CREATE FUNCTION jobq._caller_is_operator() RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT pg_catalog.pg_has_role(jobq._caller(), 'jobq_operator', 'USAGE')
$$;

ALTER FUNCTION jobq._caller_is_operator() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._caller_is_operator() IS 'Private. Whether the caller (jobq._caller(): the SET ROLE role, else the login) has the rights of jobq_operator. Inlined; locks nothing.';

CREATE FUNCTION jobq._caller_is_restricted() RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT NOT (jobq._caller_is_operator()
                OR pg_catalog.pg_has_role(jobq._caller(), 'worker_runtime', 'USAGE')
                OR pg_catalog.pg_has_role(jobq._caller(), 'jobq_migrator', 'USAGE'))
$$;

ALTER FUNCTION jobq._caller_is_restricted() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._caller_is_restricted() IS 'Private. Whether the caller of a gate function is an application (restricted to the session''s store, no system row changes): it has none of the rights of jobq_operator, worker_runtime, jobq_migrator. Locks nothing.';

CREATE FUNCTION jobq._caller_reaches(p_store_id uuid) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT jobq._caller_reaches_as(p_store_id, jobq._caller_is_operator(), jobq._caller_is_restricted(),
                                   jobq.current_store_id())
$$;

ALTER FUNCTION jobq._caller_reaches(p_store_id uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._caller_reaches(p_store_id uuid) IS 'Private. Whether the caller of a gate function may change a row of store p_store_id: operators every row; a system row (NULL) the trusted callers (worker_runtime, jobq_migrator), never an application; a store''s row when it is the session''s jobq.current_store_id(). jobq._caller_reaches_as for the caller of the statement. Used by the gate''s row policies. Locks nothing.';

CREATE FUNCTION jobq._caller_reaches_as(p_store_id uuid, p_operator boolean, p_restricted boolean, p_session_store uuid) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT CASE
        WHEN p_operator THEN true
        WHEN p_store_id IS NULL THEN NOT p_restricted
        ELSE coalesce(p_store_id = p_session_store, false)
    END
$$;

ALTER FUNCTION jobq._caller_reaches_as(p_store_id uuid, p_operator boolean, p_restricted boolean, p_session_store uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._caller_reaches_as(p_store_id uuid, p_operator boolean, p_restricted boolean, p_session_store uuid) IS 'Private. Whether the caller of a gate function may change a row of store p_store_id, the caller being as given: operators (p_operator) every row; a system row (NULL) a caller that is not restricted (p_restricted false: worker_runtime, jobq_migrator), never an application; a store''s row when it is the session''s store p_session_store. Callers: jobq._caller_reaches, the gate''s insert policy on jobq.jobs (the facts in sub-selects, read once a statement). Locks nothing.';

CREATE FUNCTION jobq._caller_sees_every_store() RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT jobq._caller_is_operator() OR pg_catalog.pg_has_role(jobq._caller(), 'jobq_viewer', 'USAGE')
$$;

ALTER FUNCTION jobq._caller_sees_every_store() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._caller_sees_every_store() IS 'Private. Whether the caller (jobq._caller()) reads every store''s rows: it has the rights of jobq_operator or of jobq_viewer. Used by jobq._stats. Locks nothing.';

CREATE FUNCTION jobq._cancel_with_dependents(p_ids bigint[], p_errors text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_all bigint[];
    v_why text[];
BEGIN
    -- Each doomed job with the parent it was reached through (NULL for p_ids): a row per edge at
    -- most, whatever the shape of the graph.
    WITH RECURSIVE doomed(id, via) AS (
        SELECT u.id, NULL::bigint FROM unnest(p_ids) AS u(id)
        UNION
        -- A probe of job_dependencies_parent_idx per doomed job (OFFSET 0 keeps the subquery
        -- parameterized: a hash join would scan every edge at each level of a deep chain).
        SELECT d.child_id, x.id
        FROM doomed x
        CROSS JOIN LATERAL (SELECT e.child_id FROM jobq.job_dependencies e
                            JOIN jobq.jobs c ON c.id = e.child_id AND c.on_parent_failure = 'cancel'
                            WHERE e.parent_id = x.id OFFSET 0) AS d
    ), one AS (
        SELECT x.id, min(x.via) AS via FROM doomed x GROUP BY x.id
    )
    SELECT array_agg(o.id ORDER BY o.id),
           array_agg(coalesce(g.why, format('its dependency %s was canceled', o.via)) ORDER BY o.id)
    INTO v_all, v_why
    FROM one o
    LEFT JOIN unnest(p_ids, p_errors) AS g(id, why) ON g.id = o.id;

    PERFORM 1 FROM jobq.jobs j WHERE j.id = ANY (v_all) ORDER BY j.id FOR UPDATE;

    DELETE FROM jobq.job_dependencies d WHERE d.child_id = ANY (v_all);

    WITH gone AS (
        DELETE FROM jobq.jobs AS j
        USING unnest(v_all, v_why) AS a(id, why)
        WHERE j.id = a.id AND j.state <> 'running'
        RETURNING j AS job, a.why
    )
    INSERT INTO jobq.job_history
    SELECT h.* FROM gone CROSS JOIN LATERAL jobq._to_history(gone.job, 'canceled', 'canceled', 'canceled: ' || left(gone.why, 9000), NULL) AS h;
END
$$;

ALTER FUNCTION jobq._cancel_with_dependents(p_ids bigint[], p_errors text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._cancel_with_dependents(p_ids bigint[], p_errors text[]) IS 'Private. Cancels the live jobs p_ids (last_error "canceled: " and p_errors) and every live job depending on them transitively with on_parent_failure cancel (one recursive query over jobq.job_dependencies), moving them to jobq.job_history as canceled (reason canceled) in one statement; their waiting edges go. A running job is left alone (it cannot have waiting edges). Locks the rows in id order. Callers: jobq._attach_workflow, jobq._settle_ended.';

CREATE FUNCTION jobq._check_claim_call(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF p_worker_id IS NULL OR btrim(p_worker_id) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id is NULL or empty');
    END IF;
    PERFORM jobq._check_text('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
    PERFORM jobq._check_claim_queues(p_queues);
    IF p_max_jobs IS NULL OR p_max_jobs < 1 OR p_max_jobs > jobq._limit('batch') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('max_jobs %s is outside 1..%s', coalesce(p_max_jobs::text, 'NULL'), jobq._limit('batch')));
    END IF;
    PERFORM jobq._check_lease(p_lease);
    PERFORM jobq._check_claim_positions(p_queues, p_after_priority, p_after_run_at, p_after_id);
    PERFORM jobq._check_claim_tasks(p_tasks);
END
$$;

ALTER FUNCTION jobq._check_claim_call(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_claim_call(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) IS 'Private. Raises JOB.INVALID_ARGUMENT, JOB.VALUE_TOO_LONG, JOB.OUT_OF_RANGE or JOB.LEASE_INVALID for the first argument of a claim out of its limits (worker_id, queues, max_jobs, lease, positions, tasks; see jobq.claim_job). Locks nothing. Caller: jobq._claim, when jobq._claim_call_ok is false.';

CREATE FUNCTION jobq._check_claim_positions(p_queues text[], p_priority integer[], p_run_at timestamp with time zone[], p_id bigint[]) RETURNS void
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_bad bigint;
BEGIN
    IF p_priority IS NULL AND p_run_at IS NULL AND p_id IS NULL THEN
        RETURN;
    END IF;
    IF p_priority IS NULL OR p_run_at IS NULL OR p_id IS NULL
       OR array_ndims(p_priority) IS DISTINCT FROM 1 OR array_ndims(p_run_at) IS DISTINCT FROM 1 OR array_ndims(p_id) IS DISTINCT FROM 1
       OR cardinality(p_priority) <> cardinality(p_queues) OR cardinality(p_run_at) <> cardinality(p_queues)
       OR cardinality(p_id) <> cardinality(p_queues) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format(
            'after_priority, after_run_at and after_id must be all NULL or one-dimensional arrays of %s elements, one per queue',
            cardinality(p_queues)));
    END IF;
    SELECT f.n INTO v_bad
    FROM unnest(p_priority, p_run_at, p_id) WITH ORDINALITY AS f(priority, run_at, id, n)
    WHERE num_nulls(f.priority, f.run_at, f.id) NOT IN (0, 3) OR f.priority NOT BETWEEN -32768 AND 32767
    ORDER BY f.n
    LIMIT 1;
    IF v_bad IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format(
            'position %s (after_priority, after_run_at, after_id) must be all NULL or all set, with a priority in -32768..32767', v_bad));
    END IF;
END
$$;

ALTER FUNCTION jobq._check_claim_positions(p_queues text[], p_priority integer[], p_run_at timestamp with time zone[], p_id bigint[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_claim_positions(p_queues text[], p_priority integer[], p_run_at timestamp with time zone[], p_id bigint[]) IS 'Private. Raises JOB.INVALID_ARGUMENT unless the claim positions are all NULL, or one per queue, each all NULL or all set with a priority in -32768..32767. Locks nothing.';

CREATE FUNCTION jobq._check_claim_queues(p_queues text[]) RETURNS void
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF array_ndims(p_queues) > 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('queues must be a one-dimensional array, not %s-dimensional', array_ndims(p_queues)));
    END IF;
    IF p_queues IS NULL OR cardinality(p_queues) = 0 OR array_position(p_queues, NULL) IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queues must be a non-empty array without NULLs');
    END IF;
    PERFORM jobq._check_length('queues', p_queues, jobq._limit('queues')::integer);
    PERFORM jobq._check_text(format('queues[%s]', q.n), q.name, jobq._limit('queue')::integer)
    FROM unnest(p_queues) WITH ORDINALITY AS q(name, n)
    WHERE char_length(q.name) > jobq._limit('queue');
END
$$;

ALTER FUNCTION jobq._check_claim_queues(p_queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_claim_queues(p_queues text[]) IS 'Private. Raises JOB.INVALID_ARGUMENT (NULL, empty, multidimensional, a NULL element), JOB.OUT_OF_RANGE (more than 1000 queues) or JOB.VALUE_TOO_LONG (a name above 200 characters, by position) for a list of queues claim_job or claim_passed_over cannot take. Locks nothing.';

CREATE FUNCTION jobq._check_claim_tasks(p_tasks text[]) RETURNS void
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF p_tasks IS NULL THEN
        RETURN;
    END IF;
    IF array_ndims(p_tasks) IS DISTINCT FROM 1 OR array_position(p_tasks, NULL) IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'tasks must be NULL (every task) or a non-empty, one-dimensional array without NULLs');
    END IF;
    PERFORM jobq._check_length('tasks', p_tasks, jobq._limit('tasks')::integer);
END
$$;

ALTER FUNCTION jobq._check_claim_tasks(p_tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_claim_tasks(p_tasks text[]) IS 'Private. Raises JOB.INVALID_ARGUMENT (empty, multidimensional, a NULL element) or JOB.OUT_OF_RANGE (more than 1000 tasks) for a list of tasks claim_job or claim_passed_over cannot take; NULL (every task) passes, and so does a name of no declared task (it matches no job). Locks nothing.';

CREATE FUNCTION jobq._check_int(p_name text, p_value bigint, p_min bigint, p_max bigint, p_code text DEFAULT 'JOB.OUT_OF_RANGE'::text) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF p_value < p_min OR p_value > p_max THEN
        PERFORM jobq._raise(p_code, format('%s %s is outside %s..%s', p_name, p_value, p_min, p_max));
    END IF;
    RETURN p_value;
END
$$;

ALTER FUNCTION jobq._check_int(p_name text, p_value bigint, p_min bigint, p_max bigint, p_code text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_int(p_name text, p_value bigint, p_min bigint, p_max bigint, p_code text) IS 'Private. Returns p_value when it is within p_min..p_max (NULL passes); raises p_code (default JOB.OUT_OF_RANGE; JOB.MAX_ATTEMPTS_INVALID for max_attempts) naming p_name otherwise.';

CREATE FUNCTION jobq._check_interval(p_name text, p_value interval, p_max interval, p_zero_ok boolean DEFAULT false) RETURNS interval
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF p_zero_ok AND p_value < interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('%s %s must be zero or positive', p_name, p_value));
    ELSIF NOT p_zero_ok AND p_value <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('%s %s is not positive', p_name, p_value));
    ELSIF p_value > p_max THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('%s %s is above the limit of %s', p_name, p_value, p_max));
    END IF;
    RETURN p_value;
END
$$;

ALTER FUNCTION jobq._check_interval(p_name text, p_value interval, p_max interval, p_zero_ok boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_interval(p_name text, p_value interval, p_max interval, p_zero_ok boolean) IS 'Private. Returns p_value when it is positive (zero too with p_zero_ok) and at most p_max (NULL passes); raises JOB.LEASE_INVALID (not positive) or JOB.OUT_OF_RANGE (above p_max) naming p_name otherwise.';

CREATE FUNCTION jobq._check_lease(p_lease interval) RETURNS interval
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF p_lease IS NULL THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', 'lease NULL is not positive');
    END IF;
    RETURN jobq._check_interval('lease', p_lease, jobq._limit_interval('lease'));
END
$$;

ALTER FUNCTION jobq._check_lease(p_lease interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_lease(p_lease interval) IS 'Private. Returns p_lease when it is positive and at most the lease limit (docs/limits.md); raises JOB.LEASE_INVALID (NULL, zero or negative) or JOB.OUT_OF_RANGE (above the limit) otherwise. Used by jobq._claim, jobq.heartbeat_jobs, jobq.confirm_continuation.';

CREATE FUNCTION jobq._check_lease_batch(p_job_ids bigint[], p_lease_tokens uuid[]) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF cardinality(p_job_ids) IS DISTINCT FROM cardinality(p_lease_tokens) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids and lease_tokens must have the same length');
    END IF;
    RETURN jobq._check_length('job_ids', p_job_ids, jobq._limit('batch')::integer);
END
$$;

ALTER FUNCTION jobq._check_lease_batch(p_job_ids bigint[], p_lease_tokens uuid[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_lease_batch(p_job_ids bigint[], p_lease_tokens uuid[]) IS 'Private. Returns the number of leases when job_ids and lease_tokens have the same length and it is at most the batch limit (NULL arrays pass, returning NULL); raises JOB.INVALID_ARGUMENT (lengths differ) or JOB.OUT_OF_RANGE (above the limit) otherwise. Used by jobq.heartbeat_jobs, jobq.complete_jobs, jobq.snooze_jobs, jobq.confirm_continuation.';

CREATE FUNCTION jobq._check_length(p_name text, p_value anyarray, p_max integer) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF cardinality(p_value) > p_max THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('%s has %s elements; the limit is %s', p_name, cardinality(p_value), p_max));
    END IF;
    RETURN cardinality(p_value);
END
$$;

ALTER FUNCTION jobq._check_length(p_name text, p_value anyarray, p_max integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_length(p_name text, p_value anyarray, p_max integer) IS 'Private. Returns the number of elements of p_value when it is at most p_max (NULL passes, returning NULL); raises JOB.OUT_OF_RANGE naming p_name otherwise.';

CREATE FUNCTION jobq._check_name(p_name text, p_value text, p_max integer) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF p_value IS NULL OR btrim(p_value) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('%s is NULL or empty', p_name));
    END IF;
    RETURN jobq._check_text(p_name, p_value, p_max);
END
$$;

ALTER FUNCTION jobq._check_name(p_name text, p_value text, p_max integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_name(p_name text, p_value text, p_max integer) IS 'Private. Returns p_value when it is neither NULL nor blank and has at most p_max characters; raises JOB.INVALID_ARGUMENT (NULL or blank: "<p_name> is NULL or empty") or JOB.VALUE_TOO_LONG naming p_name otherwise. Callers: jobq._check_worker_id, jobq._check_queue_name.';

CREATE FUNCTION jobq._check_payload(p_name text, p_value jsonb) RETURNS jsonb
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF pg_column_size(p_value) > 1024 AND pg_column_size(p_value) > jobq._max_payload_bytes() THEN
        PERFORM jobq._raise('JOB.PAYLOAD_TOO_LARGE', format('%s is %s bytes; the limit is %s (setting max_payload_bytes)',
                                                            p_name, pg_column_size(p_value), jobq._max_payload_bytes()));
    END IF;
    RETURN p_value;
END
$$;

ALTER FUNCTION jobq._check_payload(p_name text, p_value jsonb) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_payload(p_name text, p_value jsonb) IS 'Private. Returns p_value when its jsonb form (pg_column_size) is at most setting max_payload_bytes (NULL passes); raises JOB.PAYLOAD_TOO_LARGE naming p_name otherwise.';

CREATE FUNCTION jobq._check_queue_name(p_queue text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    RETURN jobq._check_name('queue', p_queue, jobq._limit('queue')::integer);
END
$$;

ALTER FUNCTION jobq._check_queue_name(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_queue_name(p_queue text) IS 'Private. Returns p_queue when it is a usable queue name; raises JOB.INVALID_ARGUMENT (NULL or blank) or JOB.VALUE_TOO_LONG (above 200 characters).';

CREATE FUNCTION jobq._check_tenant(p_specs jobq.job_spec[], p_label_index boolean) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_bad record;
    v_code text;
    v_detail text;
    v_session constant uuid := jobq.current_store_id();
    v_setting constant text := current_setting('app.current_store_id', true);
    v_restricted boolean;
BEGIN
    IF current_user <> 'jobq_app_gate' OR jobq._caller_is_operator() THEN
        RETURN;
    END IF;
    v_restricted := jobq._caller_is_restricted();
    SELECT s.ordinality AS position, s.task, s.store_id, s.job_key, coalesce(t.app_enqueue, false) AS app_enqueue
    INTO v_bad
    FROM unnest(p_specs) WITH ORDINALITY AS s
    LEFT JOIN jobq.tasks t ON t.name = s.task
    WHERE (s.store_id IS NOT NULL AND s.store_id IS DISTINCT FROM v_session)
       OR (s.store_id IS NULL AND s.job_key LIKE 'schedule:%')
       OR (v_restricted AND s.store_id IS NULL AND (NOT coalesce(t.app_enqueue, false) OR s.job_key IS NOT NULL))
    ORDER BY s.ordinality
    LIMIT 1;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF v_bad.store_id IS NOT NULL AND v_session IS NULL AND v_setting IS NOT NULL
       AND lower(v_setting) = v_bad.store_id::text THEN
        v_code := 'JOB.STORE_NOT_BOUND';
        v_detail := format('login %s is not bound to store %s (jobq.store_bindings)', session_user, v_bad.store_id);
    ELSIF v_bad.store_id IS NOT NULL THEN
        v_code := 'JOB.TENANT_MISMATCH';
        v_detail := format('store %s is not this session''s store (app.current_store_id = %s)',
                           v_bad.store_id, coalesce(v_session::text, 'unset'));
    ELSIF v_bad.job_key LIKE 'schedule:%' THEN
        v_code := 'JOB.NOT_ALLOWED';
        v_detail := format('job_key %L: keys that start with schedule: belong to cron slots', left(v_bad.job_key, 200));
    ELSIF NOT v_bad.app_enqueue THEN
        v_code := 'JOB.NOT_ALLOWED';
        v_detail := format('task %s is a system task that applications may not enqueue (declare it with app_enqueue => true to allow it)',
                           v_bad.task);
    ELSE
        v_code := 'JOB.NOT_ALLOWED';
        v_detail := format('task %s: applications may not give a system job a job_key', v_bad.task);
    END IF;
    PERFORM jobq._raise(v_code, CASE WHEN p_label_index THEN format('job %s: %s', v_bad.position, v_detail) ELSE v_detail END);
END
$$;

ALTER FUNCTION jobq._check_tenant(p_specs jobq.job_spec[], p_label_index boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_tenant(p_specs jobq.job_spec[], p_label_index boolean) IS 'Private. Inside a gate function (current_user jobq_app_gate) and for a caller without jobq_operator''s rights, raises for the first spec the caller may not enqueue: JOB.TENANT_MISMATCH (a store other than the session''s), JOB.STORE_NOT_BOUND (the login is bound to other stores), JOB.NOT_ALLOWED (a schedule: key; for an application a system task not declared app_enqueue, or a system job with a job_key). The row policies are the backstop; this gives the clear error. Locks nothing.';

CREATE FUNCTION jobq._check_text(p_name text, p_value text, p_max integer) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF char_length(p_value) > p_max THEN
        PERFORM jobq._raise('JOB.VALUE_TOO_LONG', format('%s is %s characters long; the limit is %s', p_name, char_length(p_value), p_max));
    END IF;
    RETURN p_value;
END
$$;

ALTER FUNCTION jobq._check_text(p_name text, p_value text, p_max integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_text(p_name text, p_value text, p_max integer) IS 'Private. Returns p_value when it has at most p_max characters (NULL passes); raises JOB.VALUE_TOO_LONG naming p_name otherwise.';

CREATE FUNCTION jobq._check_timestamp(p_name text, p_value timestamp with time zone) RETURNS timestamp with time zone
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF NOT jobq._ts_in_range(p_value) THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('%s %s is outside 1970-01-01 .. 9999-12-31 (UTC)', p_name, p_value));
    END IF;
    RETURN p_value;
END
$$;

ALTER FUNCTION jobq._check_timestamp(p_name text, p_value timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_timestamp(p_name text, p_value timestamp with time zone) IS 'Private. Returns p_value when it is finite and from 1970-01-01 to 9999-12-31 UTC (NULL passes); raises JOB.OUT_OF_RANGE naming p_name otherwise.';

CREATE FUNCTION jobq._check_timezone(p_timezone text) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    v_at timestamptz;
BEGIN
    IF p_timezone IS NULL OR p_timezone = '' THEN
        PERFORM jobq._raise('JOB.INVALID_TIMEZONE', 'the time zone is empty');
    END IF;
    IF p_timezone !~ '^[A-Za-z][A-Za-z0-9_/+-]{0,63}$' THEN
        PERFORM jobq._raise('JOB.INVALID_TIMEZONE',
            format('time zone %L is not a zone name (letters, digits, _ / + -, at most 64 characters)', left(p_timezone, 100)));
    END IF;
    -- Winter and summer (of either hemisphere): the offset must stay within a day.
    FOREACH v_at IN ARRAY ARRAY['2001-01-15 12:00:00+00'::timestamptz, '2001-07-15 12:00:00+00'::timestamptz] LOOP
        IF abs(extract(epoch FROM (v_at AT TIME ZONE p_timezone) - (v_at AT TIME ZONE 'UTC'))) >= 86400 THEN
            PERFORM jobq._raise('JOB.INVALID_TIMEZONE', format('time zone %L is more than a day away from UTC', p_timezone));
        END IF;
    END LOOP;
    RETURN p_timezone;
EXCEPTION WHEN invalid_parameter_value THEN
    PERFORM jobq._raise('JOB.INVALID_TIMEZONE', format('time zone %L is not recognized', p_timezone));
    RETURN NULL;
END
$_$;

ALTER FUNCTION jobq._check_timezone(p_timezone text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_timezone(p_timezone text) IS 'Private. Returns p_timezone when it is a zone name PostgreSQL knows (letters, digits, _ / + -, at most 64 characters; no POSIX rule string) whose UTC offset is within a day; raises JOB.INVALID_TIMEZONE.';

CREATE FUNCTION jobq._check_worker_id(p_worker_id text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    RETURN jobq._check_name('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
END
$$;

ALTER FUNCTION jobq._check_worker_id(p_worker_id text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._check_worker_id(p_worker_id text) IS 'Private. Returns p_worker_id when it is a valid worker id; raises JOB.INVALID_ARGUMENT (NULL, empty or spaces only) or JOB.VALUE_TOO_LONG (above 200 characters) otherwise.';

CREATE TABLE jobq.jobs (
    id bigint NOT NULL,
    task text NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    store_id uuid,
    priority smallint DEFAULT 0 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    attempt integer DEFAULT 0 NOT NULL,
    max_attempts integer NOT NULL,
    job_key text,
    job_key_mode text,
    locked_by text,
    lease_token uuid,
    claimed_at timestamp with time zone,
    heartbeat_at timestamp with time zone,
    lease_expires_at timestamp with time zone,
    timeout interval,
    deadline_at timestamp with time zone,
    backoff_base interval,
    backoff_max interval,
    reason text,
    last_error text,
    error_code text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    progress jsonb,
    traceparent text DEFAULT
CASE
    WHEN ((current_setting('jobq.traceparent'::text, true) ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'::text) AND (substr(current_setting('jobq.traceparent'::text, true), 4, 32) <> repeat('0'::text, 32)) AND (substr(current_setting('jobq.traceparent'::text, true), 37, 16) <> repeat('0'::text, 16))) THEN current_setting('jobq.traceparent'::text, true)
    ELSE NULL::text
END,
    tracestate text DEFAULT
CASE
    WHEN ((current_setting('jobq.traceparent'::text, true) ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'::text) AND (substr(current_setting('jobq.traceparent'::text, true), 4, 32) <> repeat('0'::text, 32)) AND (substr(current_setting('jobq.traceparent'::text, true), 37, 16) <> repeat('0'::text, 16)) AND ((char_length(current_setting('jobq.tracestate'::text, true)) >= 1) AND (char_length(current_setting('jobq.tracestate'::text, true)) <= 512)) AND (current_setting('jobq.tracestate'::text, true) ~ '^[ -~]*$'::text)) THEN current_setting('jobq.tracestate'::text, true)
    ELSE NULL::text
END,
    depends_on bigint[],
    on_parent_failure text,
    sequence_key text,
    on_sequence_failure text,
    has_dependents boolean DEFAULT false NOT NULL,
    batch_id bigint,
    fair boolean DEFAULT false NOT NULL,
    counted boolean DEFAULT false NOT NULL,
    ready boolean GENERATED ALWAYS AS (((state <> 'blocked'::text) AND (NOT counted))) STORED NOT NULL,
    CONSTRAINT jobs_attempt_check CHECK ((attempt >= 0)),
    CONSTRAINT jobs_backoff_base_check CHECK ((backoff_base > '00:00:00'::interval)),
    CONSTRAINT jobs_backoff_max_check CHECK ((backoff_max > '00:00:00'::interval)),
    CONSTRAINT jobs_counted_running CHECK (((NOT counted) OR (state = 'running'::text))),
    CONSTRAINT jobs_depends_on_check CHECK (((cardinality(depends_on) >= 1) AND (cardinality(depends_on) <= 10000))),
    CONSTRAINT jobs_job_key_check CHECK ((job_key <> ''::text)),
    CONSTRAINT jobs_job_key_mode_check CHECK ((job_key_mode = ANY (ARRAY['replace'::text, 'preserve_run_at'::text, 'unsafe_dedupe'::text]))),
    CONSTRAINT jobs_lease_matches_state CHECK (((state = 'running'::text) = ((lease_token IS NOT NULL) AND (locked_by IS NOT NULL) AND (lease_expires_at IS NOT NULL)))),
    CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts >= 1)),
    CONSTRAINT jobs_on_parent_failure_check CHECK ((on_parent_failure = ANY (ARRAY['cancel'::text, 'run'::text]))),
    CONSTRAINT jobs_on_sequence_failure_check CHECK ((on_sequence_failure = ANY (ARRAY['hold'::text, 'continue'::text]))),
    CONSTRAINT jobs_payload_check CHECK ((jsonb_typeof(payload) = 'object'::text)),
    CONSTRAINT jobs_progress_check CHECK ((jsonb_typeof(progress) = 'object'::text)),
    CONSTRAINT jobs_queue_check CHECK ((queue <> ''::text)),
    CONSTRAINT jobs_reason_check CHECK ((reason = ANY (ARRAY['error'::text, 'timed_out'::text, 'orphaned'::text, 'detached'::text, 'not_retryable'::text, 'exhausted'::text, 'skipped'::text, 'canceled'::text, 'deleted'::text, 'replaced'::text, 'requeued'::text]))),
    CONSTRAINT jobs_sequence_key_check CHECK (((sequence_key <> ''::text) AND (char_length(sequence_key) <= 500))),
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'retry_pending'::text, 'running'::text, 'blocked'::text]))),
    CONSTRAINT jobs_task_check CHECK ((task <> ''::text)),
    CONSTRAINT jobs_timeout_check CHECK ((timeout > '00:00:00'::interval)),
    CONSTRAINT jobs_traceparent_check CHECK ((char_length(traceparent) = 55)),
    CONSTRAINT jobs_tracestate_check CHECK ((char_length(tracestate) <= 512))
)
WITH (fillfactor='40');

ALTER TABLE ONLY jobq.jobs FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.jobs OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.jobs IS 'Live jobs (queued, retry_pending, running, blocked). Written only through jobq functions; finished jobs move to jobq.job_history.';

COMMENT ON COLUMN jobq.jobs.progress IS 'What the running attempt''s handler last reported (jobq.set_progress, fenced by the lease token): a JSON object of at most 65536 bytes. NULL before the first report; a failed attempt takes it into its jobq.job_attempts row and the next attempt starts without one.';

COMMENT ON COLUMN jobq.jobs.traceparent IS 'The W3C traceparent of the enqueuer (session setting jobq.traceparent at the insert; a malformed one is ignored): each attempt''s span continues this trace.';

COMMENT ON COLUMN jobq.jobs.tracestate IS 'The W3C tracestate of the enqueuer (session setting jobq.tracestate beside a valid traceparent, at most 512 printable ASCII characters; else ignored).';

COMMENT ON COLUMN jobq.jobs.depends_on IS 'The parents the job was enqueued with (at most 10000), kept for its lifetime; jobq.job_dependencies holds the edges still waiting. NULL: no parent.';

COMMENT ON COLUMN jobq.jobs.on_parent_failure IS 'cancel (default) or run: what a dead or canceled parent does to the job. NULL without parents.';

COMMENT ON COLUMN jobq.jobs.sequence_key IS 'The job runs after every earlier job of its store and key, one at a time in enqueue order (at most 500 characters). NULL: no sequence.';

COMMENT ON COLUMN jobq.jobs.on_sequence_failure IS 'hold (default) or continue: whether the job dying holds its sequence (jobq.sequence_holds). NULL without a sequence.';

COMMENT ON COLUMN jobq.jobs.has_dependents IS 'Whether a job was enqueued depending on this one: the workflow trigger on jobq.job_history looks for edges only then.';

COMMENT ON COLUMN jobq.jobs.batch_id IS 'The batch the job belongs to (jobq.batch_enqueue), NULL for none.';

COMMENT ON COLUMN jobq.jobs.fair IS 'Whether the job has an entry in jobs_fair_idx (the predicate of that index beside the waiting states): set from jobq.queues.fair by the statement that inserts the job (jobq.enqueue, jobq.enqueue_many, jobq._enqueue, jobq._enqueue_keyed, jobq._revive), for every job of the queue by jobq.set_fair_claiming when it turns fair claiming on, and for jobs inserted by transactions older than that setter by jobq.maintain (jobq._settle_fair_flags). Turning fair claiming off leaves it: only a fair claim reads jobs_fair_idx.';

COMMENT ON COLUMN jobq.jobs.counted IS 'True while a job of a limited queue runs (set by the claim from jobq.queues.limited; by jobq.maintain for a job claimed before its queue turned limited): jobs_counted_idx, read by the concurrency limits, holds only these. False out of running (jobs_counted_running).';

COMMENT ON COLUMN jobq.jobs.ready IS 'state <> ''blocked'' and not counted, generated: the predicate of jobs_claim_idx and jobs_fair_idx, which hold the waiting jobs and the running jobs of queues without limits. No index names state, so that a claim is a HOT update; a claim of a limited queue sets counted, so its job leaves those indexes for jobs_counted_idx.';

CREATE FUNCTION jobq._claim(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_now timestamp with time zone, p_after_priority integer[] DEFAULT NULL::integer[], p_after_run_at timestamp with time zone[] DEFAULT NULL::timestamp with time zone[], p_after_id bigint[] DEFAULT NULL::bigint[], p_tasks text[] DEFAULT NULL::text[]) RETURNS SETOF jobq.jobs
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
DECLARE
    v_q record;                            -- the queue's controls (jobq.queues)
    v_kind text;                           -- its pick: plain, fair or limited
    v_left integer := p_max_jobs;          -- jobs still wanted
    v_take integer;                        -- the most this queue may yield to this claim
    v_ids bigint[];
    v_clock timestamptz;                   -- the claimed_at of a rate-limited pick's jobs
    v_shared boolean;                      -- a shared claim of a limited queue
    v_own integer;                         -- jobs this transaction's shared claims took of it
    v_limits_locked boolean := false;      -- a limited queue was picked (its lock tried or held)
    v_got integer;
    -- Every job of the claim is leased until the same moment: computed once, not for each row
    -- (jobq._ts_add's saturating checks are a dozen date_part calls). Raises nothing, even for
    -- an argument the checks below refuse.
    v_lease_until constant timestamptz := jobq._ts_add(p_now, p_lease);
BEGIN
    IF NOT jobq._claim_call_ok(p_worker_id, p_queues, p_max_jobs, p_lease, p_after_priority, p_after_run_at, p_after_id, p_tasks) THEN
        PERFORM jobq._check_claim_call(p_worker_id, p_queues, p_max_jobs, p_lease, p_after_priority, p_after_run_at, p_after_id, p_tasks);
    END IF;
    -- Under REPEATABLE READ or SERIALIZABLE every statement reads the transaction's snapshot,
    -- older than the claim: it cannot see a pause that committed since, nor what other
    -- transactions claimed of a limited queue. Such a claim is refused, whatever the queue.
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        PERFORM jobq._raise('JOB.CLAIM_ISOLATION', format(
            'claim_job runs under READ COMMITTED, not %s: its snapshot could not see a pause or other claims that committed since it began',
            upper(current_setting('transaction_isolation'))));
    END IF;
    -- A registered worker that an operator drained or detached claims nothing, from the moment
    -- of the drain or detach (not only from its next heartbeat).
    IF EXISTS (SELECT 1 FROM jobq.workers w WHERE w.id = p_worker_id AND w.state IN ('draining', 'detached')) THEN
        RETURN;
    END IF;

    FOR v_i IN 1 .. cardinality(p_queues) LOOP
        -- One primary-key probe of jobq.queues: a paused queue is skipped from the moment the
        -- pause commits; a queue without a row has no controls.
        SELECT q.paused, q.limited, q.fair,
               jobq._shared_claim_ceiling(q.max_running, q.max_running_per_store, q.max_running_per_partition) AS ceiling,
               q.max_started IS NOT NULL OR q.max_started_per_store IS NOT NULL AS rated
        INTO v_q FROM jobq.queues q WHERE q.name = p_queues[v_i];
        CONTINUE WHEN v_q.paused;
        v_kind := CASE WHEN v_q.limited THEN 'limited' WHEN v_q.fair THEN 'fair' ELSE 'plain' END;
        v_take := v_left;
        v_shared := false;
        IF v_q.limited AND NOT v_limits_locked THEN
            -- A small claim far below the limits is shared (jobq._shared_claim_slot), as is every
            -- later claim of a transaction whose shared claims took jobs of the queue: one shared
            -- batch in all (jobq._shared_claim_taken). The first limited queue listed decides.
            v_own := jobq._shared_claim_taken(p_queues[v_i]);
            IF v_own > 0 THEN
                CONTINUE WHEN v_q.rated OR NOT coalesce(v_q.ceiling > 0, false) OR v_own >= jobq._claim_slot_batch();
                v_shared := true;
            ELSE
                v_shared := jobq._shared_claim_slot(p_queues[v_i], v_q.ceiling, v_q.rated, v_left, p_queues);
            END IF;
            IF v_shared THEN
                v_kind := CASE WHEN v_q.fair THEN 'fair' ELSE 'plain' END;
                v_take := least(v_left, jobq._claim_slot_batch() - v_own);
            END IF;
        END IF;
        IF v_kind = 'limited' OR jobq._claim_locks_held() THEN
            SELECT g.ids, g.clock INTO v_ids, v_clock
            FROM jobq._pick_guarded(v_kind, p_queues[v_i], v_take, p_now, CASE WHEN NOT v_limits_locked THEN p_queues END, p_tasks) AS g;
            v_limits_locked := v_limits_locked OR v_kind = 'limited' OR v_shared;
        ELSIF v_kind = 'fair' THEN
            SELECT f.ids INTO v_ids FROM jobq._pick_fair(p_queues[v_i], v_take, p_now, '{}', NULL, '{}', '{}', p_tasks) AS f;
            v_clock := NULL;
        ELSE
            -- From its position, but a limited queue's shared claim: from its head.
            v_ids := CASE WHEN v_q.limited THEN jobq._pick_plain(p_queues[v_i], NULL, NULL, NULL, v_take, p_now, p_tasks)
                          ELSE jobq._pick_plain(p_queues[v_i], p_after_priority[v_i]::smallint, p_after_run_at[v_i],
                                                p_after_id[v_i], v_take, p_now, p_tasks) END;
            v_clock := NULL;
        END IF;
        v_limits_locked := v_limits_locked OR v_shared;
        CONTINUE WHEN v_ids IS NULL;
        IF v_shared THEN
            -- Counted beside the other slot holders: the first jobs of the pick it leaves room for.
            v_ids := v_ids[1:jobq._shared_claim_room(p_queues[v_i], v_q.ceiling, v_take)];
            CONTINUE WHEN cardinality(v_ids) = 0;
        END IF;
        -- The one update of every claim: each picked job is leased (running, attempt + 1, a fresh
        -- token, a lease until p_now + p_lease, a deadline of its timeout, saturating), and they
        -- come back in claim order, so that the runner takes its positions from the last job of
        -- each queue without knowing the order. A rate-limited pick's jobs started at v_clock.
        RETURN QUERY
        WITH leased AS (
            UPDATE jobq.jobs j
            SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker_id, lease_token = gen_random_uuid(),
                claimed_at = coalesce(v_clock, p_now), heartbeat_at = p_now, lease_expires_at = v_lease_until,
                deadline_at = jobq._ts_add(p_now, j.timeout), updated_at = p_now,
                -- Read in this statement (not v_q): a limit committed before its snapshot is seen
                -- here, so jobq._settle_counted's horizon covers every claim that missed it.
                counted = coalesce((SELECT q.limited FROM jobq.queues q WHERE q.name = p_queues[v_i]), false)
            WHERE j.id = ANY (v_ids)
            RETURNING j.*
        ), receipt AS (
            -- Its receipt: how the sweep and the readers of a worker's jobs find them, since no
            -- index of jobq.jobs holds the running jobs (this update changes no indexed column).
            INSERT INTO jobq.leases (worker_id, job_ids, check_at)
            SELECT p_worker_id, array_agg(l.id), min(least(l.lease_expires_at, l.deadline_at))
            FROM leased l HAVING count(*) > 0
        )
        SELECT * FROM leased l ORDER BY l.priority, l.run_at, l.id;
        GET DIAGNOSTICS v_got = ROW_COUNT;
        IF v_shared AND v_got > 0 THEN
            PERFORM jobq._note_shared_claim(p_queues[v_i], v_got);
        END IF;
        v_left := v_left - v_got;
        EXIT WHEN v_left = 0;
    END LOOP;
END
$$;

ALTER FUNCTION jobq._claim(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_now timestamp with time zone, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._claim(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_now timestamp with time zone, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) IS 'Private. The claim implementation at time p_now; see jobq.claim_job. Checks the arguments (jobq._claim_call_ok, jobq._check_claim_call), refuses REPEATABLE READ and SERIALIZABLE (JOB.CLAIM_ISOLATION), claims nothing for a registered worker that is draining or detached; then queue by queue in the order listed, skipping a paused queue (one jobq.queues primary-key probe each): picks with jobq._pick_limited (a queue with concurrency or rate limits; a claim of at most 16 jobs far below its concurrency limits is shared instead: jobq._shared_claim_slot before the plain or fair pick, jobq._shared_claim_room after it), jobq._pick_fair (a fair queue) or jobq._pick_plain (any other, from its position), guarded by jobq._pick_guarded while the transaction holds a limited queue''s lock, and leases the picked jobs in one update. Returns the claimed jobs queue by queue, each queue''s in claim order. Locks the rows it claims (SKIP LOCKED). Errors: those of jobq.claim_job.';

CREATE FUNCTION jobq._claim_call_ok(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT coalesce(p_worker_id IS NOT NULL AND pg_catalog.btrim(p_worker_id) <> ''
                    AND pg_catalog.char_length(p_worker_id) <= jobq._limit('worker_id')
                    AND jobq._claim_queues_ok(p_queues)
                    AND p_max_jobs BETWEEN 1 AND jobq._limit('batch')
                    AND p_lease > interval '0' AND p_lease <= jobq._limit_interval('lease')
                    -- Positions: none, or one per queue, each all NULL or all set, priorities smallints.
                    AND (num_nulls(p_after_priority, p_after_run_at, p_after_id) = 3
                         OR (pg_catalog.array_ndims(p_after_priority) = 1 AND pg_catalog.array_ndims(p_after_run_at) = 1
                             AND pg_catalog.array_ndims(p_after_id) = 1
                             AND pg_catalog.cardinality(p_after_priority) = pg_catalog.cardinality(p_queues)
                             AND pg_catalog.cardinality(p_after_run_at) = pg_catalog.cardinality(p_queues)
                             AND pg_catalog.cardinality(p_after_id) = pg_catalog.cardinality(p_queues)
                             AND pg_catalog.array_positions(p_after_run_at, NULL) = pg_catalog.array_positions(p_after_priority, NULL)
                             AND pg_catalog.array_positions(p_after_id, NULL) = pg_catalog.array_positions(p_after_priority, NULL)
                             AND -32768 <= ALL (pg_catalog.array_remove(p_after_priority, NULL))
                             AND 32767 >= ALL (pg_catalog.array_remove(p_after_priority, NULL))))
                    -- Tasks: NULL (every task), or a list a claim can match.
                    AND (p_tasks IS NULL
                         OR (pg_catalog.array_ndims(p_tasks) = 1 AND pg_catalog.cardinality(p_tasks) <= jobq._limit('tasks')
                             AND pg_catalog.array_position(p_tasks, NULL) IS NULL)), false)
$$;

ALTER FUNCTION jobq._claim_call_ok(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._claim_call_ok(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) IS 'Private. True when every argument of a claim is within its limits (those jobq._check_claim_call checks); false otherwise, never NULL, raises nothing. Inlined. Caller: jobq._claim, which calls jobq._check_claim_call only when it is false.';

CREATE FUNCTION jobq._claim_locks_held() RETURNS boolean
    LANGUAGE sql STABLE
    AS $$ SELECT pg_catalog.current_setting('jobq.claim_locks_held', true) IS NOT DISTINCT FROM 'held' $$;

ALTER FUNCTION jobq._claim_locks_held() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._claim_locks_held() IS 'Private. True when the transaction-local setting jobq.claim_locks_held is held: a claim of this transaction took a limited queue''s advisory lock (1785684593, hashtext(queue)), shared or exclusive. Callers: jobq._lock_limited_queues, jobq._shared_claim_room, which then only try locks. Reads nothing else.';

CREATE FUNCTION jobq._claim_queues_ok(p_queues text[]) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT coalesce(pg_catalog.array_ndims(p_queues) = 1
                    AND pg_catalog.cardinality(p_queues) <= jobq._limit('queues')
                    AND pg_catalog.array_position(p_queues, NULL) IS NULL
                    AND pg_catalog.char_length(pg_catalog.array_to_string(p_queues, '')) <= jobq._limit('queue'), false)
$$;

ALTER FUNCTION jobq._claim_queues_ok(p_queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._claim_queues_ok(p_queues text[]) IS 'Private. True when p_queues is a one-dimensional array of at most 1000 names without NULLs whose names together have at most 200 characters, a list jobq._check_claim_queues passes; false otherwise, never NULL, raises nothing. Inlined. Callers: jobq._claim, jobq.claim_passed_over, jobq.hold_doorbell, jobq.doorbell_quiet, jobq.release_doorbell, which call jobq._check_claim_queues only when it is false.';

CREATE FUNCTION jobq._claim_slot_batch() RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT 16 $$;

ALTER FUNCTION jobq._claim_slot_batch() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._claim_slot_batch() IS 'Private. 16: the largest batch a claim holding a slot of a limited queue takes (jobq._shared_claim_slot). Callers: jobq._shared_claim_ceiling, jobq._shared_claim_slot, jobq._pick_limited.';

CREATE FUNCTION jobq._claim_slots() RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT 8 $$;

ALTER FUNCTION jobq._claim_slots() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._claim_slots() IS 'Private. 8: how many claims of one limited queue may hold a slot at once (jobq._shared_claim_slot), counting and claiming side by side. Callers: jobq._shared_claim_slot, jobq._shared_claim_ceiling.';

CREATE FUNCTION jobq._count_live_jobs(p_now timestamp with time zone) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET jit TO 'off'
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

ALTER FUNCTION jobq._count_live_jobs(p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._count_live_jobs(p_now timestamp with time zone) IS 'Private. Counts every live job into jobq.live_counts (jobq._live_groups of every queue and store, due at p_now) and records the time, duration (clamped to 0..1 hour, whatever the clock does) and total in jobq.live_counts_taken, when the last count is after p_now or older than jobq._live_count_wait of its duration and the live jobs (as last counted, or pg_class.reltuples of jobq.jobs) number at least half of stats_cached_above; otherwise, or while another count holds the row of jobq.live_counts_taken (SKIP LOCKED), does nothing. Returns whether it counted. Caller: jobq._maintain. Reads every live job (no JIT); locks the row of jobq.live_counts_taken until commit.';

CREATE FUNCTION jobq._cover_running_jobs() RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_after xid8;
    v_n bigint := 0::bigint;
    v_snap constant pg_snapshot := pg_current_snapshot();
BEGIN
    SELECT r.after INTO v_after FROM jobq.leases_recheck r WHERE r.singleton FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN v_n;
    END IF;
    IF v_after IS NULL THEN
        UPDATE jobq.leases_recheck AS r SET after = pg_snapshot_xmax(v_snap) WHERE r.singleton;
    ELSIF pg_snapshot_xmin(v_snap) >= v_after AND NOT jobq._snapshot_older_than(v_after) THEN
        v_n := jobq._write_missing_receipts();
        DELETE FROM jobq.leases_recheck AS r WHERE r.singleton;
    END IF;
    RETURN v_n;
END
$$;

ALTER FUNCTION jobq._cover_running_jobs() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._cover_running_jobs() IS 'Private. While jobq.leases_recheck has its row: the first call records pg_snapshot_xmax of its snapshot there; a call whose snapshot''s xmin has reached it, while no backend holds a snapshot older than it (jobq._snapshot_older_than), writes one jobq.leases row per worker for its running jobs that no row of that worker lists, and deletes the recheck row. Returns the rows written. Never waits (SKIP LOCKED). Caller: jobq._maintain.';

CREATE FUNCTION jobq._cron_field(p_field text, p_name text, p_lo integer, p_hi integer, p_names text[]) RETURNS integer[]
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    v_item text;
    v_base text;
    v_step integer;
    v_from integer;
    v_to integer;
    v_values integer[] := '{}'::integer[];
    v_parts text[];
BEGIN
    IF p_field IS NULL OR p_field = '' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field is empty', p_name));
    END IF;
    FOREACH v_item IN ARRAY string_to_array(upper(p_field), ',') LOOP
        v_parts := string_to_array(v_item, '/');
        IF cardinality(v_parts) > 2 OR v_parts[1] = '' THEN
            PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field item %L is not *, a value, a range or a step', p_name, v_item));
        END IF;
        v_base := v_parts[1];
        v_step := 1;
        IF cardinality(v_parts) = 2 THEN
            IF v_parts[2] !~ '^[0-9]{1,4}$' OR v_parts[2]::integer = 0 THEN
                PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field step %L must be a positive number', p_name, v_parts[2]));
            END IF;
            v_step := v_parts[2]::integer;
        END IF;

        IF v_base IN ('*', '?') THEN
            IF v_base = '?' AND p_name NOT IN ('day-of-month', 'day-of-week') THEN
                PERFORM jobq._raise('JOB.INVALID_CRON', format('? is only allowed in the day fields, not in %s', p_name));
            END IF;
            v_from := p_lo;
            v_to := p_hi;
        ELSE
            v_parts := string_to_array(v_base, '-');
            IF cardinality(v_parts) > 2 THEN
                PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field range %L has more than one -', p_name, v_item));
            END IF;
            v_from := jobq._cron_value(v_parts[1], p_name, p_lo, p_hi, p_names);
            IF cardinality(v_parts) = 2 THEN
                v_to := jobq._cron_value(v_parts[2], p_name, p_lo, p_hi, p_names);
            ELSIF cardinality(string_to_array(v_item, '/')) = 2 THEN
                v_to := p_hi;   -- a/n means a-max/n
            ELSE
                v_to := v_from;
            END IF;
            IF v_from > v_to THEN
                PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field range %L runs backwards', p_name, v_item));
            END IF;
        END IF;
        v_values := v_values || ARRAY(SELECT g FROM generate_series(v_from, v_to, v_step) AS g);
    END LOOP;
    RETURN ARRAY(SELECT DISTINCT v FROM unnest(v_values) AS v ORDER BY v);
END
$_$;

ALTER FUNCTION jobq._cron_field(p_field text, p_name text, p_lo integer, p_hi integer, p_names text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._cron_field(p_field text, p_name text, p_lo integer, p_hi integer, p_names text[]) IS 'Private. The sorted values a cron field matches (p_lo..p_hi); raises JOB.INVALID_CRON naming the field.';

CREATE FUNCTION jobq._cron_instant(p_at timestamp with time zone, p_name text) RETURNS timestamp with time zone
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF p_at IS NULL OR NOT isfinite(p_at) OR p_at < '1970-01-01 00:00:00+00'::timestamptz
       OR p_at >= '10000-01-01 00:00:00+00'::timestamptz THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('%s is %s; it must be an instant from 1970-01-01 00:00 UTC to before 10000-01-01 00:00 UTC',
                   p_name, coalesce(p_at::text, 'NULL')));
    END IF;
    RETURN p_at;
END
$$;

ALTER FUNCTION jobq._cron_instant(p_at timestamp with time zone, p_name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._cron_instant(p_at timestamp with time zone, p_name text) IS 'Private. Returns p_at when it is finite and in [1970-01-01, 10000-01-01) UTC, the range cron evaluates; raises JOB.INVALID_ARGUMENT naming p_name otherwise. Pure.';

CREATE FUNCTION jobq._cron_local_next(p_fields jobq.cron_fields, p_from timestamp without time zone, p_limit timestamp without time zone) RETURNS timestamp without time zone
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_t timestamp := p_from;
    v_next integer;
    v_dom_ok boolean;
    v_dow_ok boolean;
BEGIN
    -- Every turn moves v_t forward by at least a minute, and to the next month, day, hour or
    -- matching minute when the current one fails: at most a few turns per day up to p_limit.
    WHILE v_t <= p_limit LOOP
        IF NOT extract(month FROM v_t)::integer = ANY (p_fields.months) THEN
            v_t := date_trunc('month', v_t) + interval '1 month';
            CONTINUE;
        END IF;
        v_dom_ok := extract(day FROM v_t)::integer = ANY (p_fields.days);
        v_dow_ok := extract(dow FROM v_t)::integer = ANY (p_fields.dows);
        IF NOT (CASE WHEN p_fields.any_day OR p_fields.any_dow THEN v_dom_ok AND v_dow_ok ELSE v_dom_ok OR v_dow_ok END) THEN
            v_t := date_trunc('day', v_t) + interval '1 day';
            CONTINUE;
        END IF;
        IF NOT extract(hour FROM v_t)::integer = ANY (p_fields.hours) THEN
            SELECT min(h) INTO v_next FROM unnest(p_fields.hours) AS h WHERE h > extract(hour FROM v_t)::integer;
            v_t := CASE WHEN v_next IS NULL THEN date_trunc('day', v_t) + interval '1 day'
                        ELSE date_trunc('day', v_t) + make_interval(hours => v_next) END;
            CONTINUE;
        END IF;
        IF NOT extract(minute FROM v_t)::integer = ANY (p_fields.minutes) THEN
            SELECT min(m) INTO v_next FROM unnest(p_fields.minutes) AS m WHERE m > extract(minute FROM v_t)::integer;
            v_t := CASE WHEN v_next IS NULL THEN date_trunc('hour', v_t) + interval '1 hour'
                        ELSE date_trunc('hour', v_t) + make_interval(mins => v_next) END;
            CONTINUE;
        END IF;
        RETURN v_t;
    END LOOP;
    RETURN NULL;
END
$$;

ALTER FUNCTION jobq._cron_local_next(p_fields jobq.cron_fields, p_from timestamp without time zone, p_limit timestamp without time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._cron_local_next(p_fields jobq.cron_fields, p_from timestamp without time zone, p_limit timestamp without time zone) IS 'Private to jobq._cron_next. The first wall-clock time at or after p_from (a whole minute) matching the parsed fields, NULL when none by p_limit. Pure.';

CREATE FUNCTION jobq._cron_next(p_fields jobq.cron_fields, p_after timestamp with time zone, p_timezone text) RETURNS timestamp with time zone
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_every_hour constant boolean := cardinality(p_fields.hours) = 24;
    v_end constant timestamptz := least(
        ((jobq._cron_instant(p_after, 'the instant') AT TIME ZONE 'UTC') + interval '10 years') AT TIME ZONE 'UTC',
        '10000-01-01 00:00:00+00'::timestamptz);
    -- Local times beyond this are instants beyond v_end (offsets are within a day).
    v_local_limit constant timestamp := (v_end AT TIME ZONE 'UTC') + interval '26 hours';
    v_u timestamptz := p_after;   -- the walk is here
    v_incl boolean := false;      -- whether v_u itself may be the answer
    v_best timestamptz;           -- the slot of a matching local time in a gap, once found
    v_local timestamp;
    v_off interval;
    v_l timestamp;
    v_c timestamptz;
    v_probe timestamptz;
    v_prev_off interval;
    v_lo timestamptz;
    v_hi timestamptz;
    v_span bigint;
    v_mid timestamptz;
BEGIN
    -- Bounded: every turn returns, or moves v_u forward past a change of offset, a repeated
    -- local time, or to two days before the next match; a few dozen turns at most in practice.
    FOR v_turn IN 1..10000 LOOP
        IF v_best IS NOT NULL AND v_u >= v_best THEN
            EXIT;
        END IF;
        v_local := v_u AT TIME ZONE p_timezone;
        v_off := v_local - (v_u AT TIME ZONE 'UTC');
        -- Just after clocks went forward, the slots of matching local times in the gap (each at
        -- its time with the offset of before, so within the gap's length after the change) may
        -- still be ahead: the first such local time after v_u read with that offset.
        v_prev_off := ((v_u - interval '48 hours') AT TIME ZONE p_timezone) - ((v_u - interval '48 hours') AT TIME ZONE 'UTC');
        IF v_prev_off < v_off THEN
            v_l := (v_u AT TIME ZONE 'UTC') + v_prev_off;
            v_l := jobq._cron_local_next(p_fields,
                CASE WHEN v_incl AND v_l = date_trunc('minute', v_l) THEN v_l ELSE date_trunc('minute', v_l) + interval '1 minute' END,
                v_local);
            -- A local time that does not exist reads (in PostgreSQL) with the offset of before.
            IF v_l IS NOT NULL AND ((v_l AT TIME ZONE p_timezone) AT TIME ZONE p_timezone) <> v_l THEN
                v_best := least(v_best, v_l AT TIME ZONE p_timezone);
            END IF;
        END IF;
        v_l := jobq._cron_local_next(p_fields,
            CASE WHEN v_incl AND v_local = date_trunc('minute', v_local) THEN v_local
                 ELSE date_trunc('minute', v_local) + interval '1 minute' END,
            v_local_limit);
        EXIT WHEN v_l IS NULL;
        v_c := (v_l - v_off) AT TIME ZONE 'UTC';
        -- Absolute hours, never days: timestamptz + '1 day' would follow the session's time zone.
        v_probe := least(v_c, v_u + interval '48 hours');
        IF (v_probe AT TIME ZONE p_timezone) - (v_probe AT TIME ZONE 'UTC') = v_off THEN
            IF v_probe < v_c THEN
                -- No match before v_c in this offset, and no change of offset within two days of
                -- v_u: nothing matches before two days ahead of v_c.
                v_u := v_c - interval '48 hours';
                v_incl := true;
                CONTINUE;
            END IF;
            -- v_c is an instant with wall-clock time v_l. When clocks went back shortly before it
            -- and v_l happened already then, v_c is its second pass: no slot when the hour is fixed.
            IF NOT v_every_hour THEN
                v_prev_off := ((v_c - interval '48 hours') AT TIME ZONE p_timezone) - ((v_c - interval '48 hours') AT TIME ZONE 'UTC');
                IF v_prev_off > v_off AND (((v_l - v_prev_off) AT TIME ZONE 'UTC') AT TIME ZONE p_timezone) = v_l THEN
                    v_u := v_c;
                    v_incl := false;
                    CONTINUE;
                END IF;
            END IF;
            v_best := least(v_best, v_c);
            EXIT;
        END IF;

        -- The offset changes in (v_u, v_probe]: find the first instant of the new offset.
        v_lo := v_u;
        v_hi := v_probe;
        LOOP
            v_span := ((extract(epoch FROM v_hi) - extract(epoch FROM v_lo)) * 1000000)::bigint;
            EXIT WHEN v_span <= 1;
            v_mid := v_lo + (v_span / 2) * interval '1 microsecond';
            IF (v_mid AT TIME ZONE p_timezone) - (v_mid AT TIME ZONE 'UTC') = v_off THEN
                v_lo := v_mid;
            ELSE
                v_hi := v_mid;
            END IF;
        END LOOP;
        -- Clocks go forward at v_hi: local times [v_hi + v_off, v_hi + new offset) do not exist.
        -- v_l (at or after the gap's start) is the first matching one if it lies in the gap; it
        -- runs at v_c, with the offset of before the change.
        IF v_l < (v_hi AT TIME ZONE p_timezone) THEN
            v_best := least(v_best, v_c);
        END IF;
        v_u := v_hi;
        v_incl := true;
    END LOOP;
    IF v_best IS NULL OR v_best > v_end OR v_best >= '10000-01-01 00:00:00+00'::timestamptz THEN
        RETURN NULL;
    END IF;
    RETURN v_best;
END
$$;

ALTER FUNCTION jobq._cron_next(p_fields jobq.cron_fields, p_after timestamp with time zone, p_timezone text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._cron_next(p_fields jobq.cron_fields, p_after timestamp with time zone, p_timezone text) IS 'Private. The first slot of parsed cron fields strictly after p_after in time zone p_timezone (every instant whose wall-clock time matches; a local time in a DST gap runs once just after it; a repeated local time runs twice when the hour field is every hour, else once at its first occurrence); NULL when none within ten years or before 10000-01-01 UTC. Pure. Errors: JOB.INVALID_ARGUMENT when p_after is not finite or outside [1970-01-01, 10000-01-01).';

CREATE FUNCTION jobq._cron_value(p_text text, p_name text, p_lo integer, p_hi integer, p_names text[]) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    v_value integer;
BEGIN
    IF p_text IS NULL OR p_text = '' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field has an empty value (two commas or a dangling -?)', p_name));
    ELSIF p_text ~ '^[0-9]{1,4}$' THEN
        v_value := p_text::integer;
    ELSIF p_names IS NOT NULL AND array_position(p_names, p_text) IS NOT NULL THEN
        v_value := p_lo + array_position(p_names, p_text) - 1;
    ELSE
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field value %L is not a number%s', p_name, p_text,
            CASE WHEN p_names IS NULL THEN '' ELSE ' or a name' END));
    END IF;
    -- 7 is Sunday too.
    IF p_name = 'day-of-week' AND v_value = 7 THEN
        RETURN 7;
    END IF;
    IF v_value < p_lo OR v_value > p_hi THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field value %s is outside %s-%s', p_name, v_value, p_lo, p_hi));
    END IF;
    RETURN v_value;
END
$_$;

ALTER FUNCTION jobq._cron_value(p_text text, p_name text, p_lo integer, p_hi integer, p_names text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._cron_value(p_text text, p_name text, p_lo integer, p_hi integer, p_names text[]) IS 'Private. One cron field value: a number within range or a name; raises JOB.INVALID_CRON.';

CREATE FUNCTION jobq._done_silent() RETURNS boolean
    LANGUAGE sql
    AS $$
    SELECT CASE
        WHEN NOT pg_catalog.pg_try_advisory_lock(1785790468, 0) THEN false
        -- A shared can fail only while someone checks done_quiet without holding B: not silent
        -- then, and B let go all the same (its unlock says true, so this says false).
        WHEN NOT pg_catalog.pg_try_advisory_xact_lock_shared(1785790467, 0) THEN NOT pg_catalog.pg_advisory_unlock(1785790468, 0)
        -- B is session-level, so it is let go now rather than at commit: an awaiter trying to
        -- hold it meanwhile would fail.
        ELSE pg_catalog.pg_advisory_unlock(1785790468, 0)
    END
$$;

ALTER FUNCTION jobq._done_silent() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._done_silent() IS 'Private. The done doorbell''s probe: tries the advisory lock (1785790468, 0) exclusively and, when it got it, takes (1785790467, 0) shared until the transaction ends, then lets (1785790468, 0) go. True (silent: no client awaits a result) when both were taken; false when (1785790468, 0) is held by an awaiter (jobq.hold_done_doorbell) or (1785790467, 0) by a session checking jobq.done_quiet. Never waits; inlined. Caller: jobq._tell_done.';

CREATE FUNCTION jobq._doorbell_silent(p_queue text) RETURNS boolean
    LANGUAGE sql
    AS $$
    SELECT CASE
        WHEN NOT pg_catalog.pg_try_advisory_xact_lock_shared(1785790465, pg_catalog.hashtext(p_queue)) THEN false
        -- B is session-level, so it is let go now rather than at commit: a runner trying to
        -- hold it meanwhile would fail.
        WHEN NOT pg_catalog.pg_try_advisory_lock(1785790466, pg_catalog.hashtext(p_queue)) THEN false
        ELSE pg_catalog.pg_advisory_unlock(1785790466, pg_catalog.hashtext(p_queue))
    END
$$;

ALTER FUNCTION jobq._doorbell_silent(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._doorbell_silent(p_queue text) IS 'Private. The doorbell''s probe for queue p_queue: takes the advisory lock (1785790465, hashtext(queue)) shared until the transaction ends, without waiting, then tries (1785790466, hashtext(queue)) and lets it go at once. True (silent: no runner of the queue waits) when both were taken; false when either is held by someone else (a runner waits, or checks jobq.doorbell_quiet this very moment). Never waits; inlined. Caller: jobq._wake_as.';

CREATE FUNCTION jobq._enqueue(p_specs jobq.job_spec[], p_label_index boolean) RETURNS TABLE(ord bigint, job_id bigint)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._enqueue(p_specs jobq.job_spec[], p_label_index boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._enqueue(p_specs jobq.job_spec[], p_label_index boolean) IS 'Private. The one enqueue implementation behind jobq.enqueue and jobq.enqueue_many for what their fast path does not take, and behind cron slots (jobq._run_schedule): validates (JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, JOB.VALUE_TOO_LONG, JOB.OUT_OF_RANGE, JOB.PAYLOAD_TOO_LARGE, ...), resolves tasks (JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, JOB.STORE_REQUIRED, JOB.STORE_NOT_ALLOWED), checks the caller (JOB.TENANT_MISMATCH, JOB.STORE_NOT_BOUND, JOB.NOT_ALLOWED), then inserts through jobq._insert_specs (which jobq.fan_out''s private half calls directly). Writes nothing when it raises. Returns (ord, job_id) for every input position.';

CREATE FUNCTION jobq._enqueue_due_slots(p_now timestamp with time zone, p_max_schedules integer DEFAULT 100) RETURNS TABLE(schedule text, slot_at timestamp with time zone, outcome text, reason text, job_id bigint)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._enqueue_due_slots(p_now timestamp with time zone, p_max_schedules integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._enqueue_due_slots(p_now timestamp with time zone, p_max_schedules integer) IS 'Private to jobq.maintain. Handles the due slots of at most p_max_schedules enabled, unpaused schedules at time p_now (SKIP LOCKED); a schedule whose job the engine refuses is skipped (reason error) without stopping the others; one whose next slot cannot be computed (its zone unknown) stops (next_slot_at NULL) until declared again.';

CREATE FUNCTION jobq._enqueue_for_stores(p_task text, p_payload jsonb, p_job_key_template text, p_job_key_mode text, p_run_at timestamp with time zone, p_store_ids uuid[]) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_task jobq.tasks;
    v_problem text;
BEGIN
    SELECT * INTO v_task FROM jobq.tasks t WHERE t.name = p_task;
    IF v_task.name IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', p_task));
    ELSIF v_task.scope <> 'store' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('fan_out needs a store-scoped task; %s is a system task', p_task));
    END IF;
    IF p_payload IS NULL OR jsonb_typeof(p_payload) <> 'object' THEN
        PERFORM jobq._raise('JOB.PAYLOAD_NOT_OBJECT', 'the fan-out payload must be a JSON object');
    END IF;
    -- Bounds (00023): the payload's size, and a template whose keys fit the job_key limit once
    -- {storeId} (9 characters) becomes a uuid (36).
    PERFORM jobq._check_payload('payload', p_payload);
    PERFORM jobq._check_text('job_key_template', p_job_key_template, (jobq._limit('job_key') - 27)::integer);
    PERFORM jobq._check_timestamp('run_at', p_run_at);
    IF p_job_key_template IS NOT NULL AND position('{storeId}' IN p_job_key_template) = 0 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('job_key_template %L must contain {storeId}, or every store would share one key', p_job_key_template));
    END IF;
    -- Every job gets the same payload but for its storeId: the contract is checked once, on the
    -- payload with a storeId, and the task's defaults are applied here, so the 10,000 specs of a
    -- large fan-out skip the per-spec resolution of jobq._enqueue.
    v_problem := jobq.payload_problem(v_task.payload_schema,
                                      p_payload || jsonb_build_object('storeId', '00000000-0000-4000-8000-000000000000'));
    IF v_problem IS NOT NULL THEN
        PERFORM jobq._raise('JOB.PAYLOAD_INVALID', format('task %s: %s', p_task, v_problem));
    END IF;

    RETURN (
        SELECT count(*)::integer
        FROM jobq._insert_specs(ARRAY(
            SELECT ROW(p_task, p_payload || jsonb_build_object('storeId', s.id), v_task.queue, p_run_at, v_task.priority,
                       v_task.max_attempts, replace(coalesce(p_job_key_template, p_task || ':{storeId}'), '{storeId}', s.id::text),
                       p_job_key_mode, s.id, v_task.timeout, v_task.backoff_base, v_task.backoff_max, NULL)::jobq.job_spec
            FROM unnest(p_store_ids) AS s(id)
            WHERE s.id IS NOT NULL
            ORDER BY s.id), true));
END
$$;

ALTER FUNCTION jobq._enqueue_for_stores(p_task text, p_payload jsonb, p_job_key_template text, p_job_key_mode text, p_run_at timestamp with time zone, p_store_ids uuid[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._enqueue_for_stores(p_task text, p_payload jsonb, p_job_key_template text, p_job_key_mode text, p_run_at timestamp with time zone, p_store_ids uuid[]) IS 'Private to jobq.fan_out, which calls it as their owner jobq_migrator: no runtime role may execute it, so worker_runtime cannot enqueue store jobs for store ids of its own choosing outside a tenant transaction. Enqueues store-scoped task p_task once per store, payload plus {"storeId": ...}, job key from the template (NULL: <task>:{storeId}). Returns the number of jobs.';

CREATE FUNCTION jobq._enqueue_keyed(p_specs jobq.job_spec[]) RETURNS TABLE(store_key uuid, job_key text, job_id bigint)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._enqueue_keyed(p_specs jobq.job_spec[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._enqueue_keyed(p_specs jobq.job_spec[]) IS 'Private. Enqueues specs with a job_key, each under its own mode (replace, preserve_run_at, unsafe_dedupe), race-free and deadlock-free; specs must be complete (defaults applied) and unique per (store, key). A spec with unique_for takes the job of its key and store enqueued (created_at) within the window, live in any state or finished (jobq.job_history, through job_history_job_key_idx), and writes nothing for it; race-free too, also when that job finished while this insert waited on it (the row inserted then is deleted again, unseen). Locks the keyed rows it inserts or merges. Returns (store_key, job_key, job_id) per key.';

CREATE TABLE jobq.tasks (
    name text NOT NULL,
    scope text DEFAULT 'system'::text NOT NULL,
    payload_schema jsonb DEFAULT '{}'::jsonb NOT NULL,
    max_attempts integer,
    queue text,
    priority smallint,
    timeout interval,
    backoff_base interval,
    backoff_max interval,
    description text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    app_enqueue boolean DEFAULT false NOT NULL,
    handler text,
    operator_set text[] DEFAULT '{}'::text[] NOT NULL,
    CONSTRAINT tasks_backoff_base_check CHECK ((backoff_base > '00:00:00'::interval)),
    CONSTRAINT tasks_backoff_max_check CHECK ((backoff_max > '00:00:00'::interval)),
    CONSTRAINT tasks_handler_check CHECK (((handler IS NULL) OR ((btrim(handler) <> ''::text) AND (char_length(handler) <= 100)))),
    CONSTRAINT tasks_max_attempts_check CHECK ((max_attempts >= 1)),
    CONSTRAINT tasks_name_check CHECK (((name ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$'::text) AND (length(name) <= 100))),
    CONSTRAINT tasks_operator_set_check CHECK ((operator_set <@ ARRAY['app_enqueue'::text])),
    CONSTRAINT tasks_payload_schema_check CHECK ((jsonb_typeof(payload_schema) = 'object'::text)),
    CONSTRAINT tasks_queue_check CHECK ((queue <> ''::text)),
    CONSTRAINT tasks_scope_check CHECK ((scope = ANY (ARRAY['system'::text, 'store'::text]))),
    CONSTRAINT tasks_timeout_check CHECK ((timeout > '00:00:00'::interval))
);

ALTER TABLE jobq.tasks OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.tasks IS 'The task registry: name (kebab-case), scope (system or store), payload contract and defaults. Written by jobq.define_task.';

COMMENT ON COLUMN jobq.tasks.app_enqueue IS 'System tasks only: whether application logins (restricted callers of the gate functions) may enqueue it. Default false.';

COMMENT ON COLUMN jobq.tasks.handler IS 'The name of the handler that runs the task (NULL: the task''s own name). A name only: each worker''s configuration maps names to what it runs. Written by jobq.set_task_handler (operators) only.';

COMMENT ON COLUMN jobq.tasks.operator_set IS 'The fields an operator control fixed (app_enqueue): a runner''s declaration (jobq.define_task by a caller without jobq_operator''s rights) keeps their values.';

CREATE FUNCTION jobq._enqueue_takes_fast_path(p_spec jobq.job_spec, p_task jobq.tasks) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT jobq._enqueue_takes_fast_path_as(p_spec, p_task, jobq._caller_is_restricted(), jobq._caller_is_operator(),
                                            jobq.current_store_id())
$$;

ALTER FUNCTION jobq._enqueue_takes_fast_path(p_spec jobq.job_spec, p_task jobq.tasks) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._enqueue_takes_fast_path(p_spec jobq.job_spec, p_task jobq.tasks) IS 'Private. Whether jobq.enqueue may insert a spec directly: it has no job_key and no check of jobq._enqueue (_validate_specs, _resolve_tasks against p_task, NULL when undeclared, _check_tenant) would refuse it; otherwise it hands it to jobq._enqueue, which raises or merges. jobq._enqueue_takes_fast_path_as for the caller of the statement. Raises nothing, locks nothing; inlined. Caller: jobq.enqueue.';

CREATE FUNCTION jobq._enqueue_takes_fast_path_as(p_spec jobq.job_spec, p_task jobq.tasks, p_restricted boolean, p_operator boolean, p_session_store uuid) RETURNS boolean
    LANGUAGE sql STABLE
    AS $_$
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
$_$;

ALTER FUNCTION jobq._enqueue_takes_fast_path_as(p_spec jobq.job_spec, p_task jobq.tasks, p_restricted boolean, p_operator boolean, p_session_store uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._enqueue_takes_fast_path_as(p_spec jobq.job_spec, p_task jobq.tasks, p_restricted boolean, p_operator boolean, p_session_store uuid) IS 'Private. Whether a spec may be inserted directly, the caller being as given: it has no job_key and no check of jobq._enqueue (_validate_specs, _resolve_tasks against p_task, NULL when undeclared, _check_tenant with the caller p_restricted (jobq._caller_is_restricted()), p_operator (jobq._caller_is_operator()) and of store p_session_store (jobq.current_store_id())) would refuse it. Raises nothing, locks nothing; inlined. Callers: jobq._enqueue_takes_fast_path, jobq.enqueue_many (the facts read once a batch, the store in a sub-select read only when a store job needs it).';

CREATE FUNCTION jobq._fail_attempts(p_now timestamp with time zone, p_ids bigint[], p_errors text[], p_codes text[], p_retryable boolean[], p_retry_in interval[], p_reasons text[], p_outputs text[], p_log_refs text[], p_exit_codes integer[] DEFAULT NULL::integer[]) RETURNS TABLE(job_id bigint, outcome text, run_at timestamp with time zone, reason text, task text, queue text, store_id uuid, attempt integer, locked_by text)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_base constant interval := jobq._setting_interval('backoff_base');
    v_max constant interval := jobq._setting_interval('backoff_max');
    v_epoch constant bigint := (SELECT l.epoch FROM jobq.leader l WHERE l.singleton);
BEGIN
    RETURN QUERY
    WITH input AS (
        SELECT f.id, f.err, f.code, coalesce(f.retryable, true) AS retryable, f.retry_in,
               coalesce(f.why, 'error') AS why, f.output, f.log_ref, f.exit_code
        FROM unnest(p_ids, p_errors, p_codes, p_retryable, p_retry_in, p_reasons, p_outputs, p_log_refs, p_exit_codes)
             AS f(id, err, code, retryable, retry_in, why, output, log_ref, exit_code)
    ), prior AS (
        -- The progress of each attempt before the statement clears it (the statement's snapshot).
        SELECT j.id, j.progress FROM jobq.jobs j WHERE j.id = ANY (p_ids)
    ), dead AS (
        -- Running, through the lease columns, so that only the primary key serves (a partial
        -- index of running jobs holds every job that ran since the last vacuum).
        DELETE FROM jobq.jobs AS j
        USING input f
        WHERE j.id = ANY (p_ids) AND j.id = f.id AND j.locked_by IS NOT NULL AND j.lease_expires_at IS NOT NULL
          AND (NOT f.retryable OR j.attempt >= j.max_attempts)
        RETURNING j AS job, f.err, f.code, f.output, f.log_ref, f.exit_code,
                  CASE WHEN NOT f.retryable THEN 'not_retryable' WHEN f.why = 'error' THEN 'exhausted' ELSE f.why END AS why
    ), buried AS (
        INSERT INTO jobq.job_history
        SELECT h.* FROM dead CROSS JOIN LATERAL jobq._to_history(dead.job, 'dead', dead.why, dead.err, dead.code, dead.output,
            dead.log_ref, dead.exit_code, v_epoch) AS h
        RETURNING jobq.job_history.id, jobq.job_history.reason, jobq.job_history.task, jobq.job_history.queue,
                  jobq.job_history.store_id, jobq.job_history.attempt, jobq.job_history.locked_by
    ), retried AS (
        UPDATE jobq.jobs AS j
        SET state            = 'retry_pending',
            counted          = false,
            run_at           = CASE WHEN f.retry_in IS NOT NULL THEN jobq._ts_add(p_now, f.retry_in)
                                    ELSE jobq._retry_at(p_now, j.attempt, coalesce(j.backoff_base, v_base), coalesce(j.backoff_max, v_max))
                               END,
            lease_token      = NULL,
            lease_expires_at = NULL,
            deadline_at      = NULL,
            reason           = f.why,
            last_error       = f.err,
            error_code       = f.code,
            progress         = NULL,
            updated_at       = p_now
        FROM input f
        LEFT JOIN prior p ON p.id = f.id
        WHERE j.id = ANY (p_ids) AND j.id = f.id AND j.locked_by IS NOT NULL AND j.lease_expires_at IS NOT NULL
          AND f.retryable AND j.attempt < j.max_attempts
        RETURNING j.id, j.run_at, j.attempt, j.store_id, j.task, j.queue, j.locked_by, j.claimed_at, f.err, f.code,
                  f.why, f.output, f.log_ref, f.exit_code, p.progress
    ), failed AS (
        -- Every failed lease, dead or retried, is one attempt row (jobq.job_attempts).
        SELECT (d.job).id, (d.job).attempt, (d.job).store_id, (d.job).task, (d.job).queue, (d.job).locked_by,
               (d.job).claimed_at, d.why AS reason, d.err, d.code, d.output, d.log_ref, d.exit_code, (d.job).progress
        FROM dead d
        UNION ALL
        SELECT r.id, r.attempt, r.store_id, r.task, r.queue, r.locked_by, r.claimed_at, r.why, r.err, r.code, r.output, r.log_ref,
               r.exit_code, r.progress
        FROM retried r
    ), recorded AS (
        INSERT INTO jobq.job_attempts AS a (job_id, attempt, store_id, task, queue, worker, started_at, ended_at, reason, error, error_code,
                                            output, log_ref, progress, exit_code, leader_epoch)
        SELECT x.id, x.attempt, x.store_id, x.task, x.queue, x.locked_by, x.claimed_at, p_now, x.reason, x.err, x.code,
               x.output, x.log_ref, x.progress, x.exit_code, v_epoch
        FROM failed x
        ON CONFLICT ON CONSTRAINT job_attempts_pkey DO UPDATE
        SET store_id = EXCLUDED.store_id, task = EXCLUDED.task, queue = EXCLUDED.queue, worker = EXCLUDED.worker,
            started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at, reason = EXCLUDED.reason,
            error = EXCLUDED.error, error_code = EXCLUDED.error_code, output = EXCLUDED.output, log_ref = EXCLUDED.log_ref,
            progress = EXCLUDED.progress, exit_code = EXCLUDED.exit_code, leader_epoch = EXCLUDED.leader_epoch
        RETURNING a.job_id
    ), trimmed AS (
        -- The bound: the newest 25 attempts of a job (24 older ones beside the row just written).
        DELETE FROM jobq.job_attempts AS a
        WHERE a.ctid = ANY (ARRAY(
            SELECT o.ctid FROM failed x
            CROSS JOIN LATERAL (
                SELECT o.ctid FROM jobq.job_attempts o
                WHERE o.job_id = x.id AND o.attempt <> x.attempt
                ORDER BY o.ended_at DESC, o.attempt DESC
                OFFSET 24
            ) o))
        RETURNING a.job_id
    )
    SELECT b.id, 'dead'::text, NULL::timestamptz, b.reason, b.task, b.queue, b.store_id, b.attempt, b.locked_by FROM buried b
    UNION ALL
    SELECT r.id, 'retry_pending'::text, r.run_at, r.why, r.task, r.queue, r.store_id, r.attempt, r.locked_by FROM retried r;
END
$$;

ALTER FUNCTION jobq._fail_attempts(p_now timestamp with time zone, p_ids bigint[], p_errors text[], p_codes text[], p_retryable boolean[], p_retry_in interval[], p_reasons text[], p_outputs text[], p_log_refs text[], p_exit_codes integer[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._fail_attempts(p_now timestamp with time zone, p_ids bigint[], p_errors text[], p_codes text[], p_retryable boolean[], p_retry_in interval[], p_reasons text[], p_outputs text[], p_log_refs text[], p_exit_codes integer[]) IS 'Private. The fail-or-retry transition at time p_now of the running jobs p_ids, whose rows the caller locked after matching their leases: each dies (jobq.job_history, reason not_retryable when p_retryable[i] is false, exhausted for a reason of error, else p_reasons[i]) when not retryable or out of attempts, else becomes retry_pending at p_now + p_retry_in[i] or after its backoff (jobq._retry_at) with reason p_reasons[i] (NULL: error), last_error p_errors[i] and error_code p_codes[i]. Each is also one jobq.job_attempts row (ended_at p_now, output p_outputs[i], log_ref p_log_refs[i] (NULL for none: jobq.default_log_ref, which jobq.job_attempt_list and jobq.job_list show in its place), the job''s progress, exit_code p_exit_codes[i], leader_epoch jobq.leader.epoch now), and a dead job''s history row holds the same; a job keeps its newest 25, and a retried job''s progress is cleared. NULL arrays count as all NULL (retryable: true). Returns one row per job changed, with its outcome (dead or retry_pending), the retry''s run_at, its reason, task, queue, store, attempt and worker. Callers: jobq.fail_jobs, jobq._rescue.';

CREATE FUNCTION jobq._fair_first(p_queue text, p_after_priority smallint, p_partition_key text, p_tasks text[]) RETURNS TABLE(priority smallint, store uuid, run_at timestamp with time zone, id bigint, part text)
    LANGUAGE sql STABLE
    AS $$
    SELECT j.priority, jobq._store_key(j.store_id), j.run_at, j.id, j.payload ->> p_partition_key
    FROM jobq.jobs j
    WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks)
      AND j.priority > coalesce(p_after_priority, -32769)
    ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
    LIMIT 1
$$;

ALTER FUNCTION jobq._fair_first(p_queue text, p_after_priority smallint, p_partition_key text, p_tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._fair_first(p_queue text, p_after_priority smallint, p_partition_key text, p_tasks text[]) IS 'Private. The first waiting job of queue p_queue of the tasks p_tasks (NULL: every task) in the first priority after p_after_priority (NULL: any), by (priority, store key, run_at, id): its priority, store key (jobq._store_key), run_at, id and payload ->> p_partition_key; no row for none. One probe of jobs_fair_idx, inlined into the caller''s statement and planned under its settings. Caller: jobq._pick_fair.';

CREATE FUNCTION jobq._fair_first_outside(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamp with time zone, p_id bigint, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_tasks text[]) RETURNS TABLE(store uuid, run_at timestamp with time zone, id bigint)
    LANGUAGE sql STABLE
    AS $$
    SELECT jobq._store_key(j.store_id), j.run_at, j.id
    FROM jobq.jobs j
    WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks) AND j.priority = p_priority
      AND jobq._store_key(j.store_id) = p_store
      AND (j.run_at, j.id) > (p_run_at, p_id) AND jobq._rule_due(j.run_at, p_now)
      AND (j.payload ->> p_partition_key IS NULL OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
    ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
    LIMIT 1
$$;

ALTER FUNCTION jobq._fair_first_outside(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamp with time zone, p_id bigint, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._fair_first_outside(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamp with time zone, p_id bigint, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_tasks text[]) IS 'Private. The first due waiting job (of the tasks p_tasks) of store p_store in priority p_priority of queue p_queue after (p_run_at, p_id) whose payload ->> p_partition_key is NULL or outside p_skip_parts: its store key, run_at and id; no row for none. Inlined into the caller''s statement. Caller: jobq._pick_fair, for a store whose first job is in a full partition.';

CREATE FUNCTION jobq._fair_next_store(p_queue text, p_priority smallint, p_store uuid, p_partition_key text, p_tasks text[]) RETURNS TABLE(store uuid, run_at timestamp with time zone, id bigint, part text)
    LANGUAGE sql STABLE
    AS $$
    SELECT jobq._store_key(j.store_id), j.run_at, j.id, j.payload ->> p_partition_key
    FROM jobq.jobs j
    WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks) AND j.priority = p_priority
      AND jobq._store_key(j.store_id) > p_store
    ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
    LIMIT 1
$$;

ALTER FUNCTION jobq._fair_next_store(p_queue text, p_priority smallint, p_store uuid, p_partition_key text, p_tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._fair_next_store(p_queue text, p_priority smallint, p_store uuid, p_partition_key text, p_tasks text[]) IS 'Private. The first waiting job (of the tasks p_tasks) of the first store after p_store in priority p_priority of queue p_queue: its store key, run_at, id and payload ->> p_partition_key; no row when there is no later store. One probe of jobs_fair_idx, inlined into the caller''s statement. Caller: jobq._pick_fair.';

CREATE FUNCTION jobq._fair_take_round(p_queue text, p_priority smallint, p_keys uuid[], p_runs timestamp with time zone[], p_ids bigint[], p_room integer, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT keys uuid[], OUT parts text[], OUT full_keys uuid[], OUT full_runs timestamp with time zone[], OUT full_ids bigint[]) RETURNS record
    LANGUAGE plpgsql
    AS $$
-- VOLATILE for its row locks, which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_quota constant integer := p_room / cardinality(p_keys);
BEGIN
    SELECT array_agg(t.id ORDER BY t.rn, t.pos), array_agg(t.k ORDER BY t.rn, t.pos), array_agg(t.part ORDER BY t.rn, t.pos),
           coalesce(array_agg(t.k ORDER BY t.pos) FILTER (WHERE t.rn = t.share), '{}'),
           coalesce(array_agg(t.run_at ORDER BY t.pos) FILTER (WHERE t.rn = t.share), '{}'),
           coalesce(array_agg(t.id + 1 ORDER BY t.pos) FILTER (WHERE t.rn = t.share), '{}')
    INTO ids, keys, parts, full_keys, full_runs, full_ids
    FROM (SELECT h.id, h.run_at, h.part, s.k, s.pos, s.share,
                 row_number() OVER (PARTITION BY s.pos ORDER BY h.run_at, h.id) AS rn
          FROM (SELECT u.k, u.r, u.i, u.pos, v_quota + CASE WHEN u.pos <= p_room % cardinality(p_keys) THEN 1 ELSE 0 END AS share
                FROM unnest(p_keys, p_runs, p_ids) WITH ORDINALITY AS u(k, r, i, pos)) AS s
          CROSS JOIN LATERAL (
              SELECT j.id, j.run_at, j.payload ->> p_partition_key AS part
              FROM jobq.jobs j
              WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks) AND j.priority = p_priority
                AND jobq._store_key(j.store_id) = s.k
                AND (j.run_at, j.id) >= (s.r, s.i) AND jobq._rule_due(j.run_at, p_now)
                AND (p_partition_key IS NULL OR j.payload ->> p_partition_key IS NULL OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
                AND j.id <> ALL (p_skip_ids)
              ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
              LIMIT s.share
              FOR UPDATE OF j SKIP LOCKED) AS h
          WHERE s.share > 0) AS t;
    IF ids IS NULL THEN
        full_keys := '{}'::uuid[]; full_runs := '{}'::timestamptz[]; full_ids := '{}'::bigint[];
    END IF;
END
$$;

ALTER FUNCTION jobq._fair_take_round(p_queue text, p_priority smallint, p_keys uuid[], p_runs timestamp with time zone[], p_ids bigint[], p_room integer, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT keys uuid[], OUT parts text[], OUT full_keys uuid[], OUT full_runs timestamp with time zone[], OUT full_ids bigint[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._fair_take_round(p_queue text, p_priority smallint, p_keys uuid[], p_runs timestamp with time zone[], p_ids bigint[], p_room integer, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT keys uuid[], OUT parts text[], OUT full_keys uuid[], OUT full_runs timestamp with time zone[], OUT full_ids bigint[]) IS 'Private. One round of the fair pick over the stores p_keys (each from (p_runs[i], p_ids[i]) on) of priority p_priority of queue p_queue: locks (SKIP LOCKED) up to p_room due waiting jobs (of the tasks p_tasks, outside p_skip_parts and p_skip_ids), room / stores per store and one more for the first room mod stores, and returns them in turns (ids, their store keys and partition values; NULL for none) with the stores that gave their whole share and where each is to go on from (full_keys, full_runs, full_ids). Called with two stores or more (one alone is taken by jobq._fair_take_store). Caller: jobq._pick_fair.';

CREATE FUNCTION jobq._fair_take_store(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamp with time zone, p_id bigint, p_room integer, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT parts text[]) RETURNS record
    LANGUAGE plpgsql
    AS $$
-- VOLATILE for its row locks, which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
BEGIN
    -- An ARRAY keeps the locking scan's order: no sort (the usual pick of a burst comes here).
    ids := ARRAY(SELECT j.id
                 FROM jobq.jobs j
                 WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks) AND j.priority = p_priority
                   AND jobq._store_key(j.store_id) = p_store
                   AND (j.run_at, j.id) >= (p_run_at, p_id) AND jobq._rule_due(j.run_at, p_now)
                   AND (p_partition_key IS NULL OR j.payload ->> p_partition_key IS NULL OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
                   AND j.id <> ALL (p_skip_ids)
                 ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
                 LIMIT p_room
                 FOR UPDATE OF j SKIP LOCKED);
    IF cardinality(ids) = 0 THEN
        ids := NULL;
    ELSIF p_partition_key IS NULL THEN
        parts := array_fill(NULL::text, ARRAY[cardinality(ids)]);
    ELSE
        -- The partition of each job taken, in the same order (rows this transaction holds).
        parts := ARRAY(SELECT j.payload ->> p_partition_key FROM unnest(ids) WITH ORDINALITY AS t(id, n)
                       JOIN jobq.jobs j ON j.id = t.id ORDER BY t.n);
    END IF;
END
$$;

ALTER FUNCTION jobq._fair_take_store(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamp with time zone, p_id bigint, p_room integer, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT parts text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._fair_take_store(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamp with time zone, p_id bigint, p_room integer, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT parts text[]) IS 'Private. Locks (SKIP LOCKED) and returns up to p_room due waiting jobs (of the tasks p_tasks) of store p_store in priority p_priority of queue p_queue, from (p_run_at, p_id) on in (run_at, id) order, outside p_skip_parts (payload ->> p_partition_key) and p_skip_ids: ids and partition values, NULL for none. One locking scan of jobs_fair_idx under its caller''s planner settings. Caller: jobq._pick_fair (the burst of one store, and a round with one store).';

CREATE FUNCTION jobq._function_grants() RETURNS TABLE(fn text, roles text[])
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT v.fn, v.roles::text[] FROM (VALUES
        ('jobq._app_may_enqueue(text)', '{jobq_app_gate}'),
        ('jobq._batch_callback_fields()', '{jobq_app_gate}'),
        ('jobq._batch_callback_job(jsonb,jobq.batches)', '{jobq_app_gate}'),
        ('jobq._attach_workflow(bigint[],jsonb[],boolean)', '{jobq_app_gate}'),
        ('jobq._calendar_day_ok(text)', '{jobq_app_gate}'),
        ('jobq._caller()', '{jobq_app_gate}'),
        ('jobq._caller_is_operator()', '{jobq_app_gate}'),
        ('jobq._caller_is_restricted()', '{jobq_app_gate}'),
        ('jobq._caller_reaches(uuid)', '{jobq_app_gate}'),
        ('jobq._caller_reaches_as(uuid,boolean,boolean,uuid)', '{jobq_app_gate}'),
        ('jobq._check_int(text,bigint,bigint,bigint,text)', '{jobq_app_gate}'),
        ('jobq._check_interval(text,interval,interval,boolean)', '{jobq_app_gate}'),
        ('jobq._check_length(text,anyarray,integer)', '{jobq_app_gate}'),
        ('jobq._check_payload(text,jsonb)', '{jobq_app_gate}'),
        ('jobq._check_tenant(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._check_text(text,text,integer)', '{jobq_app_gate}'),
        ('jobq._check_timestamp(text,timestamp with time zone)', '{jobq_app_gate}'),
        ('jobq._doorbell_silent(text)', '{jobq_app_gate}'),
        ('jobq._enqueue(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._enqueue_keyed(jobq.job_spec[])', '{jobq_app_gate}'),
        ('jobq._enqueue_takes_fast_path(jobq.job_spec,jobq.tasks)', '{jobq_app_gate}'),
        ('jobq._enqueue_takes_fast_path_as(jobq.job_spec,jobq.tasks,boolean,boolean,uuid)', '{jobq_app_gate}'),
        ('jobq._insert_specs(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._job_of_key_since(uuid,text,timestamp with time zone,boolean)', '{jobq_app_gate}'),
        ('jobq._json_type_ok(jsonb,text)', '{jobq_app_gate}'),
        ('jobq._limit(text)', '{jobq_app_gate}'),
        ('jobq._lock_batch(bigint)', '{jobq_app_gate}'),
        ('jobq._lock_sequences(uuid[],text[])', '{jobq_app_gate}'),
        ('jobq._await_sequences(uuid[],text[])', '{jobq_app_gate}'),
        ('jobq._limit_interval(text)', '{jobq_app_gate}'),
        ('jobq._max_payload_bytes()', '{jobq_app_gate}'),
        ('jobq._raise(text,text)', '{jobq_app_gate}'),
        ('jobq._resolve_spec(jobq.job_spec,jobq.tasks,integer)', '{jobq_app_gate}'),
        ('jobq._resolve_tasks(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._revive(bigint[],text)', '{jobq_app_gate}'),
        ('jobq._spec_in_bounds(jobq.job_spec)', '{jobq_app_gate}'),
        ('jobq._settle_batches(bigint[])', '{jobq_app_gate}'),
        ('jobq._store_key(uuid)', '{jobq_app_gate}'),
        ('jobq._to_history(jobq.jobs,text,text,text,text,text,text,integer,bigint,jsonb)', '{jobq_app_gate}'),
        ('jobq._ts_add(timestamp with time zone,interval)', '{jobq_app_gate}'),
        ('jobq._ts_in_range(timestamp with time zone)', '{jobq_app_gate}'),
        ('jobq._unhold_sequences(bigint[])', '{jobq_app_gate}'),
        ('jobq._validate_specs(jobq.job_spec[],boolean)', '{jobq_app_gate}'),
        ('jobq._wake(text)', '{jobq_app_gate}'),
        ('jobq._wake_as(text,text,boolean)', '{jobq_app_gate}'),
        ('jobq._workflow_prepare(jsonb[],uuid[],text[],boolean)', '{jobq_app_gate}'),
        ('jobq._workflow_spec(bigint[],bigint[],text,text,text)', '{jobq_app_gate}'),
        ('jobq._workflow_specs(jsonb)', '{jobq_app_gate}'),
        ('jobq.acquire_leadership(text,interval)', '{worker_runtime,jobq_operator}'),
        ('jobq.audit_list(text,text,bigint,timestamp with time zone,bigint,integer)', '{jobq_operator,jobq_viewer}'),
        ('jobq.backoff_ceiling(integer,interval,interval)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.backoff_delay(integer,interval,interval)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.bind_store(name,uuid)', '{jobq_operator}'),
        ('jobq.batch_enqueue(bigint,jsonb)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.batch_list(uuid,text,bigint,integer,bigint,bigint)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.batch_status(bigint)', '{jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.cancel_job(bigint)', '{jobq_app,jobq_operator}'),
        ('jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[])', '{worker_runtime}'),
        ('jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[],text[])', '{worker_runtime}'),
        ('jobq.complete_job(bigint,uuid,jsonb)', '{worker_runtime}'),
        ('jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[],jsonb[])', '{worker_runtime}'),
        ('jobq.confirm_continuation(text,bigint[],uuid[],interval)', '{worker_runtime}'),
        ('jobq.cron_next(text,timestamp with time zone,text)', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.create_batch(jsonb,jsonb,jsonb,uuid,text,jsonb,boolean)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.cron_parse(text)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.cron_slots(text,timestamp with time zone,timestamp with time zone,text,integer)', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.current_store_id()', '{jobq_app_gate,worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.default_log_ref(text,bigint,integer)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.define_task(text,text,jsonb,integer,text,integer,interval,interval,interval,text,boolean)', '{worker_runtime,jobq_operator}'),
        ('jobq.delete_job(bigint)', '{jobq_operator}'),
        ('jobq.demote_leader()', '{jobq_operator}'),
        ('jobq.deregister_worker(text)', '{worker_runtime,jobq_operator}'),
        ('jobq.detach_worker(text)', '{jobq_operator}'),
        ('jobq.doorbell_quiet(text[])', '{worker_runtime}'),
        ('jobq.done_quiet()', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.drain_worker(text)', '{jobq_operator}'),
        ('jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval,bigint[],text,text,text)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.enqueue_many(jsonb)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.explain_job(bigint)', '{jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.job_workflow(bigint)', '{jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.workflow_graph(bigint,integer)', '{jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.fail_job(bigint,uuid,text,text,boolean,interval)', '{worker_runtime}'),
        ('jobq.fail_jobs(bigint[],uuid[],text[],text[],boolean[],interval[],text[],text[],text[],integer[])', '{worker_runtime}'),
        ('jobq.fan_out(text,jsonb,text,text,timestamp with time zone)', '{worker_runtime}'),
        ('jobq.hand_back_unheld(text,uuid[])', '{worker_runtime}'),
        ('jobq.heartbeat(text,bigint,uuid,interval)', '{worker_runtime}'),
        ('jobq.heartbeat_jobs(text,bigint[],uuid[],interval)', '{worker_runtime}'),
        ('jobq.hold_doorbell(text[])', '{worker_runtime}'),
        ('jobq.hold_done_doorbell()', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.job_attempt_list(bigint)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.job_list(text,text,text,uuid,text,timestamp with time zone,bigint,integer,bigint)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.job_result(bigint)', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.leader_state()', '{jobq_operator,jobq_viewer}'),
        ('jobq.maintain(text,bigint)', '{worker_runtime,jobq_operator}'),
        ('jobq.pause_queue(text)', '{jobq_operator}'),
        ('jobq.parent_results(bigint)', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.pause_schedule(text)', '{jobq_operator}'),
        ('jobq.payload_problem(jsonb,jsonb)', '{worker_runtime,jobq_app,jobq_operator,jobq_app_gate}'),
        ('jobq.prune_history(integer)', '{worker_runtime,jobq_operator}'),
        ('jobq.queue_depth(text[])', '{worker_runtime,jobq_operator,jobq_viewer}'),
        ('jobq.queue_lag(text[])', '{worker_runtime,jobq_operator,jobq_viewer}'),
        ('jobq.queue_list(text,uuid)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.queue_minutes(timestamp with time zone)', '{jobq_operator,jobq_viewer,jobq_app}'),
        ('jobq.queue_not_served(text[])', '{worker_runtime,jobq_operator,jobq_viewer}'),
        ('jobq.queue_states()', '{jobq_operator,jobq_viewer}'),
        ('jobq.queue_summary(integer)', '{jobq_operator,jobq_viewer}'),
        ('jobq.register_worker(text,text,integer,text[],integer,text,text[])', '{worker_runtime,jobq_operator}'),
        ('jobq.release_doorbell(text[])', '{worker_runtime}'),
        ('jobq.release_done_doorbell()', '{worker_runtime,jobq_app,jobq_operator,jobq_viewer}'),
        ('jobq.requeue_dead(text,timestamp with time zone,integer)', '{jobq_operator}'),
        ('jobq.rescue_expired(integer)', '{worker_runtime,jobq_operator}'),
        ('jobq.resume_queue(text)', '{jobq_operator}'),
        ('jobq.resume_schedule(text)', '{jobq_operator}'),
        ('jobq.resume_worker(text)', '{jobq_operator}'),
        ('jobq.retry_job(bigint)', '{jobq_app,jobq_operator}'),
        ('jobq.seal_batch(bigint)', '{worker_runtime,jobq_app,jobq_operator}'),
        ('jobq.run_schedule_now(text)', '{jobq_operator}'),
        ('jobq.schedule(text,text,text,jsonb,text,text,interval,text,interval,text,text,integer,integer,boolean)', '{worker_runtime,jobq_operator}'),
        ('jobq.schedule_list()', '{jobq_operator,jobq_viewer}'),
        ('jobq.served_tasks(text[])', '{worker_runtime,jobq_operator}'),
        ('jobq.set_concurrency_limit(text,integer)', '{jobq_operator}'),
        ('jobq.set_fair_claiming(text,boolean)', '{jobq_operator}'),
        ('jobq.set_partition_concurrency_limit(text,text,integer)', '{jobq_operator}'),
        ('jobq.set_progress(bigint,uuid,jsonb)', '{worker_runtime}'),
        ('jobq.set_rate_limit(text,integer,interval)', '{jobq_operator}'),
        ('jobq.set_setting(text,text)', '{jobq_operator}'),
        ('jobq.set_store_concurrency_limit(text,integer)', '{jobq_operator}'),
        ('jobq.set_store_rate_limit(text,integer,interval)', '{jobq_operator}'),
        ('jobq.set_task_handler(text,text)', '{jobq_operator}'),
        ('jobq.setting_list(text)', '{jobq_operator,jobq_viewer}'),
        ('jobq.snooze(bigint,uuid,interval)', '{worker_runtime}'),
        ('jobq.snooze_jobs(bigint[],uuid[],interval)', '{worker_runtime}'),
        ('jobq.stats(text,uuid)', '{jobq_operator,jobq_app,jobq_viewer}'),
        ('jobq.stats_counted_at(uuid)', '{jobq_operator,jobq_app,jobq_viewer}'),
        ('jobq.unbind_store(name,uuid)', '{jobq_operator}'),
        ('jobq.unschedule(text)', '{jobq_operator}'),
        ('jobq.upkeep_advice(bigint,integer,interval)', '{jobq_operator}'),
        ('jobq.worker_heartbeat(text,integer)', '{worker_runtime,jobq_operator}'),
        ('jobq.worker_list(text)', '{jobq_operator,jobq_viewer}'),
        ('public.list_store_ids_for_fan_out()', '{worker_runtime}')
    ) AS v (fn, roles)
$$;

ALTER FUNCTION jobq._function_grants() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._function_grants() IS 'Private. The declared EXECUTE grants: one row per function any role but its owner may execute (fn, its signature as regprocedure prints it; roles). Every function of schema jobq not listed is private. Caller: jobq._apply_grants; read by pgtap/privileges.';

CREATE FUNCTION jobq._guard_picks() RETURNS void
    LANGUAGE sql
    AS $$
    SELECT pg_catalog.set_config('lock_timeout', jobq._guarded_lock_timeout(), true)
    WHERE pg_catalog.current_setting('lock_timeout')::interval = interval '0'
       OR pg_catalog.current_setting('lock_timeout')::interval > jobq._guarded_lock_timeout()::interval;
$$;

ALTER FUNCTION jobq._guard_picks() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._guard_picks() IS 'Private. Sets lock_timeout to jobq._guarded_lock_timeout() for the rest of the transaction, unless it is shorter already, before a pick made while the transaction holds a limited queue''s claim lock: PostgreSQL may wait for a row lock there (a row''s update chain, which SKIP LOCKED does not cover), and such a wait could close a cycle with claims waiting for that lock. Callers: jobq._claim and jobq._pick_limited, inside a block that catches lock_not_available and deadlock_detected (the pick then takes nothing) and sets the caller''s lock_timeout back after the pick.';

CREATE FUNCTION jobq._guarded_lock_timeout() RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT '2ms'::text $$;

ALTER FUNCTION jobq._guarded_lock_timeout() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._guarded_lock_timeout() IS 'Private. 2ms: the lock_timeout of a pick made while the transaction holds a limited queue''s claim lock (jobq._guard_picks). Caller: jobq._guard_picks.';

CREATE FUNCTION jobq._heads_sequence(p_id bigint, p_store_id uuid, p_key text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT NOT EXISTS (SELECT 1 FROM jobq.jobs o
                       WHERE coalesce(o.store_id, '00000000-0000-0000-0000-000000000000'::uuid)
                             = coalesce(p_store_id, '00000000-0000-0000-0000-000000000000'::uuid)
                         AND o.sequence_key = p_key AND o.id < p_id)
       AND NOT EXISTS (SELECT 1 FROM jobq.sequence_holds s
                       WHERE coalesce(s.store_id, '00000000-0000-0000-0000-000000000000'::uuid)
                             = coalesce(p_store_id, '00000000-0000-0000-0000-000000000000'::uuid)
                         AND s.sequence_key = p_key)
$$;

ALTER FUNCTION jobq._heads_sequence(p_id bigint, p_store_id uuid, p_key text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._heads_sequence(p_id bigint, p_store_id uuid, p_key text) IS 'Private. Whether job p_id is the head of sequence (p_store_id, p_key): no live job of it with a lower id (jobs_sequence_idx) and no hold (jobq.sequence_holds). Callers: jobq._attach_workflow, jobq._release_blocked, jobq._holds. Locks nothing.';

CREATE FUNCTION jobq._history_add_span(p_at timestamp with time zone, p_days integer) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET lock_timeout TO '100ms'
    AS $$
-- VOLATILE for its DDL (EXECUTE), which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_day date;
    v_start timestamptz;
    v_end timestamptz;
    v_from timestamptz;
    v_to timestamptz;
    v_name text;
BEGIN
    -- Partitions named by an eight-digit date only (none for a clock gone to the year 10000).
    IF p_at IS NULL OR NOT (p_at >= '2000-01-01 UTC' AND p_at < '9999-01-01 UTC') OR p_days IS NULL OR p_days NOT BETWEEN 1 AND 366 THEN
        RETURN false;
    END IF;
    v_day := (p_at AT TIME ZONE 'UTC')::date;
    v_start := (v_day - (v_day - date '2000-01-01') % p_days)::timestamp AT TIME ZONE 'UTC';
    v_end := v_start + pg_catalog.make_interval(days => p_days);
    BEGIN
        -- Nothing to make when a partition holds p_at. Else from after the partitions that end
        -- by p_at, to the first that starts after it, then after the default partition's rows.
        IF EXISTS (SELECT 1 FROM jobq._history_partitions() p WHERE NOT p.is_default AND p.lower <= p_at AND p_at < p.upper) THEN
            RETURN false;
        END IF;
        SELECT greatest(v_start, max(p.upper) FILTER (WHERE p.upper <= p_at)),
               least(v_end, min(p.lower) FILTER (WHERE p.lower > p_at))
        INTO v_from, v_to
        FROM jobq._history_partitions() p WHERE NOT p.is_default AND p.lower < v_end AND p.upper > v_start;
        v_from := greatest(v_from, (SELECT max(d.finished_at) + interval '1 microsecond' FROM jobq.job_history_default d
                                    WHERE d.finished_at >= v_from AND d.finished_at < v_to));
        IF v_from >= v_to THEN
            RETURN false;
        END IF;
        v_name := 'job_history_p' || pg_catalog.to_char(v_from AT TIME ZONE 'UTC', 'YYYYMMDD');
        IF pg_catalog.to_regclass(format('jobq.%I', v_name)) IS NOT NULL THEN
            -- A partition of that day ends where this one starts (after default rows): by time.
            v_name := v_name || pg_catalog.to_char(v_from AT TIME ZONE 'UTC', '"_"HH24MISSUS');
        END IF;
        EXECUTE format('CREATE TABLE jobq.%I (LIKE jobq.job_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_name);
        EXECUTE format('CREATE UNIQUE INDEX ON jobq.%I (id)', v_name);
        EXECUTE format('CREATE INDEX ON jobq.%I USING brin (finished_at)', v_name);
        -- Read through jobq.job_history, whose policies apply; by name, by the owner alone.
        EXECUTE format('ALTER TABLE jobq.%I ENABLE ROW LEVEL SECURITY', v_name);
        EXECUTE format('ALTER TABLE jobq.%I FORCE ROW LEVEL SECURITY', v_name);
        EXECUTE format('CREATE POLICY job_history_owner ON jobq.%I TO %I USING (true) WITH CHECK (true)', v_name, current_user);
        EXECUTE format('ALTER TABLE jobq.job_history ATTACH PARTITION jobq.%I FOR VALUES FROM (%L) TO (%L)',
                       v_name, v_from, v_to);
    EXCEPTION WHEN lock_not_available OR duplicate_table OR invalid_object_definition OR check_violation THEN
        -- Another caller attaching a partition holds the default partition, made this one
        -- first, or the bounds overlap: nothing changed; the next call tries again.
        RETURN false;
    END;
    RETURN true;
END
$$;

ALTER FUNCTION jobq._history_add_span(p_at timestamp with time zone, p_days integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._history_add_span(p_at timestamp with time zone, p_days integer) IS 'Private. Makes the partition of jobq.job_history holding p_at: its span of p_days UTC days (counted from 2000-01-01), from the span''s start or the end of a partition reaching into it, or just after the default partition''s last row there, to the span''s end or the start of the next partition; named jobq.job_history_pYYYYMMDD for the UTC day it starts (with _HHMISSUS after when a partition of that day exists); with a unique index on id and a BRIN index on finished_at (and the partial indexes declared on jobq.job_history), and row security forced with one policy, job_history_owner, for the owner alone. Returns whether it made it: false when a partition holds p_at, nothing of the span is left to cover, p_at is NULL or outside the years 2000 to 9998, p_days is NULL or outside 1 to 366, or a lock is not taken within 100 ms (lock_timeout), another caller made it first or a bound overlaps; then nothing changed. Runs as its caller, the owner (jobq.maintain is SECURITY DEFINER): the partitions are the owner''s. Callers: jobq._history_days_ahead.';

CREATE FUNCTION jobq._history_days_ahead(p_now timestamp with time zone) RETURNS integer
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT count(*) FILTER (WHERE jobq._history_add_span(m.at, jobq._history_span_days(jobq._setting_interval('history_retention'))))::integer
    FROM (SELECT p_now + pg_catalog.make_interval(days => d) AS at
          FROM pg_catalog.generate_series(0, 2) d
          WHERE pg_catalog.isfinite(p_now)
            AND NOT EXISTS (SELECT 1 FROM jobq._history_partitions() p
                            WHERE NOT p.is_default AND p.lower <= p_now + pg_catalog.make_interval(days => d)
                              AND p_now + pg_catalog.make_interval(days => d) < p.upper)
          ORDER BY d) m
    WHERE pg_catalog.pg_try_advisory_xact_lock(1785790469, 0)
$$;

ALTER FUNCTION jobq._history_days_ahead(p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._history_days_ahead(p_now timestamp with time zone) IS 'Private. Makes the partitions of jobq.job_history that hold p_now, p_now + 1 day and p_now + 2 days when none does (jobq._history_add_span, each spanning jobq._history_span_days of the setting history_retention: a UTC day up to 14 days of retention) and returns how many it made; reads the partitions'' bounds first, and makes nothing (returns 0) while another transaction making them holds advisory lock (1785790469, 0) (taken here, held to commit), or when p_now is NULL or infinite; none for a time outside the years 2000 to 9998. Caller: jobq._maintain.';

CREATE FUNCTION jobq._history_partitions() RETURNS TABLE(part regclass, name text, lower timestamp with time zone, upper timestamp with time zone, by_day boolean, is_default boolean)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET "DateStyle" TO 'ISO, YMD'
    SET "TimeZone" TO 'UTC'
    AS $_$
    SELECT c.oid::regclass, c.relname::text,
           CASE WHEN b.m[1] = 'MINVALUE' THEN '-infinity'::timestamptz ELSE pg_catalog.btrim(b.m[1], '''')::timestamptz END,
           CASE WHEN b.m[2] = 'MAXVALUE' THEN 'infinity'::timestamptz ELSE pg_catalog.btrim(b.m[2], '''')::timestamptz END,
           c.relname ~ '^job_history_p[0-9]{8}(_[0-9]{12})?$',
           b.m IS NULL
    FROM pg_catalog.pg_inherits i
    JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL (SELECT pg_catalog.regexp_match(pg_catalog.pg_get_expr(c.relpartbound, 0),
                                                       '^FOR VALUES FROM \((.*)\) TO \((.*)\)$') AS m) b
    WHERE i.inhparent = 'jobq.job_history'::regclass
$_$;

ALTER FUNCTION jobq._history_partitions() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._history_partitions() IS 'Private. One row per partition of jobq.job_history: its regclass and name, its bounds (lower inclusive, upper exclusive; -infinity and infinity for MINVALUE and MAXVALUE, NULL for the default partition), by_day (a partition jobq._history_add_span made: job_history_pYYYYMMDD, of one day or a span of days, pruned whole) and is_default. Read from pg_inherits and the partition bounds; locks nothing (a partition being attached is listed once attached, without waiting). Callers: jobq._history_add_span, jobq._history_days_ahead, jobq._prune_history.';

CREATE FUNCTION jobq._history_span_days(p_retention interval) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE WHEN p_retention IS NULL OR p_retention <= interval '14 days' THEN 1
                ELSE least(366, pg_catalog.ceil(pg_catalog.date_part('epoch', p_retention) / (14 * 86400.0)))::integer
           END
$$;

ALTER FUNCTION jobq._history_span_days(p_retention interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._history_span_days(p_retention interval) IS 'Private. The days a partition of jobq.job_history spans for a history_retention of p_retention: 1 up to 14 days (and for NULL), else the retention in days divided by 14, rounded up (at most 366; 27 for 365 days, 261 for the largest retention, 3650 days). Raises nothing. Inlined. Caller: jobq._history_days_ahead.';

CREATE FUNCTION jobq._holds(p_id bigint, p_now timestamp with time zone) RETURNS TABLE(rule text, detail text)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_job jobq.jobs;
    v_q jobq.queues;
    v_n bigint;
    v_part text;
BEGIN
    SELECT * INTO v_job FROM jobq.jobs j WHERE j.id = p_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    -- Blocked (45_workflows.sql): outside the claim's indexes until its parents succeeded and the
    -- job ahead of it in its sequence ended; the other rules apply once it is released.
    IF v_job.state = 'blocked' THEN
        IF EXISTS (SELECT 1 FROM jobq.job_dependencies d WHERE d.child_id = p_id) THEN
            rule := 'dependency';
            detail := format('waits for %s', (
                SELECT CASE WHEN count(*) = 1 THEN 'job ' ELSE 'jobs ' END
                       || string_agg(x.parent_id::text, ', ' ORDER BY x.parent_id)
                       || CASE WHEN count(*) > 20 THEN format(' (%s in all)', count(*)) ELSE '' END
                FROM (SELECT d.parent_id FROM jobq.job_dependencies d WHERE d.child_id = p_id ORDER BY d.parent_id LIMIT 21) AS x));
            RETURN NEXT;
        END IF;
        IF v_job.sequence_key IS NOT NULL AND NOT jobq._heads_sequence(p_id, v_job.store_id, v_job.sequence_key) THEN
            rule := 'sequence';
            detail := coalesce(
                (SELECT format('job %s is ahead of it in sequence %s', o.id, v_job.sequence_key)
                 FROM jobq.jobs o
                 WHERE jobq._store_key(o.store_id) = jobq._store_key(v_job.store_id) AND o.sequence_key = v_job.sequence_key
                   AND o.id < p_id
                 ORDER BY o.id DESC LIMIT 1),
                (SELECT format('sequence %s is held by dead job %s (requeue or delete it)', v_job.sequence_key, s.job_id)
                 FROM jobq.sequence_holds s
                 WHERE jobq._store_key(s.store_id) = jobq._store_key(v_job.store_id) AND s.sequence_key = v_job.sequence_key));
            RETURN NEXT;
        END IF;
        RETURN;
    END IF;
    IF NOT jobq._rule_waiting(v_job.state) THEN
        rule := 'running';
        detail := format('attempt %s runs on worker %s, its lease until %s', v_job.attempt, v_job.locked_by, v_job.lease_expires_at);
        RETURN NEXT;
        RETURN;
    END IF;
    IF NOT jobq._rule_due(v_job.run_at, p_now) THEN
        rule := CASE WHEN v_job.state = 'retry_pending' THEN 'backoff' ELSE 'scheduled' END;
        detail := CASE WHEN v_job.state = 'retry_pending'
                       THEN format('attempt %s failed (%s); the next one is due at %s', v_job.attempt, coalesce(v_job.reason, 'error'), v_job.run_at)
                       ELSE format('due at %s', v_job.run_at) END;
        RETURN NEXT;
    END IF;
    SELECT * INTO v_q FROM jobq.queues q WHERE q.name = v_job.queue;   -- no row: no controls (NULLs)
    IF v_q.paused THEN
        rule := 'queue_paused';
        detail := format('queue %s is paused', v_job.queue);
        RETURN NEXT;
    END IF;
    SELECT r.n INTO v_n FROM jobq._running_in_queue(v_job.queue) AS r;
    IF jobq._rule_at_limit(v_n, v_q.max_running) THEN
        rule := 'queue_limit';
        detail := format('queue %s runs %s jobs, its limit (max_running %s)', v_job.queue, v_n, v_q.max_running);
        RETURN NEXT;
    END IF;
    v_n := coalesce((SELECT c.n FROM jobq._running_per_store(v_job.queue) AS c WHERE c.store = jobq._store_key(v_job.store_id)), 0);
    IF jobq._rule_at_limit(v_n, v_q.max_running_per_store) THEN
        rule := 'store_limit';
        detail := format('its store runs %s jobs of queue %s, the limit per store (max_running_per_store %s)',
                         v_n, v_job.queue, v_q.max_running_per_store);
        RETURN NEXT;
    END IF;
    v_part := v_job.payload ->> v_q.partition_key;
    v_n := coalesce((SELECT c.n FROM jobq._running_per_partition(v_job.queue, v_q.partition_key) AS c WHERE c.part = v_part), 0);
    IF v_part IS NOT NULL AND jobq._rule_at_limit(v_n, v_q.max_running_per_partition) THEN
        rule := 'partition_limit';
        detail := format('%s jobs of queue %s with %s = %s run, the limit per partition (max_running_per_partition %s)',
                         v_n, v_job.queue, v_q.partition_key, v_part, v_q.max_running_per_partition);
        RETURN NEXT;
    END IF;
    SELECT s.n INTO v_n FROM jobq._started_since(v_job.queue, p_now - v_q.started_per) AS s;
    IF jobq._rule_at_limit(v_n, v_q.max_started) THEN
        rule := 'rate_limit';
        detail := format('queue %s started %s jobs in the last %s, its rate limit (max_started %s)',
                         v_job.queue, v_n, v_q.started_per, v_q.max_started);
        RETURN NEXT;
    END IF;
    v_n := coalesce((SELECT s.n FROM jobq._started_per_store(v_job.queue, p_now - v_q.store_started_per) AS s
                     WHERE s.store = jobq._store_key(v_job.store_id)), 0);
    IF jobq._rule_at_limit(v_n, v_q.max_started_per_store) THEN
        rule := 'store_rate_limit';
        detail := format('its store started %s jobs of queue %s in the last %s, the rate limit per store (max_started_per_store %s)',
                         v_n, v_job.queue, v_q.store_started_per, v_q.max_started_per_store);
        RETURN NEXT;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM jobq._served_by_live_workers(p_now) s
                   WHERE s.queue = v_job.queue AND (s.task IS NULL OR s.task = v_job.task)) THEN
        rule := 'not_served';
        detail := format('no live worker serves task %s in queue %s', v_job.task, v_job.queue);
        RETURN NEXT;
    END IF;
END
$$;

ALTER FUNCTION jobq._holds(p_id bigint, p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._holds(p_id bigint, p_now timestamp with time zone) IS 'Private. The rules that hold job p_id at time p_now, one row each (rule, detail): dependency (blocked: the parents still pending) and sequence (blocked: the job ahead of it in its sequence, or the dead job holding it) for a blocked job, nothing else listed; running (it runs; nothing else is listed), scheduled or backoff (run_at after p_now), queue_paused, queue_limit, store_limit, partition_limit (running jobs at max_running, max_running_per_store, max_running_per_partition), rate_limit, store_rate_limit (starts in jobq.claim_starts within started_per or store_started_per at max_started or max_started_per_store), not_served (no live worker serves its task in its queue: jobq._served_by_live_workers). None for a job a claim of its queue may take, or no such job. Caller: jobq.explain_job. Reads jobq.jobs, jobq.queues, jobq.claim_starts, jobq.workers; locks nothing. Errors: none.';

CREATE FUNCTION jobq._insert_specs(p_specs jobq.job_spec[], p_label_index boolean) RETURNS TABLE(ord bigint, job_id bigint)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._insert_specs(p_specs jobq.job_spec[], p_label_index boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._insert_specs(p_specs jobq.job_spec[], p_label_index boolean) IS 'Private. Inserts resolved specs (see jobq._enqueue): applies the global defaults, inserts keyless jobs in one statement and keyed ones through _enqueue_keyed, then wakes runners once per queue with a due job it wrote (a job that unique_for returned instead wakes no one) through jobq._wake: as the settings wakeup and doorbell say. Returns (ord, job_id).';

CREATE FUNCTION jobq._job_of_key_since(p_store_key uuid, p_job_key text, p_since timestamp with time zone, p_finished_only boolean) RETURNS bigint
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._job_of_key_since(p_store_key uuid, p_job_key text, p_since timestamp with time zone, p_finished_only boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._job_of_key_since(p_store_key uuid, p_job_key text, p_since timestamp with time zone, p_finished_only boolean) IS 'Private. The id of the newest job of key p_job_key in store p_store_key (the zero uuid for system jobs) created after p_since: live in any state or finished (jobq.job_history), or only finished with p_finished_only; NULL when none. STABLE: reads with its caller''s snapshot. SECURITY DEFINER so each table is one probe of its key index (row policies would hide the index''s store column); it reads only the store it is given. Caller: jobq._enqueue_keyed (unique_for), with a spec''s own store. Locks nothing.';

CREATE FUNCTION jobq._job_outcome(p_id bigint) RETURNS TABLE(store_id uuid, state text, result jsonb, finished_at timestamp with time zone)
    LANGUAGE sql STABLE
    AS $$
    SELECT j.store_id, j.state, NULL::jsonb, NULL::timestamptz FROM jobq.jobs j WHERE j.id = p_id
    UNION ALL
    (SELECT h.store_id, h.state, h.result, h.finished_at FROM jobq.job_history h
     WHERE h.id = p_id AND NOT EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.id = p_id)
     ORDER BY h.finished_at DESC LIMIT 1)
$$;

ALTER FUNCTION jobq._job_outcome(p_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._job_outcome(p_id bigint) IS 'Private. One row (store_id, state, result, finished_at) for job p_id: the live job''s store and state (result and finished_at NULL), else its latest jobq.job_history row''s; none when neither exists. Callers: jobq.job_result, jobq.parent_results. Locks nothing.';

CREATE FUNCTION jobq._json_type_ok(p_value jsonb, p_type text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$
    SELECT CASE p_type
        WHEN 'any'       THEN true
        WHEN 'string'    THEN jsonb_typeof(p_value) = 'string'
        WHEN 'number'    THEN jsonb_typeof(p_value) = 'number'
        WHEN 'integer'   THEN jsonb_typeof(p_value) = 'number' AND (p_value #>> '{}') ~ '^-?[0-9]+$'
        WHEN 'boolean'   THEN jsonb_typeof(p_value) = 'boolean'
        WHEN 'object'    THEN jsonb_typeof(p_value) = 'object'
        WHEN 'array'     THEN jsonb_typeof(p_value) = 'array'
        WHEN 'uuid'      THEN jsonb_typeof(p_value) = 'string'
                              AND (p_value #>> '{}') ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        -- A date is a day of the calendar (2026-02-29 is not; 2024-02-29 is); a timestamp is such
        -- a day, a time of day (00:00 to 23:59:59.999…) and an optional offset (Z, ±hh, ±hhmm,
        -- ±hh:mm up to 23:59).
        WHEN 'date'      THEN jsonb_typeof(p_value) = 'string' AND char_length(p_value #>> '{}') = 10
                              AND jobq._calendar_day_ok(p_value #>> '{}')
        WHEN 'timestamp' THEN jsonb_typeof(p_value) = 'string'
                              AND (p_value #>> '{}') ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?(Z|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)?$'
                              AND jobq._calendar_day_ok(substr(p_value #>> '{}', 1, 10))
        ELSE false
    END
$_$;

ALTER FUNCTION jobq._json_type_ok(p_value jsonb, p_type text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._json_type_ok(p_value jsonb, p_type text) IS 'Private. Whether a JSON value has a payload-contract type (string, number, integer, boolean, object, array, uuid, date: a calendar day YYYY-MM-DD, timestamp: a calendar day, a time of day up to 23:59:59.999… and an optional offset up to ±23:59, any). Never raises.';

CREATE FUNCTION jobq._keep_within_limits(p_queue text, p_ids bigint[], p_stores uuid[], p_parts text[], p_room integer, p_counts jsonb, OUT ids bigint[], OUT stores uuid[], OUT counts jsonb, OUT full_stores uuid[], OUT full_parts text[]) RETURNS record
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_q jobq.queues;
    v_store text;
    v_part text;
BEGIN
    SELECT * INTO v_q FROM jobq.queues q WHERE q.name = p_queue;
    ids := '{}'::bigint[]; stores := '{}'::uuid[]; counts := p_counts; full_stores := '{}'::uuid[]; full_parts := '{}'::text[];
    FOR v_i IN 1 .. cardinality(p_ids) LOOP
        EXIT WHEN cardinality(ids) >= p_room;
        v_store := p_stores[v_i]::text;
        v_part := p_parts[v_i];
        CONTINUE WHEN jobq._rule_at_limit(coalesce((counts #>> ARRAY['store', v_store])::bigint, 0), v_q.max_running_per_store)
                   OR jobq._rule_at_limit(coalesce((counts #>> ARRAY['start', v_store])::bigint, 0), v_q.max_started_per_store)
                   OR (v_part IS NOT NULL AND jobq._rule_at_limit(coalesce((counts #>> ARRAY['part', v_part])::bigint, 0),
                                                                  v_q.max_running_per_partition));
        ids := ids || p_ids[v_i];
        stores := stores || p_stores[v_i];
        IF v_q.max_running_per_store IS NOT NULL OR v_q.max_started_per_store IS NOT NULL THEN
            counts := jsonb_set(counts, ARRAY['store', v_store], to_jsonb(coalesce((counts #>> ARRAY['store', v_store])::bigint, 0) + 1));
            counts := jsonb_set(counts, ARRAY['start', v_store], to_jsonb(coalesce((counts #>> ARRAY['start', v_store])::bigint, 0) + 1));
            IF jobq._rule_at_limit((counts #>> ARRAY['store', v_store])::bigint, v_q.max_running_per_store)
               OR jobq._rule_at_limit((counts #>> ARRAY['start', v_store])::bigint, v_q.max_started_per_store) THEN
                full_stores := full_stores || p_stores[v_i];
            END IF;
        END IF;
        IF v_part IS NOT NULL AND v_q.max_running_per_partition IS NOT NULL THEN
            counts := jsonb_set(counts, ARRAY['part', v_part], to_jsonb(coalesce((counts #>> ARRAY['part', v_part])::bigint, 0) + 1));
            IF jobq._rule_at_limit((counts #>> ARRAY['part', v_part])::bigint, v_q.max_running_per_partition) THEN
                full_parts := full_parts || v_part;
            END IF;
        END IF;
    END LOOP;
END
$$;

ALTER FUNCTION jobq._keep_within_limits(p_queue text, p_ids bigint[], p_stores uuid[], p_parts text[], p_room integer, p_counts jsonb, OUT ids bigint[], OUT stores uuid[], OUT counts jsonb, OUT full_stores uuid[], OUT full_parts text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._keep_within_limits(p_queue text, p_ids bigint[], p_stores uuid[], p_parts text[], p_room integer, p_counts jsonb, OUT ids bigint[], OUT stores uuid[], OUT counts jsonb, OUT full_stores uuid[], OUT full_parts text[]) IS 'Private. Of the picked jobs p_ids (store keys p_stores, partition values p_parts), in order, keeps at most p_room that fit the per-store concurrency and rate limits and the per-partition limit of queue p_queue given p_counts (jobq._limited_counts'' shape), counting each job kept; returns the ids and stores kept, the counts after them, and the stores and partitions that reached a limit (jobq._rule_at_limit). Reads jobq.queues; writes nothing. Caller: jobq._pick_limited.';

CREATE FUNCTION jobq._lease_shortened() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    UPDATE jobq.leases AS l SET check_at = least(NEW.lease_expires_at, NEW.deadline_at)
    WHERE l.worker_id = NEW.locked_by
      AND l.check_at > least(NEW.lease_expires_at, NEW.deadline_at)
      AND NEW.id = ANY (l.job_ids);
    RETURN NULL;
END
$$;

ALTER FUNCTION jobq._lease_shortened() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._lease_shortened() IS 'Private. Row-level AFTER UPDATE trigger of jobq.jobs (jobs_lease_shortened), for a running job whose lease end or deadline moved earlier: every jobq.leases row of its worker that lists it and is due later is due at the new end. Raises nothing.';

CREATE FUNCTION jobq._limit(p_name text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE p_name
        WHEN 'task'              THEN 100         -- characters (the task name rule)
        WHEN 'queue'             THEN 200         -- characters; indexed (jobs_claim_idx)
        WHEN 'job_key'           THEN 500         -- characters; indexed (jobs_job_key_idx)
        WHEN 'worker_id'         THEN 200         -- characters; indexed (workers_pkey)
        WHEN 'node'              THEN 200         -- characters
        WHEN 'version'           THEN 200         -- characters
        WHEN 'error_code'        THEN 200         -- characters
        WHEN 'error'             THEN 10000       -- characters kept of an error text (longer is truncated)
        WHEN 'slot_key'          THEN 100         -- characters
        WHEN 'setting_value'     THEN 1000        -- characters
        WHEN 'max_attempts'      THEN 1000
        WHEN 'batch'             THEN 10000       -- elements of a batch array; claim_job's max_jobs
        WHEN 'enqueue_many'      THEN 100000      -- elements of enqueue_many's jobs
        WHEN 'sweep'             THEN 100000      -- batch_size / max_jobs of rescue_expired, prune_history, requeue_dead
        WHEN 'queues'            THEN 1000        -- elements of a queue list
        WHEN 'tasks'             THEN 1000        -- elements of a claim's list of tasks
        WHEN 'concurrency'       THEN 10000
        WHEN 'running'           THEN 1000000
        WHEN 'min_payload_bytes' THEN 1024        -- lowest value of setting max_payload_bytes
        WHEN 'max_payload_bytes' THEN 268435456   -- highest value of setting max_payload_bytes (256 MiB)
        WHEN 'progress_bytes'    THEN 65536       -- bytes of a job's progress as JSON text (jobq.set_progress)
        WHEN 'dependencies'      THEN 10000       -- parents of one job (depends_on and depends_on_refs)
    END
$$;

ALTER FUNCTION jobq._limit(p_name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._limit(p_name text) IS 'Private. The numeric limit p_name of the API (task, queue, job_key, worker_id, node, version, error_code, error, slot_key, setting_value: characters; max_attempts, batch, enqueue_many, sweep, queues, tasks, concurrency, running, min_payload_bytes, max_payload_bytes, progress_bytes, dependencies), NULL for an unknown name. Immutable: a call with a constant folds to a constant.';

CREATE FUNCTION jobq._limit_interval(p_name text) RETURNS interval
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE p_name
        WHEN 'lease'             THEN interval '1 day'       -- claim_job, heartbeat(_jobs), setting default_lease
        WHEN 'ttl'               THEN interval '1 day'       -- acquire_leadership, runner interval settings
        WHEN 'timeout'           THEN interval '7 days'
        WHEN 'backoff'           THEN interval '30 days'     -- backoff_base, backoff_max
        WHEN 'delay'             THEN interval '365 days'    -- snooze delay, fail retry_in
        WHEN 'backfill_window'   THEN interval '7 days'
        WHEN 'jitter'            THEN interval '1 day'
        WHEN 'history_retention' THEN interval '3650 days'
    END
$$;

ALTER FUNCTION jobq._limit_interval(p_name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._limit_interval(p_name text) IS 'Private. The largest interval p_name accepts (lease, ttl, timeout, backoff, delay, backfill_window, jitter, history_retention), NULL for an unknown name. Immutable.';

CREATE FUNCTION jobq._limited_counts(p_queue text, p_now timestamp with time zone, p_note boolean, OUT room integer, OUT counts jsonb, OUT full_stores uuid[], OUT full_parts text[], OUT clock timestamp with time zone) RETURNS record
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_q jobq.queues;
    v_running bigint;
BEGIN
    SELECT * INTO v_q FROM jobq.queues q WHERE q.name = p_queue;
    -- A limit newly set: its running jobs claimed unlimited are flagged as soon as none can be
    -- missing any more (until then jobq._running_counted also reads the unflagged ones).
    IF v_q.counted_recheck THEN
        PERFORM jobq._settle_counted(p_queue);
    END IF;
    room := 2147483647;
    counts := '{"store": {}, "part": {}, "start": {}}';
    IF v_q.max_started IS NOT NULL OR v_q.max_started_per_store IS NOT NULL THEN
        clock := greatest(p_now, clock_timestamp());
        DELETE FROM jobq.claim_starts AS s
        WHERE s.queue = p_queue
          AND s.started_at <= clock - greatest(coalesce(v_q.started_per, interval '0'), coalesce(v_q.store_started_per, interval '0'));
    END IF;
    SELECT r.n INTO v_running FROM jobq._running_in_queue(p_queue) AS r;
    IF v_q.max_running IS NOT NULL THEN
        room := least(room, v_q.max_running - v_running)::integer;
    END IF;
    IF v_q.max_started IS NOT NULL THEN
        room := least(room, v_q.max_started - (SELECT s.n FROM jobq._started_since(p_queue, clock - v_q.started_per) AS s))::integer;
    END IF;
    SELECT jsonb_set(counts, '{store}', coalesce(jsonb_object_agg(c.store, c.n), '{}')),
           coalesce(array_agg(c.store) FILTER (WHERE jobq._rule_at_limit(c.n, v_q.max_running_per_store)), '{}')
    INTO counts, full_stores
    FROM jobq._running_per_store(p_queue) AS c WHERE v_q.max_running_per_store IS NOT NULL;
    SELECT jsonb_set(counts, '{start}', coalesce(jsonb_object_agg(c.store, c.n), '{}')),
           full_stores || coalesce(array_agg(c.store) FILTER (WHERE jobq._rule_at_limit(c.n, v_q.max_started_per_store)), '{}')
    INTO counts, full_stores
    FROM jobq._started_per_store(p_queue, clock - v_q.store_started_per) AS c WHERE v_q.max_started_per_store IS NOT NULL;
    SELECT jsonb_set(counts, '{part}', coalesce(jsonb_object_agg(c.part, c.n), '{}')),
           coalesce(array_agg(c.part) FILTER (WHERE jobq._rule_at_limit(c.n, v_q.max_running_per_partition)), '{}')
    INTO counts, full_parts
    FROM jobq._running_per_partition(p_queue, v_q.partition_key) AS c WHERE v_q.max_running_per_partition IS NOT NULL;
    IF p_note AND current_setting(jobq._near_limit_setting(p_queue), true) = 'near'
       AND jobq._shared_claim_ceiling(v_q.max_running, v_q.max_running_per_store, v_q.max_running_per_partition) - v_running
           >= jobq._claim_slot_batch() THEN
        PERFORM set_config(jobq._near_limit_setting(p_queue), '', false);
    END IF;
END
$$;

ALTER FUNCTION jobq._limited_counts(p_queue text, p_now timestamp with time zone, p_note boolean, OUT room integer, OUT counts jsonb, OUT full_stores uuid[], OUT full_parts text[], OUT clock timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._limited_counts(p_queue text, p_now timestamp with time zone, p_note boolean, OUT room integer, OUT counts jsonb, OUT full_stores uuid[], OUT full_parts text[], OUT clock timestamp with time zone) IS 'Private. Under the queue''s advisory lock, the counts of the limited queue p_queue: room, what max_running and max_started leave (2147483647 without either); counts, a jsonb {"store": {store key: running}, "part": {value: running}, "start": {store key: starts in store_started_per}} of the per-store and per-partition limits set; full_stores and full_parts, those at a limit (jobq._rule_at_limit); clock, the instant of a rate-limited queue''s starts (greatest(p_now, clock_timestamp()), else NULL), after pruning its jobq.claim_starts older than its windows. Reads through jobq._running_in_queue, _running_per_store, _running_per_partition, _started_since, _started_per_store. Given p_note, empties the session''s near-limit note (jobq._near_limit_setting) when the queue has room for a shared claim''s batch of 16 again. Caller: jobq._pick_limited.';

CREATE FUNCTION jobq._limited_round(p_queue text, p_fair boolean, p_room integer, p_now timestamp with time zone, p_skip_stores uuid[], p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_after_priority smallint, p_after_run_at timestamp with time zone, p_after_id bigint, p_tasks text[], OUT ids bigint[], OUT stores uuid[], OUT parts text[], OUT last_priority smallint, OUT last_run_at timestamp with time zone, OUT last_id bigint) RETURNS record
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
-- VOLATILE for its row locks, which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_priorities smallint[];
    v_run_ats timestamptz[];
BEGIN
    IF p_fair THEN
        SELECT f.ids, f.stores, f.parts INTO ids, stores, parts
        FROM jobq._pick_fair(p_queue, p_room, p_now, p_skip_stores, p_partition_key, p_skip_parts, p_skip_ids, p_tasks) AS f;
        RETURN;
    END IF;
    SELECT array_agg(p.id ORDER BY p.priority, p.run_at, p.id), array_agg(p.store ORDER BY p.priority, p.run_at, p.id),
           array_agg(p.part ORDER BY p.priority, p.run_at, p.id), array_agg(p.priority ORDER BY p.priority, p.run_at, p.id),
           array_agg(p.run_at ORDER BY p.priority, p.run_at, p.id)
    INTO ids, stores, parts, v_priorities, v_run_ats
    FROM (SELECT j.id, j.priority, j.run_at, jobq._store_key(j.store_id) AS store, j.payload ->> p_partition_key AS part
          FROM jobq.jobs j
          WHERE j.ready AND jobq._rule_waiting(j.state)
            AND j.queue = p_queue
            AND (j.priority, j.run_at, j.id) > (p_after_priority, p_after_run_at, p_after_id)
            AND jobq._rule_due(j.run_at, p_now)
            AND jobq._rule_served(j.task, p_tasks)
            AND jobq._store_key(j.store_id) <> ALL (p_skip_stores)
            AND (p_partition_key IS NULL OR j.payload ->> p_partition_key IS NULL OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
          ORDER BY j.priority, j.run_at, j.id
          LIMIT p_room
          FOR UPDATE OF j SKIP LOCKED) AS p;
    last_priority := v_priorities[cardinality(v_priorities)];
    last_run_at := v_run_ats[cardinality(v_run_ats)];
    last_id := ids[cardinality(ids)];
END
$$;

ALTER FUNCTION jobq._limited_round(p_queue text, p_fair boolean, p_room integer, p_now timestamp with time zone, p_skip_stores uuid[], p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_after_priority smallint, p_after_run_at timestamp with time zone, p_after_id bigint, p_tasks text[], OUT ids bigint[], OUT stores uuid[], OUT parts text[], OUT last_priority smallint, OUT last_run_at timestamp with time zone, OUT last_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._limited_round(p_queue text, p_fair boolean, p_room integer, p_now timestamp with time zone, p_skip_stores uuid[], p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_after_priority smallint, p_after_run_at timestamp with time zone, p_after_id bigint, p_tasks text[], OUT ids bigint[], OUT stores uuid[], OUT parts text[], OUT last_priority smallint, OUT last_run_at timestamp with time zone, OUT last_id bigint) IS 'Private. One pick of jobq._pick_limited: up to p_room jobs of p_queue that wait, are due at p_now and are of the tasks p_tasks (jobq._rule_waiting, _rule_due, _rule_served), locked (SKIP LOCKED), outside the stores p_skip_stores and the partitions p_skip_parts (payload ->> p_partition_key); a fair queue''s (p_fair) by jobq._pick_fair, passing over p_skip_ids; any other''s in claim order after (p_after_priority, p_after_run_at, p_after_id). Returns ids, each one''s store key and partition value, all NULL for none, and the last job''s position (NULL for a fair queue). Runs under its caller''s planner settings. Caller: jobq._pick_limited.';

CREATE FUNCTION jobq._live_count_wait(p_took interval) RETURNS interval
    LANGUAGE sql STABLE
    AS $$
    SELECT greatest(coalesce(jobq._setting_interval('stats_count_interval'), interval '5 seconds'), 20 * p_took)
$$;

ALTER FUNCTION jobq._live_count_wait(p_took interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._live_count_wait(p_took interval) IS 'Private. greatest(stats_count_interval, 20 x p_took): the least time between two counts of the live jobs (jobq._count_live_jobs), and a third of the age up to which jobq.stats reads a count (jobq._live_counts_fresh). Callers: those two.';

CREATE FUNCTION jobq._live_counts_fresh(p_now timestamp with time zone) RETURNS timestamp with time zone
    LANGUAGE sql STABLE
    AS $$
    SELECT t.counted_at
    FROM jobq.live_counts_taken t
    WHERE t.total >= jobq._stats_cached_above()
      AND t.counted_at <= p_now
      AND t.counted_at > jobq._ts_add(p_now, -3 * jobq._live_count_wait(t.took))
$$;

ALTER FUNCTION jobq._live_counts_fresh(p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._live_counts_fresh(p_now timestamp with time zone) IS 'Private. The time jobq.live_counts was counted when jobq.stats reads it at p_now in place of a live count: the count found at least stats_cached_above live jobs and is younger than 3 x jobq._live_count_wait of its duration (and not from after p_now); NULL otherwise (count live). Callers: jobq._stats, jobq.stats_counted_at. Reads jobq.live_counts_taken; locks nothing.';

CREATE FUNCTION jobq._live_groups(p_queue text, p_all boolean, p_store uuid, p_now timestamp with time zone) RETURNS TABLE(queue text, task text, state text, due boolean, n bigint, oldest timestamp with time zone)
    LANGUAGE sql STABLE
    AS $$
    SELECT j.queue, j.task, j.state, j.run_at <= p_now, count(*), min(j.run_at)
    FROM jobq.jobs j
    WHERE (p_queue IS NULL OR j.queue = p_queue)
      AND (p_all OR j.store_id = p_store)
    GROUP BY j.queue, j.task, j.state, j.run_at <= p_now
$$;

ALTER FUNCTION jobq._live_groups(p_queue text, p_all boolean, p_store uuid, p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._live_groups(p_queue text, p_all boolean, p_store uuid, p_now timestamp with time zone) IS 'Private. The live jobs of queue p_queue (NULL: every queue), of every store when p_all, else of store p_store, grouped by queue, task, state and due (run_at <= p_now): the count and the oldest run_at of each group. Inlined. Callers: jobq._stats (live), jobq._count_live_jobs (stored). Reads every live job of the scope; locks nothing.';

CREATE FUNCTION jobq._lock_batch(p_batch_id bigint) RETURNS jobq.batches
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_batch jobq.batches;
BEGIN
    SELECT b.* INTO v_batch FROM jobq.batches b
    WHERE b.id = p_batch_id AND jobq._caller_reaches(b.store_id)
    FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.BATCH_NOT_FOUND', format('batch %s', coalesce(p_batch_id::text, 'NULL')));
    END IF;
    RETURN v_batch;
END
$$;

ALTER FUNCTION jobq._lock_batch(p_batch_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._lock_batch(p_batch_id bigint) IS 'Private. Locks (FOR UPDATE) and returns batch p_batch_id when the caller of the gate function reaches its store (jobq._caller_reaches). Errors: JOB.BATCH_NOT_FOUND (unknown, NULL, or another store''s).';

CREATE FUNCTION jobq._lock_limited_queues(p_queues text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    -- Key: (1785684593, hashtext(queue)); 1785684593 is 'jobq' in ASCII. Two queues whose names
    -- share a hash share a lock, which serialises their claims and changes nothing else.
    -- A transaction that holds a limited queue's lock from an earlier claim never waits for
    -- another (jobq._claim_locks_held): it only tries them, and jobq._pick_limited takes nothing
    -- from a queue whose lock it could not get. So a claim waits for a lock only while it holds
    -- none but those this call took in key order, and claims cannot deadlock.
    IF jobq._claim_locks_held() THEN
        PERFORM pg_try_advisory_xact_lock(1785684593, l.k)
        FROM (SELECT DISTINCT hashtext(q.name) AS k FROM jobq.queues q WHERE q.name = ANY (p_queues) AND q.limited ORDER BY 1) AS l;
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(1785684593, l.k)
    FROM (SELECT DISTINCT hashtext(q.name) AS k FROM jobq.queues q WHERE q.name = ANY (p_queues) AND q.limited ORDER BY 1) AS l;
    IF FOUND THEN
        PERFORM jobq._note_claim_locks_held();
    END IF;
END
$$;

ALTER FUNCTION jobq._lock_limited_queues(p_queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._lock_limited_queues(p_queues text[]) IS 'Private. Takes pg_advisory_xact_lock(1785684593, hashtext(name)) for every queue of p_queues with a concurrency limit (jobq.queues.limited), in key order; held until the transaction ends. Waits for another claim holding one of them, unless the transaction already holds a limited queue''s lock (jobq._claim_locks_held): then it only tries each lock, never waiting. Notes the locks held (jobq._note_claim_locks_held).';

CREATE FUNCTION jobq._lock_queue_row(p_queue text, p_create boolean) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._lock_queue_row(p_queue text, p_create boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._lock_queue_row(p_queue text, p_create boolean) IS 'Private. Locks the jobq.queues row of p_queue FOR UPDATE and returns true; when it has none: with p_create, inserts one (ON CONFLICT DO NOTHING, then locks it) and returns true, unless the queue is unknown to the engine (not default, and no declared task, live job, registered worker not stopped or schedule names it), which raises JOB.INVALID_ARGUMENT; without p_create, returns false and writes nothing. Callers: jobq._set_queue_limit, jobq.set_fair_claiming.';

CREATE FUNCTION jobq._lock_schedule(p_name text) RETURNS jobq.schedules
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._lock_schedule(p_name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._lock_schedule(p_name text) IS 'Private. Locks and returns schedule p_name. Errors: JOB.INVALID_ARGUMENT (NULL or blank), JOB.VALUE_TOO_LONG (above 100 characters), JOB.UNKNOWN_SCHEDULE.';

CREATE FUNCTION jobq._lock_sequences(p_store_ids uuid[], p_keys text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    PERFORM pg_catalog.pg_advisory_xact_lock(1785684700, l.h)
    FROM (SELECT DISTINCT pg_catalog.hashtext(coalesce(u.s::text, '-') || '/' || u.k) AS h
          FROM unnest(p_store_ids, p_keys) AS u(s, k)
          WHERE u.k IS NOT NULL
          ORDER BY 1) AS l;
END
$$;

ALTER FUNCTION jobq._lock_sequences(p_store_ids uuid[], p_keys text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._lock_sequences(p_store_ids uuid[], p_keys text[]) IS 'Private. Takes pg_advisory_xact_lock(1785684700, hashtext(store/key)) for every (store, sequence key) given, in hash order; held until the transaction ends. Callers: jobq._workflow_prepare (enqueue), jobq._settle_ended (the trigger).';

CREATE FUNCTION jobq._maintain(p_worker_id text, p_epoch bigint, p_now timestamp with time zone) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_leader jobq.leader;
    v_enqueued integer;
    v_skipped integer;
    v_lost text[];
    v_rescued integer;
    v_pruned bigint;
    v_days_dropped integer;
    v_worker text;
    v_dead jsonb;
    v_dead_ids bigint[];
    v_retention_cutoff constant timestamptz := jobq._ts_add(p_now, -jobq._setting_interval('history_retention'));
    v_silent_cutoff constant timestamptz := jobq._ts_add(p_now, -jobq._setting_interval('worker_timeout'));
BEGIN
    IF (p_worker_id IS NULL) <> (p_epoch IS NULL) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'pass both worker_id and epoch (fenced), or neither (unfenced)');
    END IF;
    IF p_worker_id IS NOT NULL THEN
        -- NULL (with a NULL epoch) is the unfenced form; any other worker id follows the rule.
        PERFORM jobq._check_worker_id(p_worker_id);
        -- Held until commit: no other worker can take the leadership while this call acts.
        SELECT * INTO v_leader FROM jobq.leader l FOR SHARE;
        IF v_leader.holder IS DISTINCT FROM p_worker_id OR v_leader.epoch <> p_epoch OR v_leader.lease_expires_at <= p_now THEN
            RETURN jsonb_build_object('fenced', true, 'epoch', p_epoch, 'current_epoch', v_leader.epoch,
                                      'holder', v_leader.holder);
        END IF;
    END IF;

    SELECT (count(*) FILTER (WHERE d.outcome = 'enqueued'))::integer, (count(*) FILTER (WHERE d.outcome = 'skipped'))::integer
    INTO v_enqueued, v_skipped
    FROM jobq._enqueue_due_slots(p_now, 100) AS d;

    -- Silent workers: an active one is marked lost (a draining or detached one keeps the state
    -- an operator gave it); the leases of every silent worker are rescued now.
    WITH lost AS (
        UPDATE jobq.workers AS w SET state = 'lost', state_changed_at = p_now
        WHERE w.state = 'active'
          AND w.heartbeat_at < v_silent_cutoff
        RETURNING w.id
    )
    SELECT coalesce(array_agg(lost.id ORDER BY lost.id), '{}') INTO v_lost FROM lost;
    FOR v_worker IN
        SELECT w.id FROM jobq.workers w
        WHERE w.heartbeat_at < v_silent_cutoff
          AND EXISTS (SELECT 1 FROM jobq.leases l WHERE l.worker_id = w.id)
    LOOP
        PERFORM jobq._release_worker_leases(v_worker, p_now);
    END LOOP;

    -- One sweep takes the released leases with every other expired one. Each job that died in it
    -- (orphaned, timed out or detached on its last attempt) is returned, so that the runner that
    -- called maintain reports it (Sentry): the sweep and the answer commit together, and a job
    -- dies in exactly one sweep, so it is returned exactly once, whichever worker leads.
    SELECT count(*)::integer, coalesce(array_agg(r.job_id) FILTER (WHERE r.outcome = 'dead'), '{}')
    INTO v_rescued, v_dead_ids
    FROM jobq._rescue(1000, p_now) AS r;
    -- A statement of its own: the history rows the sweep just wrote are visible from here. When
    -- nothing died (nearly always) history is not read: on a small history the planner would
    -- scan it whole for an empty id list.
    v_dead := '[]';
    IF cardinality(v_dead_ids) > 0 THEN
        SELECT coalesce(jsonb_agg(jsonb_build_object('job_id', h.id, 'task', h.task, 'queue', h.queue, 'store_id', h.store_id,
                                                     'attempt', h.attempt, 'reason', h.reason, 'worker', h.locked_by,
                                                     'error', h.last_error, 'duration_ms',
                                                     round(extract(epoch FROM p_now - h.claimed_at) * 1000)::bigint)
                                  ORDER BY h.id), '[]')
        INTO v_dead
        FROM jobq.job_history h
        WHERE h.id = ANY (v_dead_ids);
    END IF;

    -- CONFIRMING rows whose lease ended otherwise (completed, failed, canceled before the
    -- deadline) are left over: they never apply to another lease, and go here.
    DELETE FROM jobq.continuations AS c
    WHERE NOT EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.id = c.job_id AND j.lease_token = c.lease_token AND j.state = 'running');

    -- Jobs a setter of fair claiming could not see, flagged once they can be (none nearly always:
    -- one probe of the small jobq.queues).
    PERFORM jobq._settle_fair_flags();
    -- Running jobs claimed while their queue was not limited, counted by its limits once flagged,
    -- and, once after the upgrade to migration 00036, running jobs without a claim's receipt.
    PERFORM jobq._settle_counted_flags();
    PERFORM jobq._cover_running_jobs();

    -- The live jobs counted for jobq.stats when it is time (a big backlog only, at most a
    -- twentieth of one core: jobq._count_live_jobs).
    PERFORM jobq._count_live_jobs(p_now);

    -- History by day: the next days' partitions made ahead (one catalog probe when they exist),
    -- days past retention dropped, the rest pruned row by row; when nothing is past retention
    -- (nearly always: maintain runs every second), no row of history is read.
    PERFORM jobq._history_days_ahead(p_now);
    SELECT p.rows_deleted, p.days_dropped INTO v_pruned, v_days_dropped FROM jobq._prune_history(v_retention_cutoff, 10000) p;
    IF (SELECT min(o.ended_at) FROM jobq.job_attempts o) < v_retention_cutoff THEN
        DELETE FROM jobq.job_attempts AS a
        WHERE a.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.job_attempts o WHERE o.ended_at < v_retention_cutoff LIMIT 10000));
    END IF;
    DELETE FROM jobq.schedule_runs AS r
    WHERE r.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.schedule_runs o WHERE o.created_at < v_retention_cutoff LIMIT 10000));
    DELETE FROM jobq.workers AS w
    WHERE w.state IN ('stopped', 'lost') AND w.state_changed_at < v_retention_cutoff;

    RETURN jsonb_build_object('fenced', false, 'epoch', p_epoch, 'slots_enqueued', v_enqueued, 'slots_skipped', v_skipped,
                              'lost_workers', to_jsonb(v_lost), 'rescued', v_rescued, 'history_pruned', v_pruned,
                              'history_days_dropped', v_days_dropped,
                              'dead', v_dead);
END
$$;

ALTER FUNCTION jobq._maintain(p_worker_id text, p_epoch bigint, p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._maintain(p_worker_id text, p_epoch bigint, p_now timestamp with time zone) IS 'Private. jobq.maintain at time p_now. Its cut-offs (history_retention, worker_timeout) saturate (jobq._ts_add).';

CREATE FUNCTION jobq._max_payload_bytes() RETURNS integer
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
    RETURN coalesce((SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'max_payload_bytes'), 1048576);
END
$$;

ALTER FUNCTION jobq._max_payload_bytes() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._max_payload_bytes() IS 'Private. The setting max_payload_bytes (1048576 when the row is missing).';

CREATE FUNCTION jobq._max_result_bytes() RETURNS bigint
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
    RETURN coalesce((SELECT s.value::bigint FROM jobq.settings s WHERE s.name = 'max_result_bytes'), 65536);
END
$$;

ALTER FUNCTION jobq._max_result_bytes() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._max_result_bytes() IS 'Private. The setting max_result_bytes (65536 when the row is missing).';

CREATE FUNCTION jobq._near_limit_setting(p_queue text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT 'jobq.near_limit_' || pg_catalog.to_hex(pg_catalog.hashtext(p_queue)) $$;

ALTER FUNCTION jobq._near_limit_setting(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._near_limit_setting(p_queue text) IS 'Private. jobq.near_limit_<to_hex(hashtext(p_queue))>: the custom setting noting, for the session, that a claim of the queue found no room for a shared claim. Callers: jobq._shared_claim_slot, jobq._shared_claim_room, jobq._pick_limited.';

CREATE FUNCTION jobq._not_served(p_queue text, p_now timestamp with time zone, p_cap integer) RETURNS TABLE(not_served bigint, oldest_at timestamp with time zone)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._not_served(p_queue text, p_now timestamp with time zone, p_cap integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._not_served(p_queue text, p_now timestamp with time zone, p_cap integer) IS 'Private. For queue p_queue: not_served, the waiting jobs (queued or retry_pending, due or not) whose task no live worker of the queue serves (jobq._served_by_live_workers), counted up to p_cap + 1; oldest_at, the run_at of the oldest of them that is due at p_now (NULL when none is). Reads nothing of jobq.jobs when a live worker serves every task of the queue; otherwise the queue''s waiting jobs through jobs_claim_idx. Callers: jobq.queue_summary, jobq.queue_not_served. Locks nothing. Errors: none.';

CREATE FUNCTION jobq._note_claim_locks_held() RETURNS void
    LANGUAGE sql
    AS $$ SELECT pg_catalog.set_config('jobq.claim_locks_held', 'held', true); $$;

ALTER FUNCTION jobq._note_claim_locks_held() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._note_claim_locks_held() IS 'Private. Sets the transaction-local setting jobq.claim_locks_held to held. Callers: jobq._lock_limited_queues, jobq._shared_claim_room, after they took a limited queue''s lock waiting for it.';

CREATE FUNCTION jobq._note_shared_claim(p_queue text, p_n integer) RETURNS void
    LANGUAGE sql
    AS $$
    SELECT pg_catalog.set_config(jobq._shared_claim_setting(p_queue), (jobq._shared_claim_taken(p_queue) + p_n)::text, true);
$$;

ALTER FUNCTION jobq._note_shared_claim(p_queue text, p_n integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._note_shared_claim(p_queue text, p_n integer) IS 'Private. Adds p_n to the transaction-local count of p_queue''s jobs taken by shared claims (jobq._shared_claim_setting). Caller: jobq._claim, after a shared claim''s update.';

CREATE FUNCTION jobq._notify_done() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    PERFORM jobq._tell_done(ARRAY(SELECT e.id FROM jobq_ended e));
    RETURN NULL;
END
$$;

ALTER FUNCTION jobq._notify_done() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._notify_done() IS 'Private. Statement-level AFTER INSERT trigger of jobq.job_history (job_history_notify_done): jobq._tell_done of the inserted rows'' job ids (NOTIFY jobq_done, delivered at the commit, while a client holds the done doorbell). Raises nothing.';

CREATE FUNCTION jobq._parents_of(p_job_id bigint) RETURNS SETOF bigint
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT p.id
    FROM unnest(coalesce((SELECT j.depends_on FROM jobq.jobs j WHERE j.id = p_job_id),
                         (SELECT h.depends_on FROM jobq.job_history h WHERE h.id = p_job_id))) AS p(id)
    ORDER BY p.id
$$;

ALTER FUNCTION jobq._parents_of(p_job_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._parents_of(p_job_id bigint) IS 'Private. The ids of job p_job_id''s parents (its depends_on, live or in jobq.job_history), in id order; none for a job without parents or one the caller cannot see. Runs as its caller. Caller: jobq.parent_results (results). Locks nothing.';

CREATE FUNCTION jobq._pick_fair(p_queue text, p_max_jobs integer, p_now timestamp with time zone, p_skip_stores uuid[], p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[] DEFAULT NULL::text[], OUT ids bigint[], OUT stores uuid[], OUT parts text[]) RETURNS record
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
DECLARE
    v_room integer := p_max_jobs;
    v_cursor uuid;                         -- the store served last
    v_start uuid;                          -- the cursor as this pick found it
    v_first record;                        -- the priority served, its first store and that store's first job
    v_key uuid;                            -- the store stepped to
    v_next record;                         -- its first waiting job
    v_turn uuid;                           -- the cursor as this priority's turn began
    v_from_cursor boolean;                 -- the round starts after the cursor, then wraps round
    v_wrapped boolean;
    v_stepped boolean;                     -- every store of the priority has been stepped over
    v_served boolean := false;             -- the first priority was served by its one store
    v_keys uuid[];                         -- the round's stores, and where each one's jobs start
    v_runs timestamptz[];
    v_ids bigint[];
    v_took record;
BEGIN
    SELECT c.store_key INTO v_cursor FROM jobq.claim_cursors c WHERE c.queue = p_queue;
    v_start := v_cursor;
    SELECT * INTO v_first FROM jobq._fair_first(p_queue, NULL, p_partition_key, p_tasks);
    -- The usual pick of a burst: no other store has a waiting job in the first priority, so every
    -- turn of it is that store's, wherever the cursor is: its due jobs in one locking scan,
    -- without rounds (issue 18: 30 µs of a claim's 210).
    IF v_first.priority IS NOT NULL AND v_first.run_at <= p_now AND p_partition_key IS NULL AND v_first.store <> ALL (p_skip_stores)
       AND NOT EXISTS (SELECT 1 FROM jobq._fair_next_store(p_queue, v_first.priority, v_first.store, NULL, p_tasks)) THEN
        v_took := jobq._fair_take_store(p_queue, v_first.priority, v_first.store, v_first.run_at, v_first.id, v_room, p_now,
                                        NULL, '{}', p_skip_ids, p_tasks);
        IF v_took.ids IS NOT NULL THEN
            ids := v_took.ids; stores := array_fill(v_first.store, ARRAY[cardinality(v_took.ids)]); parts := v_took.parts;
            v_room := v_room - cardinality(v_took.ids);
            v_cursor := v_first.store;
        END IF;
        v_served := true;
    END IF;
    WHILE v_first.priority IS NOT NULL AND v_room > 0 LOOP
        -- This priority's stores in turn: from after the cursor to the last store, then from the
        -- first up to the cursor; a round at a time, at most one store per job still wanted.
        v_turn := v_cursor;
        v_from_cursor := v_turn IS NOT NULL AND v_turn >= v_first.store;
        v_wrapped := NOT v_from_cursor;
        v_key := CASE WHEN v_from_cursor THEN v_turn END;
        v_stepped := v_served;             -- nothing more to step over in a priority served above
        v_served := false;
        WHILE NOT v_stepped AND v_room > 0 LOOP
            v_keys := '{}'::uuid[]; v_runs := '{}'::timestamptz[]; v_ids := '{}'::bigint[];
            WHILE cardinality(v_keys) < v_room LOOP
                IF v_wrapped AND v_from_cursor AND v_key >= v_turn THEN
                    v_stepped := true;
                    EXIT;
                END IF;
                IF v_key IS NULL THEN
                    v_next := v_first;
                ELSE
                    SELECT * INTO v_next FROM jobq._fair_next_store(p_queue, v_first.priority, v_key, p_partition_key, p_tasks);
                    IF v_next.store IS NULL THEN   -- past the last store: wrap round once
                        v_stepped := v_wrapped;
                        EXIT WHEN v_wrapped;
                        v_wrapped := true;
                        v_key := NULL;
                        CONTINUE;
                    END IF;
                END IF;
                v_key := v_next.store;
                -- A store whose first job is not due has none due (its jobs are in run_at order).
                CONTINUE WHEN v_next.run_at > p_now OR v_key = ANY (p_skip_stores);
                IF p_partition_key IS NOT NULL AND v_next.part = ANY (p_skip_parts) THEN
                    SELECT * INTO v_next FROM jobq._fair_first_outside(p_queue, v_first.priority, v_key, v_next.run_at, v_next.id,
                                                                       p_now, p_partition_key, p_skip_parts, p_tasks);
                    CONTINUE WHEN v_next.id IS NULL;
                END IF;
                v_keys := v_keys || v_key; v_runs := v_runs || v_next.run_at; v_ids := v_ids || v_next.id;
            END LOOP;
            -- Take the round's jobs in turn; the stores that gave their whole share are served
            -- again, from after their last job, while jobs are still wanted.
            WHILE cardinality(v_keys) > 0 AND v_room > 0 LOOP
                IF cardinality(v_keys) = 1 THEN    -- one store: its jobs in order, and the round ends
                    SELECT t.ids, CASE WHEN t.ids IS NOT NULL THEN array_fill(v_keys[1], ARRAY[cardinality(t.ids)]) END AS keys,
                           t.parts, '{}'::uuid[] AS full_keys, '{}'::timestamptz[] AS full_runs, '{}'::bigint[] AS full_ids
                    INTO v_took
                    FROM jobq._fair_take_store(p_queue, v_first.priority, v_keys[1], v_runs[1], v_ids[1], v_room, p_now,
                                               p_partition_key, p_skip_parts, p_skip_ids, p_tasks) AS t;
                ELSE
                    v_took := jobq._fair_take_round(p_queue, v_first.priority, v_keys, v_runs, v_ids, v_room, p_now,
                                                    p_partition_key, p_skip_parts, p_skip_ids, p_tasks);
                END IF;
                EXIT WHEN v_took.ids IS NULL;
                ids := ids || v_took.ids; stores := stores || v_took.keys; parts := parts || v_took.parts;
                v_room := v_room - cardinality(v_took.ids);
                v_cursor := v_took.keys[cardinality(v_took.keys)];
                v_keys := v_took.full_keys; v_runs := v_took.full_runs; v_ids := v_took.full_ids;
            END LOOP;
        END LOOP;
        EXIT WHEN v_room <= 0;
        SELECT * INTO v_first FROM jobq._fair_first(p_queue, v_first.priority, p_partition_key, p_tasks);
    END LOOP;
    -- The next pick serves first the stores after the one served last. Claims run side by side:
    -- one that finds the cursor row locked by another (which moves it) leaves it, rather than
    -- wait; the row is jobq.set_fair_claiming's, never inserted by a claim.
    IF v_cursor IS DISTINCT FROM v_start THEN
        UPDATE jobq.claim_cursors AS c SET store_key = v_cursor
        WHERE c.queue = (SELECT l.queue FROM jobq.claim_cursors l WHERE l.queue = p_queue FOR UPDATE SKIP LOCKED);
    END IF;
END
$$;

ALTER FUNCTION jobq._pick_fair(p_queue text, p_max_jobs integer, p_now timestamp with time zone, p_skip_stores uuid[], p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT stores uuid[], OUT parts text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._pick_fair(p_queue text, p_max_jobs integer, p_now timestamp with time zone, p_skip_stores uuid[], p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT stores uuid[], OUT parts text[]) IS 'Private. Picks and locks (SKIP LOCKED) up to p_max_jobs due waiting jobs of the fair queue p_queue at time p_now, in turn between its stores (the zero uuid for system jobs) within each priority, highest priority first: the first due job of each store, then the second of each, and so on, the stores in key order from after the store in jobq.claim_cursors, wrapping round; passing over the stores of p_skip_stores, the jobs whose payload ->> p_partition_key is in p_skip_parts, the jobs p_skip_ids and, given p_tasks, the jobs of other tasks. Returns their ids in that order (ids), each one''s store key (stores) and partition value (parts) beside it, all three NULL when it picks none; and sets the queue''s cursor to the last store picked. Reads jobs_fair_idx (one probe per store stepped over; one locking scan per round from each store''s first entry; when no other store has a waiting job in the first priority, one probe for another store and one locking scan of that store''s due jobs, without rounds); writes the queue''s jobq.claim_cursors row (inserted by jobq.set_fair_claiming) unless another claim holds it (SKIP LOCKED: never waits); inserts none. Callers: jobq._claim (a fair queue without limits, or a shared claim of one with limits); jobq._pick_limited (any other claim of one with limits: its first pick before the queue''s advisory lock, its picks again under it).';

CREATE FUNCTION jobq._pick_guarded(p_kind text, p_queue text, p_take integer, p_now timestamp with time zone, p_lock_queues text[], p_tasks text[], OUT ids bigint[], OUT clock timestamp with time zone) RETURNS record
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_lock_timeout constant text := current_setting('lock_timeout');
BEGIN
    BEGIN
        IF jobq._claim_locks_held() THEN
            PERFORM jobq._guard_picks();
        END IF;
        IF p_kind = 'limited' THEN
            SELECT l.claim_ids, l.claim_clock INTO ids, clock FROM jobq._pick_limited(p_queue, p_take, p_now, p_lock_queues, p_tasks) AS l;
        ELSIF p_kind = 'fair' THEN
            SELECT f.ids INTO ids FROM jobq._pick_fair(p_queue, p_take, p_now, '{}', NULL, '{}', '{}', p_tasks) AS f;
        ELSE
            ids := jobq._pick_plain(p_queue, NULL, NULL, NULL, p_take, p_now, p_tasks);
        END IF;
        PERFORM set_config('lock_timeout', v_lock_timeout, true);
    EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
        ids := NULL;
        clock := NULL;
    END;
END
$$;

ALTER FUNCTION jobq._pick_guarded(p_kind text, p_queue text, p_take integer, p_now timestamp with time zone, p_lock_queues text[], p_tasks text[], OUT ids bigint[], OUT clock timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._pick_guarded(p_kind text, p_queue text, p_take integer, p_now timestamp with time zone, p_lock_queues text[], p_tasks text[], OUT ids bigint[], OUT clock timestamp with time zone) IS 'Private. Runs the pick p_kind (limited: jobq._pick_limited, given p_lock_queues; fair: jobq._pick_fair; plain: jobq._pick_plain from the head) of up to p_take jobs of p_queue in a subtransaction, under jobq._guard_picks'' lock_timeout when the transaction holds a limited queue''s lock, and sets the caller''s lock_timeout back; a lock_not_available or deadlock_detected inside takes nothing (ids and clock NULL; the pick''s row and advisory locks go back). Returns the ids picked (NULL for none) and a rate-limited pick''s clock. Caller: jobq._claim.';

CREATE FUNCTION jobq._pick_limited(p_queue text, p_max_jobs integer, p_now timestamp with time zone, p_lock_queues text[], p_tasks text[], OUT claim_ids bigint[], OUT claim_clock timestamp with time zone) RETURNS record
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
DECLARE
    v_q jobq.queues;
    v_c record;                            -- the counts (jobq._limited_counts), once under the lock
    v_room integer := p_max_jobs;          -- jobs this call may still claim
    v_pick record;                         -- a round's pick: ids, stores, parts and where it ended
    v_keep record;                         -- the jobs of the pick that fit, and the counts after them
    v_counts jsonb;                        -- running jobs and starts per store and partition
    v_full_stores uuid[] := '{}'::uuid[];          -- stores and partitions at a limit: not picked again
    v_full_parts text[] := '{}'::text[];
    v_counted boolean := false;            -- the limits were counted (under the lock)
    v_after_priority smallint := (-32768)::smallint;   -- a plain pick starts after the last job picked
    v_after_run_at timestamptz := '-infinity'::timestamptz;
    v_after_id bigint := (-9223372036854775807)::bigint - 1;
BEGIN
    SELECT * INTO v_q FROM jobq.queues q WHERE q.name = p_queue;
    LOOP
        IF jobq._claim_locks_held() THEN
            PERFORM jobq._guard_picks();   -- jobq._pick_guarded sets the lock_timeout back
        END IF;
        SELECT * INTO v_pick FROM jobq._limited_round(p_queue, v_q.fair, v_room, p_now, v_full_stores, v_q.partition_key, v_full_parts,
                                                      coalesce(claim_ids, '{}'), v_after_priority, v_after_run_at, v_after_id, p_tasks);
        IF NOT v_counted THEN
            -- The first round: lock, then count (this statement's snapshot follows the lock).
            IF p_lock_queues IS NOT NULL THEN
                PERFORM jobq._lock_limited_queues(p_lock_queues);
            END IF;
            EXIT WHEN v_pick.ids IS NULL;
            IF v_q.limited THEN
                -- Held already when jobq._lock_limited_queues locked the claim's queues; a queue
                -- limited since is not waited for (that could deadlock): left to the next claim.
                IF NOT pg_try_advisory_xact_lock(1785684593, hashtext(p_queue)) THEN
                    RETURN;
                END IF;
                PERFORM jobq._note_claim_locks_held();
            END IF;
            SELECT * INTO v_c FROM jobq._limited_counts(p_queue, p_now, p_lock_queues IS NOT NULL);
            v_counted := true;
            v_room := least(v_room, v_c.room);
            EXIT WHEN v_room <= 0;
            v_counts := v_c.counts;
            v_full_stores := v_c.full_stores;
            v_full_parts := v_c.full_parts;
        END IF;
        EXIT WHEN v_pick.ids IS NULL;
        IF num_nonnulls(v_q.max_running_per_store, v_q.max_started_per_store, v_q.max_running_per_partition) = 0 THEN
            -- Only queue-wide limits: the room is the whole test.
            SELECT v_pick.ids[1:v_room] AS ids, v_pick.stores[1:v_room] AS stores, v_counts AS counts,
                   '{}'::uuid[] AS full_stores, '{}'::text[] AS full_parts INTO v_keep;
        ELSE
            SELECT * INTO v_keep FROM jobq._keep_within_limits(p_queue, v_pick.ids, v_pick.stores, v_pick.parts, v_room, v_counts);
        END IF;
        v_counts := v_keep.counts;
        v_full_stores := v_full_stores || v_keep.full_stores;
        v_full_parts := v_full_parts || v_keep.full_parts;
        v_after_priority := v_pick.last_priority; v_after_run_at := v_pick.last_run_at; v_after_id := v_pick.last_id;
        IF cardinality(v_keep.ids) > 0 THEN
            claim_ids := coalesce(claim_ids, '{}') || v_keep.ids;
            v_room := v_room - cardinality(v_keep.ids);
            IF v_c.clock IS NOT NULL THEN
                claim_clock := v_c.clock;
                INSERT INTO jobq.claim_starts (queue, store_id, started_at)
                SELECT p_queue, nullif(k.store, jobq._store_key(NULL)), v_c.clock FROM unnest(v_keep.stores) AS k(store);
            END IF;
        END IF;
        EXIT WHEN v_room <= 0 OR cardinality(v_keep.ids) = cardinality(v_pick.ids);
    END LOOP;
END
$$;

ALTER FUNCTION jobq._pick_limited(p_queue text, p_max_jobs integer, p_now timestamp with time zone, p_lock_queues text[], p_tasks text[], OUT claim_ids bigint[], OUT claim_clock timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._pick_limited(p_queue text, p_max_jobs integer, p_now timestamp with time zone, p_lock_queues text[], p_tasks text[], OUT claim_ids bigint[], OUT claim_clock timestamp with time zone) IS 'Private. The pick of a claim of one queue with concurrency or rate limits at time p_now: from the head of the queue, at most p_max_jobs due jobs of the tasks p_tasks (NULL: every task), none beyond max_running running jobs of the queue, max_running_per_store per store (NULL store: one more store) or max_running_per_partition per value of payload ->> partition_key, nor more started than max_started in any window of started_per (max_started_per_store per store in any window of store_started_per; logged in jobq.claim_starts, pruned by jobq._limited_counts; such a start''s claimed_at is the instant under the lock); the jobs left over stay queued and use no attempt. Returns the jobs'' ids in claim_ids (NULL for none) and, for a rate-limited queue, that instant in claim_clock (else NULL). Picks with jobq._limited_round, counts with jobq._limited_counts and keeps with jobq._keep_within_limits, under the queue''s advisory lock (1785684593, hashtext(queue)), exclusive. Given p_lock_queues (the claim''s first limited queue), it first picks and locks its jobs (SKIP LOCKED) as if no limit were full, then takes the locks of every limited queue of p_lock_queues, waiting unless the transaction holds one already (jobq._lock_limited_queues); else it takes the queue''s lock if free and claims nothing if not. Locks the rows it picks (a picked job not kept stays queued, its row locked until the transaction ends) and the advisory locks until the transaction ends. Caller: jobq._pick_guarded.';

CREATE FUNCTION jobq._pick_plain(p_queue text, p_after_priority smallint, p_after_run_at timestamp with time zone, p_after_id bigint, p_take integer, p_now timestamp with time zone, p_tasks text[]) RETURNS bigint[]
    LANGUAGE plpgsql
    AS $$
-- VOLATILE for its row locks, which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_ids bigint[] := '{}'::bigint[];
    v_from_priority smallint := (-32768)::smallint;    -- each pass takes the jobs after (from) in claim order,
    v_from_run_at timestamptz := '-infinity'::timestamptz;  -- up to priority v_to: the head first
    v_from_id bigint := (-9223372036854775807)::bigint - 1;
    v_to integer := coalesce(p_after_priority - 1, 32767);
BEGIN
    FOR v_pass IN 1 .. CASE WHEN p_after_id IS NULL THEN 1 ELSE 2 END LOOP
        IF v_pass = 2 THEN
            v_from_priority := p_after_priority; v_from_run_at := p_after_run_at; v_from_id := p_after_id; v_to := 32767;
        END IF;
        CONTINUE WHEN v_to < -32768;
        v_ids := v_ids || ARRAY(
            SELECT j.id
            FROM jobq.jobs j
            WHERE j.ready AND jobq._rule_waiting(j.state)
              AND j.queue = p_queue
              AND (j.priority, j.run_at, j.id) > (v_from_priority, v_from_run_at, v_from_id)
              AND j.priority <= v_to
              AND jobq._rule_due(j.run_at, p_now)
              AND jobq._rule_served(j.task, p_tasks)
            ORDER BY j.priority, j.run_at, j.id
            LIMIT p_take - cardinality(v_ids)
            FOR UPDATE SKIP LOCKED);
        EXIT WHEN cardinality(v_ids) >= p_take;
    END LOOP;
    RETURN nullif(v_ids, '{}');
END
$$;

ALTER FUNCTION jobq._pick_plain(p_queue text, p_after_priority smallint, p_after_run_at timestamp with time zone, p_after_id bigint, p_take integer, p_now timestamp with time zone, p_tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._pick_plain(p_queue text, p_after_priority smallint, p_after_run_at timestamp with time zone, p_after_id bigint, p_take integer, p_now timestamp with time zone, p_tasks text[]) IS 'Private. Locks (FOR UPDATE SKIP LOCKED) and returns the ids of up to p_take jobs of queue p_queue that wait, are due at p_now and are of the tasks p_tasks (NULL: every task): jobq._rule_waiting, _rule_due, _rule_served; in (priority, run_at, id) order; NULL when none. Given a position (p_after_priority, p_after_run_at, p_after_id), only the jobs of a higher priority than it and those after it; NULLs: from the head. Reads jobs_claim_idx under its caller''s planner settings. Callers: jobq._claim and jobq._pick_guarded; jobq._claim leases the jobs it returns.';

CREATE FUNCTION jobq._prune_history(p_cutoff timestamp with time zone, p_batch integer) RETURNS TABLE(rows_deleted bigint, days_dropped integer)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET lock_timeout TO '100ms'
    AS $_$
-- VOLATILE for its DROP and DELETE (EXECUTE), which plpgsql_check does not count as writes:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_part record;
    v_past boolean;
    v_n bigint;
    v_span constant interval := pg_catalog.make_interval(days => jobq._history_span_days(jobq._setting_interval('history_retention')));
BEGIN
    rows_deleted := 0;
    days_dropped := 0;
    IF p_cutoff IS NULL OR p_batch IS NULL OR p_batch < 1 THEN
        RETURN NEXT;
        RETURN;
    END IF;
    FOR v_part IN SELECT p.part FROM jobq._history_partitions() p WHERE NOT p.is_default AND p.upper <= p_cutoff ORDER BY p.upper LOOP
        BEGIN
            EXECUTE format('DROP TABLE %s', v_part.part);
            days_dropped := days_dropped + 1;
        EXCEPTION WHEN lock_not_available THEN
            -- A reader holds history: the next call drops it.
            NULL;
        END;
    END LOOP;
    FOR v_part IN SELECT p.part, p.by_day FROM jobq._history_partitions() p
                  WHERE NOT p.by_day OR (p.lower < p_cutoff AND p.upper - p.lower > v_span)
                  ORDER BY p.lower NULLS LAST LOOP
        EXIT WHEN rows_deleted >= p_batch;
        BEGIN
            -- The default partition and the old history through their finished_at btree; a wide
            -- span (no btree) by its first row past the cut-off, the oldest rows coming first.
            EXECUTE format(CASE WHEN v_part.by_day THEN 'SELECT EXISTS (SELECT 1 FROM %s h WHERE h.finished_at < $1)'
                                ELSE 'SELECT min(h.finished_at) < $1 FROM %s h' END, v_part.part)
                INTO v_past USING p_cutoff;
            CONTINUE WHEN v_past IS NOT TRUE;
            EXECUTE format('DELETE FROM %s h WHERE h.ctid = ANY (ARRAY(SELECT o.ctid FROM %s o WHERE o.finished_at < $1 LIMIT $2))',
                           v_part.part, v_part.part)
                USING p_cutoff, p_batch - rows_deleted;
            GET DIAGNOSTICS v_n = ROW_COUNT;
            rows_deleted := rows_deleted + v_n;
        EXCEPTION WHEN lock_not_available THEN
            -- A day being attached (which holds the default partition), or a row being deleted or
            -- moved back by an operator right now: the next call.
            NULL;
        END;
    END LOOP;
    RETURN NEXT;
END
$_$;

ALTER FUNCTION jobq._prune_history(p_cutoff timestamp with time zone, p_batch integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._prune_history(p_cutoff timestamp with time zone, p_batch integer) IS 'Private. History retention at cut-off p_cutoff: drops every partition of jobq.job_history whose upper bound is at or before p_cutoff (a day or a span of days, or the history kept before migration 00037), skipping one whose lock is not taken within 100 ms (lock_timeout: a reader holds history; the next call drops it), then deletes at most p_batch rows (a partition whose rows it cannot lock within 100 ms waits for the next call) with finished_at before p_cutoff from the partitions pruned row by row (the default partition, the old history, and a partition straddling p_cutoff that spans more days than jobq._history_span_days of the setting history_retention now asks: one made before the retention was shortened), reading none when the oldest of each (its finished_at btree) is not past p_cutoff. Returns the rows deleted and the partitions dropped; nothing when p_cutoff or p_batch is NULL or p_batch below 1. Runs as its caller, the owner (jobq.prune_history and jobq.maintain are SECURITY DEFINER). Callers: jobq.prune_history, jobq._maintain.';

CREATE TABLE jobq.queues (
    name text NOT NULL,
    paused boolean DEFAULT false NOT NULL,
    paused_at timestamp with time zone,
    paused_by text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    max_running integer,
    max_running_per_store integer,
    partition_key text,
    max_running_per_partition integer,
    max_started integer,
    started_per interval,
    max_started_per_store integer,
    store_started_per interval,
    limited boolean GENERATED ALWAYS AS (((max_running IS NOT NULL) OR (max_running_per_store IS NOT NULL) OR (max_running_per_partition IS NOT NULL) OR (max_started IS NOT NULL) OR (max_started_per_store IS NOT NULL))) STORED NOT NULL,
    fair boolean DEFAULT false NOT NULL,
    fair_recheck boolean DEFAULT false NOT NULL,
    fair_recheck_after xid8,
    counted_recheck boolean DEFAULT false NOT NULL,
    counted_recheck_after xid8,
    CONSTRAINT queues_check CHECK ((paused = (paused_at IS NOT NULL))),
    CONSTRAINT queues_max_running_check CHECK (((max_running >= 1) AND (max_running <= 1000000))),
    CONSTRAINT queues_max_running_per_partition_check CHECK (((max_running_per_partition >= 1) AND (max_running_per_partition <= 1000000))),
    CONSTRAINT queues_max_running_per_store_check CHECK (((max_running_per_store >= 1) AND (max_running_per_store <= 1000000))),
    CONSTRAINT queues_max_started_check CHECK (((max_started >= 1) AND (max_started <= 1000000))),
    CONSTRAINT queues_max_started_per_store_check CHECK (((max_started_per_store >= 1) AND (max_started_per_store <= 1000000))),
    CONSTRAINT queues_name_check CHECK (((name <> ''::text) AND (char_length(name) <= 200))),
    CONSTRAINT queues_partition_key_check CHECK (((btrim(partition_key) <> ''::text) AND (char_length(partition_key) <= 200))),
    CONSTRAINT queues_partition_limit_complete CHECK (((partition_key IS NULL) = (max_running_per_partition IS NULL))),
    CONSTRAINT queues_rate_limit_complete CHECK (((max_started IS NULL) = (started_per IS NULL))),
    CONSTRAINT queues_started_per_check CHECK (((started_per > '00:00:00'::interval) AND (started_per <= '1 day'::interval))),
    CONSTRAINT queues_store_rate_limit_complete CHECK (((max_started_per_store IS NULL) = (store_started_per IS NULL))),
    CONSTRAINT queues_store_started_per_check CHECK (((store_started_per > '00:00:00'::interval) AND (store_started_per <= '1 day'::interval)))
);

ALTER TABLE jobq.queues OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.queues IS 'Queue controls: a paused queue keeps its jobs and takes new ones, and no claim returns them until it is resumed; a limited queue has at most max_running jobs running (per queue, per store, per partition); a fair queue serves its stores in turn. Written by jobq.pause_queue / jobq.resume_queue, the jobq.set_*concurrency_limit and jobq.set_*rate_limit functions and jobq.set_fair_claiming; read by every claim.';

COMMENT ON COLUMN jobq.queues.max_running IS 'At most this many jobs of the queue running at once across every worker (jobq.set_concurrency_limit); NULL: no limit.';

COMMENT ON COLUMN jobq.queues.max_running_per_store IS 'At most this many running jobs of the queue per store_id; system jobs (no store) count as one more store (jobq.set_store_concurrency_limit); NULL: no limit.';

COMMENT ON COLUMN jobq.queues.partition_key IS 'The payload field whose value partitions the queue for max_running_per_partition (jobq.set_partition_concurrency_limit); a job without the field is not limited by it.';

COMMENT ON COLUMN jobq.queues.max_running_per_partition IS 'At most this many running jobs of the queue per value of payload ->> partition_key; NULL: no limit.';

COMMENT ON COLUMN jobq.queues.max_started IS 'At most this many jobs of the queue started (claimed) in any window of started_per (jobq.set_rate_limit); NULL: no limit.';

COMMENT ON COLUMN jobq.queues.started_per IS 'The length of the sliding window of max_started (at most 1 day).';

COMMENT ON COLUMN jobq.queues.max_started_per_store IS 'At most this many jobs of the queue started per store (system jobs: one more store) in any window of store_started_per (jobq.set_store_rate_limit); NULL: no limit.';

COMMENT ON COLUMN jobq.queues.store_started_per IS 'The length of the sliding window of max_started_per_store (at most 1 day).';

COMMENT ON COLUMN jobq.queues.limited IS 'Whether any concurrency limit is set: the claim takes the queue''s advisory lock and counts its running jobs only then.';

COMMENT ON COLUMN jobq.queues.fair IS 'Whether claims serve the stores of the queue in turn within each priority (jobq.set_fair_claiming); system jobs are one more store.';

COMMENT ON COLUMN jobq.queues.fair_recheck IS 'True from jobq.set_fair_claiming turning the queue fair until jobq.maintain (jobq._settle_fair_flags) has flagged every job of the queue that a transaction older than the setter inserted unflagged.';

COMMENT ON COLUMN jobq.queues.fair_recheck_after IS 'The first transaction id not yet assigned when jobq.maintain first saw fair_recheck: once every lower one has ended and no snapshot older than it is held, no job of the queue can still be inserted unflagged; NULL until maintain saw it.';

COMMENT ON COLUMN jobq.queues.counted_recheck IS 'True from a limit set on a queue that had none until jobq._settle_counted has flagged (jobq.jobs.counted) every running job of the queue claimed unlimited; meanwhile the limits count those too.';

COMMENT ON COLUMN jobq.queues.counted_recheck_after IS 'The transaction id after that of the limit''s setter: once every lower one has ended and no snapshot older than it is held, no claim that read the queue unlimited can still commit.';

CREATE FUNCTION jobq._queue_limits(p_queue jobq.queues) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT CASE WHEN p_queue.limited OR p_queue.fair THEN jsonb_strip_nulls(jsonb_build_object(
               'max_running', p_queue.max_running, 'max_running_per_store', p_queue.max_running_per_store,
               'partition_key', p_queue.partition_key, 'max_running_per_partition', p_queue.max_running_per_partition,
               'max_started', p_queue.max_started, 'started_per', p_queue.started_per,
               'max_started_per_store', p_queue.max_started_per_store, 'store_started_per', p_queue.store_started_per,
               'fair', CASE WHEN p_queue.fair THEN true END)) END
$$;

ALTER FUNCTION jobq._queue_limits(p_queue jobq.queues) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._queue_limits(p_queue jobq.queues) IS 'Private. The limits of a row of jobq.queues as jsonb: max_running, max_running_per_store, partition_key, max_running_per_partition, max_started, started_per, max_started_per_store, store_started_per when set (intervals as PostgreSQL writes them), fair true when fair claiming is on; NULL when none is set or the row is NULL. Callers: jobq.queue_states, jobq.queue_summary, jobq._stats. Reads only its argument. Errors: none.';

CREATE FUNCTION jobq._raise(p_code text, p_detail text) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_error jobq.error_codes;
BEGIN
    SELECT * INTO v_error FROM jobq.error_codes e WHERE e.code = p_code;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'jobq internal error: % is not in jobq.error_codes', p_code;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = v_error.sqlstate,
        MESSAGE = v_error.code || ': ' || p_detail,
        HINT = v_error.hint;
END
$$;

ALTER FUNCTION jobq._raise(p_code text, p_detail text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._raise(p_code text, p_detail text) IS 'Private. Raises the jobq.error_codes entry p_code (its SQLSTATE and hint) with p_detail. Never returns.';

CREATE FUNCTION jobq._release_blocked(p_ids bigint[]) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_released bigint;
BEGIN
    IF p_ids IS NULL OR cardinality(p_ids) = 0 THEN
        RETURN 0::bigint;
    END IF;
    PERFORM 1 FROM jobq.jobs j WHERE j.id = ANY (p_ids) AND j.state = 'blocked' ORDER BY j.id FOR NO KEY UPDATE;
    WITH released AS (
        UPDATE jobq.jobs AS j SET state = 'queued', updated_at = now()
        WHERE j.id = ANY (p_ids)
          AND j.state = 'blocked'
          AND NOT EXISTS (SELECT 1 FROM jobq.job_dependencies d WHERE d.child_id = j.id)
          AND (j.sequence_key IS NULL OR jobq._heads_sequence(j.id, j.store_id, j.sequence_key))
        RETURNING j.queue, j.run_at
    ), woken AS (
        SELECT count(jobq._wake(q.queue)) AS n FROM (SELECT DISTINCT r.queue FROM released r WHERE r.run_at <= now()) AS q
    )
    SELECT (SELECT count(*) FROM released) INTO v_released FROM woken;
    RETURN v_released;
END
$$;

ALTER FUNCTION jobq._release_blocked(p_ids bigint[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._release_blocked(p_ids bigint[]) IS 'Private. Returns how many it released. Moves the blocked jobs among p_ids with no waiting edge (jobq.job_dependencies) that head their sequence (jobq._heads_sequence) to queued, and wakes their queues (jobq._wake). Locks the blocked rows in id order before it tests them in a later statement (a new snapshot): of concurrent callers for one job, the last to lock sees every other''s edge gone, so the job is released exactly once. Callers: jobq._settle_ended, jobq.delete_job.';

CREATE FUNCTION jobq._release_worker_leases(p_worker_id text, p_now timestamp with time zone) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_n integer;
BEGIN
    UPDATE jobq.jobs AS j SET lease_expires_at = p_now, updated_at = p_now
    WHERE j.id IN (SELECT unnest(l.job_ids) FROM jobq.leases l WHERE l.worker_id = p_worker_id)
      AND j.locked_by = p_worker_id AND j.state = 'running' AND j.lease_expires_at > p_now
      AND NOT EXISTS (SELECT 1 FROM jobq.continuations c
                      WHERE c.job_id = j.id AND c.lease_token = j.lease_token AND c.confirm_by > p_now);
    GET DIAGNOSTICS v_n = ROW_COUNT;
    RETURN v_n;
END
$$;

ALTER FUNCTION jobq._release_worker_leases(p_worker_id text, p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._release_worker_leases(p_worker_id text, p_now timestamp with time zone) IS 'Private. Ends at p_now every lease a worker holds, but those CONFIRMING before their deadline; the caller''s sweep (jobq._rescue) then takes them (orphaned). Returns how many it ended.';

CREATE FUNCTION jobq._rescue(p_batch_size integer, p_now timestamp with time zone) RETURNS TABLE(job_id bigint, outcome text, reason text, task text, queue text, store_id uuid, attempt integer, locked_by text)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_ids bigint[];
    v_reasons text[];
    v_errors text[];
    v_retry_in interval[];
BEGIN
    IF p_batch_size IS NULL OR p_batch_size < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('batch_size %s must be at least 1', coalesce(p_batch_size::text, 'NULL')));
    END IF;

    -- The leases to sweep, among the jobs of the claims' receipts due (jobq.leases: no index of
    -- jobq.jobs holds the running jobs), locked (SKIP LOCKED). A CONFIRMING job (jobq.continuations, same
    -- lease) has a lease that ends at its confirmation deadline, so it is not taken before;
    -- after, its attempt failed: detached. Orphaned and detached jobs run again at once (a
    -- retry_in of 0), timed-out ones after their backoff.
    SELECT array_agg(e.id ORDER BY e.n), array_agg(e.why ORDER BY e.n), array_agg(e.err ORDER BY e.n),
           array_agg(CASE WHEN e.why IN ('orphaned', 'detached') THEN interval '0' END ORDER BY e.n)
    INTO v_ids, v_reasons, v_errors, v_retry_in
    FROM (SELECT j.id, row_number() OVER () AS n,
                 CASE WHEN j.deadline_at <= p_now THEN 'timed_out'
                      WHEN c.job_id IS NOT NULL THEN 'detached'
                      ELSE 'orphaned' END AS why,
                 CASE WHEN j.deadline_at <= p_now
                      THEN format('timed out: ran longer than its timeout of %s (worker %s)', j.timeout, j.locked_by)
                      WHEN c.job_id IS NOT NULL
                      THEN format('detached: worker %s did not confirm the continuation by %s', j.locked_by, c.confirm_by)
                      ELSE format('orphaned: lease expired at %s without a heartbeat (worker %s)', j.lease_expires_at, j.locked_by)
                 END AS err
          FROM (SELECT j.* FROM jobq.jobs j
                WHERE j.id IN (SELECT unnest(l.job_ids) FROM jobq.leases l WHERE l.check_at <= p_now)
                  AND j.state = 'running'
                  AND (j.lease_expires_at <= p_now OR j.deadline_at <= p_now)
                ORDER BY least(j.lease_expires_at, j.deadline_at), j.id
                LIMIT p_batch_size
                FOR UPDATE OF j SKIP LOCKED) AS j
          LEFT JOIN jobq.continuations c ON c.job_id = j.id AND c.lease_token = j.lease_token) AS e;
    -- The receipts due move on to their jobs' next lease end or deadline, or go.
    PERFORM jobq._settle_leases(p_now, coalesce(v_ids, '{}'), 10000);
    IF v_ids IS NULL THEN
        RETURN;
    END IF;

    -- CONFIRMING ends with the lease; an unconfirmed continuation is audited.
    WITH ended AS (
        DELETE FROM jobq.continuations AS c
        USING unnest(v_ids, v_reasons) AS e(id, why)
        WHERE c.job_id = e.id
        RETURNING c.job_id, c.worker, c.confirm_by, e.why
    )
    INSERT INTO jobq.audit_log (action, job_id, detail)
    SELECT 'continuation_expired', d.job_id, jsonb_build_object('worker_id', d.worker, 'confirm_by', d.confirm_by)
    FROM ended d WHERE d.why = 'detached';

    RETURN QUERY
    SELECT f.job_id, f.outcome, f.reason, f.task, f.queue, f.store_id, f.attempt, f.locked_by
    FROM jobq._fail_attempts(p_now, v_ids, v_errors, NULL, NULL, v_retry_in, v_reasons, NULL, NULL) AS f;
END
$$;

ALTER FUNCTION jobq._rescue(p_batch_size integer, p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._rescue(p_batch_size integer, p_now timestamp with time zone) IS 'Private. The sweeper at time p_now; see jobq.rescue_expired. Each swept lease is also one jobq.job_attempts row (reason timed_out, orphaned or detached, ended_at p_now, log_ref NULL: jobq.default_log_ref, shown on read by jobq.job_attempt_list); a job keeps its newest 25. A CONFIRMING job (jobq.continuations) is taken only once its lease ended at its confirmation deadline: reason detached, back to the queue at once, its continuation row deleted and audited as continuation_expired. A timed-out job runs again at jobq._retry_at: its stored backoff clamped to the backoff limit, the sum saturating, so no stored value makes it raise.';

CREATE FUNCTION jobq._resolve_spec(p_spec jobq.job_spec, p_task jobq.tasks, p_default_attempts integer) RETURNS jobq.job_spec
    LANGUAGE sql STABLE
    AS $$
    SELECT ROW(pg_catalog.btrim(p_spec.task),
               coalesce(p_spec.payload, '{}'::jsonb),
               coalesce(p_spec.queue, p_task.queue, 'default'),
               coalesce(p_spec.run_at, pg_catalog.now()),
               coalesce(p_spec.priority, p_task.priority, 0),
               coalesce(p_spec.max_attempts, p_task.max_attempts, p_default_attempts),
               NULL,
               NULL,
               CASE WHEN p_task.scope = 'store' THEN coalesce(p_spec.store_id, (p_spec.payload ->> 'storeId')::uuid) END,
               coalesce(p_spec.timeout, p_task.timeout),
               coalesce(p_spec.backoff_base, p_task.backoff_base),
               coalesce(p_spec.backoff_max, p_task.backoff_max),
               NULL)::jobq.job_spec
$$;

ALTER FUNCTION jobq._resolve_spec(p_spec jobq.job_spec, p_task jobq.tasks, p_default_attempts integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._resolve_spec(p_spec jobq.job_spec, p_task jobq.tasks, p_default_attempts integer) IS 'Private. The job a keyless spec that takes the fast path becomes: task trimmed, the task''s defaults (queue, priority, max_attempts, timeout, backoff, store id from the payload for a store task), then the global ones (payload {}, queue default, run_at now, priority 0, max_attempts p_default_attempts). Pure; inlined.';

CREATE FUNCTION jobq._resolve_tasks(p_specs jobq.job_spec[], p_label_index boolean) RETURNS jobq.job_spec[]
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    v_uuid constant text := '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
    v_bad record;
    v_code text;
    v_detail text;
BEGIN
    WITH specs AS (
        SELECT s.ordinality AS position, btrim(s.task) AS task, coalesce(s.payload, '{}') AS payload, s.store_id
        FROM unnest(p_specs) WITH ORDINALITY AS s
    ), contract AS (
        SELECT t.name AS task, rtrim(c.key, '?') AS key, c.key LIKE '%?' AS optional, c.type
        FROM jobq.tasks t
        CROSS JOIN LATERAL jsonb_each_text(t.payload_schema) AS c(key, type)
        WHERE t.name IN (SELECT DISTINCT s.task FROM specs s)
    ), broken_contract AS (
        SELECT DISTINCT s.position
        FROM specs s
        JOIN contract k ON k.task = s.task
        WHERE (NOT k.optional AND NOT s.payload ? k.key)
           OR (s.payload ? k.key
               AND NOT jobq._json_type_ok(s.payload -> k.key, k.type)
               AND NOT (k.optional AND jsonb_typeof(s.payload -> k.key) = 'null'))
    )
    SELECT s.position, s.task, s.store_id, s.payload, t.name AS known, t.scope,
           CASE WHEN t.name IS NOT NULL THEN jobq.payload_problem(t.payload_schema, s.payload) END AS problem
    INTO v_bad
    FROM specs s
    LEFT JOIN jobq.tasks t ON t.name = s.task
    WHERE t.name IS NULL
       OR s.position IN (SELECT b.position FROM broken_contract b)
       OR (t.scope = 'system' AND s.store_id IS NOT NULL)
       OR (t.scope = 'store' AND s.store_id IS NULL AND NOT coalesce(s.payload ->> 'storeId' ~* v_uuid, false))
       OR (t.scope = 'store' AND s.store_id IS NOT NULL AND s.payload ? 'storeId'
           AND (s.payload ->> 'storeId') IS DISTINCT FROM s.store_id::text
           AND (CASE WHEN s.payload ->> 'storeId' ~* v_uuid THEN (s.payload ->> 'storeId')::uuid END) IS DISTINCT FROM s.store_id)
    ORDER BY s.position
    LIMIT 1;

    IF FOUND THEN
        IF v_bad.known IS NULL THEN
            v_code := 'JOB.UNKNOWN_TASK';
            v_detail := format('task %L is not declared', v_bad.task);
        ELSIF v_bad.problem IS NOT NULL THEN
            v_code := 'JOB.PAYLOAD_INVALID';
            v_detail := format('task %s: %s', v_bad.task, v_bad.problem);
        ELSIF v_bad.scope = 'system' THEN
            v_code := 'JOB.STORE_NOT_ALLOWED';
            v_detail := format('task %s is a system task; it got store %s', v_bad.task, v_bad.store_id);
        ELSIF v_bad.store_id IS NULL THEN
            v_code := 'JOB.STORE_REQUIRED';
            v_detail := format('task %s is store-scoped; pass store_id or a storeId in the payload', v_bad.task);
        ELSE
            v_code := 'JOB.PAYLOAD_INVALID';
            v_detail := format('task %s: payload storeId %s differs from store_id %s', v_bad.task, v_bad.payload ->> 'storeId', v_bad.store_id);
        END IF;
        PERFORM jobq._raise(v_code, CASE WHEN p_label_index THEN format('job %s: %s', v_bad.position, v_detail) ELSE v_detail END);
    END IF;

    RETURN ARRAY(
        SELECT ROW(s.task, s.payload, coalesce(s.queue, t.queue), s.run_at, coalesce(s.priority, t.priority),
                   coalesce(s.max_attempts, t.max_attempts), s.job_key, s.job_key_mode,
                   CASE WHEN t.scope = 'store' THEN coalesce(s.store_id, (s.payload ->> 'storeId')::uuid) END,
                   coalesce(s.timeout, t.timeout), coalesce(s.backoff_base, t.backoff_base),
                   coalesce(s.backoff_max, t.backoff_max), s.unique_for)::jobq.job_spec
        FROM unnest(p_specs) WITH ORDINALITY AS s
        JOIN jobq.tasks t ON t.name = btrim(s.task)
        ORDER BY s.ordinality);
END
$_$;

ALTER FUNCTION jobq._resolve_tasks(p_specs jobq.job_spec[], p_label_index boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._resolve_tasks(p_specs jobq.job_spec[], p_label_index boolean) IS 'Private. Checks each spec against jobq.tasks (JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, JOB.STORE_REQUIRED, JOB.STORE_NOT_ALLOWED), set-based, and returns the specs with the task''s defaults and store id filled in, in input order.';

CREATE FUNCTION jobq._result_visible(p_store_id uuid) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT jobq._caller_sees_every_store()
        OR (NOT jobq._caller_is_restricted()
            AND nullif(pg_catalog.current_setting('app.current_store_id', true), '') IS NULL)
        OR coalesce(p_store_id = jobq.current_store_id(), false)
$$;

ALTER FUNCTION jobq._result_visible(p_store_id uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._result_visible(p_store_id uuid) IS 'Private. Whether the caller may read a job of store p_store_id (NULL: a system job) and its result: operators and viewers every job; worker_runtime and jobq_migrator every job outside a tenant transaction (app.current_store_id unset) and only the session store''s inside one; an application only the jobs of jobq.current_store_id(). Callers: jobq.job_result, jobq.parent_results. Locks nothing.';

CREATE FUNCTION jobq._retry_at(p_now timestamp with time zone, p_attempt integer, p_base interval, p_max interval) RETURNS timestamp with time zone
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_delay constant interval := jobq.backoff_delay(
        p_attempt,
        least(greatest(coalesce(p_base, interval '2 seconds'), interval '1 microsecond'), jobq._limit_interval('backoff')),
        least(greatest(coalesce(p_max, interval '1 hour'), interval '1 microsecond'), jobq._limit_interval('backoff')));
BEGIN
    RETURN jobq._ts_add(p_now, v_delay);
END
$$;

ALTER FUNCTION jobq._retry_at(p_now timestamp with time zone, p_attempt integer, p_base interval, p_max interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._retry_at(p_now timestamp with time zone, p_attempt integer, p_base interval, p_max interval) IS 'Private. p_now + backoff_delay(p_attempt, p_base, p_max) for any stored values: a NULL base or max counts as 2 seconds or 1 hour, each is clamped to (0, 30 days], and the sum saturates (jobq._ts_add). Raises nothing. Callers: jobq._rescue, jobq.fail_jobs.';

CREATE FUNCTION jobq._revive(p_job_ids bigint[], p_action text) RETURNS SETOF bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._revive(p_job_ids bigint[], p_action text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._revive(p_job_ids bigint[], p_action text) IS 'Private. Moves finished jobs p_job_ids back to jobq.jobs as queued (attempt 0, run_at now, reason requeued), with their workflow columns (a revived job''s dependencies are not waited for again; it keeps its sequence key and, holding the lowest id, runs first), clears the holds of the sequences they held (jobq._unhold_sequences), audits each as p_action and returns the ids moved; a job whose key a live job holds is skipped.';

CREATE FUNCTION jobq._rule_at_limit(p_n bigint, p_limit integer) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT p_limit IS NOT NULL AND p_n >= p_limit $$;

ALTER FUNCTION jobq._rule_at_limit(p_n bigint, p_limit integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._rule_at_limit(p_n bigint, p_limit integer) IS 'Private. p_limit IS NOT NULL AND p_n >= p_limit: a count of running jobs or starts is at its limit (NULL: none). Inlined. Callers: jobq._pick_limited, jobq._limited_counts, jobq._holds.';

CREATE FUNCTION jobq._rule_due(p_run_at timestamp with time zone, p_now timestamp with time zone) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT p_run_at <= p_now $$;

ALTER FUNCTION jobq._rule_due(p_run_at timestamp with time zone, p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._rule_due(p_run_at timestamp with time zone, p_now timestamp with time zone) IS 'Private. p_run_at <= p_now: the job is due (not scheduled for later, not in its retry''s backoff). Inlined. Callers: the picks, jobq.claim_passed_over, jobq._holds.';

CREATE FUNCTION jobq._rule_served(p_task text, p_tasks text[]) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT p_tasks IS NULL OR p_task = ANY (p_tasks) $$;

ALTER FUNCTION jobq._rule_served(p_task text, p_tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._rule_served(p_task text, p_tasks text[]) IS 'Private. p_tasks IS NULL OR p_task = ANY (p_tasks): a worker serving p_tasks (NULL: every task) takes jobs of task p_task. Inlined. Callers: the picks, jobq.claim_passed_over.';

CREATE FUNCTION jobq._rule_waiting(p_state text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT p_state IN ('queued', 'retry_pending') $$;

ALTER FUNCTION jobq._rule_waiting(p_state text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._rule_waiting(p_state text) IS 'Private. p_state IN (''queued'', ''retry_pending''): the job waits for a claim (the picks test it beside ready, the predicate of jobs_claim_idx and jobs_fair_idx, which also hold the running jobs). Inlined. Callers: the picks (jobq._pick_plain, jobq._pick_limited, jobq._pick_fair), jobq.claim_passed_over.';

CREATE FUNCTION jobq._run_schedule(p_s jobq.schedules, p_now timestamp with time zone, p_max_slots integer) RETURNS TABLE(slot_at timestamp with time zone, outcome text, reason text, job_id bigint)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._run_schedule(p_s jobq.schedules, p_now timestamp with time zone, p_max_slots integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._run_schedule(p_s jobq.schedules, p_now timestamp with time zone, p_max_slots integer) IS 'Private. Handles the due slots of one schedule (caller holds its row lock): late stretch skipped, backfill, concurrency policy (a replaced job is audited as schedule_replaced), one job per slot with job key schedule:<name>:<slot>; every slot of the backfill window runs, across DST changes too; any stored backfill_window is safe. Returns one row per slot handled.';

CREATE FUNCTION jobq._running_counted(p_queue text) RETURNS TABLE(store_id uuid, payload jsonb)
    LANGUAGE sql STABLE
    AS $$
    SELECT j.store_id, j.payload FROM jobq.jobs j WHERE j.counted AND j.queue = p_queue
    UNION ALL
    SELECT j.store_id, j.payload FROM jobq.jobs j
    WHERE j.ready AND j.queue = p_queue AND j.state = 'running' AND NOT j.counted
      AND (SELECT q.counted_recheck FROM jobq.queues q WHERE q.name = p_queue)
$$;

ALTER FUNCTION jobq._running_counted(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._running_counted(p_queue text) IS 'Private. The running jobs of queue p_queue its limits count (store and payload of each): those flagged jobq.jobs.counted, and while jobq.queues.counted_recheck is set also the unflagged running ones, read through jobs_claim_idx. Inlined into the caller''s statement. Callers: jobq._running_in_queue, jobq._running_per_store, jobq._running_per_partition, jobq._shared_claim_room. Reads jobq.jobs and jobq.queues; locks nothing.';

CREATE FUNCTION jobq._running_in_queue(p_queue text) RETURNS TABLE(n bigint)
    LANGUAGE sql STABLE
    AS $$
    SELECT count(*) FROM jobq._running_counted(p_queue) AS r
$$;

ALTER FUNCTION jobq._running_in_queue(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._running_in_queue(p_queue text) IS 'Private. One row: the count of running jobs of queue p_queue (its max_running''s count). Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.jobs; locks nothing.';

CREATE FUNCTION jobq._running_per_partition(p_queue text, p_key text) RETURNS TABLE(part text, n bigint)
    LANGUAGE sql STABLE
    AS $$
    SELECT r.payload ->> p_key, count(*)
    FROM jobq._running_counted(p_queue) AS r
    WHERE r.payload ->> p_key IS NOT NULL
    GROUP BY 1
$$;

ALTER FUNCTION jobq._running_per_partition(p_queue text, p_key text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._running_per_partition(p_queue text, p_key text) IS 'Private. The running jobs of queue p_queue per value of payload ->> p_key, a row per value with any (max_running_per_partition''s counts); jobs without the field are left out. Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.jobs; locks nothing.';

CREATE FUNCTION jobq._running_per_store(p_queue text) RETURNS TABLE(store uuid, n bigint)
    LANGUAGE sql STABLE
    AS $$
    SELECT jobq._store_key(r.store_id), count(*)
    FROM jobq._running_counted(p_queue) AS r
    GROUP BY 1
$$;

ALTER FUNCTION jobq._running_per_store(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._running_per_store(p_queue text) IS 'Private. The running jobs of queue p_queue per store key (jobq._store_key), a row per store with any (max_running_per_store''s counts). Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.jobs; locks nothing.';

CREATE FUNCTION jobq._runtime_roles() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT ARRAY['jobq_migrator', 'worker_runtime', 'worker_fanout_owner', 'jobq_app', 'jobq_app_gate', 'jobq_operator', 'jobq_viewer', 'jobq_dashboard', 'jobq_waker']::text[] $$;

ALTER FUNCTION jobq._runtime_roles() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._runtime_roles() IS 'Private. The roles bootstrap/001_roles.sql creates: those jobq._apply_grants revokes every function''s EXECUTE from (but the function''s owner) before granting as declared. Caller: jobq._apply_grants.';

CREATE FUNCTION jobq._sequence_heads(p_store_ids uuid[], p_keys text[]) RETURNS bigint[]
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT coalesce(array_agg(h.id), '{}'::bigint[])
    FROM (SELECT DISTINCT u.s, u.k FROM unnest(p_store_ids, p_keys) AS u(s, k) WHERE u.k IS NOT NULL) AS k
    CROSS JOIN LATERAL (
        SELECT j.id FROM jobq.jobs j
        WHERE coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid)
              = coalesce(k.s, '00000000-0000-0000-0000-000000000000'::uuid)
          AND j.sequence_key = k.k
        ORDER BY j.id LIMIT 1) AS h
$$;

ALTER FUNCTION jobq._sequence_heads(p_store_ids uuid[], p_keys text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._sequence_heads(p_store_ids uuid[], p_keys text[]) IS 'Private. The ids of the heads (live job with the lowest id, jobs_sequence_idx) of the sequences (p_store_ids, p_keys), one per sequence with a live job. Callers: jobq._settle_ended, jobq._unhold_sequences. Locks nothing.';

CREATE FUNCTION jobq._served_by_live_workers(p_now timestamp with time zone) RETURNS TABLE(queue text, task text)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT DISTINCT q.name, t.name
    FROM jobq.workers w
    CROSS JOIN LATERAL pg_catalog.unnest(w.queues) AS q(name)
    LEFT JOIN LATERAL pg_catalog.unnest(w.tasks) AS t(name) ON true
    WHERE w.state = 'active'
      AND w.heartbeat_at >= jobq._ts_add(p_now, -jobq._setting_interval('worker_timeout'))
      AND (w.tasks IS NULL OR pg_catalog.cardinality(w.tasks) > 0)
$$;

ALTER FUNCTION jobq._served_by_live_workers(p_now timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._served_by_live_workers(p_now timestamp with time zone) IS 'Private. The (queue, task) pairs that live workers (state active, heartbeat within worker_timeout of p_now) serve; task NULL: every task of the queue (a worker registered without a list of tasks). Callers: jobq._not_served, jobq._stats. Reads jobq.workers; locks nothing. Errors: none.';

CREATE FUNCTION jobq._set_queue_limit(p_queue text, p_scope text, p_max_running integer, p_partition_key text DEFAULT NULL::text, p_per interval DEFAULT NULL::interval) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._set_queue_limit(p_queue text, p_scope text, p_max_running integer, p_partition_key text, p_per interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._set_queue_limit(p_queue text, p_scope text, p_max_running integer, p_partition_key text, p_per interval) IS 'Private. Sets (or, with p_max_running NULL, removes) the limit of p_queue of scope queue (max_running), store (max_running_per_store), partition (partition_key and max_running_per_partition), rate (max_started and started_per = p_per) or store_rate (max_started_per_store and store_started_per = p_per) in jobq.queues (removing the last rate limit deletes the queue''s jobq.claim_starts rows); audits a change as set_concurrency_limit (queue, scope, from, to) and wakes the queue (jobq._wake). Returns true when the limit changed, false when it was already so (nothing written). Locks the queue''s jobq.queues row. Errors: JOB.INVALID_ARGUMENT (queue NULL, blank or unknown; partition_key blank, or one of partition_key and max_running NULL), JOB.VALUE_TOO_LONG (queue or partition_key above 200 characters), JOB.OUT_OF_RANGE (max_running outside 1..1000000, p_per above 1 day), JOB.LEASE_INVALID (p_per not positive); JOB.INVALID_ARGUMENT also when only one of max_started and p_per is NULL.';

CREATE FUNCTION jobq._set_worker_state(p_worker_id text, p_state text, p_action text) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_previous text;
BEGIN
    PERFORM jobq._check_worker_id(p_worker_id);
    SELECT w.state INTO v_previous FROM jobq.workers w WHERE w.id = p_worker_id FOR UPDATE;
    IF v_previous IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_WORKER', format('worker %L is not registered', p_worker_id));
    END IF;
    UPDATE jobq.workers AS w SET state = p_state, state_changed_at = now() WHERE w.id = p_worker_id;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES (p_action, jsonb_build_object('worker_id', p_worker_id, 'previous_state', v_previous, 'state', p_state));
    RETURN v_previous;
END
$$;

ALTER FUNCTION jobq._set_worker_state(p_worker_id text, p_state text, p_action text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._set_worker_state(p_worker_id text, p_state text, p_action text) IS 'Private. Sets a worker''s state, audited as p_action; returns the previous state.';

CREATE FUNCTION jobq._setting_interval(p_name text) RETURNS interval
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
    RETURN (SELECT s.value::interval FROM jobq.settings s WHERE s.name = p_name AND s.kind = 'interval');
END
$$;

ALTER FUNCTION jobq._setting_interval(p_name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._setting_interval(p_name text) IS 'Private. The value of interval setting p_name from jobq.settings, NULL when there is none.';

CREATE FUNCTION jobq._settings_json() RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT coalesce(jsonb_object_agg(s.name, s.value), '{}') FROM jobq.settings s
$$;

ALTER FUNCTION jobq._settings_json() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._settings_json() IS 'Private. Every setting as {name: value}.';

CREATE FUNCTION jobq._settle_batches(p_batch_ids bigint[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_batch jobq.batches;
    v_jobs jsonb;
    v_ids bigint[];
BEGIN
    FOR v_batch IN
        UPDATE jobq.batches AS b SET settled_at = now()
        WHERE b.id = ANY (p_batch_ids) AND b.settled_at IS NULL AND b.sealed_at IS NOT NULL
          AND b.succeeded + b.dead + b.canceled = b.total
        RETURNING b.*
    LOOP
        v_jobs := (SELECT coalesce(jsonb_agg(jobq._batch_callback_job(c.spec, v_batch) ORDER BY c.n), '[]'::jsonb)
                   FROM (VALUES (1, CASE WHEN v_batch.dead + v_batch.canceled = 0 THEN v_batch.on_success END),
                                (2, v_batch.on_complete),
                                (3, CASE WHEN v_batch.dead + v_batch.canceled > 0 THEN v_batch.on_discard END)) AS c(n, spec)
                   WHERE c.spec IS NOT NULL);
        IF jsonb_array_length(v_jobs) > 0 THEN
            BEGIN
                -- As the engine (the owner): the batch's store was checked when the batch was
                -- created; whoever ends its last job, a runner in no store among them, may not
                -- enqueue into that store by itself.
                v_ids := ARRAY(SELECT e.job_id
                               FROM jobq._enqueue(ARRAY(SELECT r FROM jsonb_populate_recordset(NULL::jobq.job_spec, v_jobs) AS r), true) AS e
                               ORDER BY e.ord);
                UPDATE jobq.batches AS b SET callback_job_ids = v_ids WHERE b.id = v_batch.id;
            EXCEPTION WHEN OTHERS THEN
                UPDATE jobq.batches AS b SET callback_error = left(SQLERRM, 10000) WHERE b.id = v_batch.id;
            END;
        END IF;
    END LOOP;
END
$$;

ALTER FUNCTION jobq._settle_batches(p_batch_ids bigint[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._settle_batches(p_batch_ids bigint[]) IS 'Private. Settles each batch of p_batch_ids that is sealed, not settled, and whose jobs have all ended (settled_at, once: under its row lock) and enqueues its callbacks: on_success when none ended dead or canceled, on_complete always, on_discard when one did; their ids go to callback_job_ids, or the reason they could not be enqueued to callback_error. Enqueues through jobq._enqueue as the owner, in the batch''s store (checked by jobq.create_batch). Callers: jobq.seal_batch, jobq._batch_ended. Locks the batch rows.';

CREATE FUNCTION jobq._settle_counted(p_queue text) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._settle_counted(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._settle_counted(p_queue text) IS 'Private. For queue p_queue while jobq.queues.counted_recheck is set: once pg_snapshot_xmin of the current snapshot has reached counted_recheck_after and no backend holds a snapshot older than it (jobq._snapshot_older_than), sets jobq.jobs.counted on every running unflagged job of the queue (read through jobs_claim_idx) it can lock (SKIP LOCKED) and clears the mark once none is left; a queue no longer limited loses the mark at once. Returns whether the mark is still set. Never waits (the queue row and the jobs SKIP LOCKED). Callers: jobq._limited_counts, jobq._shared_claim_room, jobq._settle_counted_flags.';

CREATE FUNCTION jobq._settle_counted_flags() RETURNS integer
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT count(*) FILTER (WHERE jobq._settle_counted(q.name))::integer
    FROM (SELECT q.name FROM jobq.queues q WHERE q.counted_recheck ORDER BY q.name) AS q
$$;

ALTER FUNCTION jobq._settle_counted_flags() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._settle_counted_flags() IS 'Private. jobq._settle_counted for each queue whose counted_recheck is set; returns how many keep the mark. Caller: jobq._maintain.';

CREATE TABLE jobq.job_history (
    id bigint NOT NULL,
    task text NOT NULL,
    queue text NOT NULL,
    payload jsonb NOT NULL,
    store_id uuid,
    priority smallint NOT NULL,
    run_at timestamp with time zone NOT NULL,
    state text NOT NULL,
    attempt integer NOT NULL,
    max_attempts integer NOT NULL,
    job_key text,
    job_key_mode text,
    locked_by text,
    lease_token uuid,
    claimed_at timestamp with time zone,
    heartbeat_at timestamp with time zone,
    lease_expires_at timestamp with time zone,
    timeout interval,
    deadline_at timestamp with time zone,
    backoff_base interval,
    backoff_max interval,
    reason text,
    last_error text,
    error_code text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    progress jsonb,
    output text,
    log_ref text,
    exit_code integer,
    leader_epoch bigint,
    traceparent text,
    tracestate text,
    depends_on bigint[],
    on_parent_failure text,
    sequence_key text,
    on_sequence_failure text,
    has_dependents boolean DEFAULT false NOT NULL,
    result jsonb,
    batch_id bigint,
    CONSTRAINT job_history_log_ref_check CHECK ((char_length(log_ref) <= 1000)),
    CONSTRAINT job_history_output_check CHECK ((char_length(output) <= 16384)),
    CONSTRAINT job_history_state_check CHECK ((state = ANY (ARRAY['succeeded'::text, 'dead'::text, 'canceled'::text]))),
    CONSTRAINT job_history_traceparent_check CHECK ((char_length(traceparent) = 55)),
    CONSTRAINT job_history_tracestate_check CHECK ((char_length(tracestate) <= 512))
)
PARTITION BY RANGE (finished_at);

ALTER TABLE ONLY jobq.job_history FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.job_history OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.job_history IS 'Finished jobs (succeeded, dead, canceled), kept for the history_retention setting: partitioned by finished_at, one partition a UTC day, or a span of days (the retention divided by 14, rounded up) when history_retention is above 14 days (jobq.job_history_pYYYYMMDD, named for the day it starts, dropped whole once all of it is past retention), jobq.job_history_default for rows no partition holds, and jobq.job_history_before_00037 for history kept before migration 00037 (both pruned row by row).';

COMMENT ON COLUMN jobq.job_history.progress IS 'The last attempt''s progress (jobq.set_progress).';

COMMENT ON COLUMN jobq.job_history.output IS 'The tail of the last attempt''s output (a command''s output, an endpoint''s answer), at most 16384 characters; a succeeded attempt''s too.';

COMMENT ON COLUMN jobq.job_history.log_ref IS 'Where the last attempt''s logs are (at most 1000 characters): the runner''s, else workerId=<worker> jobId=<id> attempt=<n>.';

COMMENT ON COLUMN jobq.job_history.exit_code IS 'The exit status of the last attempt''s command (NULL for other handlers and for a command killed by a signal).';

COMMENT ON COLUMN jobq.job_history.leader_epoch IS 'jobq.leader.epoch when the last attempt was recorded (NULL for a job that never ran).';

COMMENT ON COLUMN jobq.job_history.traceparent IS 'The finished job''s jobq.jobs.traceparent.';

COMMENT ON COLUMN jobq.job_history.tracestate IS 'The finished job''s jobq.jobs.tracestate.';

COMMENT ON COLUMN jobq.job_history.depends_on IS 'The finished job''s jobq.jobs.depends_on.';

COMMENT ON COLUMN jobq.job_history.on_parent_failure IS 'The finished job''s jobq.jobs.on_parent_failure.';

COMMENT ON COLUMN jobq.job_history.sequence_key IS 'The finished job''s jobq.jobs.sequence_key.';

COMMENT ON COLUMN jobq.job_history.on_sequence_failure IS 'The finished job''s jobq.jobs.on_sequence_failure.';

COMMENT ON COLUMN jobq.job_history.has_dependents IS 'The finished job''s jobq.jobs.has_dependents.';

COMMENT ON COLUMN jobq.job_history.result IS 'What the succeeded attempt returned (jobq.complete_job''s result, at most setting max_result_bytes as JSON text): any JSON value; NULL when none was given or the job did not succeed. Read with jobq.job_result(id).';

COMMENT ON COLUMN jobq.job_history.batch_id IS 'The finished job''s jobq.jobs.batch_id.';

CREATE FUNCTION jobq._settle_ended(p_ended jobq.job_history[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_doom bigint[];
    v_errors text[];
    v_release bigint[] := '{}'::bigint[];
    v_parents constant bigint[] := ARRAY(SELECT e.id FROM unnest(p_ended) AS e WHERE e.has_dependents);
BEGIN
    DELETE FROM jobq.job_dependencies d
    WHERE d.child_id = ANY (ARRAY(SELECT e.id FROM unnest(p_ended) AS e WHERE e.depends_on IS NOT NULL));

    IF cardinality(v_parents) > 0 THEN
        -- The children's rows first, in id order, then their edges: cancel_job of a child locks
        -- its row and then deletes its edges, so the same order here cannot deadlock with it.
        PERFORM 1 FROM jobq.jobs j
        WHERE j.id IN (SELECT d.child_id FROM jobq.job_dependencies d WHERE d.parent_id = ANY (v_parents))
        ORDER BY j.id
        FOR NO KEY UPDATE;
        -- Failed parents: their dependents with on_parent_failure cancel go, transitively.
        SELECT array_agg(f.child ORDER BY f.child), array_agg(f.why ORDER BY f.child)
        INTO v_doom, v_errors
        FROM (SELECT DISTINCT ON (d.child_id) d.child_id AS child,
                     format('its dependency %s ended %s', e.id,
                            CASE WHEN e.reason = 'deleted' THEN 'deleted' ELSE e.state END) AS why
              FROM unnest(p_ended) AS e
              JOIN jobq.job_dependencies d ON d.parent_id = e.id
              JOIN jobq.jobs c ON c.id = d.child_id AND c.on_parent_failure = 'cancel'
              WHERE e.has_dependents AND e.state IN ('dead', 'canceled')
              ORDER BY d.child_id, e.id) AS f;
        IF v_doom IS NOT NULL THEN
            PERFORM jobq._cancel_with_dependents(v_doom, v_errors);
        END IF;
        -- Every other edge of an ended parent is satisfied.
        WITH satisfied AS (
            DELETE FROM jobq.job_dependencies d WHERE d.parent_id = ANY (v_parents) RETURNING d.child_id
        )
        SELECT coalesce(array_agg(DISTINCT s.child_id), '{}') INTO v_release FROM satisfied s;
    END IF;

    IF EXISTS (SELECT 1 FROM unnest(p_ended) AS e WHERE e.sequence_key IS NOT NULL) THEN
        PERFORM jobq._lock_sequences(ARRAY(SELECT e.store_id FROM unnest(p_ended) AS e WHERE e.sequence_key IS NOT NULL),
                                     ARRAY(SELECT e.sequence_key FROM unnest(p_ended) AS e WHERE e.sequence_key IS NOT NULL));
        INSERT INTO jobq.sequence_holds (store_id, sequence_key, job_id)
        SELECT e.store_id, e.sequence_key, e.id
        FROM unnest(p_ended) AS e
        WHERE e.sequence_key IS NOT NULL AND e.state = 'dead' AND e.on_sequence_failure = 'hold'
        ON CONFLICT DO NOTHING;
        -- Each sequence's head, as this statement sees it under the key's lock.
        v_release := v_release || jobq._sequence_heads(ARRAY(SELECT e.store_id FROM unnest(p_ended) AS e WHERE e.sequence_key IS NOT NULL),
                                                       ARRAY(SELECT e.sequence_key FROM unnest(p_ended) AS e WHERE e.sequence_key IS NOT NULL));
    END IF;

    PERFORM jobq._release_blocked(v_release);
END
$$;

ALTER FUNCTION jobq._settle_ended(p_ended jobq.job_history[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._settle_ended(p_ended jobq.job_history[]) IS 'Private. Settles what the ended jobs p_ended change: deletes the waiting edges of ended children; for ended parents (has_dependents) cancels the dependents with on_parent_failure cancel of a dead or canceled one, transitively (jobq._cancel_with_dependents), and satisfies every other edge; for ended sequence jobs takes the sequences'' locks, records a hold for a dead one with on_sequence_failure hold (jobq.sequence_holds), and takes each sequence''s head; releases what is free (jobq._release_blocked). SECURITY DEFINER: the trigger runs it for every caller that ends a job. Callers: jobq._workflow_on_history, jobq.delete_job.';

CREATE FUNCTION jobq._settle_fair_flags() RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._settle_fair_flags() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._settle_fair_flags() IS 'Private. For each queue jobq.set_fair_claiming turned fair (jobq.queues.fair_recheck): the first call records pg_snapshot_xmax of its snapshot in fair_recheck_after; a call whose snapshot''s xmin has reached it, while no backend holds a snapshot older than it (jobq._snapshot_older_than), sets jobq.jobs.fair on every unflagged job of the queue it can lock (SKIP LOCKED) and clears the mark once none is left (jobq.set_fair_claiming clears it when it turns the queue plain again). Returns the jobs flagged. Never waits: the queue rows and jobs another transaction holds are passed over until a later call. Caller: jobq._maintain.';

CREATE FUNCTION jobq._settle_leases(p_now timestamp with time zone, p_swept bigint[], p_limit integer) RETURNS void
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    WITH due AS (
        SELECT l.ctid AS tid, l.worker_id, l.job_ids FROM jobq.leases l
        WHERE l.check_at <= p_now
        ORDER BY l.check_at
        LIMIT p_limit
        FOR UPDATE SKIP LOCKED
    ), next AS (
        SELECT d.tid,
               (SELECT min(least(j.lease_expires_at, j.deadline_at)) FROM jobq.jobs j
                WHERE j.id = ANY (d.job_ids) AND j.state = 'running' AND j.locked_by = d.worker_id
                  AND j.id <> ALL (p_swept)) AS check_at
        FROM due d
    ), gone AS (
        DELETE FROM jobq.leases AS l USING next n WHERE l.ctid = n.tid AND n.check_at IS NULL
    )
    UPDATE jobq.leases AS l SET check_at = n.check_at FROM next n WHERE l.ctid = n.tid AND n.check_at IS NOT NULL;
$$;

ALTER FUNCTION jobq._settle_leases(p_now timestamp with time zone, p_swept bigint[], p_limit integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._settle_leases(p_now timestamp with time zone, p_swept bigint[], p_limit integer) IS 'Private. For at most p_limit jobq.leases rows due at p_now (check_at <= p_now, oldest first, locked SKIP LOCKED): check_at becomes the first lease end or deadline among the row''s jobs still running under its worker, other than p_swept (the jobs the calling sweep takes); the row is deleted when none is left. A row whose jobs still hold an expired lease stays due. Caller: jobq._rescue.';

CREATE FUNCTION jobq._shared_claim_ceiling(p_max_running integer, p_max_running_per_store integer, p_max_running_per_partition integer) RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT least(p_max_running, p_max_running_per_store, p_max_running_per_partition)
           - (jobq._claim_slots() - 1) * jobq._claim_slot_batch()
$$;

ALTER FUNCTION jobq._shared_claim_ceiling(p_max_running integer, p_max_running_per_store integer, p_max_running_per_partition integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._shared_claim_ceiling(p_max_running integer, p_max_running_per_store integer, p_max_running_per_partition integer) IS 'Private. least(max_running, max_running_per_store, max_running_per_partition) - (jobq._claim_slots() - 1) * jobq._claim_slot_batch() (112), the concurrency limits of a queue: the most running jobs at which a shared claim may still take one; NULL without a concurrency limit. Callers: jobq._claim (for jobq._shared_claim_slot and jobq._shared_claim_room), jobq._pick_limited (whether to empty the near-limit note). Reads only its arguments.';

CREATE FUNCTION jobq._shared_claim_room(p_queue text, p_ceiling integer, p_room integer) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_running integer;
BEGIN
    -- As jobq._lock_limited_queues: a transaction holding a limited queue's lock only tries.
    IF jobq._claim_locks_held() THEN
        IF NOT pg_try_advisory_xact_lock_shared(1785684593, hashtext(p_queue)) THEN
            RETURN 0;
        END IF;
    ELSE
        -- Holding no claim lock, it waits; a wait PostgreSQL finds in a deadlock, or one past the
        -- caller's lock_timeout, takes nothing (its picked rows stay queued).
        BEGIN
            PERFORM pg_advisory_xact_lock_shared(1785684593, hashtext(p_queue));
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            RETURN 0;
        END;
        PERFORM jobq._note_claim_locks_held();
    END IF;
    -- A limit newly set: its running jobs claimed unlimited are flagged as soon as none can be
    -- missing any more (until then jobq._running_counted also reads the unflagged ones).
    IF (SELECT q.counted_recheck FROM jobq.queues q WHERE q.name = p_queue) THEN
        PERFORM jobq._settle_counted(p_queue);
    END IF;
    SELECT count(*)::integer INTO v_running
    FROM (SELECT 1 FROM jobq._running_counted(p_queue) AS r LIMIT p_ceiling) AS c;
    IF v_running >= p_ceiling THEN
        PERFORM set_config(jobq._near_limit_setting(p_queue), 'near', false);
        RETURN 0;
    END IF;
    RETURN least(p_room, p_ceiling - v_running);
END
$$;

ALTER FUNCTION jobq._shared_claim_room(p_queue text, p_ceiling integer, p_room integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._shared_claim_room(p_queue text, p_ceiling integer, p_room integer) IS 'Private. For a shared claim of p_room jobs from the limited queue p_queue (p_ceiling its jobq._shared_claim_ceiling), holding a slot (jobq._shared_claim_slot): takes the lock (1785684593, hashtext(queue)) shared until the transaction ends, waiting for a claim that holds it alone (only trying, and returning 0 when it is held, if the transaction holds a limited queue''s lock already: jobq._claim_locks_held), counts the running jobs of the queue and returns least(p_room, ceiling - running), or 0 after setting jobq._near_limit_setting(queue) to near for the session when there is no room. Caller: jobq._claim.';

CREATE FUNCTION jobq._shared_claim_setting(p_queue text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT 'jobq.shared_claimed_' || pg_catalog.to_hex(pg_catalog.hashtext(p_queue)) $$;

ALTER FUNCTION jobq._shared_claim_setting(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._shared_claim_setting(p_queue text) IS 'Private. jobq.shared_claimed_<to_hex(hashtext(p_queue))>: the transaction-local setting counting the jobs of the queue this transaction''s shared claims took. Callers: jobq._shared_claim_taken, jobq._note_shared_claim.';

CREATE FUNCTION jobq._shared_claim_slot(p_queue text, p_ceiling integer, p_rated boolean, p_room integer, p_lock_queues text[]) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_key constant integer := hashtext(p_queue);
    v_first constant integer := pg_backend_pid() % jobq._claim_slots();
BEGIN
    IF NOT coalesce(p_ceiling > 0, false) OR p_rated OR p_room > jobq._claim_slot_batch()
       OR current_setting(jobq._near_limit_setting(p_queue), true) IS NOT DISTINCT FROM 'near' THEN
        RETURN false;
    END IF;
    IF cardinality(p_lock_queues) > 1
       AND EXISTS (SELECT 1 FROM jobq.queues q WHERE q.name = ANY (p_lock_queues) AND q.name <> p_queue AND q.limited) THEN
        RETURN false;
    END IF;
    FOR v_k IN 0 .. jobq._claim_slots() - 1 LOOP
        IF pg_try_advisory_xact_lock(1785684594 + (v_first + v_k) % jobq._claim_slots(), v_key) THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END
$$;

ALTER FUNCTION jobq._shared_claim_slot(p_queue text, p_ceiling integer, p_rated boolean, p_room integer, p_lock_queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._shared_claim_slot(p_queue text, p_ceiling integer, p_rated boolean, p_room integer, p_lock_queues text[]) IS 'Private. Whether a claim of p_room jobs from the limited queue p_queue (p_ceiling its jobq._shared_claim_ceiling, p_rated whether it has a rate limit) listing p_lock_queues is shared: false when it must take the queue''s advisory lock alone (a rate limit, a concurrency limit of 112 or less, p_room above jobq._claim_slot_batch() (16), another limited queue listed, the session''s note that the queue is near its limit, jobq._near_limit_setting, or no free slot); true when it took one of the queue''s jobq._claim_slots() (8) slots, the advisory locks (1785684594 + k, hashtext(queue)), tried from pg_backend_pid() mod 8 on and kept until the transaction ends. Never waits. Caller: jobq._claim, before its pick.';

CREATE FUNCTION jobq._shared_claim_taken(p_queue text) RETURNS integer
    LANGUAGE sql STABLE
    AS $$ SELECT coalesce(nullif(pg_catalog.current_setting(jobq._shared_claim_setting(p_queue), true), '')::integer, 0) $$;

ALTER FUNCTION jobq._shared_claim_taken(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._shared_claim_taken(p_queue text) IS 'Private. The jobs of p_queue this transaction''s shared claims took (jobq._shared_claim_setting), 0 for none. Caller: jobq._claim, which keeps a transaction with any to shared claims of the queue and to one shared batch in all.';

CREATE FUNCTION jobq._snapshot_older_than(p_xid xid8) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT EXISTS (SELECT 1 FROM pg_stat_activity a
                   WHERE a.backend_xmin IS NOT NULL
                     AND age(a.backend_xmin) > age((p_xid::text::numeric % 4294967296)::text::xid))
$$;

ALTER FUNCTION jobq._snapshot_older_than(p_xid xid8) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._snapshot_older_than(p_xid xid8) IS 'Private. True when some backend''s snapshot (pg_stat_activity.backend_xmin, visible to every role) is older than transaction id p_xid, compared by age (backend_xmin has 32 bits). Caller: jobq._settle_fair_flags.';

CREATE FUNCTION jobq._spec_in_bounds(p_spec jobq.job_spec) RETURNS boolean
    LANGUAGE sql STABLE
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

ALTER FUNCTION jobq._spec_in_bounds(p_spec jobq.job_spec) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._spec_in_bounds(p_spec jobq.job_spec) IS 'Private. Whether every field of a job spec is within its domain: task not blank; payload a JSON object of at most max_payload_bytes; queue not blank, at most 200 characters; run_at from 1970 to 9999 (UTC); priority a smallint; max_attempts 1..1000; job_key not empty, at most 500 characters; job_key_mode replace, preserve_run_at or unsafe_dedupe; store_id not the zero uuid; timeout in (0, 7 days]; backoff_base and backoff_max in (0, 30 days]; unique_for in (0, 365 days] and only with a job_key. NULL fields pass (the enqueue defaults apply). Never NULL, raises nothing, locks nothing; inlined. Callers: jobq._validate_specs, the enqueue fast path.';

CREATE FUNCTION jobq._started_per_store(p_queue text, p_since timestamp with time zone) RETURNS TABLE(store uuid, n bigint)
    LANGUAGE sql STABLE
    AS $$
    SELECT jobq._store_key(s.store_id), count(*)
    FROM jobq.claim_starts s WHERE s.queue = p_queue AND s.started_at > p_since
    GROUP BY 1
$$;

ALTER FUNCTION jobq._started_per_store(p_queue text, p_since timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._started_per_store(p_queue text, p_since timestamp with time zone) IS 'Private. The starts of queue p_queue in jobq.claim_starts after p_since per store key (jobq._store_key), a row per store with any (max_started_per_store''s counts over the window store_started_per). Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.claim_starts; locks nothing.';

CREATE FUNCTION jobq._started_since(p_queue text, p_since timestamp with time zone) RETURNS TABLE(n bigint)
    LANGUAGE sql STABLE
    AS $$ SELECT count(*) FROM jobq.claim_starts s WHERE s.queue = p_queue AND s.started_at > p_since $$;

ALTER FUNCTION jobq._started_since(p_queue text, p_since timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._started_since(p_queue text, p_since timestamp with time zone) IS 'Private. One row: the starts of queue p_queue in jobq.claim_starts after p_since (max_started''s count over the window started_per). Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.claim_starts; locks nothing.';

CREATE FUNCTION jobq._stats(p_queue text, p_store_id uuid) RETURNS TABLE(queue text, store_id uuid, queued bigint, retry_pending bigint, running bigint, scheduled bigint, blocked bigint, oldest_due_age interval, dead_last_hour bigint, dead_last_day bigint, succeeded_last_hour bigint, succeeded_per_minute numeric, wait_p50 interval, wait_p95 interval, run_p50 interval, run_p95 interval, limits jsonb, not_served bigint, not_served_oldest_age interval)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET jit TO 'off'
    SET work_mem TO '32MB'
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

ALTER FUNCTION jobq._stats(p_queue text, p_store_id uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._stats(p_queue text, p_store_id uuid) IS 'Private. The body of jobq.stats (see there), run as the engine''s owner: checks the arguments, counts every store for an operator without p_store_id, else one store (an application: its session''s, JOB.TENANT_MISMATCH for another). Runs without JIT (compiling its scan of a million live jobs cost more than it saved) and with work_mem 32MB (the percentiles'' sorts of an hour of history stay in memory). Locks nothing.';

CREATE FUNCTION jobq._stats_cached_above() RETURNS bigint
    LANGUAGE sql STABLE
    AS $$
    SELECT coalesce((SELECT s.value::bigint FROM jobq.settings s WHERE s.name = 'stats_cached_above'), 100000)
$$;

ALTER FUNCTION jobq._stats_cached_above() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._stats_cached_above() IS 'Private. The setting stats_cached_above as a bigint (100000 when missing). Callers: jobq._live_counts_fresh, jobq._count_live_jobs.';

CREATE FUNCTION jobq._store_key(p_store_id uuid) RETURNS uuid
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT coalesce(p_store_id, '00000000-0000-0000-0000-000000000000'::uuid) $$;

ALTER FUNCTION jobq._store_key(p_store_id uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._store_key(p_store_id uuid) IS 'Private. coalesce(p_store_id, the zero uuid): the store a job counts under for store limits, fair turns and job keys (system jobs: one more store); the expression of jobs_fair_idx and jobs_job_key_idx, so a statement that names it matches them whether it is planned for its values or generically (a zero uuid held in a PL/pgSQL variable is a parameter of a generic plan, and no index expression matches it). Inlined. Callers: jobq._pick_fair, jobq._limited_counts, jobq._running_per_store, jobq._started_per_store, jobq._holds, jobq._insert_specs, jobq._enqueue_keyed.';

CREATE FUNCTION jobq._tell_done(p_ids bigint[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    -- A statement that ended no job probes nothing: it holds no lock an awaiter would wait out.
    IF coalesce(cardinality(p_ids), 0) = 0 OR jobq._done_silent() THEN
        RETURN;
    END IF;
    PERFORM pg_catalog.pg_notify('jobq_done', x::text) FROM unnest(p_ids) AS x;
END
$$;

ALTER FUNCTION jobq._tell_done(p_ids bigint[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._tell_done(p_ids bigint[]) IS 'Private. NOTIFY jobq_done once per id of p_ids, the id as the payload (delivered at the commit), while a client awaits a result (holds the done doorbell, jobq.hold_done_doorbell); nothing otherwise (jobq._done_silent, which takes the advisory lock (1785790467, 0) shared until the transaction ends when silent), and nothing for an empty or NULL p_ids. Callers: jobq._notify_done, jobq.delete_job. Raises nothing.';

CREATE FUNCTION jobq._to_history(p_job jobq.jobs, p_state text, p_reason text, p_error text, p_error_code text, p_output text DEFAULT NULL::text, p_log_ref text DEFAULT NULL::text, p_exit_code integer DEFAULT NULL::integer, p_leader_epoch bigint DEFAULT NULL::bigint, p_result jsonb DEFAULT NULL::jsonb) RETURNS SETOF jobq.job_history
    LANGUAGE sql STABLE
    AS $$
    SELECT p_job.id, p_job.task, p_job.queue, p_job.payload, p_job.store_id, p_job.priority, p_job.run_at,
           p_state, p_job.attempt, p_job.max_attempts, p_job.job_key, p_job.job_key_mode, p_job.locked_by, p_job.lease_token,
           p_job.claimed_at, p_job.heartbeat_at, p_job.lease_expires_at, p_job.timeout, p_job.deadline_at,
           p_job.backoff_base, p_job.backoff_max, p_reason,
           coalesce(p_error, p_job.last_error),
           CASE WHEN p_error IS NOT NULL THEN p_error_code ELSE p_job.error_code END,
           p_job.created_at, pg_catalog.now(), pg_catalog.now(),
           p_job.progress, pg_catalog.right(p_output, 16384), pg_catalog.left(p_log_ref, 1000), p_exit_code, p_leader_epoch,
           p_job.traceparent, p_job.tracestate,
           p_job.depends_on, p_job.on_parent_failure, p_job.sequence_key, p_job.on_sequence_failure, p_job.has_dependents,
           p_result, p_job.batch_id
$$;

ALTER FUNCTION jobq._to_history(p_job jobq.jobs, p_state text, p_reason text, p_error text, p_error_code text, p_output text, p_log_ref text, p_exit_code integer, p_leader_epoch bigint, p_result jsonb) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._to_history(p_job jobq.jobs, p_state text, p_reason text, p_error text, p_error_code text, p_output text, p_log_ref text, p_exit_code integer, p_leader_epoch bigint, p_result jsonb) IS 'Private. Maps a live job that ends now in p_state (succeeded, dead, canceled) to its jobq.job_history row: with its last attempt''s output (its last 16384 characters), log_ref (its first 1000), exit code, leader epoch and result as given (NULL by default), and the job''s progress, trace context, workflow (depends_on, on_parent_failure, sequence_key, on_sequence_failure, has_dependents) and batch.';

CREATE FUNCTION jobq._ts_add(p_ts timestamp with time zone, p_delta interval) RETURNS timestamp with time zone
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN p_ts IS NULL OR p_delta IS NULL THEN NULL
        WHEN NOT pg_catalog.isfinite(p_ts) THEN p_ts
        WHEN pg_catalog.date_part('epoch', p_ts) + pg_catalog.date_part('epoch', p_delta) NOT BETWEEN -2.1e11 AND 9.2e12
          OR pg_catalog.date_part('epoch', p_ts) + pg_catalog.date_part('epoch', pg_catalog.date_trunc('month', p_delta))
             NOT BETWEEN -2.1e11 AND 9.2e12
          OR pg_catalog.date_part('epoch', p_ts) + pg_catalog.date_part('epoch', pg_catalog.date_trunc('day', p_delta))
             NOT BETWEEN -2.1e11 AND 9.2e12
        THEN CASE WHEN pg_catalog.date_part('epoch', p_delta) > 0 THEN 'infinity'::timestamptz ELSE '-infinity'::timestamptz END
        ELSE p_ts + p_delta
    END
$$;

ALTER FUNCTION jobq._ts_add(p_ts timestamp with time zone, p_delta interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._ts_add(p_ts timestamp with time zone, p_delta interval) IS 'Private. p_ts + p_delta, saturating at infinity or -infinity where PostgreSQL would raise "timestamp out of range" (an infinite p_ts stays as it is). Raises nothing; NULL for NULL. Inlined. Callers: claim, rescue, fail, maintain, prune_history.';

CREATE FUNCTION jobq._ts_diff(p_later timestamp with time zone, p_earlier timestamp with time zone) RETURNS interval
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN p_later IS NULL OR p_earlier IS NULL THEN NULL
        WHEN p_later = p_earlier THEN interval '0'
        WHEN NOT pg_catalog.isfinite(p_later) OR NOT pg_catalog.isfinite(p_earlier)
          OR abs(pg_catalog.date_part('epoch', p_later) - pg_catalog.date_part('epoch', p_earlier)) >= 6.3e12
        THEN CASE WHEN p_later > p_earlier THEN interval '200000 years' ELSE interval '-200000 years' END
        ELSE p_later - p_earlier
    END
$$;

ALTER FUNCTION jobq._ts_diff(p_later timestamp with time zone, p_earlier timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._ts_diff(p_later timestamp with time zone, p_earlier timestamp with time zone) IS 'Private. p_later - p_earlier, saturating at 200000 years either way (infinite timestamps included); 0 for equal ones. Raises nothing; NULL for NULL. Inlined. Caller: jobq.queue_lag.';

CREATE FUNCTION jobq._ts_in_range(p_value timestamp with time zone) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT p_value >= '1970-01-01 00:00:00+00'::timestamptz AND p_value < '10000-01-01 00:00:00+00'::timestamptz
$$;

ALTER FUNCTION jobq._ts_in_range(p_value timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._ts_in_range(p_value timestamp with time zone) IS 'Private. Whether p_value is a timestamp the API accepts: from 1970-01-01 00:00 UTC to 9999-12-31 23:59:59.999999 UTC (infinity and -infinity are outside). NULL for NULL.';

CREATE FUNCTION jobq._unhold_sequences(p_job_ids bigint[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_keys record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM jobq.sequence_holds s WHERE s.job_id = ANY (p_job_ids)) THEN
        RETURN;
    END IF;
    SELECT array_agg(s.store_id) AS stores, array_agg(s.sequence_key) AS keys INTO v_keys
    FROM jobq.sequence_holds s WHERE s.job_id = ANY (p_job_ids);
    PERFORM jobq._lock_sequences(v_keys.stores, v_keys.keys);
    DELETE FROM jobq.sequence_holds s WHERE s.job_id = ANY (p_job_ids);
    PERFORM jobq._release_blocked(jobq._sequence_heads(v_keys.stores, v_keys.keys));
END
$$;

ALTER FUNCTION jobq._unhold_sequences(p_job_ids bigint[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._unhold_sequences(p_job_ids bigint[]) IS 'Private. Deletes the holds (jobq.sequence_holds) of the dead jobs p_job_ids, under the sequences'' locks, and releases each sequence''s head if it is free (jobq._release_blocked). SECURITY DEFINER: retry_job runs as the gate. Callers: jobq._revive (retry_job, requeue_dead), jobq.delete_job.';

CREATE FUNCTION jobq._upkeep_action(p_total_bytes bigint, p_index_bytes bigint, p_live_rows bigint, p_min_bytes bigint, p_max_rows bigint) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT CASE
        -- Few live rows: a rewrite takes milliseconds and returns heap and indexes at once.
        WHEN p_live_rows <= p_max_rows
             AND p_total_bytes > greatest(p_min_bytes, p_live_rows::numeric * 4096) THEN 'rewrite'
        -- Many live rows: a rewrite would lock the table for long; rebuild the indexes online.
        WHEN p_live_rows > p_max_rows
             AND p_index_bytes > greatest(p_min_bytes, p_live_rows::numeric * 1024) THEN 'reindex'
        ELSE 'none'
    END
$$;

ALTER FUNCTION jobq._upkeep_action(p_total_bytes bigint, p_index_bytes bigint, p_live_rows bigint, p_min_bytes bigint, p_max_rows bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._upkeep_action(p_total_bytes bigint, p_index_bytes bigint, p_live_rows bigint, p_min_bytes bigint, p_max_rows bigint) IS 'Private. The action jobq.upkeep_advice gives a table: rewrite when it has at most p_max_rows live rows and takes more than p_min_bytes and more than 4 kB per live row; reindex when it has more live rows and its indexes take more than p_min_bytes and more than 1 kB per live row; none otherwise (and for NULL inputs).';

CREATE FUNCTION jobq._upkeep_held_by(p_held_after interval) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT h.what
    FROM (
        SELECT format('pid %s (%s, %s) has kept a snapshot since %s', a.pid, coalesce(nullif(a.usename, ''), a.backend_type),
                      a.state, date_trunc('second', coalesce(a.xact_start, a.backend_start))) AS what,
               coalesce(a.xact_start, a.backend_start) AS since
        FROM pg_catalog.pg_stat_activity a
        WHERE a.backend_xmin IS NOT NULL
          AND a.pid <> pg_catalog.pg_backend_pid()
          AND a.backend_type <> 'autovacuum worker'
          -- This database's sessions, and physical replication with hot_standby_feedback (a
          -- walsender of no database); a logical walsender holds back only the catalogs.
          AND ((a.datid = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
                AND a.backend_type <> 'walsender')
               OR (a.backend_type = 'walsender' AND a.datid IS NULL))
          AND coalesce(a.xact_start, a.backend_start) < pg_catalog.now() - p_held_after
        UNION ALL
        SELECT format('prepared transaction %L has been open since %s', p.gid, date_trunc('second', p.prepared)), p.prepared
        FROM pg_catalog.pg_prepared_xacts p
        WHERE p.database = pg_catalog.current_database()
          AND p.prepared < pg_catalog.now() - p_held_after
    ) h
    ORDER BY h.since
    LIMIT 1
$$;

ALTER FUNCTION jobq._upkeep_held_by(p_held_after interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._upkeep_held_by(p_held_after interval) IS 'Private. Describes the oldest session (pg_stat_activity.backend_xmin set, not autovacuum: this database''s backends, and walsenders of physical replication) or prepared transaction of this database whose transaction began more than p_held_after ago, or returns NULL. Sees other roles'' sessions only when the caller may (a superuser or a member of pg_read_all_stats; jobq.upkeep_advice runs as the tables'' owner).';

CREATE FUNCTION jobq._validate_specs(p_specs jobq.job_spec[], p_label_index boolean) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq._validate_specs(p_specs jobq.job_spec[], p_label_index boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._validate_specs(p_specs jobq.job_spec[], p_label_index boolean) IS 'Private. Raises the catalogued error of the first spec outside its domain (jobq._spec_in_bounds): JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, JOB.UNKNOWN_JOB_KEY_MODE, JOB.MAX_ATTEMPTS_INVALID, JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT, JOB.PAYLOAD_TOO_LARGE, JOB.VALUE_TOO_LONG (queue, job_key), JOB.OUT_OF_RANGE (run_at, timeout, backoff, unique_for); unique_for without a job_key and a key with different modes or unique_for values within the batch are JOB.INVALID_ARGUMENT; with p_label_index the message starts with the position (job N: ). Locks nothing.';

CREATE FUNCTION jobq._wake(p_queue text) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_wakeup text;
    v_doorbell boolean;
BEGIN
    -- plpgsql rather than SQL: a SQL function with subqueries is not inlined, and would be
    -- planned again at every call; this statement's plan is kept for the session. The settings
    -- are read into variables first: given as subqueries, they kept jobq._wake_as from being
    -- inlined (it reads its arguments several times), and it was planned again at each call.
    v_wakeup := (SELECT s.value FROM jobq.settings s WHERE s.name = 'wakeup');
    v_doorbell := (SELECT s.value::boolean FROM jobq.settings s WHERE s.name = 'doorbell');
    PERFORM jobq._wake_as(p_queue, v_wakeup, v_doorbell);
END
$$;

ALTER FUNCTION jobq._wake(p_queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._wake(p_queue text) IS 'Private. Wakes the runners of queue p_queue as the settings wakeup and doorbell say (jobq._wake_as, which sends: wakeup wal, a transactional logical message with prefix jobq and the queue name as content; both, that message and NOTIFY channel jobq with the queue name; notify (and any other value), NOTIFY jobq, but with doorbell true only when a runner of the queue waits (holds its doorbell, jobq.hold_doorbell): it takes the advisory lock (1785790465, hashtext(queue)) shared until the transaction ends and probes (1785790466, hashtext(queue)) without waiting, notifying when either is taken by someone else (jobq._doorbell_silent)). Nothing for a NULL queue. Messages and notifications take effect only if the transaction commits. Callers: jobq.enqueue_many, jobq._insert_specs, jobq._revive (retry_job, requeue_dead), jobq.snooze_jobs, jobq.resume_queue, the limit controls; EXECUTE for jobq_app_gate, which runs enqueue and retry_job.';

CREATE FUNCTION jobq._wake_as(p_queue text, p_wakeup text, p_doorbell boolean) RETURNS boolean
    LANGUAGE sql
    AS $$
    SELECT CASE
        WHEN p_queue IS NULL THEN false
        WHEN coalesce(p_wakeup, 'notify') IN ('wal', 'both') THEN
            CASE
                WHEN pg_catalog.pg_logical_emit_message(true, 'jobq', p_queue) IS NULL THEN false
                WHEN p_wakeup = 'wal' THEN true
                ELSE pg_catalog.pg_notify('jobq', p_queue) IS NOT NULL
            END
        WHEN coalesce(p_doorbell, false) AND jobq._doorbell_silent(p_queue) THEN false
        ELSE pg_catalog.pg_notify('jobq', p_queue) IS NOT NULL
    END
$$;

ALTER FUNCTION jobq._wake_as(p_queue text, p_wakeup text, p_doorbell boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._wake_as(p_queue text, p_wakeup text, p_doorbell boolean) IS 'Private. Wakes the runners of queue p_queue as p_wakeup and p_doorbell (the values of the settings wakeup and doorbell; NULL counts as notify and false) say: wal, a transactional logical message with prefix jobq and the queue name as content; both, that message and NOTIFY channel jobq with the queue name; notify (and any other value), NOTIFY jobq, but with p_doorbell true only when a runner of the queue waits (jobq._doorbell_silent). Returns whether it sent anything; false for a NULL queue. Messages and notifications take effect only if the transaction commits. Inlined. Callers: jobq._wake, the fast path of jobq.enqueue (which reads the settings with its task).';

CREATE FUNCTION jobq._workflow_on_history() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM jobq_ended e WHERE e.has_dependents OR e.depends_on IS NOT NULL OR e.sequence_key IS NOT NULL) THEN
        PERFORM jobq._settle_ended(ARRAY(
            SELECT e::jobq.job_history FROM jobq_ended e
            WHERE e.has_dependents OR e.depends_on IS NOT NULL OR e.sequence_key IS NOT NULL));
    END IF;
    RETURN NULL;
END
$$;

ALTER FUNCTION jobq._workflow_on_history() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._workflow_on_history() IS 'Private. Trigger function of jobq_history_workflow (AFTER INSERT ... FOR EACH STATEMENT on jobq.job_history, transition table jobq_ended): passes the ended rows with dependents, parents or a sequence to jobq._settle_ended; returns at once when there is none. SECURITY DEFINER (search_path pinned): it acts for whichever role ended the jobs.';

CREATE FUNCTION jobq._workflow_prepare(p_wf jsonb[], p_store_ids uuid[], p_job_keys text[], p_label_index boolean) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    v_bad record;
    v_detail text;
    v_code text;
    v_max constant bigint := jobq._limit('dependencies');
    v_parents bigint[];
    v_keys text[];
BEGIN
    SELECT x.ord, x.wf, x.job_key,
           (SELECT count(*) FROM jsonb_array_elements(CASE WHEN jsonb_typeof(x.wf -> 'depends_on') = 'array' THEN x.wf -> 'depends_on' END) AS d(v)
            WHERE jsonb_typeof(d.v) <> 'number') AS non_ids,
           coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(x.wf -> 'depends_on') = 'array' THEN x.wf -> 'depends_on' END), 0)
           + coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(x.wf -> 'ref_ords') = 'array' THEN x.wf -> 'ref_ords' END), 0) AS n
    INTO v_bad
    FROM unnest(p_wf, p_job_keys) WITH ORDINALITY AS x(wf, job_key, ord)
    WHERE x.wf IS NOT NULL
      AND (x.job_key IS NOT NULL
           OR coalesce(x.wf ->> 'on_parent_failure', 'cancel') NOT IN ('cancel', 'run')
           OR coalesce(x.wf ->> 'on_sequence_failure', 'hold') NOT IN ('hold', 'continue')
           OR btrim(x.wf ->> 'sequence_key') = ''
           OR char_length(x.wf ->> 'sequence_key') > 500
           OR jsonb_typeof(x.wf -> 'depends_on') NOT IN ('array', 'null')
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(x.wf -> 'depends_on') = 'array' THEN x.wf -> 'depends_on' END) AS d(v)
                      WHERE jsonb_typeof(d.v) <> 'number' OR d.v::text !~ '^[0-9]{1,18}$')
           OR coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(x.wf -> 'depends_on') = 'array' THEN x.wf -> 'depends_on' END), 0)
              + coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(x.wf -> 'ref_ords') = 'array' THEN x.wf -> 'ref_ords' END), 0) > v_max)
    ORDER BY x.ord
    LIMIT 1;
    IF FOUND THEN
        IF v_bad.job_key IS NOT NULL THEN
            v_code := 'JOB.WORKFLOW_KEYED';
            v_detail := 'a job with a job_key cannot have dependencies or a sequence key';
        ELSIF coalesce(v_bad.wf ->> 'on_parent_failure', 'cancel') NOT IN ('cancel', 'run') THEN
            v_code := 'JOB.INVALID_ARGUMENT';
            v_detail := format('on_parent_failure %L: cancel or run', left(v_bad.wf ->> 'on_parent_failure', 100));
        ELSIF coalesce(v_bad.wf ->> 'on_sequence_failure', 'hold') NOT IN ('hold', 'continue') THEN
            v_code := 'JOB.INVALID_ARGUMENT';
            v_detail := format('on_sequence_failure %L: hold or continue', left(v_bad.wf ->> 'on_sequence_failure', 100));
        ELSIF btrim(v_bad.wf ->> 'sequence_key') = '' THEN
            v_code := 'JOB.INVALID_ARGUMENT';
            v_detail := 'sequence_key is blank';
        ELSIF char_length(v_bad.wf ->> 'sequence_key') > 500 THEN
            v_code := 'JOB.VALUE_TOO_LONG';
            v_detail := format('sequence_key is %s characters; the limit is 500', char_length(v_bad.wf ->> 'sequence_key'));
        ELSIF v_bad.n > v_max THEN
            v_code := 'JOB.TOO_MANY_DEPENDENCIES';
            v_detail := format('%s dependencies; the limit is %s', v_bad.n, v_max);
        ELSE
            v_code := 'JOB.INVALID_ARGUMENT';
            v_detail := 'depends_on must be an array of job ids (positive integers, no NULL)';
        END IF;
        PERFORM jobq._raise(v_code, CASE WHEN p_label_index THEN format('job %s: %s', v_bad.ord, v_detail) ELSE v_detail END);
    END IF;

    -- The live parents, locked in id order (a parent's finish, a DELETE, waits for this
    -- transaction; one that finished first is read from jobq.job_history by
    -- jobq._attach_workflow's next statement). FOR KEY SHARE: a release of the parent (itself
    -- blocked) by another transaction's trigger takes FOR NO KEY UPDATE and does not wait for it.
    v_parents := ARRAY(SELECT DISTINCT (d.v #>> '{}')::bigint
                       FROM unnest(p_wf) AS w(wf)
                       CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(w.wf -> 'depends_on') = 'array' THEN w.wf -> 'depends_on' END) AS d(v));
    -- Parents, then sequences. A cancel holding a sequence's lock may meanwhile cancel one of these
    -- parents (a blocked job of that sequence's subtree): it waits for the parent's row while this
    -- waits for its sequence, and PostgreSQL aborts one of the two. When it is this one, both
    -- locks are taken in a subtransaction, so the abort lets go of the parents' rows: the cancel
    -- goes on, and the locks are taken again (the canceled parent is then read from history);
    -- jobq.cancel_job and jobq.delete_job retry their side the same way.
    -- Before a new try it waits for the cancel to end (jobq._await_sequences) holding nothing:
    -- were the parents' rows taken again at once, they could be taken before the cancel's woken
    -- wait for one of them (a row lock free of holders goes to whoever asks first), and the same
    -- deadlock would close again, try after try.
    v_keys := ARRAY(SELECT w.wf ->> 'sequence_key' FROM unnest(p_wf) AS w(wf));
    FOR v_try IN 1 .. 5 LOOP
        BEGIN
            PERFORM 1 FROM jobq.jobs j WHERE j.id = ANY (v_parents) ORDER BY j.id FOR KEY SHARE;
            PERFORM jobq._lock_sequences(p_store_ids, v_keys);
            EXIT;
        EXCEPTION WHEN deadlock_detected THEN
            IF v_try = 5 THEN
                RAISE;
            END IF;
        END;
        PERFORM jobq._await_sequences(p_store_ids, v_keys);
    END LOOP;
END
$_$;

ALTER FUNCTION jobq._workflow_prepare(p_wf jsonb[], p_store_ids uuid[], p_job_keys text[], p_label_index boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._workflow_prepare(p_wf jsonb[], p_store_ids uuid[], p_job_keys text[], p_label_index boolean) IS 'Private. Before an enqueue with workflow specs inserts anything: refuses a job_key beside a workflow (JOB.WORKFLOW_KEYED), on_parent_failure other than cancel | run and on_sequence_failure other than hold | continue (JOB.INVALID_ARGUMENT), a blank sequence_key (JOB.INVALID_ARGUMENT) or one above 500 characters (JOB.VALUE_TOO_LONG), a depends_on element that is no positive id (JOB.INVALID_ARGUMENT), more than 10000 dependencies (JOB.TOO_MANY_DEPENDENCIES); then locks the live parents'' rows (FOR KEY SHARE, id order) and the sequences (jobq._lock_sequences). SECURITY DEFINER: the locks need no policy. Callers: jobq.enqueue, jobq.enqueue_many.';

CREATE FUNCTION jobq._workflow_spec(p_depends_on bigint[], p_ref_ords bigint[], p_on_parent_failure text, p_sequence_key text, p_on_sequence_failure text) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT CASE WHEN coalesce(cardinality(p_depends_on), 0) + coalesce(cardinality(p_ref_ords), 0) > 0
                  OR p_on_parent_failure IS NOT NULL OR p_sequence_key IS NOT NULL OR p_on_sequence_failure IS NOT NULL
           THEN pg_catalog.jsonb_build_object('depends_on', p_depends_on, 'ref_ords', p_ref_ords,
                                              'on_parent_failure', p_on_parent_failure, 'sequence_key', p_sequence_key,
                                              'on_sequence_failure', p_on_sequence_failure) END
$$;

ALTER FUNCTION jobq._workflow_spec(p_depends_on bigint[], p_ref_ords bigint[], p_on_parent_failure text, p_sequence_key text, p_on_sequence_failure text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._workflow_spec(p_depends_on bigint[], p_ref_ords bigint[], p_on_parent_failure text, p_sequence_key text, p_on_sequence_failure text) IS 'Private. The workflow of one job to enqueue as a JSON object (depends_on, ref_ords, on_parent_failure, sequence_key, on_sequence_failure), NULL when it has none. Callers: jobq.enqueue, jobq._workflow_specs.';

CREATE FUNCTION jobq._workflow_specs(p_jobs jsonb) RETURNS jsonb[]
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_bad record;
    v_refs jsonb;
BEGIN
    -- Refs: strings, not blank, at most 200 characters, unique.
    SELECT e.n, e.v -> 'ref' AS ref INTO v_bad
    FROM jsonb_array_elements(p_jobs) WITH ORDINALITY AS e(v, n)
    WHERE e.v ? 'ref'
      AND (jsonb_typeof(e.v -> 'ref') <> 'string' OR btrim(e.v ->> 'ref') = '' OR char_length(e.v ->> 'ref') > 200)
    ORDER BY e.n LIMIT 1;
    IF NOT FOUND THEN
        SELECT max(d.n) AS n, d.ref INTO v_bad
        FROM (SELECT e.n, e.v -> 'ref' AS ref FROM jsonb_array_elements(p_jobs) WITH ORDINALITY AS e(v, n) WHERE e.v ? 'ref') AS d
        GROUP BY d.ref HAVING count(*) > 1
        ORDER BY 1 LIMIT 1;
    END IF;
    IF v_bad.n IS NOT NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_REF', format('job %s: ref %s must be a non-blank string of at most 200 characters, unique in the call',
                                                      v_bad.n, left(v_bad.ref::text, 200)));
    END IF;
    -- The refs as one object, ref -> input position: each look-up below is one probe of it.
    v_refs := (SELECT coalesce(jsonb_object_agg(e.v ->> 'ref', e.n), '{}')
               FROM jsonb_array_elements(p_jobs) WITH ORDINALITY AS e(v, n) WHERE e.v ? 'ref');
    -- depends_on_refs: an array of refs, each of an element before this one.
    SELECT e.n, r.v AS ref, (v_refs -> (r.v #>> '{}'))::bigint AS at
    INTO v_bad
    FROM jsonb_array_elements(p_jobs) WITH ORDINALITY AS e(v, n)
    CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(e.v -> 'depends_on_refs') = 'array' THEN e.v -> 'depends_on_refs'
                                                 WHEN e.v ? 'depends_on_refs' THEN '[null]'::jsonb ELSE '[]'::jsonb END) AS r(v)
    WHERE jsonb_typeof(r.v) IS DISTINCT FROM 'string' OR NOT coalesce((v_refs -> (r.v #>> '{}'))::bigint < e.n, false)
    ORDER BY e.n LIMIT 1;
    IF FOUND THEN
        IF v_bad.at IS NOT NULL THEN
            PERFORM jobq._raise('JOB.DEPENDENCY_CYCLE', format('job %s: ref %s is job %s, not an earlier element', v_bad.n, left(v_bad.ref::text, 200), v_bad.at));
        END IF;
        PERFORM jobq._raise('JOB.UNKNOWN_REF', format('job %s: depends_on_refs must be an array of refs of earlier elements; %s is none',
                                                      v_bad.n, left(coalesce(v_bad.ref::text, 'not an array'), 200)));
    END IF;
    RETURN ARRAY(
        SELECT CASE WHEN e.v ?| ARRAY['depends_on', 'depends_on_refs', 'on_parent_failure', 'sequence_key', 'on_sequence_failure']
                    THEN pg_catalog.jsonb_build_object(
                             'depends_on', e.v -> 'depends_on',
                             'ref_ords', (SELECT pg_catalog.jsonb_agg(v_refs -> (r.v #>> '{}'))
                                          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(e.v -> 'depends_on_refs') = 'array'
                                                                         THEN e.v -> 'depends_on_refs' END) AS r(v)),
                             'on_parent_failure', e.v ->> 'on_parent_failure',
                             'sequence_key', e.v ->> 'sequence_key',
                             'on_sequence_failure', e.v ->> 'on_sequence_failure')
               END
        FROM jsonb_array_elements(p_jobs) WITH ORDINALITY AS e(v, n)
        ORDER BY e.n);
END
$$;

ALTER FUNCTION jobq._workflow_specs(p_jobs jsonb) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._workflow_specs(p_jobs jsonb) IS 'Private. The workflow specs of enqueue_many''s elements in input order (jobq._workflow_spec''s shape; NULL for an element without workflow fields): depends_on as given, depends_on_refs as the input positions of the earlier elements whose ref they name. Errors: JOB.UNKNOWN_REF (a ref not a non-blank string of at most 200 characters or not unique; depends_on_refs not an array or naming no element), JOB.DEPENDENCY_CYCLE (naming itself or a later element). Caller: jobq.enqueue_many.';

CREATE FUNCTION jobq._write_missing_receipts() RETURNS bigint
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    WITH written AS (
        INSERT INTO jobq.leases (worker_id, job_ids, check_at)
        SELECT j.locked_by, array_agg(j.id ORDER BY j.id), min(least(j.lease_expires_at, j.deadline_at))
        FROM jobq.jobs j
        WHERE j.state = 'running'
          AND NOT EXISTS (SELECT 1 FROM jobq.leases l WHERE l.worker_id = j.locked_by AND j.id = ANY (l.job_ids))
        GROUP BY j.locked_by
        RETURNING 1
    )
    SELECT count(*) FROM written
$$;

ALTER FUNCTION jobq._write_missing_receipts() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq._write_missing_receipts() IS 'Private. Writes one jobq.leases row per worker for its running jobs that no receipt of that worker lists (check_at their first lease end or deadline); returns the rows written. Callers: jobq._cover_running_jobs, the pgTAP fixture jobq_test.leases_for_running.';

CREATE FUNCTION jobq.acquire_leadership(worker_id text, ttl interval DEFAULT '00:00:15'::interval) RETURNS bigint
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT jobq._acquire_leadership(acquire_leadership.worker_id, acquire_leadership.ttl, now())
$$;

ALTER FUNCTION jobq.acquire_leadership(worker_id text, ttl interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.acquire_leadership(worker_id text, ttl interval) IS 'Takes the leadership for worker_id when nobody holds a live lease on it, or renews it; returns the fencing epoch, or NULL when another worker leads, worker_id is a registered worker that is draining or detached, or worker_id is the leader an operator demoted less than leader_ttl ago (jobq.demote_leader: held off until jobq.leader.demoted_until). The epoch grows on every change of leader; pass it to jobq.maintain. Locks the leader row (waits for a maintain in progress). Caller: runners every leader_ttl / 3. Errors: JOB.INVALID_ARGUMENT, JOB.LEASE_INVALID.';

CREATE FUNCTION jobq.audit_list(actor text DEFAULT NULL::text, action text DEFAULT NULL::text, job_id bigint DEFAULT NULL::bigint, since timestamp with time zone DEFAULT NULL::timestamp with time zone, before bigint DEFAULT NULL::bigint, max_rows integer DEFAULT 50) RETURNS TABLE(id bigint, at timestamp with time zone, actor text, action text, job_id bigint, detail jsonb)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT a.id, a.at, a.actor, a.action, a.job_id, a.detail
    FROM jobq.audit_log a
    WHERE ($1 IS NULL OR a.actor = $1) AND ($2 IS NULL OR a.action = $2) AND ($3 IS NULL OR a.job_id = $3)
      AND ($4 IS NULL OR a.at >= $4) AND ($5 IS NULL OR a.id < $5)
    ORDER BY a.id DESC
    LIMIT least(greatest(coalesce($6, 50), 0), 100001)
$_$;

ALTER FUNCTION jobq.audit_list(actor text, action text, job_id bigint, since timestamp with time zone, before bigint, max_rows integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.audit_list(actor text, action text, job_id bigint, since timestamp with time zone, before bigint, max_rows integer) IS 'The audit log (jobq.audit_log), newest first, matching each filter that is not NULL: actor, action, job_id, since (at or after), before (ids below it: the next page); at most max_rows rows (default 50, 0..100001). Locks nothing. Callers: jobq audit, the dashboard''s audit and job pages (package operator). Errors: none.';

CREATE FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval) RETURNS interval
    LANGUAGE plpgsql IMMUTABLE SECURITY DEFINER PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_exponent integer;
BEGIN
    IF p_base IS NULL OR p_max IS NULL THEN
        RETURN NULL;
    END IF;
    -- The checks of jobq._check_interval, written out: this function runs as its caller, and
    -- runtime roles execute no private helper but jobq._raise.
    IF p_base <= interval '0' OR p_max <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('%s is not positive',
            CASE WHEN p_base <= interval '0' THEN 'p_base ' || p_base ELSE 'p_max ' || p_max END));
    ELSIF p_base > interval '30 days' OR p_max > interval '30 days' THEN
        PERFORM jobq._raise('JOB.OUT_OF_RANGE', format('%s is above the limit of 30 days',
            CASE WHEN p_base > interval '30 days' THEN 'p_base ' || p_base ELSE 'p_max ' || p_max END));
    END IF;
    v_exponent := least(greatest(coalesce(p_attempt, 1), 1) - 1, 100);
    -- Compared in seconds first: base * 2^(n-1) as an interval overflows long before n is large.
    IF date_part('epoch', p_base) * power(2::double precision, v_exponent) >= date_part('epoch', p_max) THEN
        RETURN p_max;
    END IF;
    -- A base with a day or month part is normalised first, so a mixed-sign one ('1 mon -29 days')
    -- cannot overflow its months field.
    IF date_part('day', p_base) <> 0 OR date_part('month', p_base) <> 0 OR date_part('year', p_base) <> 0 THEN
        RETURN justify_interval(p_base) * power(2::double precision, v_exponent);
    END IF;
    RETURN p_base * power(2::double precision, v_exponent);
END
$$;

ALTER FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval) IS 'Upper bound of the retry delay after attempt p_attempt: min(p_max, p_base * 2^(p_attempt-1)); an attempt below 1 (or NULL) counts as 1; NULL p_base or p_max gives NULL. Pure; locks nothing. Errors: JOB.LEASE_INVALID (p_base or p_max not positive), JOB.OUT_OF_RANGE (p_base or p_max above 30 days).';

CREATE FUNCTION jobq.backoff_delay(p_attempt integer, p_base interval, p_max interval) RETURNS interval
    LANGUAGE sql PARALLEL RESTRICTED
    AS $$
    SELECT jobq.backoff_ceiling(p_attempt, p_base, p_max) * (0.5 + random() / 2)
$$;

ALTER FUNCTION jobq.backoff_delay(p_attempt integer, p_base interval, p_max interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.backoff_delay(p_attempt integer, p_base interval, p_max interval) IS 'Retry delay after attempt p_attempt: backoff_ceiling(...) * (0.5 + random()/2). Callers: fail_jobs, rescue_expired.';

CREATE FUNCTION jobq.batch_enqueue(batch_id bigint, jobs jsonb) RETURNS SETOF bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_batch jobq.batches;
    v_bad bigint;
    v_ids bigint[];
BEGIN
    v_batch := jobq._lock_batch(batch_enqueue.batch_id);
    IF v_batch.sealed_at IS NOT NULL THEN
        PERFORM jobq._raise('JOB.BATCH_SEALED', format('batch %s was sealed at %s', v_batch.id, v_batch.sealed_at));
    END IF;
    IF jobs IS NULL OR jsonb_typeof(jobs) <> 'array' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('jobs must be a JSON array of job objects, not %s', coalesce(jsonb_typeof(jobs), 'NULL')));
    END IF;
    SELECT e.n INTO v_bad FROM jsonb_array_elements(jobs) WITH ORDINALITY AS e(v, n)
    WHERE jsonb_typeof(e.v) = 'object' AND (e.v ? 'job_key' OR e.v ? 'unique_for')
    ORDER BY e.n LIMIT 1;
    IF FOUND THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('job %s: a job of a batch takes no job_key nor unique_for (it could merge into a job outside the batch)', v_bad));
    END IF;

    v_ids := ARRAY(
        SELECT jobq.enqueue_many(coalesce(jsonb_agg(
            CASE WHEN jsonb_typeof(e.v) = 'object' AND v_batch.store_id IS NOT NULL AND NOT e.v ? 'store_id'
                 THEN e.v || jsonb_build_object('store_id', v_batch.store_id) ELSE e.v END ORDER BY e.n), '[]'::jsonb))
        FROM jsonb_array_elements(jobs) WITH ORDINALITY AS e(v, n));

    WITH marked AS (
        UPDATE jobq.jobs AS j SET batch_id = v_batch.id
        WHERE j.id = ANY (v_ids)
        RETURNING j.id, j.store_id
    )
    SELECT min(m.id) INTO v_bad FROM marked m WHERE m.store_id IS DISTINCT FROM v_batch.store_id;
    IF v_bad IS NOT NULL THEN
        PERFORM jobq._raise('JOB.BATCH_STORE_MISMATCH', format('job %s is %s; batch %s is %s', array_position(v_ids, v_bad),
            coalesce('of store ' || (SELECT j.store_id FROM jobq.jobs j WHERE j.id = v_bad), 'a system job'),
            v_batch.id, coalesce('of store ' || v_batch.store_id, 'a system batch')));
    END IF;
    UPDATE jobq.batches AS b SET total = b.total + cardinality(v_ids) WHERE b.id = v_batch.id;
    RETURN QUERY SELECT unnest(v_ids);
END
$$;

ALTER FUNCTION jobq.batch_enqueue(batch_id bigint, jobs jsonb) OWNER TO jobq_app_gate;

COMMENT ON FUNCTION jobq.batch_enqueue(batch_id bigint, jobs jsonb) IS 'Adds jobs to open batch batch_id: jobs is a JSON array as for jobq.enqueue_many (all or nothing, at most 100000 elements), an element without store_id taking the batch''s store; no element may have job_key or unique_for. Returns the new job ids in input order. Locks the batch row until commit (adders, seal_batch and the counting of the batch''s ended jobs wait for each other). Callers: applications (their store''s batches), handlers, operators. Errors: JOB.BATCH_NOT_FOUND (unknown or another store''s), JOB.BATCH_SEALED, JOB.BATCH_STORE_MISMATCH, JOB.INVALID_ARGUMENT, and every error of jobq.enqueue_many.';

CREATE FUNCTION jobq.batch_list(store_id uuid DEFAULT NULL::uuid, state text DEFAULT NULL::text, before bigint DEFAULT NULL::bigint, max_rows integer DEFAULT 50, id bigint DEFAULT NULL::bigint, job_id bigint DEFAULT NULL::bigint) RETURNS TABLE(id bigint, store_id uuid, description text, state text, total bigint, succeeded bigint, dead bigint, canceled bigint, pending bigint, created_at timestamp with time zone, sealed_at timestamp with time zone, settled_at timestamp with time zone, on_success text, on_complete text, on_discard text, callback_job_ids bigint[], callback_error text)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT l.* FROM (
        SELECT b.id, b.store_id, b.description,
               CASE WHEN b.settled_at IS NOT NULL THEN 'settled' WHEN b.sealed_at IS NOT NULL THEN 'sealed' ELSE 'open' END AS state,
               b.total, b.succeeded, b.dead, b.canceled, b.total - b.succeeded - b.dead - b.canceled,
               b.created_at, b.sealed_at, b.settled_at,
               b.on_success ->> 'task', b.on_complete ->> 'task', b.on_discard ->> 'task', b.callback_job_ids, b.callback_error
        FROM jobq.batches b
        WHERE ($1 IS NULL OR b.store_id = $1) AND ($3 IS NULL OR b.id < $3) AND ($5 IS NULL OR b.id = $5)
          AND ($6 IS NULL OR b.id = coalesce((SELECT j.batch_id FROM jobq.jobs j WHERE j.id = $6),
                                             (SELECT h.batch_id FROM jobq.job_history h WHERE h.id = $6)))
    ) l
    WHERE ($2 IS NULL OR l.state = $2)
    ORDER BY l.id DESC
    LIMIT least(greatest(coalesce($4, 50), 0), 100001)
$_$;

ALTER FUNCTION jobq.batch_list(store_id uuid, state text, before bigint, max_rows integer, id bigint, job_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.batch_list(store_id uuid, state text, before bigint, max_rows integer, id bigint, job_id bigint) IS 'Batches, newest id first, matching each filter that is not NULL: store_id, state (open, sealed, settled), before (ids below it: the next page), id (one batch), job_id (the batch of this job, live or finished); at most max_rows rows (default 50, 0..100001). With counts total, succeeded, dead, canceled, pending (not yet ended), the callbacks'' tasks, the callback jobs enqueued at the settle and callback_error. Runs as its caller: row-level security shows an application its store''s batches only. Locks nothing. Callers: jobq batches list, the dashboard''s job page (package operator). Errors: none.';

CREATE FUNCTION jobq.batch_status(batch_id bigint) RETURNS TABLE(id bigint, store_id uuid, description text, state text, total bigint, succeeded bigint, dead bigint, canceled bigint, pending bigint, created_at timestamp with time zone, sealed_at timestamp with time zone, settled_at timestamp with time zone, on_success text, on_complete text, on_discard text, callback_job_ids bigint[], callback_error text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_every constant boolean := jobq._caller_sees_every_store();
    v_store constant uuid := jobq.current_store_id();
BEGIN
    RETURN QUERY SELECT l.* FROM jobq.batch_list(id => batch_status.batch_id) AS l
                 WHERE v_every OR l.store_id = v_store OR (l.store_id IS NULL AND NOT jobq._caller_is_restricted());
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.BATCH_NOT_FOUND', format('batch %s', coalesce(batch_status.batch_id::text, 'NULL')));
    END IF;
END
$$;

ALTER FUNCTION jobq.batch_status(batch_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.batch_status(batch_id bigint) IS 'One batch as jobq.batch_list shows it (state, counts, callbacks). EXECUTE for jobq_operator and jobq_viewer, who see every batch, and jobq_app, which sees only its store''s (jobq.current_store_id()); a trusted caller (the owner) sees system batches too. Locks nothing. Callers: applications, jobq batches show, the dashboard. Errors: JOB.BATCH_NOT_FOUND (unknown, NULL, another store''s, or a system batch for an application).';

CREATE FUNCTION jobq.bind_store(login name, store_id uuid) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF bind_store.login IS NULL OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = bind_store.login) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('login %L is not a role of this cluster', left(bind_store.login, 200)));
    END IF;
    IF bind_store.store_id IS NULL OR bind_store.store_id = '00000000-0000-0000-0000-000000000000'::uuid THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'store_id must be a store''s uuid');
    END IF;
    INSERT INTO jobq.store_bindings AS b (login, store_id) VALUES (bind_store.login, bind_store.store_id)
    ON CONFLICT DO NOTHING;
    IF FOUND THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('bind_store', jsonb_build_object('login', bind_store.login, 'store_id', bind_store.store_id));
    END IF;
END
$$;

ALTER FUNCTION jobq.bind_store(login name, store_id uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.bind_store(login name, store_id uuid) IS 'Binds login to store_id: from its next statement, a login with bindings acts only for its bound stores (jobq.current_store_id() is NULL for any other, so every policy fails closed and enqueue raises JOB.STORE_NOT_BOUND). Idempotent; a new binding is audited. Caller: operators. Locks the binding row. Errors: JOB.INVALID_ARGUMENT (no such role, NULL or all-zero store).';

CREATE FUNCTION jobq.cancel_job(job_id bigint) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.cancel_job(job_id bigint) OWNER TO jobq_app_gate;

COMMENT ON FUNCTION jobq.cancel_job(job_id bigint) IS 'Cancels a live job (queued, retry_pending or running): it moves to jobq.job_history as canceled and its lease token stops working; for a running job it NOTIFYs jobq_control with cancel:<job id> at commit, so the runner stops the handler at once. Audited. Returns canceled. Callers: operators, applications (own jobs). Locks the job row (waits for a claim or finish in progress); when PostgreSQL aborts it in a deadlock with an enqueue into its sequence (40P01), starts over in a new subtransaction, up to 5 times. Errors: JOB.NOT_FOUND (also for a job the caller may not cancel: an application asking of a system job), JOB.STATE_CONFLICT (already ended).';

CREATE FUNCTION jobq.claim_job(worker_id text, queues text[] DEFAULT ARRAY['default'::text], max_jobs integer DEFAULT 1, lease interval DEFAULT '00:00:30'::interval, after_priority integer[] DEFAULT NULL::integer[], after_run_at timestamp with time zone[] DEFAULT NULL::timestamp with time zone[], after_id bigint[] DEFAULT NULL::bigint[], tasks text[] DEFAULT NULL::text[]) RETURNS SETOF jobq.jobs
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    RETURN QUERY SELECT * FROM jobq._claim(claim_job.worker_id, claim_job.queues, claim_job.max_jobs, claim_job.lease, now(),
                                           claim_job.after_priority, claim_job.after_run_at, claim_job.after_id,
                                           claim_job.tasks);
END
$$;

ALTER FUNCTION jobq.claim_job(worker_id text, queues text[], max_jobs integer, lease interval, after_priority integer[], after_run_at timestamp with time zone[], after_id bigint[], tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.claim_job(worker_id text, queues text[], max_jobs integer, lease interval, after_priority integer[], after_run_at timestamp with time zone[], after_id bigint[], tasks text[]) IS 'Claims up to max_jobs due jobs (state queued or retry_pending, run_at <= now()) for worker_id, queue by queue in the order given, each queue in (priority, run_at, id) order; a paused queue (jobq.pause_queue) is skipped. A queue with concurrency limits (jobq.set_concurrency_limit, set_store_concurrency_limit, set_partition_concurrency_limit) yields no job beyond them (the others stay queued and use no attempt), and is claimed from its head whatever its position; a transaction''s shared claims of it (batches of at most 16 far below its limits) take 16 jobs in all until it commits. A fair queue (jobq.set_fair_claiming) is claimed from its head, its stores in turn within each priority (round-robin, system jobs one more store). Every claimed job gets state running, attempt + 1, a fresh lease_token and lease_expires_at = now() + lease (deadline_at = now() + timeout). With positions (after_priority[i], after_run_at[i], after_id[i] for queues[i]), a queue yields only jobs of a higher priority than its position''s and jobs after the position in claim order; jobs at or before it are left for a claim without positions. NULL arrays, or a position of three NULLs, claim from the head. Given tasks (the tasks the worker has handlers for; NULL: every task), no job of another task is claimed, whatever its queue: it stays queued for a worker that serves it. Caller: the runner (worker_runtime), passing the last position its previous claim took in each queue, and none when jobq.claim_passed_over finds a job the positions pass over. Locks the claimed rows with SKIP LOCKED, so it never waits for another claimer, but for a claim of the same limited queue (a transaction-level advisory lock per limited queue, held until the caller''s transaction ends), and only while its transaction holds no other limited queue''s lock: then it only tries them, and its picks give up a row wait (PostgreSQL''s wait on a row''s update chain, which SKIP LOCKED does not cover) after 2 ms (jobq._guard_picks), so claims never deadlock: a wait given up, or found in a deadlock, takes nothing from that queue. Runs under READ COMMITTED only. Errors: JOB.INVALID_ARGUMENT (worker_id, queues, max_jobs outside 1..10000; positions not all NULL or one per queue, partly NULL, or a priority outside -32768..32767; tasks empty, multidimensional or with a NULL), JOB.OUT_OF_RANGE (more than 1000 tasks), JOB.LEASE_INVALID, JOB.CLAIM_ISOLATION (a REPEATABLE READ or SERIALIZABLE transaction, whose snapshot cannot see a pause or other claims committed since).';

CREATE FUNCTION jobq.claim_passed_over(queues text[], after_priority integer[], after_run_at timestamp with time zone[], after_id bigint[], tasks text[] DEFAULT NULL::text[]) RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET enable_seqscan TO 'off'
    AS $$
BEGIN
    IF NOT jobq._claim_queues_ok(claim_passed_over.queues) THEN
        PERFORM jobq._check_claim_queues(claim_passed_over.queues);
    END IF;
    PERFORM jobq._check_claim_positions(claim_passed_over.queues, claim_passed_over.after_priority,
                                        claim_passed_over.after_run_at, claim_passed_over.after_id);
    PERFORM jobq._check_claim_tasks(claim_passed_over.tasks);
    RETURN EXISTS (
        SELECT 1
        FROM unnest(claim_passed_over.queues, claim_passed_over.after_priority, claim_passed_over.after_run_at,
                    claim_passed_over.after_id) AS p(queue, priority, run_at, id)
        WHERE p.id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM jobq.queues q WHERE q.name = p.queue AND (q.paused OR q.limited OR q.fair))
          AND EXISTS (
              SELECT 1
              FROM jobq.jobs j
              WHERE j.ready AND j.state IN ('queued', 'retry_pending')
                AND j.queue = p.queue
                AND j.priority = p.priority::smallint
                AND (j.run_at, j.id) <= (p.run_at, p.id)
                AND j.run_at <= now()
                AND (claim_passed_over.tasks IS NULL OR j.task = ANY (claim_passed_over.tasks))));
END
$$;

ALTER FUNCTION jobq.claim_passed_over(queues text[], after_priority integer[], after_run_at timestamp with time zone[], after_id bigint[], tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.claim_passed_over(queues text[], after_priority integer[], after_run_at timestamp with time zone[], after_id bigint[], tasks text[]) IS 'Whether a claim_job with these positions (after_priority[i], after_run_at[i], after_id[i] for queues[i]) passes over a job: true when a queue that is neither paused nor limited (a limited queue is claimed from its head) holds a due, waiting job of its position''s priority at or before the position (given tasks, of one of them). Positions of three NULLs (and three NULL arrays) pass over nothing. Caller: the runner, once per rescan interval, beside its claims; it claims from the head when the answer is true. Reads only; locks nothing. Errors: JOB.INVALID_ARGUMENT (queues NULL, empty, multidimensional or with a NULL; positions not all NULL or one per queue, partly NULL, or a priority outside -32768..32767; tasks as for claim_job), JOB.OUT_OF_RANGE (more than 1000 queues or tasks), JOB.VALUE_TOO_LONG (a queue above 200 characters).';

CREATE FUNCTION jobq.complete_job(job_id bigint, lease_token uuid, result jsonb DEFAULT NULL::jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_outcome text;
BEGIN
    SELECT c.outcome INTO v_outcome
    FROM jobq.complete_jobs(ARRAY[complete_job.job_id], ARRAY[complete_job.lease_token], results => ARRAY[complete_job.result]) AS c;
    IF v_outcome = 'result_too_large' THEN
        PERFORM jobq._raise('JOB.RESULT_TOO_LARGE', format('the result of job %s is %s bytes as JSON text; the limit is %s (setting max_result_bytes)',
                                                           complete_job.job_id, octet_length(complete_job.result::text), jobq._max_result_bytes()));
    ELSIF v_outcome IS DISTINCT FROM 'succeeded' THEN
        PERFORM jobq._raise('JOB.LEASE_LOST', format('job %s is not running under this lease token', complete_job.job_id));
    END IF;
END
$$;

ALTER FUNCTION jobq.complete_job(job_id bigint, lease_token uuid, result jsonb) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.complete_job(job_id bigint, lease_token uuid, result jsonb) IS 'Completes one attempt (the job moves to history as succeeded), keeping result (any JSON value, NULL for none) in jobq.job_history.result. Caller: runners, tests, a handler''s own transaction. Errors: JOB.LEASE_LOST when the job is not running under lease_token, JOB.RESULT_TOO_LARGE when result is above setting max_result_bytes as JSON text (nothing changes in either case).';

CREATE FUNCTION jobq.complete_jobs(job_ids bigint[], lease_tokens uuid[], outputs text[] DEFAULT NULL::text[], log_refs text[] DEFAULT NULL::text[], exit_codes integer[] DEFAULT NULL::integer[], results jsonb[] DEFAULT NULL::jsonb[]) RETURNS TABLE(job_id bigint, outcome text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET enable_seqscan TO 'off'
    SET enable_bitmapscan TO 'off'
    SET enable_nestloop TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
DECLARE
    v_moved bigint[];   -- the input positions of the pairs moved to history now
    v_now boolean[];    -- v_now[i]: pair i was moved now
    v_pos bigint;
    v_epoch constant bigint := (SELECT l.epoch FROM jobq.leader l WHERE l.singleton);
    v_max_result bigint;
    v_big boolean[];    -- v_big[i]: pair i's result is above max_result_bytes (NULL while none is)
BEGIN
    PERFORM jobq._check_lease_batch(complete_jobs.job_ids, complete_jobs.lease_tokens);
    IF coalesce(cardinality(complete_jobs.outputs), cardinality(complete_jobs.job_ids)) IS DISTINCT FROM cardinality(complete_jobs.job_ids)
       OR coalesce(cardinality(complete_jobs.log_refs), cardinality(complete_jobs.job_ids)) IS DISTINCT FROM cardinality(complete_jobs.job_ids)
       OR coalesce(cardinality(complete_jobs.exit_codes), cardinality(complete_jobs.job_ids)) IS DISTINCT FROM cardinality(complete_jobs.job_ids)
       OR coalesce(cardinality(complete_jobs.results), cardinality(complete_jobs.job_ids)) IS DISTINCT FROM cardinality(complete_jobs.job_ids) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'outputs, log_refs, exit_codes and results must be NULL or as long as job_ids');
    END IF;
    -- The bound of a result is checked only when there are results: the plain completion reads
    -- no setting. A pair whose result is too large is left out of the DELETE below (its job keeps
    -- running under its lease, nothing is written for it) and reported as result_too_large.
    IF complete_jobs.results IS NOT NULL THEN
        v_max_result := jobq._max_result_bytes();
        SELECT array_agg(r.result IS NOT NULL AND octet_length(r.result::text) > v_max_result ORDER BY r.pos)
        INTO v_big
        FROM unnest(complete_jobs.results) WITH ORDINALITY AS r(result, pos);
    END IF;

    -- The rows come from the primary key (id = ANY), and running is said through the lease
    -- columns (jobs_lease_matches_state ties them to the state), so no partial index of running
    -- rows can serve: the planner read the rows through jobs_lease_idx, every running row and,
    -- while a snapshot was held open, every row that had run since (4 ms a completion at 200
    -- jobs/s; auto_explain, docs/benchmarks.md). Both sides of the join are in id order (the
    -- key's scan and the sorted pairs), so whichever the hash join probes with, the rows are
    -- locked in id order as heartbeat_jobs locks them: a heartbeat and a finish of the same jobs
    -- cannot deadlock. The positions of the pairs moved come back from the DELETE itself.
    WITH done AS (
        DELETE FROM jobq.jobs AS j
        USING (SELECT c.id, c.token, c.pos, c.output, c.log_ref, c.exit_code, c.result
               FROM unnest(complete_jobs.job_ids, complete_jobs.lease_tokens, complete_jobs.outputs, complete_jobs.log_refs,
                           complete_jobs.exit_codes, complete_jobs.results) WITH ORDINALITY AS c(id, token, output, log_ref, exit_code, result, pos)
               WHERE v_big IS NULL OR NOT v_big[c.pos::integer]
               ORDER BY c.id) AS c
        WHERE j.id = ANY (complete_jobs.job_ids)
          AND j.id = c.id
          AND j.lease_token = c.token
          AND j.locked_by IS NOT NULL
          AND j.lease_expires_at IS NOT NULL
        RETURNING j AS job, c.pos, c.output, c.log_ref, c.exit_code, c.result
    ), moved AS (
        INSERT INTO jobq.job_history
        SELECT h.* FROM done CROSS JOIN LATERAL jobq._to_history(done.job, 'succeeded', NULL, NULL, NULL, done.output,
            done.log_ref, done.exit_code, v_epoch, done.result) AS h
    )
    SELECT coalesce(array_agg(d.pos), '{}') INTO v_moved FROM done d;

    -- A pair moved now succeeded: marked by position, in one pass, not by a join (the planner,
    -- guessing 10 rows for each side, joined them by a nested loop whose cost grew with the
    -- square of the batch). Any other pair is read back from history with one primary-key probe:
    -- succeeded under this token earlier (a retry whose first reply was lost, or the same pair
    -- twice in one call: completing is idempotent per lease), or lost. Not a join to history
    -- either: the plan cached while history was small hashed a sequential scan of all of it, and
    -- kept doing so as it grew (306 scans reading 37,928,488 rows while one worker drained
    -- 300,000 jobs after history was emptied).
    v_now := array_fill(false, ARRAY[coalesce(cardinality(complete_jobs.job_ids), 0)]);
    FOREACH v_pos IN ARRAY v_moved LOOP
        v_now[v_pos] := true;
    END LOOP;
    RETURN QUERY
    SELECT c.id,
           CASE WHEN v_now[c.pos::integer]
                  OR (SELECT h.lease_token = c.token AND h.state = 'succeeded'
                      FROM jobq.job_history h WHERE h.id = c.id)
                THEN 'succeeded'
                WHEN v_big[c.pos::integer] THEN 'result_too_large'
                ELSE 'lease_lost' END
    FROM unnest(complete_jobs.job_ids, complete_jobs.lease_tokens) WITH ORDINALITY AS c(id, token, pos)
    ORDER BY c.pos;
END
$$;

ALTER FUNCTION jobq.complete_jobs(job_ids bigint[], lease_tokens uuid[], outputs text[], log_refs text[], exit_codes integer[], results jsonb[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.complete_jobs(job_ids bigint[], lease_tokens uuid[], outputs text[], log_refs text[], exit_codes integer[], results jsonb[]) IS 'Completes many attempts in one statement. Returns one row per input lease, in input order: outcome succeeded (moved to jobq.job_history now, or earlier under the same token: completing is idempotent per lease), result_too_large (results[i] is above setting max_result_bytes as JSON text; nothing changed, the job still runs under its lease) or lease_lost (not running under that token: rescued, canceled or finished otherwise; nothing changed). The history row keeps results[i] (any JSON value; NULL for none) in jobq.job_history.result. The history row keeps the attempt''s output (the last 16384 characters of outputs[i]), log_ref (the first 1000 characters of log_refs[i]; NULL when none is given: jobq.default_log_ref, which jobq.job_list shows in its place), exit_code (exit_codes[i]), its progress and leader_epoch (jobq.leader.epoch now); the four arrays are NULL or as long as job_ids. Caller: the runner. Locks (in id order) and deletes the completed rows. Errors: JOB.INVALID_ARGUMENT (array lengths differ), JOB.OUT_OF_RANGE (more than 10000 jobs).';

CREATE FUNCTION jobq.confirm_continuation(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval DEFAULT '00:00:30'::interval) RETURNS TABLE(job_id bigint, outcome text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_held jsonb;
BEGIN
    PERFORM jobq._check_lease(confirm_continuation.lease);
    PERFORM jobq._check_lease_batch(confirm_continuation.job_ids, confirm_continuation.lease_tokens);
    PERFORM jobq._check_worker_id(confirm_continuation.worker_id);

    -- The leases still held, locked in id order (as heartbeat_jobs locks them), each with its
    -- verdict: confirmed in time (or not CONFIRMING at all), or too late.
    WITH held AS (
        SELECT j.id, j.lease_token AS token, coalesce(c.confirm_by > now(), true) AS in_time
        FROM (SELECT DISTINCT h.id, h.token
              FROM unnest(confirm_continuation.job_ids, confirm_continuation.lease_tokens) AS h(id, token)) h
        JOIN jobq.jobs j ON j.id = h.id AND j.lease_token = h.token
        LEFT JOIN jobq.continuations c ON c.job_id = j.id AND c.lease_token = j.lease_token
        WHERE j.state = 'running' AND j.locked_by = confirm_continuation.worker_id
        ORDER BY j.id
        FOR UPDATE OF j
    ), confirmed AS (
        -- In time: CONFIRMING ends and the job goes on under a normal lease.
        DELETE FROM jobq.continuations AS c USING held h
        WHERE c.job_id = h.id AND c.lease_token = h.token AND h.in_time
        RETURNING c.job_id
    ), renewed AS (
        UPDATE jobq.jobs AS j
        SET lease_expires_at = jobq._ts_add(now(), confirm_continuation.lease), heartbeat_at = now(), updated_at = now()
        FROM held h
        WHERE j.id = h.id AND h.in_time
        RETURNING j.id
    ), audited AS (
        INSERT INTO jobq.audit_log (action, detail)
        SELECT 'continuation_confirmed',
               jsonb_build_object('worker_id', confirm_continuation.worker_id, 'jobs', to_jsonb(array_agg(c.job_id ORDER BY c.job_id)))
        FROM confirmed c
        HAVING count(*) > 0
        RETURNING 1
    )
    SELECT coalesce(jsonb_object_agg(h.id::text || ':' || h.token::text, CASE WHEN h.in_time THEN 'confirmed' ELSE 'detached' END), '{}')
    INTO v_held
    FROM held h;

    -- Too late, and the sweep has not come yet: the attempt fails now, reason detached (the lease
    -- ended at the deadline, so jobq._rescue takes it).
    IF EXISTS (SELECT 1 FROM jsonb_each_text(v_held) AS v(k, o) WHERE v.o = 'detached') THEN
        PERFORM 1 FROM jobq._rescue(cardinality(confirm_continuation.job_ids) + 1000, now());
    END IF;

    RETURN QUERY
    SELECT h.id, coalesce(v_held ->> (h.id::text || ':' || h.token::text), 'lease_lost')
    FROM unnest(confirm_continuation.job_ids, confirm_continuation.lease_tokens) WITH ORDINALITY AS h(id, token, ord)
    ORDER BY h.ord;
END
$$;

ALTER FUNCTION jobq.confirm_continuation(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.confirm_continuation(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval) IS 'A detached runner confirms that its jobs go on. One row per input lease, in input order: confirmed (the job runs on here: CONFIRMING ends and the lease is renewed to now() + lease; also for a lease held without being CONFIRMING, so repeating a call whose answer was lost is safe), detached (the deadline of jobq.detach_worker passed: the attempt failed now with reason detached, as jobq._rescue records it, and the handler must stop) or lease_lost (not running under that token for worker_id). Audited (continuation_confirmed; the swept ones as continuation_expired). Caller: the runner. Locks the rows in id order. Errors: JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT (worker_id NULL or blank, array lengths), JOB.OUT_OF_RANGE (more than 10000 jobs, lease above 1 day), JOB.VALUE_TOO_LONG (worker_id). A refused call writes nothing.';

CREATE FUNCTION jobq.create_batch(on_success jsonb DEFAULT NULL::jsonb, on_complete jsonb DEFAULT NULL::jsonb, on_discard jsonb DEFAULT NULL::jsonb, store_id uuid DEFAULT NULL::uuid, description text DEFAULT NULL::text, jobs jsonb DEFAULT NULL::jsonb, seal boolean DEFAULT false) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_store constant uuid := coalesce(create_batch.store_id, jobq.current_store_id());
    v_probe jobq.batches;
    v_callback record;
    v_id bigint;
BEGIN
    IF v_store = '00000000-0000-0000-0000-000000000000'::uuid THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'store_id 00000000-0000-0000-0000-000000000000 is reserved for system jobs; pass NULL');
    END IF;
    PERFORM jobq._check_text('description', create_batch.description, 1000);
    IF NOT jobq._caller_reaches(v_store) THEN
        IF v_store IS NULL THEN
            PERFORM jobq._raise('JOB.NOT_ALLOWED', 'an application creates batches of its session''s store only (set app.current_store_id)');
        END IF;
        PERFORM jobq._raise('JOB.TENANT_MISMATCH', format('store_id %s is not the session''s store', v_store));
    END IF;

    v_probe.store_id := v_store;
    v_probe.total := 0; v_probe.succeeded := 0; v_probe.dead := 0; v_probe.canceled := 0;
    FOR v_callback IN
        SELECT c.name, c.spec FROM (VALUES ('on_success', create_batch.on_success), ('on_complete', create_batch.on_complete),
                                           ('on_discard', create_batch.on_discard)) AS c(name, spec)
        WHERE c.spec IS NOT NULL
    LOOP
        IF jsonb_typeof(v_callback.spec) <> 'object' THEN
            PERFORM jobq._raise('JOB.BATCH_CALLBACK_INVALID', format('%s is a JSON %s, not a job spec object', v_callback.name, jsonb_typeof(v_callback.spec)));
        END IF;
        IF v_callback.spec - jobq._batch_callback_fields() <> '{}'::jsonb THEN
            PERFORM jobq._raise('JOB.BATCH_CALLBACK_INVALID', format('%s: unknown field %L (fields: %s; a callback runs in the batch''s store when it settles)',
                v_callback.name, (SELECT min(k) FROM jsonb_object_keys(v_callback.spec - jobq._batch_callback_fields()) AS k),
                array_to_string(jobq._batch_callback_fields(), ', ')));
        END IF;
        BEGIN
            PERFORM jobq.enqueue_many(jsonb_build_array(jobq._batch_callback_job(v_callback.spec, v_probe)));
            -- JQ729 never leaves this block: it only rolls the probe back.
            RAISE EXCEPTION USING ERRCODE = 'JQ729', MESSAGE = 'jobq: callback probe';
        EXCEPTION
            WHEN SQLSTATE 'JQ729' THEN NULL;
            WHEN OTHERS THEN
                PERFORM jobq._raise('JOB.BATCH_CALLBACK_INVALID', format('%s: %s', v_callback.name, SQLERRM));
        END;
    END LOOP;

    INSERT INTO jobq.batches (store_id, description, on_success, on_complete, on_discard)
    VALUES (v_store, create_batch.description, create_batch.on_success, create_batch.on_complete, create_batch.on_discard)
    RETURNING batches.id INTO v_id;
    -- A batch made in one call: its jobs, then the seal.
    IF create_batch.jobs IS NOT NULL THEN
        PERFORM jobq.batch_enqueue(v_id, create_batch.jobs);
    END IF;
    IF create_batch.seal THEN
        PERFORM jobq.seal_batch(v_id);
    END IF;
    RETURN v_id;
END
$$;

ALTER FUNCTION jobq.create_batch(on_success jsonb, on_complete jsonb, on_discard jsonb, store_id uuid, description text, jobs jsonb, seal boolean) OWNER TO jobq_app_gate;

COMMENT ON FUNCTION jobq.create_batch(on_success jsonb, on_complete jsonb, on_discard jsonb, store_id uuid, description text, jobs jsonb, seal boolean) IS 'Creates an open batch and returns its id. store_id NULL = the session''s store (jobq.current_store_id()), none = a system batch (trusted callers and operators only). on_success (every job succeeded), on_complete (every job ended) and on_discard (at least one dead or canceled): NULL or a job spec object with the fields of an enqueue_many element but store_id and run_at, enqueued in the batch''s store when the batch settles, its payload plus "batch": {id, total, succeeded, dead, canceled, pending}; each is checked now by a rolled-back enqueue. description: at most 1000 characters. jobs: NULL, or jobs added at once as by jobq.batch_enqueue; seal: seal it at once as jobq.seal_batch (an empty or already ended batch settles in this call). Callers: applications (their store), handlers, operators. Locks nothing but, with jobs or seal, the new batch''s row and its jobs. Errors: JOB.BATCH_CALLBACK_INVALID (with the enqueue''s reason), JOB.TENANT_MISMATCH (another store), JOB.NOT_ALLOWED (an application without a store), JOB.INVALID_ARGUMENT, JOB.VALUE_TOO_LONG, and those of jobq.batch_enqueue for jobs.';

CREATE FUNCTION jobq.cron_next(expr text, after timestamp with time zone, timezone text DEFAULT 'UTC'::text) RETURNS timestamp with time zone
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT jobq._cron_next(jobq.cron_parse(cron_next.expr), jobq._cron_instant(cron_next.after, 'after'),
                           jobq._check_timezone(cron_next.timezone))
$$;

ALTER FUNCTION jobq.cron_next(expr text, after timestamp with time zone, timezone text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.cron_next(expr text, after timestamp with time zone, timezone text) IS 'The first slot of cron expression expr strictly after instant after, with wall-clock fields read in time zone timezone (default UTC); NULL when it never fires within ten years (or before 10000-01-01 UTC). after must be finite, from 1970-01-01 to before 10000-01-01 UTC. Pure apart from the tz database; SECURITY DEFINER so that callers need no right on its helpers. Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.INVALID_ARGUMENT (after).';

CREATE FUNCTION jobq.cron_parse(expr text) RETURNS jobq.cron_fields
    LANGUAGE plpgsql IMMUTABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    -- Any white space around the fields, as between them (robfig/cron too).
    v_expr text := regexp_replace(cron_parse.expr, '^\s+|\s+$', '', 'g');
    v_f text[];
    v_dows integer[];
BEGIN
    IF v_expr IS NULL OR v_expr = '' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', 'the expression is empty');
    END IF;
    IF length(v_expr) > 1000 THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('the expression has %s characters; at most 1000', length(v_expr)));
    END IF;
    v_expr := CASE lower(v_expr)
        WHEN '@yearly' THEN '0 0 1 1 *'
        WHEN '@annually' THEN '0 0 1 1 *'
        WHEN '@monthly' THEN '0 0 1 * *'
        WHEN '@weekly' THEN '0 0 * * 0'
        WHEN '@daily' THEN '0 0 * * *'
        WHEN '@midnight' THEN '0 0 * * *'
        WHEN '@hourly' THEN '0 * * * *'
        ELSE v_expr
    END;
    IF v_expr LIKE '@%' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s is not a known macro (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)', left(v_expr, 100)));
    END IF;
    v_f := regexp_split_to_array(v_expr, '\s+');
    IF cardinality(v_f) <> 5 THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%L has %s fields; cron has 5: minute hour day-of-month month day-of-week',
                                                    left(cron_parse.expr, 100), cardinality(v_f)));
    END IF;
    -- * and a/n cover 0-6; 7 is accepted as a value (Sunday, as 0).
    v_dows := jobq._cron_field(v_f[5], 'day-of-week', 0, 6, ARRAY['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']);
    RETURN ROW(
        jobq._cron_field(v_f[1], 'minute', 0, 59, NULL),
        jobq._cron_field(v_f[2], 'hour', 0, 23, NULL),
        jobq._cron_field(v_f[3], 'day-of-month', 1, 31, NULL),
        jobq._cron_field(v_f[4], 'month', 1, 12, ARRAY['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']),
        ARRAY(SELECT DISTINCT CASE WHEN d = 7 THEN 0 ELSE d END FROM unnest(v_dows) AS d ORDER BY 1),
        EXISTS (SELECT 1 FROM unnest(string_to_array(v_f[3], ',')) AS i WHERE i ~ '^[*?](/0*1)?$'),
        EXISTS (SELECT 1 FROM unnest(string_to_array(v_f[5], ',')) AS i WHERE i ~ '^[*?](/0*1)?$')
    )::jobq.cron_fields;
END
$_$;

ALTER FUNCTION jobq.cron_parse(expr text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.cron_parse(expr text) IS 'Parses a 5-field cron expression or macro (at most 1000 characters) into jobq.cron_fields; a day field is * when an item is * or ? with no step or a step of 1 (*/01 too). Pure; SECURITY DEFINER so that callers need no right on its helpers. Callers: anyone with EXECUTE (apps, workers, operators), jobq.schedule. Errors: JOB.INVALID_CRON naming the field.';

CREATE FUNCTION jobq.cron_slots(expr text, from_at timestamp with time zone, to_at timestamp with time zone, timezone text DEFAULT 'UTC'::text, max_slots integer DEFAULT 1000) RETURNS SETOF timestamp with time zone
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_fields constant jobq.cron_fields := jobq.cron_parse(cron_slots.expr);
    v_zone constant text := jobq._check_timezone(cron_slots.timezone);
    v_at timestamptz := jobq._cron_instant(cron_slots.from_at, 'from_at');
    v_to constant timestamptz := jobq._cron_instant(cron_slots.to_at, 'to_at');
    v_n integer := 0;
BEGIN
    IF cron_slots.max_slots IS NULL OR cron_slots.max_slots NOT BETWEEN 1 AND 10000 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('max_slots is %s; it must be 1 to 10000', coalesce(cron_slots.max_slots::text, 'NULL')));
    END IF;
    WHILE v_n < cron_slots.max_slots LOOP
        v_at := jobq._cron_next(v_fields, v_at, v_zone);
        EXIT WHEN v_at IS NULL OR v_at > v_to;
        v_n := v_n + 1;
        RETURN NEXT v_at;
    END LOOP;
END
$$;

ALTER FUNCTION jobq.cron_slots(expr text, from_at timestamp with time zone, to_at timestamp with time zone, timezone text, max_slots integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.cron_slots(expr text, from_at timestamp with time zone, to_at timestamp with time zone, timezone text, max_slots integer) IS 'Every slot of cron expression expr in (from_at, to_at] in time zone timezone, at most max_slots (1 to 10000, default 1000). from_at and to_at must be finite, from 1970-01-01 to before 10000-01-01 UTC. For previews and tests; SECURITY DEFINER so that callers need no right on its helpers. Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.INVALID_ARGUMENT (from_at, to_at, max_slots).';

CREATE FUNCTION jobq.current_store_id() RETURNS uuid
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $_$
    SELECT CASE WHEN s.v ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                 AND (NOT EXISTS (SELECT 1 FROM jobq.store_bindings b WHERE b.login = session_user)
                      OR EXISTS (SELECT 1 FROM jobq.store_bindings b
                                 WHERE b.login = session_user AND b.store_id::text = pg_catalog.lower(s.v)))
                THEN s.v::uuid END
    FROM (SELECT pg_catalog.current_setting('app.current_store_id', true) AS v) AS s
$_$;

ALTER FUNCTION jobq.current_store_id() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.current_store_id() IS 'The store of this session or transaction: app.current_store_id as a uuid, or NULL when unset, empty (left behind by an ended SET LOCAL), not a uuid, or a store the login is not bound to (jobq.store_bindings: a login with bindings acts only for its bound stores) — so policies fail closed. Used by every tenant policy. Reads jobq.store_bindings (the caller''s own rows); locks nothing.';

CREATE FUNCTION jobq.default_log_ref(worker text, job_id bigint, attempt integer) RETURNS text
    LANGUAGE sql STABLE
    AS $_$
    SELECT pg_catalog.left(pg_catalog.format('workerId=%s jobId=%s attempt=%s', coalesce($1, '-'), $2, $3), 1000)
$_$;

ALTER FUNCTION jobq.default_log_ref(worker text, job_id bigint, attempt integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.default_log_ref(worker text, job_id bigint, attempt integer) IS 'The log reference of an attempt whose runner gave none: workerId=<worker> jobId=<job_id> attempt=<attempt> (- for a NULL worker), the fields of the runner''s log lines, at most 1000 characters. Not stored: jobq.job_history.log_ref and jobq.job_attempts.log_ref are NULL for it, and jobq.job_list and jobq.job_attempt_list show this in their place (coalesce(h.log_ref, jobq.default_log_ref(h.locked_by, h.id, h.attempt)) reads a succeeded or dead history row the same way). Inlined (STABLE SQL, no SET clause). Errors: none.';

CREATE FUNCTION jobq.define_task(name text, scope text DEFAULT 'system'::text, payload_schema jsonb DEFAULT '{}'::jsonb, max_attempts integer DEFAULT NULL::integer, queue text DEFAULT NULL::text, priority integer DEFAULT NULL::integer, timeout interval DEFAULT NULL::interval, backoff_base interval DEFAULT NULL::interval, backoff_max interval DEFAULT NULL::interval, description text DEFAULT ''::text, app_enqueue boolean DEFAULT false) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    v_bad text;
    -- An operator or the owner (migrations): its app_enqueue is the operator's word.
    v_by_operator constant boolean := jobq._caller_is_operator()
                                      OR pg_catalog.pg_has_role(jobq._caller(), 'jobq_migrator', 'USAGE');
BEGIN
    IF define_task.name IS NULL OR define_task.name !~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' OR length(define_task.name) > 100 THEN
        PERFORM jobq._raise('JOB.INVALID_TASK_NAME', format('%L is not a kebab-case task name', left(define_task.name, 200)));
    END IF;
    IF define_task.scope IS NULL OR define_task.scope NOT IN ('system', 'store') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('scope %L is not system or store', left(define_task.scope, 200)));
    END IF;
    IF define_task.app_enqueue IS NULL OR (define_task.app_enqueue AND define_task.scope <> 'system') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            'app_enqueue must be true or false, and true only for a system task (applications enqueue their store''s store tasks anyway)');
    END IF;
    IF define_task.payload_schema IS NULL OR jsonb_typeof(define_task.payload_schema) <> 'object' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'payload_schema must be a JSON object of key: type');
    END IF;
    SELECT format('payload_schema key %s has type %s; types are string, number, integer, boolean, object, array, uuid, date, timestamp, any',
                  left(c.key, 200), left(c.value::text, 200))
    INTO v_bad
    FROM jsonb_each(define_task.payload_schema) AS c(key, value)
    WHERE jsonb_typeof(c.value) <> 'string'
       OR c.value #>> '{}' NOT IN ('string', 'number', 'integer', 'boolean', 'object', 'array', 'uuid', 'date', 'timestamp', 'any')
       OR rtrim(c.key, '?') = ''
    LIMIT 1;
    IF v_bad IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', v_bad);
    END IF;
    -- A task's defaults have the domains of the enqueue arguments they stand for (00023).
    PERFORM jobq._check_int('max_attempts', define_task.max_attempts, 1, jobq._limit('max_attempts'), 'JOB.MAX_ATTEMPTS_INVALID');
    PERFORM jobq._check_interval('timeout', define_task.timeout, jobq._limit_interval('timeout'));
    PERFORM jobq._check_interval('backoff_base', define_task.backoff_base, jobq._limit_interval('backoff'));
    PERFORM jobq._check_interval('backoff_max', define_task.backoff_max, jobq._limit_interval('backoff'));
    IF define_task.queue = '' OR define_task.priority NOT BETWEEN -32768 AND 32767 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queue must not be empty and priority must fit -32768..32767');
    END IF;
    PERFORM jobq._check_text('queue', define_task.queue, jobq._limit('queue')::integer);
    PERFORM jobq._check_text('description', define_task.description, 2000);

    -- A runner's declaration keeps the app_enqueue an operator fixed (operator_set); an
    -- operator's fixes it. A store task never keeps app_enqueue true (it must be false there).
    INSERT INTO jobq.tasks AS t (name, scope, payload_schema, max_attempts, queue, priority, timeout,
                                 backoff_base, backoff_max, description, app_enqueue, operator_set)
    VALUES (define_task.name, define_task.scope, define_task.payload_schema, define_task.max_attempts, define_task.queue,
            define_task.priority, define_task.timeout, define_task.backoff_base, define_task.backoff_max,
            coalesce(define_task.description, ''), define_task.app_enqueue,
            CASE WHEN v_by_operator THEN ARRAY['app_enqueue'] ELSE '{}'::text[] END)
    ON CONFLICT ON CONSTRAINT tasks_pkey DO UPDATE SET
        scope = EXCLUDED.scope, payload_schema = EXCLUDED.payload_schema, max_attempts = EXCLUDED.max_attempts,
        queue = EXCLUDED.queue, priority = EXCLUDED.priority, timeout = EXCLUDED.timeout,
        backoff_base = EXCLUDED.backoff_base, backoff_max = EXCLUDED.backoff_max, description = EXCLUDED.description,
        app_enqueue = CASE WHEN NOT v_by_operator AND 'app_enqueue' = ANY (t.operator_set) AND EXCLUDED.scope = 'system'
                           THEN t.app_enqueue ELSE EXCLUDED.app_enqueue END,
        operator_set = CASE WHEN v_by_operator THEN ARRAY['app_enqueue'] ELSE t.operator_set END,
        updated_at = now()
    WHERE (t.scope, t.payload_schema, t.max_attempts, t.queue, t.priority, t.timeout, t.backoff_base, t.backoff_max, t.description,
           t.app_enqueue, t.operator_set)
          IS DISTINCT FROM
          (EXCLUDED.scope, EXCLUDED.payload_schema, EXCLUDED.max_attempts, EXCLUDED.queue, EXCLUDED.priority,
           EXCLUDED.timeout, EXCLUDED.backoff_base, EXCLUDED.backoff_max, EXCLUDED.description,
           CASE WHEN NOT v_by_operator AND 'app_enqueue' = ANY (t.operator_set) AND EXCLUDED.scope = 'system'
                THEN t.app_enqueue ELSE EXCLUDED.app_enqueue END,
           CASE WHEN v_by_operator THEN ARRAY['app_enqueue'] ELSE t.operator_set END);
    RETURN define_task.name;
END
$_$;

ALTER FUNCTION jobq.define_task(name text, scope text, payload_schema jsonb, max_attempts integer, queue text, priority integer, timeout interval, backoff_base interval, backoff_max interval, description text, app_enqueue boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.define_task(name text, scope text, payload_schema jsonb, max_attempts integer, queue text, priority integer, timeout interval, backoff_base interval, backoff_max interval, description text, app_enqueue boolean) IS 'Declares a task, or updates it when it exists (a no-op when nothing changed). name: kebab-case; scope: system (runs across stores, never has a store id) or store (always has one); payload_schema: {"key": "type", "optional?": "type"}; the other arguments are defaults an enqueue may override; app_enqueue (system tasks only, default false) lets applications (jobq_app) enqueue it; declared by an operator or the owner it is fixed (jobq.tasks.operator_set), and a runner''s later declaration (a caller without jobq_operator''s rights) keeps it. Never changes the handler name (jobq.set_task_handler). Callers: migrations, operators, runners at start-up. Locks the task row. Returns the name. Errors: JOB.INVALID_TASK_NAME, JOB.INVALID_ARGUMENT, JOB.MAX_ATTEMPTS_INVALID (1..1000), JOB.LEASE_INVALID (not positive), JOB.OUT_OF_RANGE (timeout above 7 days, backoff above 30 days), JOB.VALUE_TOO_LONG (queue above 200, description above 2000 characters).';

CREATE FUNCTION jobq.delete_job(job_id bigint) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.delete_job(job_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.delete_job(job_id bigint) IS 'Deletes a job from jobq.jobs or jobq.job_history; a running job''s lease stops working. A live job''s dependents and sequence are settled as for a canceled job (jobq._settle_ended: dependents with on_parent_failure cancel are canceled, the sequence''s next job released); a dead job holding its sequence releases it (jobq._unhold_sequences). A live job of a batch counts canceled in it (jobq._batch_ended), and a live job''s waiters are told on jobq_done (jobq._tell_done). Audited with the deleted row. Returns the state it had. Starts over, up to 5 times, when PostgreSQL aborts it in a deadlock with an enqueue into its sequence (40P01). Caller: operators. Errors: JOB.NOT_FOUND.';

CREATE FUNCTION jobq.demote_leader() RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_old jobq.leader;
    v_epoch bigint;
    v_held_off_until timestamptz;
BEGIN
    SELECT * INTO v_old FROM jobq.leader l FOR UPDATE;
    -- Only a live lease's holder is held off: a lapsed one already lost the leadership.
    UPDATE jobq.leader AS l
    SET epoch = l.epoch + 1, holder = NULL, acquired_at = NULL, lease_expires_at = now(),
        demoted_holder = CASE WHEN l.lease_expires_at > now() THEN l.holder END,
        demoted_until  = CASE WHEN l.holder IS NOT NULL AND l.lease_expires_at > now()
                              THEN jobq._ts_add(now(), jobq._setting_interval('leader_ttl')) END
    RETURNING l.epoch, l.demoted_until INTO v_epoch, v_held_off_until;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('demote_leader', jsonb_build_object('holder', v_old.holder, 'epoch', v_old.epoch, 'new_epoch', v_epoch,
                                                'lease_expires_at', v_old.lease_expires_at,
                                                'held_off_until', v_held_off_until));
    RETURN v_epoch;
END
$$;

ALTER FUNCTION jobq.demote_leader() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.demote_leader() IS 'Demotes the leader at once: the fencing epoch grows by one, nobody holds it and the lease is expired, so the old leader''s fenced jobq.maintain returns {"fenced": true} and changes nothing until a runner wins jobq.acquire_leadership again (with a newer epoch). The old leader (the holder of a live lease) is held off: acquire_leadership refuses it for leader_ttl (jobq.leader.demoted_holder, demoted_until), so another runner takes over; after that it may win again. Audited as demote_leader with the old holder, both epochs and held_off_until (NULL when nobody led), also when nobody led. Returns the new epoch. Caller: operators. Locks the leader row (waits for a maintain in progress). Errors: none.';

CREATE FUNCTION jobq.deregister_worker(worker_id text) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT jobq._check_worker_id(deregister_worker.worker_id);
    UPDATE jobq.workers AS w SET state = 'stopped', state_changed_at = now(), running = 0
    WHERE w.id = deregister_worker.worker_id;
    UPDATE jobq.leader AS l SET lease_expires_at = now() WHERE l.holder = deregister_worker.worker_id;
$$;

ALTER FUNCTION jobq.deregister_worker(worker_id text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.deregister_worker(worker_id text) IS 'Marks a runner stopped after a clean drain and gives up its leadership, so another runner takes over at once. Caller: runners at exit. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id above 200 characters).';

CREATE FUNCTION jobq.detach_worker(worker_id text) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_confirm_by constant timestamptz := jobq._ts_add(now(),
        (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'continuation_retry_count') * jobq._setting_interval('continuation_retry_interval'));
    v_jobs bigint[];
BEGIN
    PERFORM jobq._set_worker_state(detach_worker.worker_id, 'detached', 'detach_worker');
    -- A detached worker gives up the leadership at once.
    UPDATE jobq.leader AS l SET lease_expires_at = now() WHERE l.holder = detach_worker.worker_id AND l.lease_expires_at > now();
    -- CONFIRMING: the lease lasts exactly until the deadline. The sweep (jobq._rescue) takes only
    -- expired leases, so it leaves these alone until then, and heartbeats do not extend them
    -- (jobq.heartbeat_jobs) until the worker confirms. A job detached twice keeps its first
    -- deadline.
    WITH running AS (
        SELECT j.id, j.lease_token FROM jobq.jobs j
        WHERE j.id IN (SELECT unnest(l.job_ids) FROM jobq.leases l WHERE l.worker_id = detach_worker.worker_id)
          AND j.locked_by = detach_worker.worker_id AND j.state = 'running'
        ORDER BY j.id
        FOR UPDATE OF j
    ), marked AS (
        INSERT INTO jobq.continuations AS c (job_id, lease_token, worker, started_at, confirm_by)
        SELECT r.id, r.lease_token, detach_worker.worker_id, now(), v_confirm_by FROM running r
        ON CONFLICT ON CONSTRAINT continuations_pkey DO UPDATE
        SET lease_token = EXCLUDED.lease_token, worker = EXCLUDED.worker, started_at = EXCLUDED.started_at,
            confirm_by = EXCLUDED.confirm_by
        WHERE c.lease_token IS DISTINCT FROM EXCLUDED.lease_token
        RETURNING c.job_id, c.confirm_by
    ), held AS (
        UPDATE jobq.jobs AS j SET lease_expires_at = m.confirm_by, updated_at = now()
        FROM marked m
        WHERE j.id = m.job_id
        RETURNING j.id
    )
    SELECT coalesce(array_agg(h.id ORDER BY h.id), '{}') INTO v_jobs FROM held h;
    IF cardinality(v_jobs) > 0 THEN
        INSERT INTO jobq.audit_log (action, detail)
        SELECT 'continuation_requested',
               jsonb_build_object('worker_id', detach_worker.worker_id, 'jobs', to_jsonb(v_jobs),
                                  'confirm_by', v_confirm_by);
    END IF;
    -- The runner learns of it now, not at its next worker heartbeat.
    PERFORM pg_notify('jobq_control', 'detached:' || detach_worker.worker_id);
    RETURN cardinality(v_jobs);
END
$$;

ALTER FUNCTION jobq.detach_worker(worker_id text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.detach_worker(worker_id text) IS 'Detaches a worker: it stops claiming, and every job it runs becomes CONFIRMING (a jobq.continuations row) until now() + continuation_retry_count x continuation_retry_interval (0.9 s as shipped): its lease ends exactly then and is not extended by heartbeats, so no other worker can take the job before. The worker, woken by NOTIFY jobq_control (payload detached:<worker_id>), confirms with jobq.confirm_continuation and runs the job to its end; an unconfirmed job is swept after the deadline as a failed attempt with reason detached (it runs again when it has attempts left). If it leads, its lease ends now (its fenced maintain is refused) and it cannot lead again while detached. Returns the number of jobs it marked CONFIRMING (a job already CONFIRMING under the same lease keeps its first deadline and is not counted). Audited (detach_worker; continuation_requested with the jobs and the deadline). Caller: operators. Locks the worker''s running jobs. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id), JOB.UNKNOWN_WORKER.';

CREATE FUNCTION jobq.done_quiet() RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT CASE
        WHEN pg_catalog.pg_try_advisory_lock(1785790467, 0) THEN pg_catalog.pg_advisory_unlock(1785790467, 0)
        ELSE false
    END
$$;

ALTER FUNCTION jobq.done_quiet() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.done_quiet() IS 'Reports whether no transaction that ended jobs without notifying (no done doorbell held when it probed, jobq._done_silent) is in flight: tries the advisory lock (1785790467, 0) exclusively and lets it go at once; never waits. Caller: the await helpers of the clients, after jobq.hold_done_doorbell. EXECUTE for worker_runtime, jobq_app, jobq_operator and jobq_viewer. Raises nothing.';

CREATE FUNCTION jobq.doorbell_quiet(queues text[]) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_queue text;
BEGIN
    IF NOT jobq._claim_queues_ok(doorbell_quiet.queues) THEN
        PERFORM jobq._check_claim_queues(doorbell_quiet.queues);
    END IF;
    FOREACH v_queue IN ARRAY doorbell_quiet.queues LOOP
        IF NOT pg_try_advisory_lock(1785790465, hashtext(v_queue)) THEN
            RETURN false;
        END IF;
        PERFORM pg_advisory_unlock(1785790465, hashtext(v_queue));
    END LOOP;
    RETURN true;
END
$$;

ALTER FUNCTION jobq.doorbell_quiet(queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.doorbell_quiet(queues text[]) IS 'Reports whether no transaction that enqueued a due job in one of the queues listed is in flight: tries the advisory lock (1785790465, hashtext(queue)) that jobq._wake holds shared until its transaction ends, and lets it go at once; never waits. Caller: the runner, after jobq.hold_doorbell. Errors: JOB.INVALID_ARGUMENT, JOB.OUT_OF_RANGE, JOB.VALUE_TOO_LONG (queues, as for claim_job).';

CREATE FUNCTION jobq.drain_worker(worker_id text) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT FROM jobq._set_worker_state(drain_worker.worker_id, 'draining', 'drain_worker');
    -- A draining worker gives up the leadership at once (as deregister_worker does).
    UPDATE jobq.leader AS l SET lease_expires_at = now() WHERE l.holder = drain_worker.worker_id AND l.lease_expires_at > now();
$$;

ALTER FUNCTION jobq.drain_worker(worker_id text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.drain_worker(worker_id text) IS 'Drains a worker: it claims nothing from now on and finishes the jobs it holds; if it leads, its lease ends now (its fenced maintain is refused) and it cannot lead again while draining. Audited. Caller: operators. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id), JOB.UNKNOWN_WORKER.';

CREATE FUNCTION jobq.enqueue(task text, payload jsonb DEFAULT '{}'::jsonb, run_at timestamp with time zone DEFAULT NULL::timestamp with time zone, job_key text DEFAULT NULL::text, job_key_mode text DEFAULT 'replace'::text, max_attempts integer DEFAULT NULL::integer, priority integer DEFAULT NULL::integer, queue text DEFAULT NULL::text, store_id uuid DEFAULT NULL::uuid, timeout interval DEFAULT NULL::interval, backoff_base interval DEFAULT NULL::interval, backoff_max interval DEFAULT NULL::interval, unique_for interval DEFAULT NULL::interval, depends_on bigint[] DEFAULT NULL::bigint[], on_parent_failure text DEFAULT NULL::text, sequence_key text DEFAULT NULL::text, on_sequence_failure text DEFAULT NULL::text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.enqueue(task text, payload jsonb, run_at timestamp with time zone, job_key text, job_key_mode text, max_attempts integer, priority integer, queue text, store_id uuid, timeout interval, backoff_base interval, backoff_max interval, unique_for interval, depends_on bigint[], on_parent_failure text, sequence_key text, on_sequence_failure text) OWNER TO jobq_app_gate;

COMMENT ON FUNCTION jobq.enqueue(task text, payload jsonb, run_at timestamp with time zone, job_key text, job_key_mode text, max_attempts integer, priority integer, queue text, store_id uuid, timeout interval, backoff_base interval, backoff_max interval, unique_for interval, depends_on bigint[], on_parent_failure text, sequence_key text, on_sequence_failure text) IS 'Enqueues one job and returns its id (the existing job''s id when job_key matched). run_at NULL = now; queue NULL = default; priority NULL = 0; max_attempts NULL = setting default_max_attempts; job_key_mode replace | preserve_run_at | unsafe_dedupe; unique_for (with a job_key; NULL = off, else more than 0 and at most 365 days): the job holding the key in the same store that was enqueued (created_at) within the last unique_for, live in any state or finished (jobq.job_history), is returned and nothing is written, otherwise the key''s mode applies. depends_on (job ids of the same store, live or finished; at most 10000), on_parent_failure (cancel, the default, or run), sequence_key (at most 500 characters) and on_sequence_failure (hold, the default, or continue): the job waits, blocked, until every parent succeeded and every earlier job of its sequence ended (docs/dependencies.md; jobq._workflow_prepare, jobq._attach_workflow; not beside a job_key). A keyless job without a workflow that passes every check is inserted directly (jobq._enqueue_takes_fast_path, jobq._resolve_spec); a keyed or refused one goes through jobq._enqueue. Callers: applications (jobq_app), handlers (worker_runtime), operators. Locks the job row it writes. Errors: JOB.TASK_REQUIRED, JOB.PAYLOAD_NOT_OBJECT, JOB.UNKNOWN_JOB_KEY_MODE, JOB.MAX_ATTEMPTS_INVALID, JOB.LEASE_INVALID (timeout), JOB.INVALID_ARGUMENT, JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, JOB.STORE_REQUIRED, JOB.STORE_NOT_ALLOWED, JOB.TENANT_MISMATCH, JOB.DEPENDENCY_NOT_FOUND, JOB.DEPENDENCY_CYCLE, JOB.TOO_MANY_DEPENDENCIES, JOB.WORKFLOW_KEYED.';

CREATE FUNCTION jobq.enqueue_many(jobs jsonb) RETURNS SETOF bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.enqueue_many(jobs jsonb) OWNER TO jobq_app_gate;

COMMENT ON FUNCTION jobq.enqueue_many(jobs jsonb) IS 'Enqueues many jobs from a JSON array of objects whose keys are the fields of jobq.job_spec (task, payload, queue, run_at, priority, max_attempts, job_key, job_key_mode, store_id, timeout, backoff_base, backoff_max, unique_for: as jobq.enqueue''s arguments; unique_for as an interval string such as "1 hour"), and the workflow fields (docs/dependencies.md): ref (a name for the element, unique in the call), depends_on (job ids), depends_on_refs (refs of earlier elements), on_parent_failure, sequence_key, on_sequence_failure (JOB.DEPENDENCY_NOT_FOUND, JOB.DEPENDENCY_CYCLE, JOB.UNKNOWN_REF, JOB.TOO_MANY_DEPENDENCIES, JOB.WORKFLOW_KEYED). Unknown fields and values that do not parse are errors too (JOB.INVALID_ARGUMENT); so are more than 100000 elements (JOB.OUT_OF_RANGE). All or nothing: one invalid element raises its JOB.* error naming its position and writes nothing. A batch of keyless jobs that all pass every check is inserted in one statement (jobq._enqueue_takes_fast_path, jobq._resolve_spec); any other goes through jobq._enqueue. Locks the job rows it writes. Returns the ids in input order. Callers: applications, handlers, operators.';

CREATE FUNCTION jobq.explain_job(job_id bigint) RETURNS TABLE(rule text, detail text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_store uuid;
    v_state text;
    v_finished timestamptz;
    v_every constant boolean := jobq._caller_sees_every_store();
BEGIN
    IF explain_job.job_id IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_id is NULL');
    END IF;
    SELECT j.store_id INTO v_store FROM jobq.jobs j WHERE j.id = explain_job.job_id;
    IF FOUND AND (v_every OR v_store = jobq.current_store_id()) THEN
        RETURN QUERY SELECT h.rule, h.detail FROM jobq._holds(explain_job.job_id, now()) AS h;
        RETURN;
    END IF;
    IF NOT FOUND THEN
        SELECT h.store_id, h.state, h.finished_at INTO v_store, v_state, v_finished
        FROM jobq.job_history h WHERE h.id = explain_job.job_id
        ORDER BY h.finished_at DESC LIMIT 1;
        IF FOUND AND (v_every OR v_store = jobq.current_store_id()) THEN
            rule := 'finished';
            detail := format('%s at %s (jobq.job_history)', v_state, v_finished);
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;
    PERFORM jobq._raise('JOB.NOT_FOUND', format('no job %s', explain_job.job_id));
END
$$;

ALTER FUNCTION jobq.explain_job(job_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.explain_job(job_id bigint) IS 'Why job job_id waits, now: one row (rule, detail) per rule that holds it (see jobq._holds: dependency, sequence, running, scheduled, backoff, queue_paused, queue_limit, store_limit, partition_limit, rate_limit, store_rate_limit, not_served), none when a claim of its queue may take it (claimable); for a job in jobq.job_history, one row finished (its state and when). EXECUTE for jobq_operator and jobq_viewer, who see every job, and jobq_app, which sees only the jobs of its store (jobq.current_store_id()). Reads jobq.jobs, jobq.job_history, jobq.queues, jobq.claim_starts, jobq.workers; locks nothing. Errors: JOB.INVALID_ARGUMENT (job_id NULL), JOB.NOT_FOUND (no such job, or one the caller does not see: another store''s, or a system job for an application).';

CREATE FUNCTION jobq.fail_job(job_id bigint, lease_token uuid, error text, error_code text DEFAULT NULL::text, retryable boolean DEFAULT true, retry_in interval DEFAULT NULL::interval) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_outcome text;
BEGIN
    SELECT f.outcome INTO v_outcome
    FROM jobq.fail_jobs(ARRAY[fail_job.job_id], ARRAY[fail_job.lease_token], ARRAY[fail_job.error],
                        ARRAY[fail_job.error_code], ARRAY[fail_job.retryable], ARRAY[fail_job.retry_in]) AS f;
    IF v_outcome = 'lease_lost' THEN
        PERFORM jobq._raise('JOB.LEASE_LOST', format('job %s is not running under this lease token', fail_job.job_id));
    END IF;
    RETURN v_outcome;
END
$$;

ALTER FUNCTION jobq.fail_job(job_id bigint, lease_token uuid, error text, error_code text, retryable boolean, retry_in interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.fail_job(job_id bigint, lease_token uuid, error text, error_code text, retryable boolean, retry_in interval) IS 'Fails one attempt and returns the job''s new state: retry_pending or dead. Caller: runners, tests. Errors: JOB.LEASE_LOST (nothing changes), JOB.INVALID_ARGUMENT.';

CREATE FUNCTION jobq.fail_jobs(job_ids bigint[], lease_tokens uuid[], errors text[], error_codes text[] DEFAULT NULL::text[], retryable boolean[] DEFAULT NULL::boolean[], retry_in interval[] DEFAULT NULL::interval[], reasons text[] DEFAULT NULL::text[], outputs text[] DEFAULT NULL::text[], log_refs text[] DEFAULT NULL::text[], exit_codes integer[] DEFAULT NULL::integer[]) RETURNS TABLE(job_id bigint, outcome text, run_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_n constant integer := coalesce(cardinality(fail_jobs.job_ids), 0);
    v_ids bigint[];
    v_tokens uuid[];
    v_errors text[];
    v_codes text[];
    v_retryable boolean[];
    v_retry_in interval[];
    v_reasons text[];
    v_outputs text[];
    v_log_refs text[];
    v_exit_codes integer[];
BEGIN
    IF cardinality(fail_jobs.lease_tokens) IS DISTINCT FROM v_n
       OR coalesce(cardinality(fail_jobs.errors), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.error_codes), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.retryable), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.retry_in), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.reasons), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.outputs), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.log_refs), v_n) <> v_n
       OR coalesce(cardinality(fail_jobs.exit_codes), v_n) <> v_n THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_ids, lease_tokens, errors, error_codes, retryable, retry_in, reasons, outputs, log_refs and exit_codes must have the same length');
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(fail_jobs.reasons) AS r(why) WHERE r.why NOT IN ('error', 'timed_out')) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'reasons must be error, timed_out or NULL (error)');
    END IF;
    PERFORM jobq._check_length('job_ids', fail_jobs.job_ids, jobq._limit('batch')::integer);
    IF EXISTS (SELECT 1 FROM unnest(fail_jobs.retry_in) AS r(d) WHERE r.d < interval '0') THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', 'retry_in must not be negative');
    END IF;
    PERFORM jobq._check_interval(format('retry_in[%s]', r.n), r.d, jobq._limit_interval('delay'), true)
    FROM unnest(fail_jobs.retry_in) WITH ORDINALITY AS r(d, n)
    WHERE r.d > jobq._limit_interval('delay');
    PERFORM jobq._check_text(format('error_codes[%s]', c.n), c.code, jobq._limit('error_code')::integer)
    FROM unnest(fail_jobs.error_codes) WITH ORDINALITY AS c(code, n)
    WHERE char_length(c.code) > jobq._limit('error_code');

    -- The leases still held, their rows locked in id order (as jobq.complete_jobs), each job once
    -- (its first entry with the right token): running, through the lease columns, so that only
    -- the primary key serves.
    SELECT array_agg(m.id ORDER BY m.id), array_agg(m.token ORDER BY m.id), array_agg(left(m.err, 10000) ORDER BY m.id),
           array_agg(m.code ORDER BY m.id), array_agg(m.retryable ORDER BY m.id), array_agg(m.retry_in ORDER BY m.id),
           array_agg(m.why ORDER BY m.id), array_agg(right(m.output, 16384) ORDER BY m.id), array_agg(left(m.log_ref, 1000) ORDER BY m.id),
           array_agg(m.exit_code ORDER BY m.id)
    INTO v_ids, v_tokens, v_errors, v_codes, v_retryable, v_retry_in, v_reasons, v_outputs, v_log_refs, v_exit_codes
    FROM (SELECT DISTINCT ON (f.id) f.*
          FROM unnest(fail_jobs.job_ids, fail_jobs.lease_tokens, fail_jobs.errors, fail_jobs.error_codes,
                      fail_jobs.retryable, fail_jobs.retry_in, fail_jobs.reasons, fail_jobs.outputs, fail_jobs.log_refs,
                      fail_jobs.exit_codes)
               WITH ORDINALITY AS f(id, token, err, code, retryable, retry_in, why, output, log_ref, exit_code, ord)
          JOIN (SELECT j.id, j.lease_token FROM jobq.jobs j
                WHERE j.id = ANY (fail_jobs.job_ids) AND j.lease_token = ANY (fail_jobs.lease_tokens)
                  AND j.locked_by IS NOT NULL AND j.lease_expires_at IS NOT NULL
                ORDER BY j.id
                FOR UPDATE OF j) AS held ON held.id = f.id AND held.lease_token = f.token
          ORDER BY f.id, f.ord) AS m;

    RETURN QUERY
    WITH changed AS (
        SELECT c.job_id, c.outcome, c.run_at
        FROM jobq._fail_attempts(now(), v_ids, v_errors, v_codes, v_retryable, v_retry_in, v_reasons, v_outputs, v_log_refs,
                                 v_exit_codes) AS c
    )
    SELECT f.id, coalesce(c.outcome, 'lease_lost'), c.run_at
    FROM unnest(fail_jobs.job_ids, fail_jobs.lease_tokens) WITH ORDINALITY AS f(id, token, ord)
    LEFT JOIN unnest(v_ids, v_tokens) AS h(id, token) ON h.id = f.id AND h.token = f.token
    LEFT JOIN changed c ON c.job_id = h.id
    ORDER BY f.ord;
END
$$;

ALTER FUNCTION jobq.fail_jobs(job_ids bigint[], lease_tokens uuid[], errors text[], error_codes text[], retryable boolean[], retry_in interval[], reasons text[], outputs text[], log_refs text[], exit_codes integer[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.fail_jobs(job_ids bigint[], lease_tokens uuid[], errors text[], error_codes text[], retryable boolean[], retry_in interval[], reasons text[], outputs text[], log_refs text[], exit_codes integer[]) IS 'Fails many attempts in one statement. Returns one row per input lease, in input order: outcome retry_pending (with the new run_at = now() + retry_in[i] or backoff_delay(attempt, backoff_base, backoff_max)), dead (moved to jobq.job_history; reason not_retryable, timed_out or exhausted) or lease_lost (nothing changed; also for a NULL id or token). errors[i] is kept as last_error (first 10,000 characters); a NULL retryable[i] counts as true, a NULL retry_in[i] as the backoff. reasons[i] is error (NULL) or timed_out (the handler was stopped by the job''s timeout): the job''s reason when retried, and a dead job''s reason unless not_retryable. Each failed lease is also one jobq.job_attempts row (worker, claimed_at as started_at, now() as ended_at, reason error, timed_out, not_retryable or exhausted, the error and code, output = the last 16384 characters of outputs[i], log_ref = the first 1000 characters of log_refs[i] (NULL when none is given: jobq.default_log_ref, which jobq.job_attempt_list and jobq.job_list show in its place), exit_code = exit_codes[i], the job''s progress and the leader epoch of now; a dead job''s history row holds the same); a job keeps its newest 25 and a retried job starts its next attempt without progress (the transition is jobq._fail_attempts, shared with the sweeper). Caller: the runner. Locks the failed rows, in id order. Errors: JOB.INVALID_ARGUMENT (array lengths, a reason other than error or timed_out), JOB.LEASE_INVALID (negative retry_in), JOB.OUT_OF_RANGE (more than 10000 jobs, retry_in above 365 days), JOB.VALUE_TOO_LONG (an error code above 200 characters).';

CREATE FUNCTION jobq.fan_out(child_task text, payload jsonb DEFAULT '{}'::jsonb, job_key_template text DEFAULT NULL::text, job_key_mode text DEFAULT 'preserve_run_at'::text, run_at timestamp with time zone DEFAULT NULL::timestamp with time zone) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET jit TO 'off'
    SET work_mem TO '32MB'
    AS $$
BEGIN
    RETURN jobq._enqueue_for_stores(fan_out.child_task, fan_out.payload, fan_out.job_key_template, fan_out.job_key_mode,
                                    fan_out.run_at, ARRAY(SELECT f.store_id FROM public.list_store_ids_for_fan_out() AS f));
END
$$;

ALTER FUNCTION jobq.fan_out(child_task text, payload jsonb, job_key_template text, job_key_mode text, run_at timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.fan_out(child_task text, payload jsonb, job_key_template text, job_key_mode text, run_at timestamp with time zone) IS 'Enqueues child_task (a store-scoped task) once for every store of public.list_store_ids_for_fan_out(), with payload || {"storeId": <id>} and job key job_key_template with {storeId} replaced (e.g. expire_tentative:{storeId}; NULL: <child_task>:{storeId}); job_key_mode defaults to preserve_run_at, so running it twice adds no duplicates. Returns the number of jobs enqueued or merged. Runs without JIT (jit = off for the call) and with work_mem 32MB. SECURITY DEFINER, EXECUTE for worker_runtime only: the one way the runtime enqueues for stores other than its session''s. Locks the job rows it writes. Errors: JOB.UNKNOWN_TASK, JOB.INVALID_ARGUMENT (system task, key template without {storeId}), JOB.PAYLOAD_INVALID.';

CREATE FUNCTION jobq.hand_back_unheld(worker_id text, lease_tokens uuid[]) RETURNS TABLE(job_id bigint, task text, queue text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_worker jobq.workers;
BEGIN
    PERFORM jobq._check_worker_id(hand_back_unheld.worker_id);
    IF hand_back_unheld.lease_tokens IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'lease_tokens is NULL (pass an empty array when none is held)');
    END IF;
    PERFORM jobq._check_length('lease_tokens', hand_back_unheld.lease_tokens, jobq._limit('batch')::integer);
    -- Fenced by the registration: the caller is a registered worker, and only jobs claimed since
    -- its current registration are its own (a job claimed under the same id before a restart
    -- is left to the sweep, when its lease expires). Locked so that no drain, detach or new
    -- registration of this worker interleaves.
    SELECT * INTO v_worker FROM jobq.workers w WHERE w.id = hand_back_unheld.worker_id FOR SHARE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.UNKNOWN_WORKER', format('worker %L is not registered', hand_back_unheld.worker_id));
    END IF;
    IF v_worker.state NOT IN ('active', 'draining') THEN
        RETURN; -- detached: its leases were released already; lost or stopped: the sweep's
    END IF;

    RETURN QUERY
    WITH unheld AS (
        SELECT j.id
        FROM jobq.jobs j
        WHERE j.id IN (SELECT unnest(l.job_ids) FROM jobq.leases l WHERE l.worker_id = hand_back_unheld.worker_id)
          AND j.locked_by = hand_back_unheld.worker_id
          AND j.state = 'running'
          AND j.claimed_at >= v_worker.started_at
          AND j.lease_token <> ALL (coalesce(array_remove(hand_back_unheld.lease_tokens, NULL), '{}'))
        ORDER BY j.id
        FOR UPDATE SKIP LOCKED
    ), back AS (
        UPDATE jobq.jobs AS j
        SET state            = 'queued',
            counted          = false,
            run_at           = now(),
            attempt          = j.attempt - 1,
            lease_token      = NULL,
            lease_expires_at = NULL,
            deadline_at      = NULL,
            updated_at       = now()
        FROM unheld u
        WHERE j.id = u.id
        RETURNING j.id, j.task, j.queue
    ), woken AS (
        SELECT count(jobq._wake(q.queue)) AS n FROM (SELECT DISTINCT b.queue FROM back b) AS q
    )
    SELECT b.id, b.task, b.queue FROM back b CROSS JOIN woken ORDER BY b.id;
END
$$;

ALTER FUNCTION jobq.hand_back_unheld(worker_id text, lease_tokens uuid[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.hand_back_unheld(worker_id text, lease_tokens uuid[]) IS 'Hands back the jobs whose claim answer worker_id lost: every job running under worker_id, claimed since its current registration (jobq.workers.started_at), whose lease token is not in lease_tokens (the tokens the caller holds) goes back to the queue now (state queued, run_at now(), attempt not used) and its queue''s runners are woken. Jobs of other workers, and jobs whose token the caller passes, are untouched; a detached, lost or stopped worker hands back nothing. Returns the jobs handed back. Caller: the runner, before its next claim after a failed one (never while one of its claims is in flight). Locks the jobs it hands back (SKIP LOCKED) and the worker row (FOR SHARE). Errors: JOB.INVALID_ARGUMENT (worker_id NULL or empty, lease_tokens NULL), JOB.VALUE_TOO_LONG (worker_id), JOB.OUT_OF_RANGE (more than 10000 tokens), JOB.UNKNOWN_WORKER (not registered).';

CREATE FUNCTION jobq.heartbeat(worker_id text, job_id bigint, lease_token uuid, lease interval DEFAULT '00:00:30'::interval) RETURNS timestamp with time zone
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_expires timestamptz;
BEGIN
    SELECT h.lease_expires_at INTO v_expires
    FROM jobq.heartbeat_jobs(heartbeat.worker_id, ARRAY[heartbeat.job_id], ARRAY[heartbeat.lease_token], heartbeat.lease) AS h;
    IF v_expires IS NULL THEN
        PERFORM jobq._raise('JOB.LEASE_LOST', format('job %s is not running under this lease token for worker %s',
                                                     heartbeat.job_id, heartbeat.worker_id));
    END IF;
    RETURN v_expires;
END
$$;

ALTER FUNCTION jobq.heartbeat(worker_id text, job_id bigint, lease_token uuid, lease interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.heartbeat(worker_id text, job_id bigint, lease_token uuid, lease interval) IS 'Renews one lease and returns its new expiry. Caller: runners and tests. Locks the job row. Errors: JOB.LEASE_LOST (the lease is gone), JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id).';

CREATE FUNCTION jobq.heartbeat_jobs(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval DEFAULT '00:00:30'::interval) RETURNS TABLE(job_id bigint, lease_expires_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    PERFORM jobq._check_lease(heartbeat_jobs.lease);
    PERFORM jobq._check_lease_batch(heartbeat_jobs.job_ids, heartbeat_jobs.lease_tokens);
    PERFORM jobq._check_worker_id(heartbeat_jobs.worker_id);

    -- Each (id, token) pair finds its row through the primary key. Locks in id order
    -- (complete_jobs and fail_jobs do too), so a heartbeat racing a finish of the same jobs
    -- cannot deadlock.
    RETURN QUERY
    WITH held AS (
        SELECT j.id, c.confirm_by
        FROM unnest(heartbeat_jobs.job_ids, heartbeat_jobs.lease_tokens) AS h(id, token)
        JOIN jobq.jobs j ON j.id = h.id AND j.lease_token = h.token
        LEFT JOIN jobq.continuations c ON c.job_id = j.id AND c.lease_token = j.lease_token
        -- Running, through the lease columns, and id = ANY: the primary key serves, not the
        -- partial index of every running row (complete_jobs).
        WHERE j.id = ANY (heartbeat_jobs.job_ids)
          AND j.lease_expires_at IS NOT NULL
          AND j.locked_by = heartbeat_jobs.worker_id
        ORDER BY j.id
        FOR UPDATE OF j
    )
    UPDATE jobq.jobs AS j
    SET heartbeat_at     = now(),
        -- A CONFIRMING lease (jobq.detach_worker) keeps its deadline until the worker confirms.
        lease_expires_at = coalesce(held.confirm_by, now() + heartbeat_jobs.lease),
        updated_at       = now()
    FROM held
    WHERE j.id = held.id
    RETURNING j.id, j.lease_expires_at;
END
$$;

ALTER FUNCTION jobq.heartbeat_jobs(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.heartbeat_jobs(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval) IS 'Renews, in one statement, every lease in (job_ids, lease_tokens) that worker_id still holds: lease_expires_at = now() + lease, except that a CONFIRMING lease (jobq.detach_worker) keeps its confirmation deadline until jobq.confirm_continuation. Returns the renewed jobs; a job missing from the result has lost its lease (rescued, canceled, finished) and its handler must stop. Caller: the runner, once per heartbeat interval. Locks the renewed rows. Errors: JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT (worker_id NULL or blank, array lengths), JOB.VALUE_TOO_LONG (worker_id).';

CREATE FUNCTION jobq.hold_done_doorbell() RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT pg_catalog.pg_try_advisory_lock_shared(1785790468, 0)
$$;

ALTER FUNCTION jobq.hold_done_doorbell() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.hold_done_doorbell() IS 'Takes the done doorbell (the session advisory lock (1785790468, 0), shared) without waiting and reports whether it did: false only while a transaction that ends jobs probes it. Held, every end of a job NOTIFYs jobq_done (jobq._tell_done); it stays held until jobq.release_done_doorbell or the end of the session. Caller: the await helpers of the clients, after LISTEN jobq_done: then they wait for jobq.done_quiet before they read the job. EXECUTE for worker_runtime, jobq_app, jobq_operator and jobq_viewer (who may call jobq.job_result). Raises nothing.';

CREATE FUNCTION jobq.hold_doorbell(queues text[]) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_taken integer[] := ARRAY[]::integer[];
    v_key integer;
BEGIN
    IF NOT jobq._claim_queues_ok(hold_doorbell.queues) THEN
        PERFORM jobq._check_claim_queues(hold_doorbell.queues);
    END IF;
    FOREACH v_key IN ARRAY ARRAY(SELECT hashtext(q.name) FROM unnest(hold_doorbell.queues) AS q(name)) LOOP
        IF NOT pg_try_advisory_lock_shared(1785790466, v_key) THEN
            PERFORM pg_advisory_unlock_shared(1785790466, t.key) FROM unnest(v_taken) AS t(key);
            RETURN false;
        END IF;
        v_taken := v_taken || v_key;
    END LOOP;
    RETURN true;
END
$$;

ALTER FUNCTION jobq.hold_doorbell(queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.hold_doorbell(queues text[]) IS 'Takes the doorbell of every queue listed (the session advisory lock (1785790466, hashtext(queue)), shared) without waiting, all or nothing, and reports whether it did: false only while an enqueue probes one of them. Held, an enqueue of a due job in the queue NOTIFYs (setting doorbell; jobq._wake); it stays held until jobq.release_doorbell or the end of the session. Caller: the runner, on its LISTEN connection, when a claim found no job: then it checks jobq.doorbell_quiet and claims once more. Errors: JOB.INVALID_ARGUMENT, JOB.OUT_OF_RANGE, JOB.VALUE_TOO_LONG (queues, as for claim_job).';

CREATE FUNCTION jobq.job_attempt_list(job_id bigint) RETURNS TABLE(attempt integer, worker text, started_at timestamp with time zone, ended_at timestamp with time zone, reason text, error text, error_code text, output text, log_ref text, progress jsonb, exit_code integer, leader_epoch bigint)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT a.attempt, a.worker, a.started_at, a.ended_at, a.reason, a.error, a.error_code, a.output,
           coalesce(a.log_ref, jobq.default_log_ref(a.worker, a.job_id, a.attempt)), a.progress,
           a.exit_code, a.leader_epoch
    FROM jobq.job_attempts a
    WHERE a.job_id = $1
    ORDER BY a.ended_at, a.attempt
$_$;

ALTER FUNCTION jobq.job_attempt_list(job_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.job_attempt_list(job_id bigint) IS 'The failed attempts of job job_id (jobq.job_attempts), oldest first: attempt, worker, started_at, ended_at, reason, error, error_code, output (the tail of an exec task''s output), log_ref, progress, exit_code, leader_epoch. Runs as its caller: row-level security shows an application its store''s attempts only. Locks nothing. Callers: jobq jobs show, the dashboard''s job page (package operator). Errors: none.';

CREATE FUNCTION jobq.job_list(queue text DEFAULT NULL::text, task text DEFAULT NULL::text, state text DEFAULT NULL::text, store_id uuid DEFAULT NULL::uuid, job_key text DEFAULT NULL::text, since timestamp with time zone DEFAULT NULL::timestamp with time zone, before bigint DEFAULT NULL::bigint, max_rows integer DEFAULT 50, id bigint DEFAULT NULL::bigint) RETURNS TABLE(id bigint, task text, queue text, state text, store_id uuid, priority smallint, attempt integer, max_attempts integer, job_key text, run_at timestamp with time zone, reason text, last_error text, error_code text, locked_by text, created_at timestamp with time zone, updated_at timestamp with time zone, finished_at timestamp with time zone, payload jsonb, progress jsonb, output text, log_ref text, exit_code integer, leader_epoch bigint, traceparent text)
    LANGUAGE sql STABLE
    AS $_$
    SELECT j.* FROM (
        SELECT l.id, l.task, l.queue, l.state, l.store_id, l.priority, l.attempt, l.max_attempts, l.job_key, l.run_at,
               l.reason, l.last_error, l.error_code, l.locked_by, l.created_at, l.updated_at, NULL::timestamptz AS finished_at, l.payload,
               l.progress, NULL::text, NULL::text, NULL::integer, NULL::bigint, l.traceparent
        FROM jobq.jobs l
        UNION ALL
        SELECT h.id, h.task, h.queue, h.state, h.store_id, h.priority, h.attempt, h.max_attempts, h.job_key, h.run_at,
               h.reason, h.last_error, h.error_code, h.locked_by, h.created_at, h.updated_at, h.finished_at, h.payload,
               h.progress, h.output,
               coalesce(h.log_ref, CASE WHEN h.state IN ('succeeded', 'dead') THEN jobq.default_log_ref(h.locked_by, h.id, h.attempt) END),
               h.exit_code, h.leader_epoch, h.traceparent
        FROM jobq.job_history h
    ) j
    WHERE ($1 IS NULL OR j.queue = $1) AND ($2 IS NULL OR j.task = $2) AND ($3 IS NULL OR j.state = $3)
      AND ($4 IS NULL OR j.store_id = $4) AND ($5 IS NULL OR j.job_key = $5)
      AND ($6 IS NULL OR coalesce(j.finished_at, j.updated_at) >= $6)
      AND ($7 IS NULL OR j.id < $7) AND ($9 IS NULL OR j.id = $9)
    ORDER BY j.id DESC
    LIMIT least(greatest(coalesce($8, 50), 0), 100001)
$_$;

ALTER FUNCTION jobq.job_list(queue text, task text, state text, store_id uuid, job_key text, since timestamp with time zone, before bigint, max_rows integer, id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.job_list(queue text, task text, state text, store_id uuid, job_key text, since timestamp with time zone, before bigint, max_rows integer, id bigint) IS 'Jobs live (jobq.jobs, finished_at NULL) and finished (jobq.job_history), newest id first, matching each filter that is not NULL: queue, task, state, store_id, job_key, since (finished, or for a live job last changed, at or after), before (ids below it: the next page), id (one job); at most max_rows rows (default 50, 0..100001). With what its running or last attempt keeps: progress (jobq.set_progress), and for a finished job its last attempt''s output, log_ref, exit_code and leader_epoch; traceparent, the trace context it was enqueued under. Runs as its caller: row-level security shows an application its store''s jobs only. Inlined into the caller''s statement: plan it with its arguments'' values (a custom plan, as a one-off statement is; the dashboard sets plan_cache_mode = force_custom_plan), since a generic plan reads every row to find one job. Locks nothing. Callers: jobq jobs list/show, jobq dead list, the dashboard''s job pages (package operator). Errors: none.';

CREATE FUNCTION jobq.job_result(job_id bigint) RETURNS TABLE(state text, result jsonb, finished_at timestamp with time zone)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_store uuid;
BEGIN
    IF job_result.job_id IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_id is NULL');
    END IF;
    SELECT o.store_id, o.state, o.result, o.finished_at INTO v_store, state, result, finished_at
    FROM jobq._job_outcome(job_result.job_id) AS o;
    IF NOT FOUND OR NOT jobq._result_visible(v_store) THEN
        PERFORM jobq._raise('JOB.NOT_FOUND', format('no job %s', job_result.job_id));
    END IF;
    RETURN NEXT;
END
$$;

ALTER FUNCTION jobq.job_result(job_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.job_result(job_id bigint) IS 'One row (state, result, finished_at) for job job_id: a live job''s state (queued, running, retry_pending ...) with result and finished_at NULL; a finished job''s state (succeeded, dead, canceled), the result its succeeded attempt gave jobq.complete_job (any JSON value; NULL when none) and when it finished. EXECUTE for jobq_app (its store''s jobs only: jobq.current_store_id()), worker_runtime (every job, the session store''s only in a tenant transaction), jobq_operator and jobq_viewer (every job). Reads jobq.jobs and jobq.job_history; locks nothing. Errors: JOB.INVALID_ARGUMENT (job_id NULL), JOB.NOT_FOUND (no such job, its history row pruned, or one the caller may not see: another store''s, a system job for an application).';

CREATE FUNCTION jobq.job_workflow(job_id bigint) RETURNS TABLE(relation text, other_id bigint, state text, detail text)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    WITH me AS (
        SELECT l.id, l.store_id, l.depends_on, l.sequence_key, l.on_parent_failure, l.on_sequence_failure, true AS live
        FROM jobq.jobs l WHERE l.id = $1
        UNION ALL
        SELECT h.id, h.store_id, h.depends_on, h.sequence_key, h.on_parent_failure, h.on_sequence_failure, false
        FROM jobq.job_history h WHERE h.id = $1 AND NOT EXISTS (SELECT 1 FROM jobq.jobs l WHERE l.id = $1)
    )
    SELECT 'dependency', p.id,
           coalesce((SELECT l.state FROM jobq.jobs l WHERE l.id = p.id),
                    (SELECT h.state FROM jobq.job_history h WHERE h.id = p.id), 'pruned'),
           CASE WHEN EXISTS (SELECT 1 FROM jobq.job_dependencies d WHERE d.child_id = me.id AND d.parent_id = p.id)
                THEN 'pending' ELSE 'settled' END || ', on failure ' || me.on_parent_failure
    FROM me CROSS JOIN LATERAL unnest(me.depends_on) AS p(id)
    UNION ALL
    SELECT 'dependent', c.id, c.state, NULL
    FROM me CROSS JOIN LATERAL (
        SELECT l.id, l.state FROM jobq.jobs l WHERE l.depends_on @> ARRAY[me.id]
        UNION ALL
        SELECT h.id, h.state FROM jobq.job_history h WHERE h.depends_on @> ARRAY[me.id]) AS c
    UNION ALL
    SELECT 'sequence', NULL::bigint, NULL::text,
           format('%s: %s', me.sequence_key,
                  CASE WHEN NOT me.live THEN 'finished'
                       ELSE format('position %s (%s live jobs ahead), on failure %s',
                                   1 + (SELECT count(*) FROM jobq.jobs o
                                        WHERE o.store_id IS NOT DISTINCT FROM me.store_id
                                          AND o.sequence_key = me.sequence_key AND o.id < me.id),
                                   (SELECT count(*) FROM jobq.jobs o
                                    WHERE o.store_id IS NOT DISTINCT FROM me.store_id
                                      AND o.sequence_key = me.sequence_key AND o.id < me.id),
                                   me.on_sequence_failure) END)
           || coalesce((SELECT format('; held by dead job %s since %s', s.job_id, s.held_at) FROM jobq.sequence_holds s
                        WHERE s.store_id IS NOT DISTINCT FROM me.store_id AND s.sequence_key = me.sequence_key), '')
    FROM me WHERE me.sequence_key IS NOT NULL
    ORDER BY 1, 2
$_$;

ALTER FUNCTION jobq.job_workflow(job_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.job_workflow(job_id bigint) IS 'A job''s workflow, one row each (relation, other_id, state, detail): dependency (a parent: its state live or finished, pruned when gone; detail pending or settled and the job''s on_parent_failure), dependent (a job enqueued depending on it, live or finished, with its state), sequence (detail: key, position among its live jobs and on_sequence_failure, or finished; and the hold, when a dead job holds it). No rows for a job without a workflow or one the caller cannot see. Runs as its caller (row-level security). Callers: jobq jobs show, the dashboard (package operator). Locks nothing. Errors: none.';

CREATE FUNCTION jobq.leader_state() RETURNS TABLE(holder text, epoch bigint, acquired_at timestamp with time zone, lease_expires_at timestamp with time zone, held boolean)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT l.holder, coalesce(l.epoch, 0), l.acquired_at, l.lease_expires_at,
           coalesce(l.holder IS NOT NULL AND l.lease_expires_at > now(), false)
    FROM (SELECT 1) one
    LEFT JOIN jobq.leader l ON true
$$;

ALTER FUNCTION jobq.leader_state() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.leader_state() IS 'One row: the leader (jobq.leader) holder, its fencing epoch (0 before any), acquired_at, lease_expires_at, and held (a holder whose lease has not expired). Locks nothing. Callers: jobq leader show, the dashboard (package operator). Errors: none.';

CREATE FUNCTION jobq.maintain(worker_id text DEFAULT NULL::text, epoch bigint DEFAULT NULL::bigint) RETURNS jsonb
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT jobq._maintain(maintain.worker_id, maintain.epoch, now())
$$;

ALTER FUNCTION jobq.maintain(worker_id text, epoch bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.maintain(worker_id text, epoch bigint) IS 'Does everything periodic in one call: enqueues due cron slots, marks workers lost and rescues their leases, sweeps expired leases and timeouts, makes the partitions of jobq.job_history for today and the next two UTC days (jobq._history_days_ahead; each a day, or a span of days when history_retention is above 14 days), prunes history (whole partitions dropped, the rest row by row: jobq._prune_history), schedule runs and stopped workers past history_retention; each step batched. Fenced: with worker_id and epoch it acts only while that worker leads with that epoch (it returns {"fenced": true} and changes nothing otherwise) and holds the leadership row until it commits. Unfenced (no arguments), e.g. from pg_cron, it is safe too: every step is idempotent under concurrency. Returns what it did: fenced, epoch, slots_enqueued, slots_skipped, lost_workers, rescued, history_pruned (rows deleted), history_days_dropped (partitions dropped), and dead: one object per job that died in this sweep (orphaned, timed_out or detached on its last attempt: job_id, task, queue, store_id, attempt, reason, worker, error, duration_ms), each returned by exactly one maintain, for the caller to report (the runner sends one Sentry event each). Deletes jobq.continuations rows whose lease ended otherwise. Flags the jobs of fair queues that a transaction older than jobq.set_fair_claiming inserted unflagged, once no such transaction is left (jobq._settle_fair_flags). Counts the live jobs for jobq.stats when they number at least half of stats_cached_above and the last count is older than greatest(stats_count_interval, 20 x its duration) (jobq._count_live_jobs). Callers: the runners'' leader every maintain_interval; pg_cron. Errors: JOB.INVALID_ARGUMENT (worker_id without epoch or epoch without worker_id, worker_id blank), JOB.VALUE_TOO_LONG (worker_id).';

CREATE FUNCTION jobq.parent_results(job_id bigint) RETURNS TABLE(parent_id bigint, state text, result jsonb)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF parent_results.job_id IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_id is NULL');
    END IF;
    PERFORM FROM jobq._job_outcome(parent_results.job_id) AS o WHERE jobq._result_visible(o.store_id);
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.NOT_FOUND', format('no job %s', parent_results.job_id));
    END IF;
    RETURN QUERY
    SELECT p.id, o.state, o.result
    FROM (SELECT DISTINCT x AS id FROM jobq._parents_of(parent_results.job_id) AS x) AS p
    LEFT JOIN LATERAL jobq._job_outcome(p.id) AS o ON true
    WHERE o.state IS NULL OR jobq._result_visible(o.store_id)
    ORDER BY p.id;
END
$$;

ALTER FUNCTION jobq.parent_results(job_id bigint) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.parent_results(job_id bigint) IS 'The parents of job job_id (jobq._parents_of), one row each in id order: parent_id, its state (live, or finished from jobq.job_history; NULL when its history row was pruned) and the result its succeeded attempt returned (NULL when none or not finished). Visibility as jobq.job_result: EXECUTE for worker_runtime, jobq_app (its store''s jobs only), jobq_operator and jobq_viewer. Reads jobq.jobs and jobq.job_history; locks nothing. Errors: JOB.INVALID_ARGUMENT (job_id NULL), JOB.NOT_FOUND (no such job, or one the caller may not see).';

CREATE FUNCTION jobq.pause_queue(queue text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.pause_queue(queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.pause_queue(queue text) IS 'Pauses queue: from the commit on no claim returns its jobs (they wait; enqueue still works) until jobq.resume_queue. Returns true when the queue was not paused before (audited as pause_queue), false otherwise (nothing changes). Any queue name may be paused, known or not yet. Caller: operators. Locks the queue''s jobq.queues row. Errors: JOB.INVALID_ARGUMENT (NULL or blank queue), JOB.VALUE_TOO_LONG (queue above 200 characters).';

CREATE FUNCTION jobq.pause_schedule(name text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.pause_schedule(name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.pause_schedule(name text) IS 'Pauses schedule name: jobq.maintain enqueues none of its slots until jobq.resume_schedule; its jobs already enqueued stay. Re-declaring it (jobq.schedule) keeps the pause. Returns true when it was running (audited as pause_schedule), false when already paused. Caller: operators. Locks the schedule row. Errors: JOB.UNKNOWN_SCHEDULE, JOB.INVALID_ARGUMENT (NULL or blank name), JOB.VALUE_TOO_LONG (name above 100 characters).';

CREATE FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE SECURITY DEFINER PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    (SELECT CASE WHEN NOT p_payload ? k.name THEN format('required key %s is missing', k.name)
                ELSE format('key %s must be %s %s, not %s', k.name,
                            CASE WHEN c.type IN ('integer', 'object', 'array', 'any') THEN 'an' ELSE 'a' END, c.type,
                            p_payload -> k.name)
           END
    FROM jsonb_each_text(CASE WHEN jsonb_typeof(p_schema) = 'object' THEN p_schema ELSE '{}'::jsonb END) AS c(key, type)
    CROSS JOIN LATERAL (SELECT rtrim(c.key, '?') AS name, c.key LIKE '%?' AS optional) AS k
    WHERE (NOT k.optional AND NOT p_payload ? k.name)
       OR (p_payload ? k.name AND NOT jobq._json_type_ok(p_payload -> k.name, c.type)
           -- An optional key may be given as null.
           AND NOT (k.optional AND jsonb_typeof(p_payload -> k.name) = 'null'))
    ORDER BY c.key
    LIMIT 1)
    UNION ALL
    -- A contract that is no JSON object is a problem itself, not an error.
    SELECT format('the payload contract is a JSON %s, not an object', jsonb_typeof(p_schema))
    WHERE jsonb_typeof(p_schema) <> 'object'
$$;

ALTER FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb) IS 'The first way a payload breaks a task''s payload contract ("required key storeId is missing", "key targetDate must be a date, not 5"), or NULL when it keeps it (or either is NULL). Takes any arguments: a contract that is no JSON object gives "the payload contract is a JSON array, not an object". Pure; callers: enqueue, tests, applications that check before enqueueing.';

CREATE FUNCTION jobq.prune_history(batch_size integer DEFAULT 10000) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_cutoff constant timestamptz := jobq._ts_add(now(), -jobq._setting_interval('history_retention'));
    v_deleted bigint;
BEGIN
    IF prune_history.batch_size IS NULL OR prune_history.batch_size < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('batch_size %s must be at least 1', coalesce(prune_history.batch_size::text, 'NULL')));
    END IF;
    PERFORM jobq._check_int('batch_size', prune_history.batch_size, 1, jobq._limit('sweep'));
    -- Whole days past retention are dropped; the rest of history is deleted row by row.
    SELECT p.rows_deleted INTO v_deleted FROM jobq._prune_history(v_cutoff, prune_history.batch_size) p;
    -- Attempts (jobq.job_attempts) share the retention, by ended_at, in batches of the same size.
    DELETE FROM jobq.job_attempts AS a
    WHERE a.ctid = ANY (ARRAY(
        SELECT o.ctid FROM jobq.job_attempts o WHERE o.ended_at < v_cutoff LIMIT prune_history.batch_size));
    -- Settled batches (jobq.batches) too, by settled_at; open and sealed ones stay.
    DELETE FROM jobq.batches AS b
    WHERE b.id = ANY (ARRAY(
        SELECT o.id FROM jobq.batches o WHERE o.settled_at < v_cutoff LIMIT prune_history.batch_size));
    RETURN v_deleted;
END
$$;

ALTER FUNCTION jobq.prune_history(batch_size integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.prune_history(batch_size integer) IS 'Drops the partitions of jobq.job_history (one a UTC day; a span of days, the retention divided by 14 and rounded up, when history_retention is above 14 days) wholly before now() - setting history_retention (default 7 days), then deletes at most batch_size rows before that cut-off from the partitions pruned row by row (the default one and the history kept before migration 00037) and returns how many it deleted (jobq._prune_history): a partition straddling the cut-off stays whole until its end passes it, so a finished job is kept at most one day (one span) beyond the retention, unless it spans more days than the retention now asks (made before it was shortened): its rows before the cut-off are deleted row by row too. It deletes at most batch_size jobq.job_attempts rows with ended_at, and at most batch_size settled jobq.batches rows with settled_at, before the same cut-off too. Call it until it returns less than batch_size. Callers: jobq.maintain, operators, pg_cron. Errors: JOB.INVALID_ARGUMENT (batch_size NULL or below 1), JOB.OUT_OF_RANGE (above 100000).';

CREATE FUNCTION jobq.queue_depth(queues text[] DEFAULT NULL::text[]) RETURNS TABLE(queue text, queued bigint, retry_pending bigint, running bigint, scheduled bigint, blocked bigint, dead_last_hour bigint)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.queue_depth(queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.queue_depth(queues text[]) IS 'Per queue (the given ones, NULL elements ignored, or every queue with a live job when NULL): live jobs by state, queued (due), retry_pending, running, scheduled (queued with a future run_at), blocked (waiting for parents or a sequence: never counted as queued or scheduled), and dead_last_hour (jobs of jobq.job_history that died in the last hour, read through the finish-time indexes of history: each day''s BRIN, the default partition''s btree); zeros for a queue with none. Reveals no job content; locks nothing. Callers: runners (metrics), operators. Errors: JOB.OUT_OF_RANGE (more than 1000 queues), JOB.VALUE_TOO_LONG (a queue above 200 characters).';

CREATE FUNCTION jobq.queue_lag(queues text[] DEFAULT NULL::text[]) RETURNS TABLE(queue text, lag interval)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.queue_lag(queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.queue_lag(queues text[]) IS 'Per queue (the given ones, NULL elements ignored, or every queue with a live job when NULL): how long the next job due to be claimed has waited past its run_at (0 when none is due; at most 200000 years, for a run_at stored as -infinity). Reveals no job content. Callers: runners (metrics), operators. Errors: JOB.OUT_OF_RANGE (more than 1000 queues).';

CREATE FUNCTION jobq.queue_list(queue text DEFAULT NULL::text, store_id uuid DEFAULT NULL::uuid) RETURNS TABLE(queue text, store_id uuid, paused boolean, paused_at timestamp with time zone, paused_by text, queued bigint, retry_pending bigint, running bigint, scheduled bigint, blocked bigint, oldest_due_age interval, dead_last_hour bigint, dead_last_day bigint, succeeded_last_hour bigint, succeeded_per_minute numeric, wait_p50 interval, wait_p95 interval, run_p50 interval, run_p95 interval, limits jsonb, not_served bigint, not_served_oldest_age interval, served boolean)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    WITH s AS (
        SELECT * FROM jobq.stats($1, $2)
    ), configured AS (
        -- Queues without jobs that an operator configured or serves: operators and viewers only.
        SELECT k.name FROM (
            SELECT q.name FROM jobq.queues q
            UNION SELECT u.name FROM jobq.workers w CROSS JOIN LATERAL pg_catalog.unnest(w.queues) AS u(name)
                  WHERE w.state <> 'stopped'
            UNION SELECT coalesce(sc.queue, t.queue, 'default') FROM jobq.schedules sc JOIN jobq.tasks t ON t.name = sc.task
        ) k
        WHERE jobq._caller_sees_every_store()
          AND ($1 IS NULL OR k.name = $1)
          AND NOT EXISTS (SELECT 1 FROM s WHERE s.queue = k.name)
    ), served AS MATERIALIZED (
        SELECT DISTINCT v.queue FROM jobq._served_by_live_workers(now()) AS v
    ), all_rows AS (
        SELECT s.queue, s.store_id, s.queued, s.retry_pending, s.running, s.scheduled, s.blocked, s.oldest_due_age,
               s.dead_last_hour, s.dead_last_day, s.succeeded_last_hour, s.succeeded_per_minute,
               s.wait_p50, s.wait_p95, s.run_p50, s.run_p95, s.limits, s.not_served, s.not_served_oldest_age
        FROM s
        UNION ALL
        SELECT c.name, $2, 0, 0, 0, 0, 0, NULL,
               0, 0, 0, 0.00, NULL, NULL, NULL, NULL,
               (SELECT jobq._queue_limits(q) FROM jobq.queues q WHERE q.name = c.name), 0, NULL
        FROM configured c
    )
    SELECT r.queue, r.store_id, coalesce(q.paused, false), q.paused_at, q.paused_by,
           r.queued, r.retry_pending, r.running, r.scheduled, r.blocked, r.oldest_due_age,
           r.dead_last_hour, r.dead_last_day, r.succeeded_last_hour, r.succeeded_per_minute,
           r.wait_p50, r.wait_p95, r.run_p50, r.run_p95, r.limits, r.not_served, r.not_served_oldest_age,
           EXISTS (SELECT 1 FROM served v WHERE v.queue = r.queue)
    FROM all_rows r
    LEFT JOIN jobq.queues q ON q.name = r.queue
    ORDER BY r.queue, r.store_id NULLS FIRST
$_$;

ALTER FUNCTION jobq.queue_list(queue text, store_id uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.queue_list(queue text, store_id uuid) IS 'The operator''s list of queues, one row per queue by name: the rows of jobq.stats(queue, store_id) with their counts unchanged (queued: due; retry_pending; running; scheduled: queued with a future run_at; blocked: waiting for parents or a sequence; oldest_due_age, dead_last_hour, dead_last_day, succeeded_last_hour, succeeded_per_minute, wait and run percentiles, limits, not_served, not_served_oldest_age), and for operators and viewers a row of zeros for every other queue the engine knows (a row of jobq.queues, the queues of a worker not stopped, a schedule''s queue); paused, paused_at, paused_by from jobq.queues; served, whether a live worker (active, heard from within worker_timeout, serving some task) takes the queue''s jobs. An application (its session''s store) gets the rows of jobq.stats only. Reveals no job content. Reads what jobq.stats reads, jobq.queues, jobq.workers and jobq.schedules; locks nothing. Callers: jobq queues list, jobq stats and the dashboard''s overview (package operator). Errors: those of jobq.stats.';

CREATE FUNCTION jobq.queue_minutes(since timestamp with time zone) RETURNS TABLE(queue text, minute timestamp with time zone, succeeded bigint, dead bigint, failed bigint)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET jit TO 'off'
    AS $_$
    SELECT m.queue, m.minute, sum(m.succeeded)::bigint, sum(m.dead)::bigint, sum(m.failed)::bigint
    FROM (
        SELECT h.queue, pg_catalog.date_trunc('minute', h.finished_at) AS minute,
               count(*) FILTER (WHERE h.state = 'succeeded') AS succeeded,
               count(*) FILTER (WHERE h.state = 'dead') AS dead, 0::bigint AS failed
        FROM jobq.job_history h WHERE h.finished_at >= $1 GROUP BY 1, 2
        UNION ALL
        SELECT a.queue, pg_catalog.date_trunc('minute', a.ended_at), 0, 0, count(*)
        FROM jobq.job_attempts a WHERE a.ended_at >= $1 GROUP BY 1, 2
    ) m
    GROUP BY m.queue, m.minute
    ORDER BY m.queue, m.minute
$_$;

ALTER FUNCTION jobq.queue_minutes(since timestamp with time zone) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.queue_minutes(since timestamp with time zone) IS 'Per queue and minute since since (NULL: no row): succeeded and dead, the jobs of jobq.job_history that finished so, and failed, the failed attempts of jobq.job_attempts that ended then. Runs as its caller: row-level security counts an application''s store only. Reads history through the finish-time indexes of its days (BRIN) and the attempts'' end-time index; runs without JIT (jit = off for the call); locks nothing. Callers: the dashboard''s overview chart (package operator). Errors: none.';

CREATE FUNCTION jobq.queue_not_served(queues text[]) RETURNS TABLE(queue text, not_served bigint, oldest_age interval)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.queue_not_served(queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.queue_not_served(queues text[]) IS 'Per queue given (NULL elements and a NULL list give no row): not_served, the waiting jobs (queued or retry_pending, due or not) whose task no live worker of the queue serves (a live worker: active, heard from within worker_timeout; it serves the tasks it registered with jobq.register_worker, every task when it registered none), counted up to 10001; oldest_age, how long the oldest due one has waited past its run_at (NULL when none is due). Reveals no job content; locks nothing. Callers: runners (metrics), operators, viewers. Errors: JOB.OUT_OF_RANGE (more than 1000 queues), JOB.VALUE_TOO_LONG (a queue above 200 characters).';

CREATE FUNCTION jobq.queue_states() RETURNS TABLE(queue text, paused boolean, paused_at timestamp with time zone, paused_by text, queued bigint, retry_pending bigint, running bigint, scheduled bigint, blocked bigint, limits jsonb)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.queue_states() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.queue_states() IS 'One row per queue the engine knows (a live job, a registered worker''s queues, a schedule''s queue, a row of jobq.queues), by name: whether it is paused (when, by whom) and its live jobs across every store: queued (due now), retry_pending, running, scheduled (queued with a future run_at), blocked (waiting for parents or a sequence); limits, the queue''s concurrency and rate limits that are set (max_running, max_running_per_store, partition_key, max_running_per_partition, max_started, started_per, max_started_per_store, store_started_per) and fair (true when jobq.set_fair_claiming turned fair claiming on), NULL when it has none of them. Reveals no job content. Reads every live job (a count, not an index probe). Caller: operators. Errors: none.';

CREATE FUNCTION jobq.queue_summary(cap integer DEFAULT 10000) RETURNS TABLE(queue text, paused boolean, paused_at timestamp with time zone, paused_by text, due bigint, scheduled bigint, retry_pending bigint, running bigint, blocked bigint, oldest_due_at timestamp with time zone, limits jsonb, not_served bigint, not_served_oldest_at timestamp with time zone)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.queue_summary(cap integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.queue_summary(cap integer) IS 'One row per queue the engine knows (a live job, a registered worker''s queues unless stopped, a schedule''s queue, a row of jobq.queues), by name: whether it is paused (when, by whom), its live jobs across every store counted through indexes, each count stopping at cap + 1 (a value above cap means "more than cap"): due (queued or retry_pending with run_at now or past: what workers can claim), scheduled (the same with a future run_at), retry_pending (those waiting to retry, due or not), running, blocked (waiting for parents or a sequence: never due nor scheduled; counted by one scan of the live jobs, as no index holds them); oldest_due_at, the run_at of the oldest due job (NULL when none is due); and limits, the queue''s flow controls as jobq.queue_states shows them (jobq._queue_limits: the concurrency and rate limits that are set and fair; NULL when it has none); not_served, the waiting jobs (queued or retry_pending, due or not) whose task no live worker of the queue serves (jobq._not_served: a live worker is active and heard from within worker_timeout, and serves the tasks it registered, every task when it registered none), counted up to cap + 1, and not_served_oldest_at, the run_at of the oldest due one (NULL when none is due). cap defaults to 10000 (NULL too). Reveals no job content. Reads jobs_claim_idx, jobs_retry_idx, the running jobs, the blocked jobs by one scan of jobq.jobs (and, for a queue whose live workers serve a list of tasks, its waiting jobs until cap + 1 not served are counted); locks nothing. Callers: operators, viewers (the dashboard''s overview). Errors: JOB.OUT_OF_RANGE (cap outside 1..1000000).';

CREATE FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer, version text DEFAULT ''::text, tasks text[] DEFAULT NULL::text[]) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF register_worker.worker_id IS NULL OR btrim(register_worker.worker_id) = '' OR register_worker.node IS NULL
       OR register_worker.queues IS NULL OR cardinality(register_worker.queues) = 0
       OR register_worker.concurrency IS NULL OR register_worker.concurrency < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id, node, queues (non-empty) and concurrency (>= 1) are required');
    END IF;
    IF array_position(register_worker.queues, NULL) IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queues must not hold NULLs');
    END IF;
    -- A blank queue is no queue: enqueue refuses one, so nothing could ever be claimed from it.
    IF EXISTS (SELECT 1 FROM unnest(register_worker.queues) AS q(name) WHERE btrim(q.name) = '') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queues must not hold an empty name');
    END IF;
    PERFORM jobq._check_text('worker_id', register_worker.worker_id, jobq._limit('worker_id')::integer);
    PERFORM jobq._check_text('node', register_worker.node, jobq._limit('node')::integer);
    PERFORM jobq._check_text('version', register_worker.version, jobq._limit('version')::integer);
    PERFORM jobq._check_int('pid', register_worker.pid, 0, 2147483647);
    PERFORM jobq._check_int('concurrency', register_worker.concurrency, 1, jobq._limit('concurrency'));
    PERFORM jobq._check_length('queues', register_worker.queues, jobq._limit('queues')::integer);
    PERFORM jobq._check_text(format('queues[%s]', q.n), q.name, jobq._limit('queue')::integer)
    FROM unnest(register_worker.queues) WITH ORDINALITY AS q(name, n)
    WHERE char_length(q.name) > jobq._limit('queue');
    -- The tasks it serves: NULL (every task), none ({}: a runner without handlers), or a list of
    -- names, as a claim takes them.
    IF register_worker.tasks IS NOT NULL AND cardinality(register_worker.tasks) > 0 THEN
        PERFORM jobq._check_claim_tasks(register_worker.tasks);
        PERFORM jobq._check_name(format('tasks[%s]', t.n), t.name, jobq._limit('task')::integer)
        FROM unnest(register_worker.tasks) WITH ORDINALITY AS t(name, n)
        WHERE btrim(t.name) = '' OR char_length(t.name) > jobq._limit('task');
    END IF;
    INSERT INTO jobq.workers AS w (id, node, pid, queues, concurrency, version, tasks)
    VALUES (register_worker.worker_id, register_worker.node, register_worker.pid, register_worker.queues,
            register_worker.concurrency, coalesce(register_worker.version, ''),
            CASE WHEN register_worker.tasks IS NOT NULL
                 THEN ARRAY(SELECT DISTINCT t.name FROM unnest(register_worker.tasks) AS t(name) ORDER BY t.name) END)
    ON CONFLICT ON CONSTRAINT workers_pkey DO UPDATE SET
        node = EXCLUDED.node, pid = EXCLUDED.pid, queues = EXCLUDED.queues, concurrency = EXCLUDED.concurrency,
        version = EXCLUDED.version, tasks = EXCLUDED.tasks, state = 'active', started_at = now(), heartbeat_at = now(),
        state_changed_at = now();
    RETURN jobq._settings_json();
END
$$;

ALTER FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer, version text, tasks text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer, version text, tasks text[]) IS 'Registers runner worker_id (node, pid, queues, concurrency, version, and tasks: the tasks it serves, NULL for every task, {} for none, stored sorted without duplicates) as active and returns the settings {name: value} it applies. A waiting job of a task that no live worker of its queue serves is "not served" (jobq.queue_not_served, jobq.stats, jobq.queue_summary). Caller: runners at start. Errors: JOB.INVALID_ARGUMENT (a required argument NULL or empty, a NULL or blank queue; tasks multidimensional or holding a NULL or blank name), JOB.VALUE_TOO_LONG (worker_id, node, version, a queue, a task above 100 characters), JOB.OUT_OF_RANGE (pid negative, concurrency above 10000, more than 1000 queues or tasks).';

CREATE FUNCTION jobq.release_done_doorbell() RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT pg_catalog.pg_advisory_unlock_shared(1785790468, 0)
$$;

ALTER FUNCTION jobq.release_done_doorbell() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.release_done_doorbell() IS 'Lets go of one hold of the done doorbell (jobq.hold_done_doorbell): once no session holds it, ends of jobs stop notifying jobq_done. Returns whether this session held one (false, with PostgreSQL''s warning that you don''t own a lock, otherwise). Caller: the await helpers of the clients, before their connection goes back to its pool or their caller, on every way out. EXECUTE for worker_runtime, jobq_app, jobq_operator and jobq_viewer. Raises nothing.';

CREATE FUNCTION jobq.release_doorbell(queues text[]) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF NOT jobq._claim_queues_ok(release_doorbell.queues) THEN
        PERFORM jobq._check_claim_queues(release_doorbell.queues);
    END IF;
    PERFORM pg_advisory_unlock_shared(1785790466, hashtext(q.name)) FROM unnest(release_doorbell.queues) AS q(name);
END
$$;

ALTER FUNCTION jobq.release_doorbell(queues text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.release_doorbell(queues text[]) IS 'Lets go of one hold of the doorbell of every queue listed (jobq.hold_doorbell), so that enqueues in them stop notifying for this session; PostgreSQL warns (you don''t own a lock) for one this session does not hold. Caller: the runner, on its LISTEN connection, when a claim got all it asked for or a notification woke it. Errors: JOB.INVALID_ARGUMENT, JOB.OUT_OF_RANGE, JOB.VALUE_TOO_LONG (queues, as for claim_job).';

CREATE FUNCTION jobq.requeue_dead(task text DEFAULT NULL::text, finished_after timestamp with time zone DEFAULT NULL::timestamp with time zone, max_jobs integer DEFAULT 1000) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.requeue_dead(task text, finished_after timestamp with time zone, max_jobs integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.requeue_dead(task text, finished_after timestamp with time zone, max_jobs integer) IS 'Queues dead jobs again (attempt 0, run now), oldest death first, filtered by task (NULL: every task) and finished_after, at most max_jobs; a job whose key a live job holds is left dead. Audits each job. Returns the number queued. Caller: operators. Errors: JOB.INVALID_ARGUMENT (max_jobs NULL or below 1, task empty or spaces only), JOB.OUT_OF_RANGE (max_jobs above 100000, finished_after outside 1970..9999), JOB.VALUE_TOO_LONG (task above 100 characters).';

CREATE FUNCTION jobq.rescue_expired(batch_size integer DEFAULT 1000) RETURNS TABLE(job_id bigint, outcome text, reason text, task text, queue text, store_id uuid, attempt integer, locked_by text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF rescue_expired.batch_size > jobq._limit('sweep') THEN
        PERFORM jobq._check_int('batch_size', rescue_expired.batch_size, 1, jobq._limit('sweep'));
    END IF;
    RETURN QUERY SELECT * FROM jobq._rescue(rescue_expired.batch_size, now());
END
$$;

ALTER FUNCTION jobq.rescue_expired(batch_size integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.rescue_expired(batch_size integer) IS 'Sweeps at most batch_size running jobs whose lease expired (reason orphaned: back to the queue at once; reason detached for a job of a detached worker that did not confirm its continuation by its deadline, see jobq.detach_worker) or whose timeout passed (reason timed_out: back after its backoff); a job that used max_attempts becomes dead instead. The old lease token stops working, so the vanished worker''s late writes are refused. Returns one row per job (outcome retry_pending or dead). Callers: the runners'' leader, jobq.maintain, pg_cron. Locks the swept rows with SKIP LOCKED. Each row also names the job''s task, queue, store, attempt and the worker that lost it, for logs and alerts. Errors: JOB.INVALID_ARGUMENT (batch_size NULL or below 1), JOB.OUT_OF_RANGE (batch_size above 100000).';

CREATE FUNCTION jobq.resume_queue(queue text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.resume_queue(queue text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.resume_queue(queue text) IS 'Resumes a paused queue: its due jobs are claimable from the commit on, and its runners are woken (jobq._wake). Returns true when the queue was paused (audited as resume_queue), false otherwise (nothing changes). Caller: operators. Locks the queue''s jobq.queues row. Errors: JOB.INVALID_ARGUMENT (NULL or blank queue), JOB.VALUE_TOO_LONG (queue above 200 characters).';

CREATE FUNCTION jobq.resume_schedule(name text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.resume_schedule(name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.resume_schedule(name text) IS 'Resumes a paused schedule from its next slot after now() (the slots of the pause are not backfilled). Returns true when it was paused (audited as resume_schedule), false otherwise. Caller: operators. Locks the schedule row. Errors: JOB.UNKNOWN_SCHEDULE, JOB.INVALID_ARGUMENT (NULL or blank name), JOB.VALUE_TOO_LONG (name above 100 characters), JOB.INVALID_TIMEZONE (its stored zone no longer known).';

CREATE FUNCTION jobq.resume_worker(worker_id text) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT FROM jobq._set_worker_state(resume_worker.worker_id, 'active', 'resume_worker')
$$;

ALTER FUNCTION jobq.resume_worker(worker_id text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.resume_worker(worker_id text) IS 'Undoes a drain: the worker claims again at its next heartbeat. Audited. Caller: operators. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id), JOB.UNKNOWN_WORKER.';

CREATE FUNCTION jobq.retry_job(job_id bigint) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.retry_job(job_id bigint) OWNER TO jobq_app_gate;

COMMENT ON FUNCTION jobq.retry_job(job_id bigint) IS 'Operator "retry now": a waiting job (queued, retry_pending) runs at once, keeping its attempts; a dead or canceled job is queued again with attempt 0. Audited. Returns queued. Callers: operators, applications (own jobs). Locks the job row. Errors: JOB.NOT_FOUND, JOB.STATE_CONFLICT (running, blocked by its dependencies or sequence, succeeded, or its key is held by a live job).';

CREATE FUNCTION jobq.run_schedule_now(name text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.run_schedule_now(name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.run_schedule_now(name text) IS 'Enqueues one job of schedule name now, paused or not: its task, queue, priority and max_attempts, its payload with the slot key set to now (ISO 8601 UTC, microseconds), job key schedule:<name>:manual:<now>. Its concurrency policy applies as at a cron tick: forbid refuses while the schedule''s last run is live (JOB.SCHEDULE_OVERLAP, nothing written); replace cancels that run (audited as schedule_replaced); allow runs beside it. The job becomes the schedule''s last run (last_job_id), which the next tick''s policy sees; its slots and next_slot_at are unchanged. Audited as run_schedule_now. Returns the job id. Caller: operators. Locks the schedule row. Errors: JOB.SCHEDULE_OVERLAP, JOB.UNKNOWN_SCHEDULE, JOB.INVALID_ARGUMENT (NULL or blank name), JOB.VALUE_TOO_LONG (name above 100 characters), and the enqueue''s errors (JOB.PAYLOAD_INVALID when its task''s contract changed under it).';

CREATE FUNCTION jobq.schedule(name text, cron text, task text, payload jsonb DEFAULT '{}'::jsonb, timezone text DEFAULT 'UTC'::text, concurrency_policy text DEFAULT 'allow'::text, backfill_window interval DEFAULT '00:15:00'::interval, backfill text DEFAULT 'all'::text, jitter interval DEFAULT '00:00:00'::interval, slot_key text DEFAULT 'slotAt'::text, queue text DEFAULT NULL::text, priority integer DEFAULT NULL::integer, max_attempts integer DEFAULT NULL::integer, enabled boolean DEFAULT true) RETURNS timestamp with time zone
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
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
$_$;

ALTER FUNCTION jobq.schedule(name text, cron text, task text, payload jsonb, timezone text, concurrency_policy text, backfill_window interval, backfill text, jitter interval, slot_key text, queue text, priority integer, max_attempts integer, enabled boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.schedule(name text, cron text, task text, payload jsonb, timezone text, concurrency_policy text, backfill_window interval, backfill text, jitter interval, slot_key text, queue text, priority integer, max_attempts integer, enabled boolean) IS 'Declares or updates the schedule name: task (a declared system task) runs at every slot of cron in timezone (default UTC), with payload plus {slot_key: slot instant} (default key slotAt; NULL adds none). Idempotent: nothing changes when nothing differs; a changed cron or time zone restarts from the next slot after now(). Returns the next slot. A change is audited. Callers: operators, runners syncing code-declared schedules. Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.UNKNOWN_TASK, JOB.INVALID_ARGUMENT, JOB.PAYLOAD_NOT_OBJECT, JOB.PAYLOAD_INVALID (the payload breaks the task''s contract), JOB.MAX_ATTEMPTS_INVALID (outside 1..1000), JOB.LEASE_INVALID (negative backfill_window or jitter), JOB.OUT_OF_RANGE (backfill_window above 7 days, jitter above 1 day), JOB.VALUE_TOO_LONG (slot_key above 100, queue above 200 characters), JOB.PAYLOAD_TOO_LARGE.';

CREATE FUNCTION jobq.schedule_list() RETURNS TABLE(name text, cron text, timezone text, task text, queue text, enabled boolean, paused_at timestamp with time zone, paused_by text, concurrency_policy text, next_slot_at timestamp with time zone, last_slot_at timestamp with time zone, last_job_id bigint, upcoming timestamp with time zone[], runs jsonb)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT s.name, s.cron, s.timezone, s.task, s.queue, s.enabled, s.paused_at, s.paused_by, s.concurrency_policy,
           s.next_slot_at, s.last_slot_at, s.last_job_id,
           ARRAY(SELECT jobq.cron_slots(s.cron, now(), now() + interval '400 days', s.timezone, 3)),
           coalesce((SELECT jsonb_agg(jsonb_build_object('slot_at', r.slot_at, 'outcome', r.outcome, 'reason', r.reason,
                                                         'job_id', r.job_id, 'created_at', r.created_at) ORDER BY r.slot_at DESC)
                     FROM (SELECT * FROM jobq.schedule_runs r WHERE r.schedule = s.name ORDER BY r.slot_at DESC LIMIT 5) r),
                    '[]'::jsonb)
    FROM jobq.schedules s
    ORDER BY s.name
$$;

ALTER FUNCTION jobq.schedule_list() OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.schedule_list() IS 'The cron schedules (jobq.schedules) by name: name, cron, timezone, task, queue, enabled, paused_at, paused_by, concurrency_policy, next_slot_at, last_slot_at, last_job_id, upcoming (the next 3 slots after now, jobq.cron_slots) and runs (the 5 latest of jobq.schedule_runs, newest first, as [{slot_at, outcome, reason, job_id, created_at}]). Locks nothing. Callers: jobq schedules list, the dashboard''s schedules page (package operator). Errors: none.';

CREATE FUNCTION jobq.seal_batch(batch_id bigint) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_batch jobq.batches;
BEGIN
    v_batch := jobq._lock_batch(seal_batch.batch_id);
    IF v_batch.sealed_at IS NULL THEN
        UPDATE jobq.batches AS b SET sealed_at = now() WHERE b.id = v_batch.id;
        PERFORM jobq._settle_batches(ARRAY[v_batch.id]);
    END IF;
    RETURN (SELECT CASE WHEN b.settled_at IS NOT NULL THEN 'settled' ELSE 'sealed' END FROM jobq.batches b WHERE b.id = v_batch.id);
END
$$;

ALTER FUNCTION jobq.seal_batch(batch_id bigint) OWNER TO jobq_app_gate;

COMMENT ON FUNCTION jobq.seal_batch(batch_id bigint) IS 'Seals batch batch_id (idempotent): no more jobs; it settles, enqueuing its callbacks once, when every one of its jobs has ended: at once when they have or when it has none. Returns settled or sealed. Locks the batch row. Callers: applications (their store''s batches), handlers, operators. Errors: JOB.BATCH_NOT_FOUND (unknown or another store''s).';

CREATE FUNCTION jobq.served_tasks(handlers text[]) RETURNS TABLE(task text, handler text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF served_tasks.handlers IS NULL OR cardinality(served_tasks.handlers) = 0
       OR array_ndims(served_tasks.handlers) <> 1 OR array_position(served_tasks.handlers, NULL) IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'handlers must be a non-empty, one-dimensional array of names without NULLs');
    END IF;
    PERFORM jobq._check_length('handlers', served_tasks.handlers, jobq._limit('tasks')::integer);
    PERFORM jobq._check_name(format('handlers[%s]', h.n), h.name, jobq._limit('task')::integer)
    FROM unnest(served_tasks.handlers) WITH ORDINALITY AS h(name, n)
    WHERE btrim(h.name) = '' OR char_length(h.name) > jobq._limit('task');
    RETURN QUERY
        SELECT t.name, coalesce(t.handler, t.name)
        FROM jobq.tasks t
        WHERE coalesce(t.handler, t.name) = ANY (served_tasks.handlers)
        ORDER BY t.name;
END
$$;

ALTER FUNCTION jobq.served_tasks(handlers text[]) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.served_tasks(handlers text[]) IS 'The declared tasks whose handler name (jobq.tasks.handler, else the task''s name) is one of handlers, by task name: task and its handler name. Caller: workers at start (worker_runtime), operators. Reads jobq.tasks; locks nothing. Errors: JOB.INVALID_ARGUMENT (handlers NULL, empty, multidimensional, holding a NULL or a blank name), JOB.OUT_OF_RANGE (more than 1000 names), JOB.VALUE_TOO_LONG (a name above 100 characters).';

CREATE FUNCTION jobq.set_concurrency_limit(queue text, max_running integer) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT jobq._set_queue_limit($1, 'queue', $2)
$_$;

ALTER FUNCTION jobq.set_concurrency_limit(queue text, max_running integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.set_concurrency_limit(queue text, max_running integer) IS 'Sets the concurrency limit of queue: from the commit on no claim takes a job of it while max_running of its jobs are running (across every worker and store); the others stay queued, use no attempt, and are claimed when a running job ends in any way. NULL removes the limit. Returns true when the limit changed (audited as set_concurrency_limit, scope queue; the queue''s runners are woken), false when it was already so. Caller: operators. Locks the queue''s jobq.queues row. Errors: JOB.INVALID_ARGUMENT (queue NULL, blank, or not known to the engine: no declared task, live job, registered worker, schedule or queue control names it), JOB.VALUE_TOO_LONG (queue above 200 characters), JOB.OUT_OF_RANGE (max_running outside 1..1000000).';

CREATE FUNCTION jobq.set_fair_claiming(queue text, fair boolean) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.set_fair_claiming(queue text, fair boolean) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.set_fair_claiming(queue text, fair boolean) IS 'Turns fair claiming of queue on (true) or off (false): from the commit on, claims of a fair queue serve its stores in turn within each priority (round-robin in store_id order, system jobs being one more store; jobq._pick_fair; turning it on inserts the queue''s turn in jobq.claim_cursors, turning it off deletes it), from the head whatever the runner''s position; off, the queue is claimed in plain (priority, run_at, id) order. Composes with the concurrency and rate limits. Returns true when it changed (audited as set_fair_claiming: queue, from, to; the queue''s runners are woken), false when it was already so. Turning it on (or setting it on again) flags every job of the queue this transaction sees, whatever its state (jobq.jobs.fair: only flagged jobs are in jobs_fair_idx, which fair claims read), by one scan of jobq.jobs, locking them in id order (it waits for a claim, heartbeat or completion that holds one; no claim waits for it: until it commits, claims pass over the jobs it holds), and marks the queue for jobq.maintain, which flags the jobs inserted unflagged by transactions older than this one once none of them is left (jobq._settle_fair_flags): until then a fair claim does not see such a job. Turning it off leaves the flags. Caller: operators. Locks the queue''s jobq.queues row and the queue''s unflagged jobs. Errors: JOB.INVALID_ARGUMENT (queue NULL, blank, or not known to the engine; fair NULL), JOB.VALUE_TOO_LONG (queue above 200 characters).';

CREATE FUNCTION jobq.set_partition_concurrency_limit(queue text, partition_key text, max_running integer) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT jobq._set_queue_limit($1, 'partition', $3, $2)
$_$;

ALTER FUNCTION jobq.set_partition_concurrency_limit(queue text, partition_key text, max_running integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.set_partition_concurrency_limit(queue text, partition_key text, max_running integer) IS 'Sets the per-partition concurrency limit of queue: from the commit on no claim takes a job while max_running running jobs of the queue have the same value of payload ->> partition_key (a top-level field, compared as text); a job without the field is not limited by it. The others stay queued and use no attempt. partition_key and max_running both NULL remove the limit. Returns true when it changed (audited as set_concurrency_limit, scope partition; the queue''s runners are woken), false otherwise. Caller: operators. Locks the queue''s jobq.queues row. Errors: as jobq.set_concurrency_limit, and JOB.INVALID_ARGUMENT (partition_key blank, or only one of partition_key and max_running NULL), JOB.VALUE_TOO_LONG (partition_key above 200 characters).';

CREATE FUNCTION jobq.set_progress(job_id bigint, lease_token uuid, progress jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_limit constant bigint := jobq._limit('progress_bytes');
    v_session constant uuid := jobq.current_store_id();
    v_setting constant text := nullif(current_setting('app.current_store_id', true), '');
    v_store uuid;
BEGIN
    IF set_progress.job_id IS NULL OR set_progress.lease_token IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'job_id and lease_token must not be NULL');
    END IF;
    IF set_progress.progress IS NULL OR jsonb_typeof(set_progress.progress) <> 'object' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('progress must be a JSON object, not %s',
                                                           coalesce(jsonb_typeof(set_progress.progress), 'NULL')));
    END IF;
    IF octet_length(set_progress.progress::text) > v_limit THEN
        PERFORM jobq._raise('JOB.VALUE_TOO_LONG', format('progress is %s bytes as JSON text, above the limit of %s',
                                                         octet_length(set_progress.progress::text), v_limit));
    END IF;

    SELECT j.store_id INTO v_store
    FROM jobq.jobs j
    WHERE j.id = set_progress.job_id AND j.lease_token = set_progress.lease_token
      AND j.locked_by IS NOT NULL AND j.lease_expires_at IS NOT NULL
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.LEASE_LOST', format('job %s is not running under this lease token', set_progress.job_id));
    END IF;
    -- A tenant transaction acts for its store only: another store's job, or a system job, is
    -- refused as the row policies would hide it.
    IF v_setting IS NOT NULL AND v_store IS DISTINCT FROM v_session THEN
        PERFORM jobq._raise('JOB.TENANT_MISMATCH', format('job %s is not of this session''s store (app.current_store_id = %s)',
                                                          set_progress.job_id, coalesce(v_session::text, 'not bound')));
    END IF;

    UPDATE jobq.jobs AS j SET progress = set_progress.progress
    WHERE j.id = set_progress.job_id;
END
$$;

ALTER FUNCTION jobq.set_progress(job_id bigint, lease_token uuid, progress jsonb) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.set_progress(job_id bigint, lease_token uuid, progress jsonb) IS 'Sets the running attempt''s progress (jobq.jobs.progress) to a JSON object of at most 65536 bytes as text; the last one is kept with the attempt (jobq.job_attempts.progress, jobq.job_history.progress). Fenced by the lease token: writes nothing unless the job runs under it. Inside a tenant transaction (app.current_store_id set), only a job of the session''s store. Caller: the runner, for its handlers. Locks the job row. Errors: JOB.INVALID_ARGUMENT (NULL id or token; progress NULL or not an object), JOB.VALUE_TOO_LONG (above 65536 bytes), JOB.LEASE_LOST (not running under this token), JOB.TENANT_MISMATCH (another store''s job or a system job in a tenant transaction).';

CREATE FUNCTION jobq.set_rate_limit(queue text, max_started integer, per interval) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT jobq._set_queue_limit($1, 'rate', $2, NULL, $3)
$_$;

ALTER FUNCTION jobq.set_rate_limit(queue text, max_started integer, per interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.set_rate_limit(queue text, max_started integer, per interval) IS 'Sets the rate limit of queue: from the commit on no claim starts a job of it when max_started of its jobs were started (claimed) in the window of length per that ends at the claim (a sliding window over jobq.claim_starts, exact: no window of length per ever holds more than max_started starts). The others stay queued, use no attempt, and are claimed when the window has room. max_started and per both NULL remove the limit. Returns true when it changed (audited as set_concurrency_limit, scope rate; the queue''s runners are woken), false otherwise. Caller: operators. Locks the queue''s jobq.queues row. Errors: as jobq.set_concurrency_limit, and JOB.INVALID_ARGUMENT (only one of max_started and per NULL), JOB.LEASE_INVALID (per not positive), JOB.OUT_OF_RANGE (per above 1 day).';

CREATE FUNCTION jobq.set_setting(name text, value text) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.set_setting(name text, value text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.set_setting(name text, value text) IS 'Changes a jobq.settings value after checking it parses as the setting''s kind (intervals and integers must be positive; wakeup is notify, wal or both, with a warning when wal_level is not logical). Audited with old and new value. Returns the new value. Caller: operators. Errors: JOB.UNKNOWN_SETTING, JOB.VALUE_TOO_LONG (a value above 1000 characters), JOB.OUT_OF_RANGE (history_retention above 3650 days, backoff_base and backoff_max above 30 days, continuation_retry_interval above 1 minute, the other intervals above 1 day, default_max_attempts above 1000, continuation_retry_count above 100, max_payload_bytes outside 1024..268435456, max_result_bytes outside 1..268435456).';

CREATE FUNCTION jobq.set_store_concurrency_limit(queue text, max_running integer) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT jobq._set_queue_limit($1, 'store', $2)
$_$;

ALTER FUNCTION jobq.set_store_concurrency_limit(queue text, max_running integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.set_store_concurrency_limit(queue text, max_running integer) IS 'Sets the per-store concurrency limit of queue: from the commit on no claim takes a job of a store while max_running jobs of that store are running in the queue; system jobs (no store) count as one more store. The others stay queued and use no attempt. NULL removes the limit. Returns true when it changed (audited as set_concurrency_limit, scope store; the queue''s runners are woken), false otherwise. Caller: operators. Locks the queue''s jobq.queues row. Errors: as jobq.set_concurrency_limit.';

CREATE FUNCTION jobq.set_store_rate_limit(queue text, max_started integer, per interval) RETURNS boolean
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT jobq._set_queue_limit($1, 'store_rate', $2, NULL, $3)
$_$;

ALTER FUNCTION jobq.set_store_rate_limit(queue text, max_started integer, per interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.set_store_rate_limit(queue text, max_started integer, per interval) IS 'Sets the per-store rate limit of queue: from the commit on no claim starts a job of a store when max_started jobs of that store were started in the queue in the window of length per that ends at the claim (sliding, exact); system jobs (no store) count as one more store. The others stay queued and use no attempt. Both NULL remove the limit. Returns true when it changed (audited as set_concurrency_limit, scope store_rate; the queue''s runners are woken), false otherwise. Caller: operators. Locks the queue''s jobq.queues row. Errors: as jobq.set_rate_limit.';

CREATE FUNCTION jobq.set_task_handler(task text, handler text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_old text;
    v_new constant text := set_task_handler.handler;
BEGIN
    PERFORM jobq._check_name('task', set_task_handler.task, jobq._limit('task')::integer);
    IF v_new IS NOT NULL THEN
        PERFORM jobq._check_name('handler', v_new, jobq._limit('task')::integer);
    END IF;
    SELECT t.handler INTO v_old FROM jobq.tasks t WHERE t.name = set_task_handler.task FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', set_task_handler.task));
    END IF;
    IF v_old IS NOT DISTINCT FROM v_new THEN
        RETURN false;
    END IF;
    UPDATE jobq.tasks AS t SET handler = v_new, updated_at = now() WHERE t.name = set_task_handler.task;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('set_task_handler', jsonb_build_object('task', set_task_handler.task, 'handler', v_new, 'previous', v_old));
    RETURN true;
END
$$;

ALTER FUNCTION jobq.set_task_handler(task text, handler text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.set_task_handler(task text, handler text) IS 'Sets the handler name of a declared task (NULL: the task''s own name, as declared). A name only: each worker''s configuration maps handler names to the functions, commands and URLs it runs, so a worker runs a task only through a handler its own configuration lists. Returns true when the name changed (audited as set_task_handler with the task, the handler and the previous one), false when it was already so. jobq.define_task never changes it. Caller: operators (jobq_operator) and the owner; no runtime role. Locks the task row. Errors: JOB.INVALID_ARGUMENT (task NULL or blank, handler blank), JOB.VALUE_TOO_LONG (task or handler above 100 characters), JOB.UNKNOWN_TASK.';

CREATE FUNCTION jobq.setting_list(name text DEFAULT NULL::text) RETURNS TABLE(name text, kind text, value text, description text, updated_at timestamp with time zone)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT s.name, s.kind, s.value, s.description, s.updated_at
    FROM jobq.settings s
    WHERE $1 IS NULL OR s.name = $1
    ORDER BY s.name
$_$;

ALTER FUNCTION jobq.setting_list(name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.setting_list(name text) IS 'The engine''s settings (jobq.settings) by name, only name when it is not NULL (no row for an unknown one): name, kind, value, description, updated_at. Locks nothing. Callers: jobq settings list/get, the dashboard''s settings page (package operator). Errors: none.';

CREATE FUNCTION jobq.snooze(job_id bigint, lease_token uuid, delay interval) RETURNS timestamp with time zone
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_run_at timestamptz;
BEGIN
    SELECT s.run_at INTO v_run_at
    FROM jobq.snooze_jobs(ARRAY[snooze.job_id], ARRAY[snooze.lease_token], snooze.delay) AS s;
    IF v_run_at IS NULL THEN
        PERFORM jobq._raise('JOB.LEASE_LOST', format('job %s is not running under this lease token', snooze.job_id));
    END IF;
    RETURN v_run_at;
END
$$;

ALTER FUNCTION jobq.snooze(job_id bigint, lease_token uuid, delay interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.snooze(job_id bigint, lease_token uuid, delay interval) IS 'Returns one running job to the queue after delay without counting the attempt; returns the new run_at. Errors: JOB.LEASE_LOST, JOB.LEASE_INVALID (negative delay).';

CREATE FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval DEFAULT '00:00:00'::interval) RETURNS TABLE(job_id bigint, outcome text, run_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF snooze_jobs.delay IS NULL OR snooze_jobs.delay < interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('delay %s must be zero or positive', coalesce(snooze_jobs.delay::text, 'NULL')));
    END IF;
    PERFORM jobq._check_interval('delay', snooze_jobs.delay, jobq._limit_interval('delay'), true);
    PERFORM jobq._check_lease_batch(snooze_jobs.job_ids, snooze_jobs.lease_tokens);

    RETURN QUERY
    WITH back AS (
        UPDATE jobq.jobs AS j
        SET state            = 'queued',
            counted          = false,
            run_at           = now() + snooze_jobs.delay,
            attempt          = j.attempt - 1,
            lease_token      = NULL,
            lease_expires_at = NULL,
            deadline_at      = NULL,
            updated_at       = now()
        FROM unnest(snooze_jobs.job_ids, snooze_jobs.lease_tokens) AS s(id, token)
        WHERE j.id = ANY (snooze_jobs.job_ids)
          -- Running, through the lease columns, so that only the primary key serves (complete_jobs).
          AND j.id = s.id AND j.lease_token = s.token AND j.locked_by IS NOT NULL AND j.lease_expires_at IS NOT NULL
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

ALTER FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval) IS 'Returns running jobs to the queue (state queued, run_at = now() + delay) without counting the attempt; a zero delay wakes the queue''s runners. One row per input lease, in order: queued (with run_at) or lease_lost. Callers: the runner (snoozing handlers; handing jobs back at shutdown). Locks the rows. Errors: JOB.LEASE_INVALID (negative delay), JOB.INVALID_ARGUMENT.';

CREATE FUNCTION jobq.stats(queue text DEFAULT NULL::text, store_id uuid DEFAULT NULL::uuid) RETURNS TABLE(queue text, store_id uuid, queued bigint, retry_pending bigint, running bigint, scheduled bigint, blocked bigint, oldest_due_age interval, dead_last_hour bigint, dead_last_day bigint, succeeded_last_hour bigint, succeeded_per_minute numeric, wait_p50 interval, wait_p95 interval, run_p50 interval, run_p95 interval, limits jsonb, not_served bigint, not_served_oldest_age interval)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT * FROM jobq._stats($1, $2)
$_$;

ALTER FUNCTION jobq.stats(queue text, store_id uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.stats(queue text, store_id uuid) IS 'One row per queue, by name: every queue with a live job, a job finished in the last hour or a job dead in the last day, or only the given queue (a row of zeros when it has none). Live jobs: queued (due), retry_pending, running, scheduled (queued with a future run_at), blocked (waiting for parents or a sequence: never counted as queued or scheduled), oldest_due_age (now() minus the oldest run_at of a due queued or retry_pending job, saturating at 200000 years; NULL when none is due). From jobq.job_history by finished_at: dead_last_hour, dead_last_day, succeeded_last_hour, succeeded_per_minute (over the last hour, 2 decimals), and over the jobs finished in the last hour that were claimed the p50/p95 (percentile_cont) of wait (claimed_at - run_at of the last attempt) and run (finished_at - claimed_at). limits: the queue''s flow controls as jobq.queue_states shows them (jobq._queue_limits: the concurrency and rate limits that are set and fair; NULL when it has none), the same for every caller (configuration, not job content). not_served: the waiting jobs (queued or retry_pending, due or not) whose task no live worker of the queue serves (jobq._served_by_live_workers: active, heard from within worker_timeout, serving the tasks it registered or every task), and not_served_oldest_age, how long the oldest due one has waited past its run_at (NULL when none is due). Operators and viewers (jobq_viewer) see every store (store_id NULL in the result) or pass store_id to count one store; an application counts only its session''s store (jobq.current_store_id(); nothing when it has none), never system jobs. Reveals no job content. Reads live jobs by one scan, the last hour of history through the finish-time indexes of its days (BRIN; one pass) and the last day''s dead jobs through job_history_dead_idx (index only); runs without JIT and with work_mem 32MB (jobq._stats); locks nothing. Callers: operators, viewers, applications. Errors: JOB.INVALID_ARGUMENT (blank queue), JOB.VALUE_TOO_LONG (queue above 200 characters), JOB.TENANT_MISMATCH (an application passing a store other than its session''s).';

CREATE FUNCTION jobq.stats_counted_at(store_id uuid DEFAULT NULL::uuid) RETURNS timestamp with time zone
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT CASE WHEN $1 IS NULL AND jobq._caller_sees_every_store() THEN jobq._live_counts_fresh(now()) END
$_$;

ALTER FUNCTION jobq.stats_counted_at(store_id uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.stats_counted_at(store_id uuid) IS 'When the live counts (queued, retry_pending, running, scheduled, blocked, oldest_due_age, not_served and its age) that jobq.stats and jobq.queue_list return now for store_id (NULL: every store) were counted: the time of the count jobq.maintain keeps, read while it found at least stats_cached_above live jobs and is recent (at most 3 x greatest(stats_count_interval, 20 x its duration) old); NULL when they are counted live at each call (always for one store''s counts and for applications). The history columns are always live. Callers: operators, viewers (the dashboard''s overview), applications. Errors: none.';

CREATE FUNCTION jobq.unbind_store(login name, store_id uuid) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    DELETE FROM jobq.store_bindings AS b WHERE b.login = unbind_store.login AND b.store_id = unbind_store.store_id;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('unbind_store', jsonb_build_object('login', unbind_store.login, 'store_id', unbind_store.store_id));
    RETURN true;
END
$$;

ALTER FUNCTION jobq.unbind_store(login name, store_id uuid) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.unbind_store(login name, store_id uuid) IS 'Removes the binding of login to store_id and returns whether there was one; audited when there was. A login left with no binding acts for any store again. Caller: operators. Locks the binding row. Errors: none.';

CREATE FUNCTION jobq.unschedule(name text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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

ALTER FUNCTION jobq.unschedule(name text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.unschedule(name text) IS 'Removes schedule name and its run records; its jobs already enqueued stay. Audited. Caller: operators. Errors: JOB.UNKNOWN_SCHEDULE.';

CREATE FUNCTION jobq.upkeep_advice(min_bytes bigint DEFAULT 8388608, max_rows integer DEFAULT 10000, held_after interval DEFAULT '00:00:10'::interval) RETURNS TABLE(table_name text, total_bytes bigint, index_bytes bigint, live_rows bigint, action text, statement text, reason text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    v_held text;
    v_rel record;
    v_counted bigint;
BEGIN
    PERFORM jobq._check_int('min_bytes', upkeep_advice.min_bytes, 0, 1099511627776);
    PERFORM jobq._check_int('max_rows', upkeep_advice.max_rows, 0, 1000000);
    PERFORM jobq._check_interval('held_after', upkeep_advice.held_after, interval '1 day', true);
    IF upkeep_advice.min_bytes IS NULL OR upkeep_advice.max_rows IS NULL OR upkeep_advice.held_after IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'min_bytes, max_rows and held_after must not be NULL');
    END IF;
    v_held := jobq._upkeep_held_by(upkeep_advice.held_after);

    -- An index a stopped REINDEX CONCURRENTLY left behind (suffix _ccnew or _ccold) is written by
    -- every insert and read by none: drop it, unless a rebuild of its table is running now.
    FOR v_rel IN
        SELECT i.indexrelid::regclass AS idx, t.relname AS tbl
        FROM pg_catalog.pg_index i
        JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
        JOIN pg_catalog.pg_class t ON t.oid = i.indrelid
        WHERE t.relnamespace = 'jobq'::regnamespace
          AND NOT i.indisvalid
          AND c.relname ~ '_cc(new|old)[0-9]*$'
          AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_stat_progress_create_index p WHERE p.relid = i.indrelid)
        ORDER BY 1
    LOOP
        table_name := 'jobq.' || v_rel.tbl;
        total_bytes := pg_catalog.pg_total_relation_size(format('jobq.%I', v_rel.tbl)::regclass);
        index_bytes := pg_catalog.pg_indexes_size(format('jobq.%I', v_rel.tbl)::regclass);
        live_rows := NULL;
        action := 'drop_invalid_index';
        statement := format('DROP INDEX CONCURRENTLY IF EXISTS %s', v_rel.idx);
        reason := format('%s is an invalid index left by a stopped REINDEX CONCURRENTLY', v_rel.idx);
        RETURN NEXT;
    END LOOP;

    FOR v_rel IN
        SELECT c.oid, c.relname, c.reltuples::bigint AS reltuples,
               pg_catalog.pg_total_relation_size(c.oid) AS total, pg_catalog.pg_indexes_size(c.oid) AS indexes,
               coalesce(pg_catalog.pg_stat_get_live_tuples(c.oid), 0) AS stat_live
        FROM pg_catalog.pg_class c
        WHERE c.relnamespace = 'jobq'::regnamespace AND c.relkind = 'r'
        ORDER BY c.relname
    LOOP
        table_name := 'jobq.' || v_rel.relname;
        total_bytes := v_rel.total;
        index_bytes := v_rel.indexes;
        -- Live rows, counted up to max_rows + 1 (the rule needs no more), and never fewer than the
        -- planner's and the statistics' estimates: counts under a row policy, and statistics reset
        -- by a crash, must not make a large table look small.
        EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM jobq.%I LIMIT %s) s', v_rel.relname, upkeep_advice.max_rows + 1)
            INTO v_counted;
        live_rows := greatest(v_counted, v_rel.reltuples, v_rel.stat_live);
        action := jobq._upkeep_action(total_bytes, index_bytes, live_rows, upkeep_advice.min_bytes, upkeep_advice.max_rows);
        statement := NULL;
        reason := NULL;
        IF action <> 'none' AND EXISTS (SELECT 1 FROM pg_catalog.pg_stat_progress_create_index p WHERE p.relid = v_rel.oid) THEN
            action := 'wait';
            reason := 'an index of the table is being built now';
        ELSIF action <> 'none' AND v_held IS NOT NULL THEN
            action := 'wait';
            reason := v_held || ': until it ends, a rewrite would keep the rows it still sees';
        ELSIF action = 'rewrite' THEN
            statement := format('VACUUM (FULL) jobq.%I', v_rel.relname);
            reason := format('%s for %s live rows', pg_catalog.pg_size_pretty(total_bytes), live_rows);
        ELSIF action = 'reindex' THEN
            statement := format('REINDEX TABLE CONCURRENTLY jobq.%I', v_rel.relname);
            reason := format('indexes of %s for %s live rows', pg_catalog.pg_size_pretty(index_bytes), live_rows);
        END IF;
        RETURN NEXT;
    END LOOP;
END
$_$;

ALTER FUNCTION jobq.upkeep_advice(min_bytes bigint, max_rows integer, held_after interval) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.upkeep_advice(min_bytes bigint, max_rows integer, held_after interval) IS 'One row per table of the jobq schema (and first, one per invalid index a stopped REINDEX CONCURRENTLY left, action drop_invalid_index): total and index bytes, live rows (counted up to max_rows + 1, never below the planner''s or the statistics'' estimate), and the action: rewrite (VACUUM (FULL); at most max_rows live rows and more than min_bytes and 4 kB per live row), reindex (REINDEX TABLE CONCURRENTLY; more live rows, indexes above min_bytes and 1 kB per live row), wait (one of those, but a snapshot older than held_after in this database, a prepared transaction or an index build holds it back; reason says which), or none. statement is what the tables'' owner runs outside a transaction (jobq compact does). Runs as the owner: reads every row policy''s rows to count, and sees other roles'' sessions only when the owner is a superuser or a member of pg_read_all_stats (bootstrap grants it). Takes no lock beyond reads (AccessShareLock on each table). Caller: operators, jobq compact. Defaults: min_bytes 8 MiB, max_rows 10000, held_after 10 seconds. Errors: JOB.OUT_OF_RANGE (min_bytes outside 0..1 TiB, max_rows outside 0..1000000, held_after above 1 day), JOB.LEASE_INVALID (negative held_after), JOB.INVALID_ARGUMENT (NULL).';

CREATE FUNCTION jobq.worker_heartbeat(worker_id text, running integer DEFAULT 0) RETURNS TABLE(state text, settings jsonb)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v_state text;
BEGIN
    PERFORM jobq._check_worker_id(worker_heartbeat.worker_id);
    PERFORM jobq._check_int('running', worker_heartbeat.running, 0, jobq._limit('running'));
    UPDATE jobq.workers AS w
    SET heartbeat_at = now(),
        running = coalesce(worker_heartbeat.running, 0),
        -- A worker marked lost that heartbeats again is back (its old leases were rescued and
        -- their tokens no longer work); drained and detached workers stay so.
        state = CASE WHEN w.state = 'lost' THEN 'active' ELSE w.state END,
        state_changed_at = CASE WHEN w.state = 'lost' THEN now() ELSE w.state_changed_at END
    WHERE w.id = worker_heartbeat.worker_id
    RETURNING w.state INTO v_state;
    IF v_state IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_WORKER', format('worker %L is not registered', worker_heartbeat.worker_id));
    END IF;
    state := v_state;
    settings := jobq._settings_json();
    RETURN NEXT;
END
$$;

ALTER FUNCTION jobq.worker_heartbeat(worker_id text, running integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.worker_heartbeat(worker_id text, running integer) IS 'Records a runner''s heartbeat and load; returns its state (active, draining, detached) and the settings. A runner that is draining or detached stops claiming. Caller: runners every worker_heartbeat_interval. running NULL counts as 0. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.UNKNOWN_WORKER, JOB.VALUE_TOO_LONG (worker_id), JOB.OUT_OF_RANGE (running outside 0..1000000).';

CREATE FUNCTION jobq.worker_list(state text DEFAULT NULL::text) RETURNS TABLE(id text, node text, pid integer, queues text[], tasks text[], concurrency integer, running integer, state text, version text, started_at timestamp with time zone, heartbeat_at timestamp with time zone, heartbeat_age interval, state_changed_at timestamp with time zone, leader boolean)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT w.id, w.node, w.pid, w.queues, w.tasks, w.concurrency, w.running, w.state, w.version,
           w.started_at, w.heartbeat_at, greatest(now() - w.heartbeat_at, interval '0'), w.state_changed_at,
           coalesce(l.holder = w.id AND l.lease_expires_at > now(), false)
    FROM jobq.workers w
    LEFT JOIN jobq.leader l ON true
    WHERE $1 IS NULL OR w.state = $1
    ORDER BY w.started_at, w.id
$_$;

ALTER FUNCTION jobq.worker_list(state text) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.worker_list(state text) IS 'The registered workers (jobq.workers), oldest start first, only those in state when it is not NULL: id, node, pid, queues, tasks (NULL: every task), concurrency, running, state, version, started_at, heartbeat_at, heartbeat_age (now() minus heartbeat_at, never negative), state_changed_at, leader (it holds an unexpired leadership lease). Locks nothing. Callers: jobq workers list, the dashboard''s workers page (package operator). Errors: none.';

CREATE FUNCTION jobq.workflow_graph(job_id bigint, max_nodes integer DEFAULT 200) RETURNS TABLE(id bigint, task text, queue text, state text, relation text, depth integer, parent_ids bigint[], truncated boolean)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
#variable_conflict use_column
DECLARE
    v_max constant integer := least(greatest(coalesce(workflow_graph.max_nodes, 200), 1), 1000);
    v_me constant bigint := workflow_graph.job_id;
    v_ids bigint[];
    v_rels text[];
    v_depths integer[];
    v_up bigint[];
    v_down bigint[];
    v_dir integer;
    v_from bigint[];
    v_next bigint[];
    v_seq bigint[];
    v_level integer := 0;
    v_room integer;
    v_cut boolean := false;
BEGIN
    IF v_me IS NULL THEN
        RETURN;
    END IF;
    -- The job's sequence neighbours: the live jobs of its store and key with the next lower and
    -- the next higher id (jobq.jobs_sequence_idx). Their places are kept out of the walk's room.
    SELECT ARRAY(SELECT n.id FROM (
               (SELECT o.id FROM jobq.jobs o
                WHERE coalesce(o.store_id, '00000000-0000-0000-0000-000000000000'::uuid) = coalesce(me.store_id, '00000000-0000-0000-0000-000000000000'::uuid)
                  AND o.sequence_key = me.sequence_key AND o.id < me.id ORDER BY o.id DESC LIMIT 1)
               UNION ALL
               (SELECT o.id FROM jobq.jobs o
                WHERE coalesce(o.store_id, '00000000-0000-0000-0000-000000000000'::uuid) = coalesce(me.store_id, '00000000-0000-0000-0000-000000000000'::uuid)
                  AND o.sequence_key = me.sequence_key AND o.id > me.id ORDER BY o.id LIMIT 1)) AS n)
    INTO v_seq
    FROM (SELECT l.id, l.store_id, l.sequence_key FROM jobq.jobs l WHERE l.id = v_me
          UNION ALL
          (SELECT h.id, h.store_id, h.sequence_key FROM jobq.job_history h
           WHERE h.id = v_me AND NOT EXISTS (SELECT 1 FROM jobq.jobs l WHERE l.id = v_me))) AS me;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_ids := ARRAY[v_me];
    v_rels := ARRAY['job'];
    v_depths := ARRAY[0];
    v_up := v_ids;
    v_down := v_ids;
    WHILE cardinality(v_up) + cardinality(v_down) > 0 LOOP
        v_level := v_level + 1;
        FOREACH v_dir IN ARRAY ARRAY[-1, 1] LOOP
            v_from := CASE WHEN v_dir < 0 THEN v_up ELSE v_down END;
            CONTINUE WHEN cardinality(v_from) = 0;
            IF v_dir < 0 THEN
                -- One level up: the parents of the last level's ancestors, live, finished or pruned.
                v_next := ARRAY(SELECT DISTINCT p.pid
                                FROM (SELECT unnest(l.depends_on) FROM jobq.jobs l WHERE l.id = ANY (v_from)
                                      UNION ALL
                                      SELECT unnest(h.depends_on) FROM jobq.job_history h WHERE h.id = ANY (v_from)) AS p(pid)
                                WHERE p.pid <> ALL (v_ids)
                                ORDER BY p.pid);
            ELSE
                -- One level down: the jobs enqueued depending on the last level's descendants
                -- (jobq.jobs_depends_on_idx, jobq.job_history_depends_on_idx).
                v_next := ARRAY(SELECT DISTINCT c.cid
                                FROM (SELECT l.id FROM jobq.jobs l WHERE l.depends_on && v_from
                                      UNION ALL
                                      SELECT h.id FROM jobq.job_history h WHERE h.depends_on && v_from) AS c(cid)
                                WHERE c.cid <> ALL (v_ids)
                                ORDER BY c.cid);
            END IF;
            v_room := v_max - cardinality(v_ids) - cardinality(v_seq);
            IF cardinality(v_next) > v_room THEN
                v_next := v_next[1:greatest(v_room, 0)];
                v_cut := true;
            END IF;
            v_ids := v_ids || v_next;
            v_rels := v_rels || array_fill(CASE WHEN v_dir < 0 THEN 'ancestor' ELSE 'descendant' END, ARRAY[cardinality(v_next)]);
            v_depths := v_depths || array_fill(v_dir * v_level, ARRAY[cardinality(v_next)]);
            IF v_dir < 0 THEN
                v_up := v_next;
            ELSE
                v_down := v_next;
            END IF;
        END LOOP;
    END LOOP;
    -- The sequence's neighbours that the walk did not reach already.
    FOR v_level IN 1 .. cardinality(v_seq) LOOP
        IF v_seq[v_level] <> ALL (v_ids) THEN
            v_ids := v_ids || v_seq[v_level];
            v_rels := v_rels || CASE WHEN v_seq[v_level] < v_me THEN 'sequence_ahead' ELSE 'sequence_behind' END;
            v_depths := v_depths || CASE WHEN v_seq[v_level] < v_me THEN -1 ELSE 1 END;
        END IF;
    END LOOP;
    RETURN QUERY
    SELECT n.id, coalesce(l.task, h.task), coalesce(l.queue, h.queue), coalesce(l.state, h.state, 'pruned'), n.rel, n.depth,
           ARRAY(SELECT p.pid FROM unnest(coalesce(l.depends_on, h.depends_on)) AS p(pid)
                 WHERE p.pid = ANY (v_ids) ORDER BY p.pid),
           v_cut
    FROM unnest(v_ids, v_rels, v_depths) AS n(id, rel, depth)
    LEFT JOIN jobq.jobs l ON l.id = n.id
    LEFT JOIN LATERAL (SELECT h.task, h.queue, h.state, h.depends_on FROM jobq.job_history h
                       WHERE h.id = n.id AND l.id IS NULL ORDER BY h.finished_at DESC LIMIT 1) AS h ON true
    ORDER BY n.depth, n.id;
END
$$;

ALTER FUNCTION jobq.workflow_graph(job_id bigint, max_nodes integer) OWNER TO jobq_migrator;

COMMENT ON FUNCTION jobq.workflow_graph(job_id bigint, max_nodes integer) IS 'The graph of the workflow job job_id belongs to, one row per node (id, task, queue, state, relation, depth, parent_ids, truncated): the job (relation job, depth 0), its ancestors (depth -1 for its parents, -2 for theirs ...) and descendants (depth 1, 2 ...), breadth first a level up and a level down in turn, and the live jobs just ahead and behind it in its sequence (sequence_ahead, sequence_behind) when the walk did not reach them; at most max_nodes nodes (clamped to 1..1000; NULL 200); truncated (the same on every row) when the walk was cut at that bound. parent_ids: the node''s parents among the rows returned (edges parent to child). state is the live or latest finished state, or pruned (task and queue NULL) for a parent gone from the history. No rows for a job the caller cannot see. Runs as its caller (row-level security). Callers: the dashboard''s job page (package operator). Locks nothing. Errors: none.';

CREATE TABLE jobq.audit_log (
    id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor text DEFAULT SESSION_USER NOT NULL,
    action text NOT NULL,
    job_id bigint,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL
);

ALTER TABLE jobq.audit_log OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.audit_log IS 'Operator actions (retry, cancel, delete, requeue, settings): actor is session_user.';

ALTER TABLE jobq.audit_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME jobq.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE jobq.batches ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME jobq.batches_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE jobq.breaking_changes (
    version bigint NOT NULL,
    description text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE jobq.breaking_changes OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.breaking_changes IS 'Migrations that break older runners: a runner refuses a database holding one newer than it knows.';

CREATE TABLE jobq.claim_cursors (
    queue text NOT NULL,
    store_key uuid NOT NULL
);

ALTER TABLE ONLY jobq.claim_cursors FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.claim_cursors OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.claim_cursors IS 'Per fair queue, the store (the zero uuid for system jobs) whose job the last claim took last; the next claim serves the stores after it first. Written and read by the pick of a fair queue (jobq._pick_fair); read by nobody else.';

CREATE TABLE jobq.claim_starts (
    queue text NOT NULL,
    store_id uuid,
    started_at timestamp with time zone NOT NULL
);

ALTER TABLE ONLY jobq.claim_starts FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.claim_starts OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.claim_starts IS 'The jobs started (claimed) in rate-limited queues, one row each, with the instant of the claim: the log the sliding windows of jobq.queues.max_started and max_started_per_store count. Written and pruned by the claim (jobq._claim_limited); read by nobody else.';

CREATE TABLE jobq.continuations (
    job_id bigint NOT NULL,
    lease_token uuid NOT NULL,
    worker text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    confirm_by timestamp with time zone NOT NULL
);

ALTER TABLE jobq.continuations OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.continuations IS 'Running jobs of detached workers in CONFIRMING: the lease (job_id, lease_token) is not reassigned before confirm_by; jobq.confirm_continuation lets it go on, jobq._rescue fails it with reason detached after confirm_by. Written only by jobq functions.';

CREATE TABLE jobq.error_codes (
    code text NOT NULL,
    sqlstate text NOT NULL,
    meaning text NOT NULL,
    hint text NOT NULL,
    CONSTRAINT error_codes_code_check CHECK ((code ~ '^(JOB|WORKER)\.[A-Z_]+$'::text)),
    CONSTRAINT error_codes_sqlstate_check CHECK ((sqlstate ~ '^JQ[0-9A-Z]{3}$'::text))
);

ALTER TABLE jobq.error_codes OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.error_codes IS 'Catalogue of the errors jobq raises: code in the message, SQLSTATE, meaning and hint.';

CREATE TABLE jobq.function_files (
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT function_files_checksum_check CHECK ((checksum ~ '^[0-9a-f]{64}$'::text))
);

ALTER TABLE jobq.function_files OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.function_files IS 'The files of sql/functions/ applied by jobq migrate up, with the sha256 of the content applied.';

CREATE TABLE jobq.goose_db_version (
    id integer NOT NULL,
    version_id bigint NOT NULL,
    is_applied boolean NOT NULL,
    tstamp timestamp without time zone DEFAULT now() NOT NULL
);

ALTER TABLE jobq.goose_db_version OWNER TO jobq_migrator;

ALTER TABLE jobq.goose_db_version ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME jobq.goose_db_version_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE jobq.job_attempts (
    job_id bigint NOT NULL,
    attempt integer NOT NULL,
    store_id uuid,
    task text NOT NULL,
    queue text NOT NULL,
    worker text,
    started_at timestamp with time zone,
    ended_at timestamp with time zone NOT NULL,
    reason text NOT NULL,
    error text,
    error_code text,
    output text,
    log_ref text,
    progress jsonb,
    exit_code integer,
    leader_epoch bigint,
    CONSTRAINT job_attempts_log_ref_check CHECK ((char_length(log_ref) <= 1000)),
    CONSTRAINT job_attempts_output_check CHECK ((char_length(output) <= 16384))
);

ALTER TABLE ONLY jobq.job_attempts FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.job_attempts OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.job_attempts IS 'Failed attempts of jobs: worker (locked_by), started_at (claimed_at), ended_at, reason (error, timed_out, orphaned, detached, not_retryable, exhausted), error and error_code, the tail of an exec task''s output (output, at most 16384 characters), where the attempt''s logs are (log_ref, at most 1000 characters), its last progress (jobq.set_progress), a command''s exit status (exit_code) and jobq.leader.epoch when it was recorded (leader_epoch). A job''s last attempt, succeeded or not, is also in its jobq.job_history row. Written by jobq.fail_jobs and jobq._rescue; the newest 25 per job are kept; pruned with history by ended_at.';

CREATE TABLE jobq.job_dependencies (
    child_id bigint NOT NULL,
    parent_id bigint NOT NULL,
    store_id uuid,
    CONSTRAINT job_dependencies_check CHECK ((parent_id <> child_id))
);

ALTER TABLE ONLY jobq.job_dependencies FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.job_dependencies OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.job_dependencies IS 'The dependency edges still waiting: child waits for parent (same store: store_id). Written by jobq.enqueue / enqueue_many (jobq._attach_workflow) and the workflow trigger (jobq._settle_ended); a child whose last edge goes is released once.';

CREATE TABLE jobq.job_history_default (
    id bigint NOT NULL,
    task text NOT NULL,
    queue text NOT NULL,
    payload jsonb NOT NULL,
    store_id uuid,
    priority smallint NOT NULL,
    run_at timestamp with time zone NOT NULL,
    state text NOT NULL,
    attempt integer NOT NULL,
    max_attempts integer NOT NULL,
    job_key text,
    job_key_mode text,
    locked_by text,
    lease_token uuid,
    claimed_at timestamp with time zone,
    heartbeat_at timestamp with time zone,
    lease_expires_at timestamp with time zone,
    timeout interval,
    deadline_at timestamp with time zone,
    backoff_base interval,
    backoff_max interval,
    reason text,
    last_error text,
    error_code text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    progress jsonb,
    output text,
    log_ref text,
    exit_code integer,
    leader_epoch bigint,
    traceparent text,
    tracestate text,
    depends_on bigint[],
    on_parent_failure text,
    sequence_key text,
    on_sequence_failure text,
    has_dependents boolean DEFAULT false NOT NULL,
    result jsonb,
    batch_id bigint,
    CONSTRAINT job_history_log_ref_check CHECK ((char_length(log_ref) <= 1000)),
    CONSTRAINT job_history_output_check CHECK ((char_length(output) <= 16384)),
    CONSTRAINT job_history_state_check CHECK ((state = ANY (ARRAY['succeeded'::text, 'dead'::text, 'canceled'::text]))),
    CONSTRAINT job_history_traceparent_check CHECK ((char_length(traceparent) = 55)),
    CONSTRAINT job_history_tracestate_check CHECK ((char_length(tracestate) <= 512))
);

ALTER TABLE ONLY jobq.job_history_default FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.job_history_default OWNER TO jobq_migrator;

ALTER TABLE jobq.jobs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME jobq.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE jobq.leader (
    singleton boolean DEFAULT true NOT NULL,
    holder text,
    epoch bigint DEFAULT 0 NOT NULL,
    acquired_at timestamp with time zone,
    lease_expires_at timestamp with time zone,
    demoted_holder text,
    demoted_until timestamp with time zone,
    CONSTRAINT leader_singleton_check CHECK (singleton)
);

ALTER TABLE jobq.leader OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.leader IS 'The one leadership: holder, fencing epoch (grows on every change of leader) and lease.';

COMMENT ON COLUMN jobq.leader.demoted_holder IS 'The worker jobq.demote_leader last took the leadership from; NULL when the demotion found nobody leading.';

COMMENT ON COLUMN jobq.leader.demoted_until IS 'jobq.acquire_leadership refuses demoted_holder until then: the demotion''s now() + leader_ttl.';

CREATE TABLE jobq.leases (
    worker_id text NOT NULL,
    job_ids bigint[] NOT NULL,
    check_at timestamp with time zone NOT NULL,
    CONSTRAINT leases_job_ids_check CHECK ((cardinality(job_ids) >= 1))
)
WITH (toast_tuple_target='8160');

ALTER TABLE ONLY jobq.leases FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.leases OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.leases IS 'One row a claim of a queue: the jobs worker_id took from one queue in one call (jobq._claim) and check_at, no later than the first lease end or deadline among them still running under that worker. The sweep (jobq._rescue) reads the rows due; the readers of a worker''s running jobs read its rows. jobq._settle_leases moves check_at on, or deletes the row once none of its jobs runs under worker_id. The engine''s alone.';

CREATE TABLE jobq.leases_recheck (
    singleton boolean DEFAULT true NOT NULL,
    after xid8,
    CONSTRAINT leases_recheck_singleton_check CHECK (singleton)
);

ALTER TABLE ONLY jobq.leases_recheck FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.leases_recheck OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.leases_recheck IS 'One row while a running job may have no jobq.leases row: jobs claimed by a claim that began before migration 00036 committed. jobq._settle_leases records in after the first transaction id not yet assigned, and once every lower one has ended writes a jobq.leases row for each running job without one, then deletes this row. The engine''s alone.';

CREATE TABLE jobq.live_counts (
    queue text NOT NULL,
    task text NOT NULL,
    state text NOT NULL,
    due boolean NOT NULL,
    n bigint NOT NULL,
    oldest timestamp with time zone,
    CONSTRAINT live_counts_n_check CHECK ((n > 0))
);

ALTER TABLE ONLY jobq.live_counts FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.live_counts OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.live_counts IS 'The live jobs (jobq.jobs) by queue, task, state and whether they were due (run_at <= the count''s time), with the oldest run_at of each group, every store together, as jobq.maintain counted them last (jobq._count_live_jobs). Read by jobq.stats in place of a count of every live job while the count found at least stats_cached_above jobs and is recent (jobq._live_counts_fresh). The engine''s alone.';

CREATE TABLE jobq.live_counts_taken (
    singleton boolean DEFAULT true NOT NULL,
    counted_at timestamp with time zone NOT NULL,
    took interval NOT NULL,
    total bigint NOT NULL,
    CONSTRAINT live_counts_taken_singleton_check CHECK (singleton),
    CONSTRAINT live_counts_taken_took_check CHECK (((took >= '00:00:00'::interval) AND (took <= '01:00:00'::interval))),
    CONSTRAINT live_counts_taken_total_check CHECK ((total >= 0))
);

ALTER TABLE ONLY jobq.live_counts_taken FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.live_counts_taken OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.live_counts_taken IS 'One row: when jobq.live_counts was counted (the transaction time of the jobq.maintain that counted it; -infinity before the first count), how long the count took (0 to 1 hour: the wait before the next, twenty times as long, stays below a day) and how many live jobs it found. Its row lock keeps two counts from running at once.';

CREATE TABLE jobq.schedule_runs (
    schedule text NOT NULL,
    slot_at timestamp with time zone NOT NULL,
    outcome text NOT NULL,
    reason text,
    job_id bigint,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT schedule_runs_outcome_check CHECK ((outcome = ANY (ARRAY['enqueued'::text, 'skipped'::text]))),
    CONSTRAINT schedule_runs_reason_check CHECK ((reason = ANY (ARRAY['late'::text, 'forbid'::text, 'superseded'::text, 'error'::text])))
);

ALTER TABLE jobq.schedule_runs OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.schedule_runs IS 'One row per handled slot of a schedule: the job it enqueued, or why it was skipped. The primary key makes a slot run once.';

CREATE TABLE jobq.sequence_holds (
    store_id uuid,
    sequence_key text NOT NULL,
    job_id bigint NOT NULL,
    held_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY jobq.sequence_holds FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.sequence_holds OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.sequence_holds IS 'Sequences held by a dead job enqueued with on_sequence_failure hold: no later job of the (store, key) is released until an operator requeues (retry_job, requeue_dead) or deletes (delete_job) that job.';

CREATE TABLE jobq.settings (
    name text NOT NULL,
    kind text NOT NULL,
    value text NOT NULL,
    description text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT settings_kind_check CHECK ((kind = ANY (ARRAY['interval'::text, 'integer'::text, 'boolean'::text, 'text'::text])))
);

ALTER TABLE jobq.settings OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.settings IS 'Tunables of the engine and the runners; change them with jobq.set_setting(name, value).';

CREATE TABLE jobq.store_bindings (
    login name NOT NULL,
    store_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY jobq.store_bindings FORCE ROW LEVEL SECURITY;

ALTER TABLE jobq.store_bindings OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.store_bindings IS 'Optional binding of login roles to the stores they may act for: a login with at least one row acts only for those stores (jobq.current_store_id() is NULL for any other). Written by jobq.bind_store / jobq.unbind_store.';

CREATE TABLE jobq.workers (
    id text NOT NULL,
    node text NOT NULL,
    pid integer,
    queues text[] NOT NULL,
    concurrency integer NOT NULL,
    version text DEFAULT ''::text NOT NULL,
    running integer DEFAULT 0 NOT NULL,
    state text DEFAULT 'active'::text NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL,
    state_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    tasks text[],
    CONSTRAINT workers_concurrency_check CHECK ((concurrency >= 1)),
    CONSTRAINT workers_id_check CHECK ((id <> ''::text)),
    CONSTRAINT workers_state_check CHECK ((state = ANY (ARRAY['active'::text, 'draining'::text, 'detached'::text, 'lost'::text, 'stopped'::text])))
);

ALTER TABLE jobq.workers OWNER TO jobq_migrator;

COMMENT ON TABLE jobq.workers IS 'Registered runners: node, pid, queues, concurrency, load (running), heartbeat and state.';

COMMENT ON COLUMN jobq.workers.tasks IS 'The tasks the worker serves (has a handler for), as it registered them; NULL: every task (a runner of a release before issue 30).';

ALTER TABLE ONLY jobq.job_history ATTACH PARTITION jobq.job_history_default DEFAULT;

ALTER TABLE ONLY jobq.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);

ALTER TABLE ONLY jobq.batches
    ADD CONSTRAINT batches_pkey PRIMARY KEY (id);

ALTER TABLE ONLY jobq.breaking_changes
    ADD CONSTRAINT breaking_changes_pkey PRIMARY KEY (version);

ALTER TABLE ONLY jobq.claim_cursors
    ADD CONSTRAINT claim_cursors_pkey PRIMARY KEY (queue);

ALTER TABLE ONLY jobq.continuations
    ADD CONSTRAINT continuations_pkey PRIMARY KEY (job_id);

ALTER TABLE ONLY jobq.error_codes
    ADD CONSTRAINT error_codes_pkey PRIMARY KEY (code);

ALTER TABLE ONLY jobq.error_codes
    ADD CONSTRAINT error_codes_sqlstate_key UNIQUE (sqlstate);

ALTER TABLE ONLY jobq.function_files
    ADD CONSTRAINT function_files_pkey PRIMARY KEY (name);

ALTER TABLE ONLY jobq.goose_db_version
    ADD CONSTRAINT goose_db_version_pkey PRIMARY KEY (id);

ALTER TABLE ONLY jobq.job_attempts
    ADD CONSTRAINT job_attempts_pkey PRIMARY KEY (job_id, attempt);

ALTER TABLE ONLY jobq.job_dependencies
    ADD CONSTRAINT job_dependencies_pkey PRIMARY KEY (child_id, parent_id);

ALTER TABLE ONLY jobq.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);

ALTER TABLE ONLY jobq.leader
    ADD CONSTRAINT leader_pkey PRIMARY KEY (singleton);

ALTER TABLE ONLY jobq.leases_recheck
    ADD CONSTRAINT leases_recheck_pkey PRIMARY KEY (singleton);

ALTER TABLE ONLY jobq.live_counts
    ADD CONSTRAINT live_counts_pkey PRIMARY KEY (queue, task, state, due);

ALTER TABLE ONLY jobq.live_counts_taken
    ADD CONSTRAINT live_counts_taken_pkey PRIMARY KEY (singleton);

ALTER TABLE ONLY jobq.queues
    ADD CONSTRAINT queues_pkey PRIMARY KEY (name);

ALTER TABLE ONLY jobq.schedule_runs
    ADD CONSTRAINT schedule_runs_pkey PRIMARY KEY (schedule, slot_at);

ALTER TABLE ONLY jobq.schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (name);

ALTER TABLE ONLY jobq.settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (name);

ALTER TABLE ONLY jobq.store_bindings
    ADD CONSTRAINT store_bindings_pkey PRIMARY KEY (login, store_id);

ALTER TABLE ONLY jobq.tasks
    ADD CONSTRAINT tasks_pkey PRIMARY KEY (name);

ALTER TABLE ONLY jobq.workers
    ADD CONSTRAINT workers_pkey PRIMARY KEY (id);

CREATE INDEX audit_log_at_idx ON jobq.audit_log USING brin (at);

CREATE INDEX audit_log_job_idx ON jobq.audit_log USING btree (job_id) WHERE (job_id IS NOT NULL);

CREATE INDEX batches_settled_idx ON jobq.batches USING btree (settled_at) WHERE (settled_at IS NOT NULL);

CREATE INDEX batches_store_idx ON jobq.batches USING btree (store_id, id);

CREATE INDEX claim_starts_queue_idx ON jobq.claim_starts USING btree (queue, started_at);

CREATE INDEX job_attempts_ended_idx ON jobq.job_attempts USING btree (ended_at);

CREATE INDEX job_dependencies_parent_idx ON jobq.job_dependencies USING btree (parent_id);

CREATE INDEX job_history_batch_idx ON ONLY jobq.job_history USING btree (batch_id) WHERE (batch_id IS NOT NULL);

CREATE INDEX job_history_dead_id_idx ON ONLY jobq.job_history USING btree (id) WHERE (state = 'dead'::text);

CREATE INDEX job_history_dead_idx ON ONLY jobq.job_history USING btree (finished_at, task) INCLUDE (queue, store_id) WHERE (state = 'dead'::text);

CREATE INDEX job_history_default_batch_id_idx ON jobq.job_history_default USING btree (batch_id) WHERE (batch_id IS NOT NULL);

CREATE INDEX job_history_job_key_idx ON ONLY jobq.job_history USING btree (COALESCE(store_id, '00000000-0000-0000-0000-000000000000'::uuid), job_key, created_at) WHERE (job_key IS NOT NULL);

CREATE INDEX job_history_default_coalesce_job_key_created_at_idx ON jobq.job_history_default USING btree (COALESCE(store_id, '00000000-0000-0000-0000-000000000000'::uuid), job_key, created_at) WHERE (job_key IS NOT NULL);

CREATE INDEX job_history_depends_on_idx ON ONLY jobq.job_history USING gin (depends_on) WHERE (depends_on IS NOT NULL);

CREATE INDEX job_history_default_depends_on_idx ON jobq.job_history_default USING gin (depends_on) WHERE (depends_on IS NOT NULL);

CREATE INDEX job_history_default_finished_at_task_queue_store_id_idx ON jobq.job_history_default USING btree (finished_at, task) INCLUDE (queue, store_id) WHERE (state = 'dead'::text);

CREATE INDEX job_history_default_finished_idx ON jobq.job_history_default USING btree (finished_at);

CREATE INDEX job_history_default_id_idx ON jobq.job_history_default USING btree (id) WHERE (state = 'dead'::text);

CREATE UNIQUE INDEX job_history_default_id_key ON jobq.job_history_default USING btree (id);

CREATE INDEX jobs_batch_idx ON jobq.jobs USING btree (batch_id) WHERE (batch_id IS NOT NULL);

CREATE INDEX jobs_claim_idx ON jobq.jobs USING btree (queue, priority, run_at, id) WHERE ready;

CREATE INDEX jobs_counted_idx ON jobq.jobs USING btree (queue) WHERE counted;

CREATE INDEX jobs_depends_on_idx ON jobq.jobs USING gin (depends_on) WHERE (depends_on IS NOT NULL);

CREATE INDEX jobs_fair_idx ON jobq.jobs USING btree (queue, priority, COALESCE(store_id, '00000000-0000-0000-0000-000000000000'::uuid), run_at, id) WHERE (ready AND fair);

CREATE UNIQUE INDEX jobs_job_key_idx ON jobq.jobs USING btree (COALESCE(store_id, '00000000-0000-0000-0000-000000000000'::uuid), job_key) WHERE (job_key IS NOT NULL);

CREATE INDEX jobs_sequence_idx ON jobq.jobs USING btree (COALESCE(store_id, '00000000-0000-0000-0000-000000000000'::uuid), sequence_key, id) WHERE (sequence_key IS NOT NULL);

CREATE INDEX leases_check_idx ON jobq.leases USING btree (check_at);

CREATE INDEX leases_worker_idx ON jobq.leases USING btree (worker_id, check_at);

CREATE INDEX schedule_runs_created_at_idx ON jobq.schedule_runs USING brin (created_at);

CREATE INDEX schedules_due_idx ON jobq.schedules USING btree (next_slot_at) WHERE enabled;

CREATE INDEX sequence_holds_job_idx ON jobq.sequence_holds USING btree (job_id);

CREATE UNIQUE INDEX sequence_holds_key_idx ON jobq.sequence_holds USING btree (COALESCE(store_id, '00000000-0000-0000-0000-000000000000'::uuid), sequence_key);

ALTER INDEX jobq.job_history_batch_idx ATTACH PARTITION jobq.job_history_default_batch_id_idx;

ALTER INDEX jobq.job_history_job_key_idx ATTACH PARTITION jobq.job_history_default_coalesce_job_key_created_at_idx;

ALTER INDEX jobq.job_history_depends_on_idx ATTACH PARTITION jobq.job_history_default_depends_on_idx;

ALTER INDEX jobq.job_history_dead_idx ATTACH PARTITION jobq.job_history_default_finished_at_task_queue_store_id_idx;

ALTER INDEX jobq.job_history_dead_id_idx ATTACH PARTITION jobq.job_history_default_id_idx;

CREATE TRIGGER job_history_notify_done AFTER INSERT ON jobq.job_history REFERENCING NEW TABLE AS jobq_ended FOR EACH STATEMENT EXECUTE FUNCTION jobq._notify_done();

CREATE TRIGGER jobq_batches_count AFTER INSERT ON jobq.job_history REFERENCING NEW TABLE AS ended FOR EACH STATEMENT EXECUTE FUNCTION jobq._batches_count();

CREATE TRIGGER jobq_history_workflow AFTER INSERT ON jobq.job_history REFERENCING NEW TABLE AS jobq_ended FOR EACH STATEMENT EXECUTE FUNCTION jobq._workflow_on_history();

CREATE TRIGGER jobs_lease_shortened AFTER UPDATE OF lease_expires_at, deadline_at ON jobq.jobs FOR EACH ROW WHEN (((new.state = 'running'::text) AND (LEAST(new.lease_expires_at, new.deadline_at) < LEAST(old.lease_expires_at, old.deadline_at)))) EXECUTE FUNCTION jobq._lease_shortened();

ALTER TABLE ONLY jobq.schedule_runs
    ADD CONSTRAINT schedule_runs_schedule_fkey FOREIGN KEY (schedule) REFERENCES jobq.schedules(name) ON DELETE CASCADE;

ALTER TABLE ONLY jobq.schedules
    ADD CONSTRAINT schedules_task_fkey FOREIGN KEY (task) REFERENCES jobq.tasks(name);

ALTER TABLE jobq.batches ENABLE ROW LEVEL SECURITY;

CREATE POLICY batches_app_read ON jobq.batches FOR SELECT TO jobq_app USING (((store_id = jobq.current_store_id()) OR ((store_id IS NULL) AND (NOT (EXISTS ( SELECT 1
   FROM jobq.store_bindings b
  WHERE (b.login = SESSION_USER)))))));

CREATE POLICY batches_engine ON jobq.batches TO jobq_migrator USING (true) WITH CHECK (true);

CREATE POLICY batches_gate_insert ON jobq.batches FOR INSERT TO jobq_app_gate WITH CHECK (jobq._caller_reaches(store_id));

CREATE POLICY batches_gate_read ON jobq.batches FOR SELECT TO jobq_app_gate USING (((store_id IS NULL) OR jobq._caller_reaches(store_id)));

CREATE POLICY batches_gate_update ON jobq.batches FOR UPDATE TO jobq_app_gate USING (jobq._caller_reaches(store_id)) WITH CHECK (jobq._caller_reaches(store_id));

CREATE POLICY batches_operator_read ON jobq.batches FOR SELECT TO jobq_operator, jobq_viewer USING (true);

ALTER TABLE jobq.claim_cursors ENABLE ROW LEVEL SECURITY;

CREATE POLICY claim_cursors_engine ON jobq.claim_cursors TO jobq_migrator USING (true) WITH CHECK (true);

ALTER TABLE jobq.claim_starts ENABLE ROW LEVEL SECURITY;

CREATE POLICY claim_starts_engine ON jobq.claim_starts TO jobq_migrator USING (true) WITH CHECK (true);

ALTER TABLE jobq.job_attempts ENABLE ROW LEVEL SECURITY;

CREATE POLICY job_attempts_app_read ON jobq.job_attempts FOR SELECT TO jobq_app USING ((store_id = jobq.current_store_id()));

CREATE POLICY job_attempts_engine ON jobq.job_attempts TO jobq_migrator USING (true) WITH CHECK (true);

CREATE POLICY job_attempts_operator_read ON jobq.job_attempts FOR SELECT TO jobq_operator, jobq_viewer USING (true);

ALTER TABLE jobq.job_dependencies ENABLE ROW LEVEL SECURITY;

CREATE POLICY job_dependencies_app_read ON jobq.job_dependencies FOR SELECT TO jobq_app USING (((store_id = jobq.current_store_id()) OR ((store_id IS NULL) AND (NOT (EXISTS ( SELECT 1
   FROM jobq.store_bindings b
  WHERE (b.login = SESSION_USER)))))));

CREATE POLICY job_dependencies_engine ON jobq.job_dependencies TO jobq_migrator USING (true) WITH CHECK (true);

CREATE POLICY job_dependencies_operator_read ON jobq.job_dependencies FOR SELECT TO jobq_operator, jobq_viewer USING (true);

ALTER TABLE jobq.job_history ENABLE ROW LEVEL SECURITY;

CREATE POLICY job_history_app_read ON jobq.job_history FOR SELECT TO jobq_app USING (((store_id = jobq.current_store_id()) OR ((store_id IS NULL) AND (NOT (EXISTS ( SELECT 1
   FROM jobq.store_bindings b
  WHERE (b.login = SESSION_USER)))))));

ALTER TABLE jobq.job_history_default ENABLE ROW LEVEL SECURITY;

CREATE POLICY job_history_engine ON jobq.job_history TO jobq_migrator USING (true) WITH CHECK (true);

CREATE POLICY job_history_gate_delete ON jobq.job_history FOR DELETE TO jobq_app_gate USING (jobq._caller_reaches(store_id));

CREATE POLICY job_history_gate_insert ON jobq.job_history FOR INSERT TO jobq_app_gate WITH CHECK (jobq._caller_reaches(store_id));

CREATE POLICY job_history_gate_read ON jobq.job_history FOR SELECT TO jobq_app_gate USING (((store_id IS NULL) OR jobq._caller_reaches(store_id)));

CREATE POLICY job_history_gate_update ON jobq.job_history FOR UPDATE TO jobq_app_gate USING (jobq._caller_reaches(store_id)) WITH CHECK (jobq._caller_reaches(store_id));

CREATE POLICY job_history_operator_read ON jobq.job_history FOR SELECT TO jobq_operator, jobq_viewer USING (true);

CREATE POLICY job_history_owner ON jobq.job_history_default TO jobq_migrator USING (true) WITH CHECK (true);

ALTER TABLE jobq.jobs ENABLE ROW LEVEL SECURITY;

CREATE POLICY jobs_app_read ON jobq.jobs FOR SELECT TO jobq_app USING (((store_id = jobq.current_store_id()) OR ((store_id IS NULL) AND (NOT (EXISTS ( SELECT 1
   FROM jobq.store_bindings b
  WHERE (b.login = SESSION_USER)))))));

CREATE POLICY jobs_engine ON jobq.jobs TO jobq_migrator USING (true) WITH CHECK (true);

CREATE POLICY jobs_gate_delete ON jobq.jobs FOR DELETE TO jobq_app_gate USING (jobq._caller_reaches(store_id));

CREATE POLICY jobs_gate_insert ON jobq.jobs FOR INSERT TO jobq_app_gate WITH CHECK ((jobq._caller_reaches_as(store_id, ( SELECT jobq._caller_is_operator() AS _caller_is_operator), ( SELECT jobq._caller_is_restricted() AS _caller_is_restricted), ( SELECT jobq.current_store_id() AS current_store_id)) OR ((store_id IS NULL) AND jobq._app_may_enqueue(task))));

CREATE POLICY jobs_gate_read ON jobq.jobs FOR SELECT TO jobq_app_gate USING (((store_id IS NULL) OR jobq._caller_reaches(store_id)));

CREATE POLICY jobs_gate_update ON jobq.jobs FOR UPDATE TO jobq_app_gate USING (jobq._caller_reaches(store_id)) WITH CHECK (jobq._caller_reaches(store_id));

CREATE POLICY jobs_operator_read ON jobq.jobs FOR SELECT TO jobq_operator, jobq_viewer USING (true);

ALTER TABLE jobq.leases ENABLE ROW LEVEL SECURITY;

CREATE POLICY leases_engine ON jobq.leases TO jobq_migrator USING (true) WITH CHECK (true);

ALTER TABLE jobq.leases_recheck ENABLE ROW LEVEL SECURITY;

CREATE POLICY leases_recheck_engine ON jobq.leases_recheck TO jobq_migrator USING (true) WITH CHECK (true);

ALTER TABLE jobq.live_counts ENABLE ROW LEVEL SECURITY;

CREATE POLICY live_counts_engine ON jobq.live_counts TO jobq_migrator USING (true) WITH CHECK (true);

ALTER TABLE jobq.live_counts_taken ENABLE ROW LEVEL SECURITY;

CREATE POLICY live_counts_taken_engine ON jobq.live_counts_taken TO jobq_migrator USING (true) WITH CHECK (true);

ALTER TABLE jobq.sequence_holds ENABLE ROW LEVEL SECURITY;

CREATE POLICY sequence_holds_app_read ON jobq.sequence_holds FOR SELECT TO jobq_app USING (((store_id = jobq.current_store_id()) OR ((store_id IS NULL) AND (NOT (EXISTS ( SELECT 1
   FROM jobq.store_bindings b
  WHERE (b.login = SESSION_USER)))))));

CREATE POLICY sequence_holds_engine ON jobq.sequence_holds TO jobq_migrator USING (true) WITH CHECK (true);

CREATE POLICY sequence_holds_operator_read ON jobq.sequence_holds FOR SELECT TO jobq_operator, jobq_viewer USING (true);

ALTER TABLE jobq.store_bindings ENABLE ROW LEVEL SECURITY;

CREATE POLICY store_bindings_engine ON jobq.store_bindings TO jobq_migrator USING (true) WITH CHECK (true);

CREATE POLICY store_bindings_operator_read ON jobq.store_bindings FOR SELECT TO jobq_operator, jobq_viewer USING (true);

CREATE POLICY store_bindings_own ON jobq.store_bindings FOR SELECT TO worker_runtime, jobq_app, jobq_app_gate USING ((login = SESSION_USER));

GRANT USAGE ON SCHEMA jobq TO worker_runtime;
GRANT USAGE ON SCHEMA jobq TO jobq_app;
GRANT USAGE ON SCHEMA jobq TO jobq_operator;
GRANT USAGE ON SCHEMA jobq TO jobq_app_gate;
GRANT USAGE ON SCHEMA jobq TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq._acquire_leadership(p_worker_id text, p_ttl interval, p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._app_may_enqueue(p_task text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._app_may_enqueue(p_task text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._apply_grants() FROM PUBLIC;

GRANT SELECT ON TABLE jobq.schedules TO jobq_operator;
GRANT SELECT ON TABLE jobq.schedules TO worker_runtime;
GRANT SELECT ON TABLE jobq.schedules TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq._apply_schedule_policy(p_s jobq.schedules, p_previous bigint, p_detail jsonb) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._attach_workflow(p_ids bigint[], p_wf jsonb[], p_label_index boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._attach_workflow(p_ids bigint[], p_wf jsonb[], p_label_index boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._await_sequences(p_store_ids uuid[], p_keys text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._await_sequences(p_store_ids uuid[], p_keys text[]) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._batch_callback_fields() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._batch_callback_fields() TO jobq_app_gate;

GRANT SELECT ON TABLE jobq.batches TO jobq_app;
GRANT SELECT ON TABLE jobq.batches TO jobq_operator;
GRANT SELECT ON TABLE jobq.batches TO jobq_viewer;
GRANT SELECT,INSERT,UPDATE ON TABLE jobq.batches TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._batch_callback_job(p_spec jsonb, p_batch jobq.batches) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._batch_callback_job(p_spec jsonb, p_batch jobq.batches) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._batch_ended(p_batch_ids bigint[], p_states text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._batches_count() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._calendar_day_ok(p_day text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._calendar_day_ok(p_day text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._caller() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._caller() TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._caller_is_operator() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._caller_is_operator() TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._caller_is_restricted() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._caller_is_restricted() TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._caller_reaches(p_store_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._caller_reaches(p_store_id uuid) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._caller_reaches_as(p_store_id uuid, p_operator boolean, p_restricted boolean, p_session_store uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._caller_reaches_as(p_store_id uuid, p_operator boolean, p_restricted boolean, p_session_store uuid) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._caller_sees_every_store() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._cancel_with_dependents(p_ids bigint[], p_errors text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_claim_call(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_claim_positions(p_queues text[], p_priority integer[], p_run_at timestamp with time zone[], p_id bigint[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_claim_queues(p_queues text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_claim_tasks(p_tasks text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_int(p_name text, p_value bigint, p_min bigint, p_max bigint, p_code text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._check_int(p_name text, p_value bigint, p_min bigint, p_max bigint, p_code text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._check_interval(p_name text, p_value interval, p_max interval, p_zero_ok boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._check_interval(p_name text, p_value interval, p_max interval, p_zero_ok boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._check_lease(p_lease interval) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_lease_batch(p_job_ids bigint[], p_lease_tokens uuid[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_length(p_name text, p_value anyarray, p_max integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._check_length(p_name text, p_value anyarray, p_max integer) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._check_name(p_name text, p_value text, p_max integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_payload(p_name text, p_value jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._check_payload(p_name text, p_value jsonb) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._check_queue_name(p_queue text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_tenant(p_specs jobq.job_spec[], p_label_index boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._check_tenant(p_specs jobq.job_spec[], p_label_index boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._check_text(p_name text, p_value text, p_max integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._check_text(p_name text, p_value text, p_max integer) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._check_timestamp(p_name text, p_value timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._check_timestamp(p_name text, p_value timestamp with time zone) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._check_timezone(p_timezone text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._check_worker_id(p_worker_id text) FROM PUBLIC;

GRANT SELECT ON TABLE jobq.jobs TO jobq_app;
GRANT SELECT ON TABLE jobq.jobs TO jobq_operator;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE jobq.jobs TO jobq_app_gate;
GRANT SELECT ON TABLE jobq.jobs TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq._claim(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_now timestamp with time zone, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._claim_call_ok(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_after_priority integer[], p_after_run_at timestamp with time zone[], p_after_id bigint[], p_tasks text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._claim_locks_held() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._claim_queues_ok(p_queues text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._claim_slot_batch() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._claim_slots() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._count_live_jobs(p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._cover_running_jobs() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._cron_field(p_field text, p_name text, p_lo integer, p_hi integer, p_names text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._cron_instant(p_at timestamp with time zone, p_name text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._cron_local_next(p_fields jobq.cron_fields, p_from timestamp without time zone, p_limit timestamp without time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._cron_next(p_fields jobq.cron_fields, p_after timestamp with time zone, p_timezone text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._cron_value(p_text text, p_name text, p_lo integer, p_hi integer, p_names text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._done_silent() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._doorbell_silent(p_queue text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._doorbell_silent(p_queue text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._enqueue(p_specs jobq.job_spec[], p_label_index boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._enqueue(p_specs jobq.job_spec[], p_label_index boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._enqueue_due_slots(p_now timestamp with time zone, p_max_schedules integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._enqueue_for_stores(p_task text, p_payload jsonb, p_job_key_template text, p_job_key_mode text, p_run_at timestamp with time zone, p_store_ids uuid[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._enqueue_keyed(p_specs jobq.job_spec[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._enqueue_keyed(p_specs jobq.job_spec[]) TO jobq_app_gate;

GRANT SELECT ON TABLE jobq.tasks TO worker_runtime;
GRANT SELECT ON TABLE jobq.tasks TO jobq_app;
GRANT SELECT ON TABLE jobq.tasks TO jobq_operator;
GRANT SELECT ON TABLE jobq.tasks TO jobq_app_gate;
GRANT SELECT ON TABLE jobq.tasks TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq._enqueue_takes_fast_path(p_spec jobq.job_spec, p_task jobq.tasks) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._enqueue_takes_fast_path(p_spec jobq.job_spec, p_task jobq.tasks) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._enqueue_takes_fast_path_as(p_spec jobq.job_spec, p_task jobq.tasks, p_restricted boolean, p_operator boolean, p_session_store uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._enqueue_takes_fast_path_as(p_spec jobq.job_spec, p_task jobq.tasks, p_restricted boolean, p_operator boolean, p_session_store uuid) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._fail_attempts(p_now timestamp with time zone, p_ids bigint[], p_errors text[], p_codes text[], p_retryable boolean[], p_retry_in interval[], p_reasons text[], p_outputs text[], p_log_refs text[], p_exit_codes integer[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._fair_first(p_queue text, p_after_priority smallint, p_partition_key text, p_tasks text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._fair_first_outside(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamp with time zone, p_id bigint, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_tasks text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._fair_next_store(p_queue text, p_priority smallint, p_store uuid, p_partition_key text, p_tasks text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._fair_take_round(p_queue text, p_priority smallint, p_keys uuid[], p_runs timestamp with time zone[], p_ids bigint[], p_room integer, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT keys uuid[], OUT parts text[], OUT full_keys uuid[], OUT full_runs timestamp with time zone[], OUT full_ids bigint[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._fair_take_store(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamp with time zone, p_id bigint, p_room integer, p_now timestamp with time zone, p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT parts text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._function_grants() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._guard_picks() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._guarded_lock_timeout() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._heads_sequence(p_id bigint, p_store_id uuid, p_key text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._history_add_span(p_at timestamp with time zone, p_days integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._history_days_ahead(p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._history_partitions() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._history_span_days(p_retention interval) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._holds(p_id bigint, p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._insert_specs(p_specs jobq.job_spec[], p_label_index boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._insert_specs(p_specs jobq.job_spec[], p_label_index boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._job_of_key_since(p_store_key uuid, p_job_key text, p_since timestamp with time zone, p_finished_only boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._job_of_key_since(p_store_key uuid, p_job_key text, p_since timestamp with time zone, p_finished_only boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._job_outcome(p_id bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._json_type_ok(p_value jsonb, p_type text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._json_type_ok(p_value jsonb, p_type text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._keep_within_limits(p_queue text, p_ids bigint[], p_stores uuid[], p_parts text[], p_room integer, p_counts jsonb, OUT ids bigint[], OUT stores uuid[], OUT counts jsonb, OUT full_stores uuid[], OUT full_parts text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._lease_shortened() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._limit(p_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._limit(p_name text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._limit_interval(p_name text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._limit_interval(p_name text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._limited_counts(p_queue text, p_now timestamp with time zone, p_note boolean, OUT room integer, OUT counts jsonb, OUT full_stores uuid[], OUT full_parts text[], OUT clock timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._limited_round(p_queue text, p_fair boolean, p_room integer, p_now timestamp with time zone, p_skip_stores uuid[], p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_after_priority smallint, p_after_run_at timestamp with time zone, p_after_id bigint, p_tasks text[], OUT ids bigint[], OUT stores uuid[], OUT parts text[], OUT last_priority smallint, OUT last_run_at timestamp with time zone, OUT last_id bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._live_count_wait(p_took interval) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._live_counts_fresh(p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._live_groups(p_queue text, p_all boolean, p_store uuid, p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._lock_batch(p_batch_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._lock_batch(p_batch_id bigint) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._lock_limited_queues(p_queues text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._lock_queue_row(p_queue text, p_create boolean) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._lock_schedule(p_name text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._lock_sequences(p_store_ids uuid[], p_keys text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._lock_sequences(p_store_ids uuid[], p_keys text[]) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._maintain(p_worker_id text, p_epoch bigint, p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._max_payload_bytes() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._max_payload_bytes() TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._max_result_bytes() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._near_limit_setting(p_queue text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._not_served(p_queue text, p_now timestamp with time zone, p_cap integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._note_claim_locks_held() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._note_shared_claim(p_queue text, p_n integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._notify_done() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._parents_of(p_job_id bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._pick_fair(p_queue text, p_max_jobs integer, p_now timestamp with time zone, p_skip_stores uuid[], p_partition_key text, p_skip_parts text[], p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT stores uuid[], OUT parts text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._pick_guarded(p_kind text, p_queue text, p_take integer, p_now timestamp with time zone, p_lock_queues text[], p_tasks text[], OUT ids bigint[], OUT clock timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._pick_limited(p_queue text, p_max_jobs integer, p_now timestamp with time zone, p_lock_queues text[], p_tasks text[], OUT claim_ids bigint[], OUT claim_clock timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._pick_plain(p_queue text, p_after_priority smallint, p_after_run_at timestamp with time zone, p_after_id bigint, p_take integer, p_now timestamp with time zone, p_tasks text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._prune_history(p_cutoff timestamp with time zone, p_batch integer) FROM PUBLIC;

GRANT SELECT ON TABLE jobq.queues TO jobq_operator;
GRANT SELECT ON TABLE jobq.queues TO worker_runtime;
GRANT SELECT ON TABLE jobq.queues TO jobq_app;
GRANT SELECT ON TABLE jobq.queues TO jobq_viewer;
GRANT SELECT ON TABLE jobq.queues TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._queue_limits(p_queue jobq.queues) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._raise(p_code text, p_detail text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._raise(p_code text, p_detail text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._release_blocked(p_ids bigint[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._release_worker_leases(p_worker_id text, p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._rescue(p_batch_size integer, p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._resolve_spec(p_spec jobq.job_spec, p_task jobq.tasks, p_default_attempts integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._resolve_spec(p_spec jobq.job_spec, p_task jobq.tasks, p_default_attempts integer) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._resolve_tasks(p_specs jobq.job_spec[], p_label_index boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._resolve_tasks(p_specs jobq.job_spec[], p_label_index boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._result_visible(p_store_id uuid) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._retry_at(p_now timestamp with time zone, p_attempt integer, p_base interval, p_max interval) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._revive(p_job_ids bigint[], p_action text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._revive(p_job_ids bigint[], p_action text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._rule_at_limit(p_n bigint, p_limit integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._rule_due(p_run_at timestamp with time zone, p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._rule_served(p_task text, p_tasks text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._rule_waiting(p_state text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._run_schedule(p_s jobq.schedules, p_now timestamp with time zone, p_max_slots integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._running_counted(p_queue text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._running_in_queue(p_queue text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._running_per_partition(p_queue text, p_key text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._running_per_store(p_queue text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._runtime_roles() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._sequence_heads(p_store_ids uuid[], p_keys text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._served_by_live_workers(p_now timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._set_queue_limit(p_queue text, p_scope text, p_max_running integer, p_partition_key text, p_per interval) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._set_worker_state(p_worker_id text, p_state text, p_action text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._setting_interval(p_name text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._settings_json() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._settle_batches(p_batch_ids bigint[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._settle_batches(p_batch_ids bigint[]) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._settle_counted(p_queue text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._settle_counted_flags() FROM PUBLIC;

GRANT SELECT ON TABLE jobq.job_history TO jobq_app;
GRANT SELECT ON TABLE jobq.job_history TO jobq_operator;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE jobq.job_history TO jobq_app_gate;
GRANT SELECT ON TABLE jobq.job_history TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq._settle_ended(p_ended jobq.job_history[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._settle_fair_flags() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._settle_leases(p_now timestamp with time zone, p_swept bigint[], p_limit integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._shared_claim_ceiling(p_max_running integer, p_max_running_per_store integer, p_max_running_per_partition integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._shared_claim_room(p_queue text, p_ceiling integer, p_room integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._shared_claim_setting(p_queue text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._shared_claim_slot(p_queue text, p_ceiling integer, p_rated boolean, p_room integer, p_lock_queues text[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._shared_claim_taken(p_queue text) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._snapshot_older_than(p_xid xid8) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._spec_in_bounds(p_spec jobq.job_spec) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._spec_in_bounds(p_spec jobq.job_spec) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._started_per_store(p_queue text, p_since timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._started_since(p_queue text, p_since timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._stats(p_queue text, p_store_id uuid) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._stats_cached_above() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._store_key(p_store_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._store_key(p_store_id uuid) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._tell_done(p_ids bigint[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._to_history(p_job jobq.jobs, p_state text, p_reason text, p_error text, p_error_code text, p_output text, p_log_ref text, p_exit_code integer, p_leader_epoch bigint, p_result jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._to_history(p_job jobq.jobs, p_state text, p_reason text, p_error text, p_error_code text, p_output text, p_log_ref text, p_exit_code integer, p_leader_epoch bigint, p_result jsonb) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._ts_add(p_ts timestamp with time zone, p_delta interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._ts_add(p_ts timestamp with time zone, p_delta interval) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._ts_diff(p_later timestamp with time zone, p_earlier timestamp with time zone) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._ts_in_range(p_value timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._ts_in_range(p_value timestamp with time zone) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._unhold_sequences(p_job_ids bigint[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._unhold_sequences(p_job_ids bigint[]) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._upkeep_action(p_total_bytes bigint, p_index_bytes bigint, p_live_rows bigint, p_min_bytes bigint, p_max_rows bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._upkeep_held_by(p_held_after interval) FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._validate_specs(p_specs jobq.job_spec[], p_label_index boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._validate_specs(p_specs jobq.job_spec[], p_label_index boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._wake(p_queue text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._wake(p_queue text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._wake_as(p_queue text, p_wakeup text, p_doorbell boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._wake_as(p_queue text, p_wakeup text, p_doorbell boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._workflow_on_history() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq._workflow_prepare(p_wf jsonb[], p_store_ids uuid[], p_job_keys text[], p_label_index boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._workflow_prepare(p_wf jsonb[], p_store_ids uuid[], p_job_keys text[], p_label_index boolean) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._workflow_spec(p_depends_on bigint[], p_ref_ords bigint[], p_on_parent_failure text, p_sequence_key text, p_on_sequence_failure text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._workflow_spec(p_depends_on bigint[], p_ref_ords bigint[], p_on_parent_failure text, p_sequence_key text, p_on_sequence_failure text) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._workflow_specs(p_jobs jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq._workflow_specs(p_jobs jsonb) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq._write_missing_receipts() FROM PUBLIC;

REVOKE ALL ON FUNCTION jobq.acquire_leadership(worker_id text, ttl interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.acquire_leadership(worker_id text, ttl interval) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.acquire_leadership(worker_id text, ttl interval) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.audit_list(actor text, action text, job_id bigint, since timestamp with time zone, before bigint, max_rows integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.audit_list(actor text, action text, job_id bigint, since timestamp with time zone, before bigint, max_rows integer) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.audit_list(actor text, action text, job_id bigint, since timestamp with time zone, before bigint, max_rows integer) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval) TO jobq_app;
GRANT ALL ON FUNCTION jobq.backoff_ceiling(p_attempt integer, p_base interval, p_max interval) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.backoff_delay(p_attempt integer, p_base interval, p_max interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.backoff_delay(p_attempt integer, p_base interval, p_max interval) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.backoff_delay(p_attempt integer, p_base interval, p_max interval) TO jobq_app;
GRANT ALL ON FUNCTION jobq.backoff_delay(p_attempt integer, p_base interval, p_max interval) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.batch_enqueue(batch_id bigint, jobs jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.batch_enqueue(batch_id bigint, jobs jsonb) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.batch_enqueue(batch_id bigint, jobs jsonb) TO jobq_app;
GRANT ALL ON FUNCTION jobq.batch_enqueue(batch_id bigint, jobs jsonb) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.batch_list(store_id uuid, state text, before bigint, max_rows integer, id bigint, job_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.batch_list(store_id uuid, state text, before bigint, max_rows integer, id bigint, job_id bigint) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.batch_list(store_id uuid, state text, before bigint, max_rows integer, id bigint, job_id bigint) TO jobq_viewer;
GRANT ALL ON FUNCTION jobq.batch_list(store_id uuid, state text, before bigint, max_rows integer, id bigint, job_id bigint) TO jobq_app;

REVOKE ALL ON FUNCTION jobq.batch_status(batch_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.batch_status(batch_id bigint) TO jobq_app;
GRANT ALL ON FUNCTION jobq.batch_status(batch_id bigint) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.batch_status(batch_id bigint) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.bind_store(login name, store_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.bind_store(login name, store_id uuid) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.cancel_job(job_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.cancel_job(job_id bigint) TO jobq_app;
GRANT ALL ON FUNCTION jobq.cancel_job(job_id bigint) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.claim_job(worker_id text, queues text[], max_jobs integer, lease interval, after_priority integer[], after_run_at timestamp with time zone[], after_id bigint[], tasks text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.claim_job(worker_id text, queues text[], max_jobs integer, lease interval, after_priority integer[], after_run_at timestamp with time zone[], after_id bigint[], tasks text[]) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.claim_passed_over(queues text[], after_priority integer[], after_run_at timestamp with time zone[], after_id bigint[], tasks text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.claim_passed_over(queues text[], after_priority integer[], after_run_at timestamp with time zone[], after_id bigint[], tasks text[]) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.complete_job(job_id bigint, lease_token uuid, result jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.complete_job(job_id bigint, lease_token uuid, result jsonb) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.complete_jobs(job_ids bigint[], lease_tokens uuid[], outputs text[], log_refs text[], exit_codes integer[], results jsonb[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.complete_jobs(job_ids bigint[], lease_tokens uuid[], outputs text[], log_refs text[], exit_codes integer[], results jsonb[]) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.confirm_continuation(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.confirm_continuation(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.create_batch(on_success jsonb, on_complete jsonb, on_discard jsonb, store_id uuid, description text, jobs jsonb, seal boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.create_batch(on_success jsonb, on_complete jsonb, on_discard jsonb, store_id uuid, description text, jobs jsonb, seal boolean) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.create_batch(on_success jsonb, on_complete jsonb, on_discard jsonb, store_id uuid, description text, jobs jsonb, seal boolean) TO jobq_app;
GRANT ALL ON FUNCTION jobq.create_batch(on_success jsonb, on_complete jsonb, on_discard jsonb, store_id uuid, description text, jobs jsonb, seal boolean) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.cron_next(expr text, after timestamp with time zone, timezone text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.cron_next(expr text, after timestamp with time zone, timezone text) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.cron_next(expr text, after timestamp with time zone, timezone text) TO jobq_app;
GRANT ALL ON FUNCTION jobq.cron_next(expr text, after timestamp with time zone, timezone text) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.cron_next(expr text, after timestamp with time zone, timezone text) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.cron_parse(expr text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.cron_parse(expr text) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.cron_parse(expr text) TO jobq_app;
GRANT ALL ON FUNCTION jobq.cron_parse(expr text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.cron_slots(expr text, from_at timestamp with time zone, to_at timestamp with time zone, timezone text, max_slots integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.cron_slots(expr text, from_at timestamp with time zone, to_at timestamp with time zone, timezone text, max_slots integer) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.cron_slots(expr text, from_at timestamp with time zone, to_at timestamp with time zone, timezone text, max_slots integer) TO jobq_app;
GRANT ALL ON FUNCTION jobq.cron_slots(expr text, from_at timestamp with time zone, to_at timestamp with time zone, timezone text, max_slots integer) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.cron_slots(expr text, from_at timestamp with time zone, to_at timestamp with time zone, timezone text, max_slots integer) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.current_store_id() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.current_store_id() TO jobq_app_gate;
GRANT ALL ON FUNCTION jobq.current_store_id() TO worker_runtime;
GRANT ALL ON FUNCTION jobq.current_store_id() TO jobq_app;
GRANT ALL ON FUNCTION jobq.current_store_id() TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.default_log_ref(worker text, job_id bigint, attempt integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.default_log_ref(worker text, job_id bigint, attempt integer) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.default_log_ref(worker text, job_id bigint, attempt integer) TO jobq_viewer;
GRANT ALL ON FUNCTION jobq.default_log_ref(worker text, job_id bigint, attempt integer) TO jobq_app;

REVOKE ALL ON FUNCTION jobq.define_task(name text, scope text, payload_schema jsonb, max_attempts integer, queue text, priority integer, timeout interval, backoff_base interval, backoff_max interval, description text, app_enqueue boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.define_task(name text, scope text, payload_schema jsonb, max_attempts integer, queue text, priority integer, timeout interval, backoff_base interval, backoff_max interval, description text, app_enqueue boolean) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.define_task(name text, scope text, payload_schema jsonb, max_attempts integer, queue text, priority integer, timeout interval, backoff_base interval, backoff_max interval, description text, app_enqueue boolean) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.delete_job(job_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.delete_job(job_id bigint) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.demote_leader() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.demote_leader() TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.deregister_worker(worker_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.deregister_worker(worker_id text) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.deregister_worker(worker_id text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.detach_worker(worker_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.detach_worker(worker_id text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.done_quiet() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.done_quiet() TO worker_runtime;
GRANT ALL ON FUNCTION jobq.done_quiet() TO jobq_app;
GRANT ALL ON FUNCTION jobq.done_quiet() TO jobq_operator;
GRANT ALL ON FUNCTION jobq.done_quiet() TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.doorbell_quiet(queues text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.doorbell_quiet(queues text[]) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.drain_worker(worker_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.drain_worker(worker_id text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.enqueue(task text, payload jsonb, run_at timestamp with time zone, job_key text, job_key_mode text, max_attempts integer, priority integer, queue text, store_id uuid, timeout interval, backoff_base interval, backoff_max interval, unique_for interval, depends_on bigint[], on_parent_failure text, sequence_key text, on_sequence_failure text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.enqueue(task text, payload jsonb, run_at timestamp with time zone, job_key text, job_key_mode text, max_attempts integer, priority integer, queue text, store_id uuid, timeout interval, backoff_base interval, backoff_max interval, unique_for interval, depends_on bigint[], on_parent_failure text, sequence_key text, on_sequence_failure text) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.enqueue(task text, payload jsonb, run_at timestamp with time zone, job_key text, job_key_mode text, max_attempts integer, priority integer, queue text, store_id uuid, timeout interval, backoff_base interval, backoff_max interval, unique_for interval, depends_on bigint[], on_parent_failure text, sequence_key text, on_sequence_failure text) TO jobq_app;
GRANT ALL ON FUNCTION jobq.enqueue(task text, payload jsonb, run_at timestamp with time zone, job_key text, job_key_mode text, max_attempts integer, priority integer, queue text, store_id uuid, timeout interval, backoff_base interval, backoff_max interval, unique_for interval, depends_on bigint[], on_parent_failure text, sequence_key text, on_sequence_failure text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.enqueue_many(jobs jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.enqueue_many(jobs jsonb) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.enqueue_many(jobs jsonb) TO jobq_app;
GRANT ALL ON FUNCTION jobq.enqueue_many(jobs jsonb) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.explain_job(job_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.explain_job(job_id bigint) TO jobq_app;
GRANT ALL ON FUNCTION jobq.explain_job(job_id bigint) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.explain_job(job_id bigint) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.fail_job(job_id bigint, lease_token uuid, error text, error_code text, retryable boolean, retry_in interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.fail_job(job_id bigint, lease_token uuid, error text, error_code text, retryable boolean, retry_in interval) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.fail_jobs(job_ids bigint[], lease_tokens uuid[], errors text[], error_codes text[], retryable boolean[], retry_in interval[], reasons text[], outputs text[], log_refs text[], exit_codes integer[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.fail_jobs(job_ids bigint[], lease_tokens uuid[], errors text[], error_codes text[], retryable boolean[], retry_in interval[], reasons text[], outputs text[], log_refs text[], exit_codes integer[]) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.fan_out(child_task text, payload jsonb, job_key_template text, job_key_mode text, run_at timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.fan_out(child_task text, payload jsonb, job_key_template text, job_key_mode text, run_at timestamp with time zone) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.hand_back_unheld(worker_id text, lease_tokens uuid[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.hand_back_unheld(worker_id text, lease_tokens uuid[]) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.heartbeat(worker_id text, job_id bigint, lease_token uuid, lease interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.heartbeat(worker_id text, job_id bigint, lease_token uuid, lease interval) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.heartbeat_jobs(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.heartbeat_jobs(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.hold_done_doorbell() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.hold_done_doorbell() TO worker_runtime;
GRANT ALL ON FUNCTION jobq.hold_done_doorbell() TO jobq_app;
GRANT ALL ON FUNCTION jobq.hold_done_doorbell() TO jobq_operator;
GRANT ALL ON FUNCTION jobq.hold_done_doorbell() TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.hold_doorbell(queues text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.hold_doorbell(queues text[]) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.job_attempt_list(job_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.job_attempt_list(job_id bigint) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.job_attempt_list(job_id bigint) TO jobq_viewer;
GRANT ALL ON FUNCTION jobq.job_attempt_list(job_id bigint) TO jobq_app;

REVOKE ALL ON FUNCTION jobq.job_list(queue text, task text, state text, store_id uuid, job_key text, since timestamp with time zone, before bigint, max_rows integer, id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.job_list(queue text, task text, state text, store_id uuid, job_key text, since timestamp with time zone, before bigint, max_rows integer, id bigint) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.job_list(queue text, task text, state text, store_id uuid, job_key text, since timestamp with time zone, before bigint, max_rows integer, id bigint) TO jobq_viewer;
GRANT ALL ON FUNCTION jobq.job_list(queue text, task text, state text, store_id uuid, job_key text, since timestamp with time zone, before bigint, max_rows integer, id bigint) TO jobq_app;

REVOKE ALL ON FUNCTION jobq.job_result(job_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.job_result(job_id bigint) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.job_result(job_id bigint) TO jobq_app;
GRANT ALL ON FUNCTION jobq.job_result(job_id bigint) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.job_result(job_id bigint) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.job_workflow(job_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.job_workflow(job_id bigint) TO jobq_app;
GRANT ALL ON FUNCTION jobq.job_workflow(job_id bigint) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.job_workflow(job_id bigint) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.leader_state() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.leader_state() TO jobq_operator;
GRANT ALL ON FUNCTION jobq.leader_state() TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.maintain(worker_id text, epoch bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.maintain(worker_id text, epoch bigint) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.maintain(worker_id text, epoch bigint) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.parent_results(job_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.parent_results(job_id bigint) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.parent_results(job_id bigint) TO jobq_app;
GRANT ALL ON FUNCTION jobq.parent_results(job_id bigint) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.parent_results(job_id bigint) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.pause_queue(queue text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.pause_queue(queue text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.pause_schedule(name text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.pause_schedule(name text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb) TO jobq_app;
GRANT ALL ON FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.payload_problem(p_schema jsonb, p_payload jsonb) TO jobq_app_gate;

REVOKE ALL ON FUNCTION jobq.prune_history(batch_size integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.prune_history(batch_size integer) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.prune_history(batch_size integer) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.queue_depth(queues text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.queue_depth(queues text[]) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.queue_depth(queues text[]) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.queue_depth(queues text[]) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.queue_lag(queues text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.queue_lag(queues text[]) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.queue_lag(queues text[]) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.queue_lag(queues text[]) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.queue_list(queue text, store_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.queue_list(queue text, store_id uuid) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.queue_list(queue text, store_id uuid) TO jobq_viewer;
GRANT ALL ON FUNCTION jobq.queue_list(queue text, store_id uuid) TO jobq_app;

REVOKE ALL ON FUNCTION jobq.queue_minutes(since timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.queue_minutes(since timestamp with time zone) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.queue_minutes(since timestamp with time zone) TO jobq_viewer;
GRANT ALL ON FUNCTION jobq.queue_minutes(since timestamp with time zone) TO jobq_app;

REVOKE ALL ON FUNCTION jobq.queue_not_served(queues text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.queue_not_served(queues text[]) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.queue_not_served(queues text[]) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.queue_not_served(queues text[]) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.queue_states() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.queue_states() TO jobq_operator;
GRANT ALL ON FUNCTION jobq.queue_states() TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.queue_summary(cap integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.queue_summary(cap integer) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.queue_summary(cap integer) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer, version text, tasks text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer, version text, tasks text[]) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer, version text, tasks text[]) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.release_done_doorbell() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.release_done_doorbell() TO worker_runtime;
GRANT ALL ON FUNCTION jobq.release_done_doorbell() TO jobq_app;
GRANT ALL ON FUNCTION jobq.release_done_doorbell() TO jobq_operator;
GRANT ALL ON FUNCTION jobq.release_done_doorbell() TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.release_doorbell(queues text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.release_doorbell(queues text[]) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.requeue_dead(task text, finished_after timestamp with time zone, max_jobs integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.requeue_dead(task text, finished_after timestamp with time zone, max_jobs integer) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.rescue_expired(batch_size integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.rescue_expired(batch_size integer) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.rescue_expired(batch_size integer) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.resume_queue(queue text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.resume_queue(queue text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.resume_schedule(name text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.resume_schedule(name text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.resume_worker(worker_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.resume_worker(worker_id text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.retry_job(job_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.retry_job(job_id bigint) TO jobq_app;
GRANT ALL ON FUNCTION jobq.retry_job(job_id bigint) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.run_schedule_now(name text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.run_schedule_now(name text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.schedule(name text, cron text, task text, payload jsonb, timezone text, concurrency_policy text, backfill_window interval, backfill text, jitter interval, slot_key text, queue text, priority integer, max_attempts integer, enabled boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.schedule(name text, cron text, task text, payload jsonb, timezone text, concurrency_policy text, backfill_window interval, backfill text, jitter interval, slot_key text, queue text, priority integer, max_attempts integer, enabled boolean) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.schedule(name text, cron text, task text, payload jsonb, timezone text, concurrency_policy text, backfill_window interval, backfill text, jitter interval, slot_key text, queue text, priority integer, max_attempts integer, enabled boolean) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.schedule_list() FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.schedule_list() TO jobq_operator;
GRANT ALL ON FUNCTION jobq.schedule_list() TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.seal_batch(batch_id bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.seal_batch(batch_id bigint) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.seal_batch(batch_id bigint) TO jobq_app;
GRANT ALL ON FUNCTION jobq.seal_batch(batch_id bigint) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.served_tasks(handlers text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.served_tasks(handlers text[]) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.served_tasks(handlers text[]) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.set_concurrency_limit(queue text, max_running integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.set_concurrency_limit(queue text, max_running integer) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.set_fair_claiming(queue text, fair boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.set_fair_claiming(queue text, fair boolean) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.set_partition_concurrency_limit(queue text, partition_key text, max_running integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.set_partition_concurrency_limit(queue text, partition_key text, max_running integer) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.set_progress(job_id bigint, lease_token uuid, progress jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.set_progress(job_id bigint, lease_token uuid, progress jsonb) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.set_rate_limit(queue text, max_started integer, per interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.set_rate_limit(queue text, max_started integer, per interval) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.set_setting(name text, value text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.set_setting(name text, value text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.set_store_concurrency_limit(queue text, max_running integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.set_store_concurrency_limit(queue text, max_running integer) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.set_store_rate_limit(queue text, max_started integer, per interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.set_store_rate_limit(queue text, max_started integer, per interval) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.set_task_handler(task text, handler text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.set_task_handler(task text, handler text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.setting_list(name text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.setting_list(name text) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.setting_list(name text) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.snooze(job_id bigint, lease_token uuid, delay interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.snooze(job_id bigint, lease_token uuid, delay interval) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval) TO worker_runtime;

REVOKE ALL ON FUNCTION jobq.stats(queue text, store_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.stats(queue text, store_id uuid) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.stats(queue text, store_id uuid) TO jobq_app;
GRANT ALL ON FUNCTION jobq.stats(queue text, store_id uuid) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.stats_counted_at(store_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.stats_counted_at(store_id uuid) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.stats_counted_at(store_id uuid) TO jobq_app;
GRANT ALL ON FUNCTION jobq.stats_counted_at(store_id uuid) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.unbind_store(login name, store_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.unbind_store(login name, store_id uuid) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.unschedule(name text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.unschedule(name text) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.upkeep_advice(min_bytes bigint, max_rows integer, held_after interval) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.upkeep_advice(min_bytes bigint, max_rows integer, held_after interval) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.worker_heartbeat(worker_id text, running integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.worker_heartbeat(worker_id text, running integer) TO worker_runtime;
GRANT ALL ON FUNCTION jobq.worker_heartbeat(worker_id text, running integer) TO jobq_operator;

REVOKE ALL ON FUNCTION jobq.worker_list(state text) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.worker_list(state text) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.worker_list(state text) TO jobq_viewer;

REVOKE ALL ON FUNCTION jobq.workflow_graph(job_id bigint, max_nodes integer) FROM PUBLIC;
GRANT ALL ON FUNCTION jobq.workflow_graph(job_id bigint, max_nodes integer) TO jobq_app;
GRANT ALL ON FUNCTION jobq.workflow_graph(job_id bigint, max_nodes integer) TO jobq_operator;
GRANT ALL ON FUNCTION jobq.workflow_graph(job_id bigint, max_nodes integer) TO jobq_viewer;

GRANT SELECT ON TABLE jobq.audit_log TO jobq_operator;
GRANT INSERT ON TABLE jobq.audit_log TO jobq_app_gate;
GRANT SELECT ON TABLE jobq.audit_log TO jobq_viewer;

GRANT USAGE ON SEQUENCE jobq.audit_log_id_seq TO jobq_app_gate;

GRANT USAGE ON SEQUENCE jobq.batches_id_seq TO jobq_app_gate;

GRANT SELECT ON TABLE jobq.breaking_changes TO worker_runtime;
GRANT SELECT ON TABLE jobq.breaking_changes TO jobq_app;
GRANT SELECT ON TABLE jobq.breaking_changes TO jobq_operator;
GRANT SELECT ON TABLE jobq.breaking_changes TO jobq_viewer;

GRANT SELECT ON TABLE jobq.error_codes TO worker_runtime;
GRANT SELECT ON TABLE jobq.error_codes TO jobq_app;
GRANT SELECT ON TABLE jobq.error_codes TO jobq_operator;
GRANT SELECT ON TABLE jobq.error_codes TO jobq_app_gate;
GRANT SELECT ON TABLE jobq.error_codes TO jobq_viewer;

GRANT SELECT ON TABLE jobq.function_files TO worker_runtime;
GRANT SELECT ON TABLE jobq.function_files TO jobq_app;
GRANT SELECT ON TABLE jobq.function_files TO jobq_operator;
GRANT SELECT ON TABLE jobq.function_files TO jobq_viewer;

GRANT SELECT ON TABLE jobq.goose_db_version TO worker_runtime;
GRANT SELECT ON TABLE jobq.goose_db_version TO jobq_app;
GRANT SELECT ON TABLE jobq.goose_db_version TO jobq_operator;
GRANT SELECT ON TABLE jobq.goose_db_version TO jobq_viewer;

GRANT SELECT ON TABLE jobq.job_attempts TO jobq_operator;
GRANT SELECT ON TABLE jobq.job_attempts TO jobq_app;
GRANT SELECT ON TABLE jobq.job_attempts TO jobq_viewer;

GRANT SELECT ON TABLE jobq.job_dependencies TO jobq_app;
GRANT SELECT ON TABLE jobq.job_dependencies TO jobq_operator;
GRANT SELECT ON TABLE jobq.job_dependencies TO jobq_viewer;

GRANT USAGE ON SEQUENCE jobq.jobs_id_seq TO jobq_app_gate;

GRANT SELECT ON TABLE jobq.leader TO jobq_operator;
GRANT SELECT ON TABLE jobq.leader TO worker_runtime;
GRANT SELECT ON TABLE jobq.leader TO jobq_viewer;

GRANT SELECT ON TABLE jobq.schedule_runs TO jobq_operator;
GRANT SELECT ON TABLE jobq.schedule_runs TO worker_runtime;
GRANT SELECT ON TABLE jobq.schedule_runs TO jobq_viewer;

GRANT SELECT ON TABLE jobq.sequence_holds TO jobq_app;
GRANT SELECT ON TABLE jobq.sequence_holds TO jobq_operator;
GRANT SELECT ON TABLE jobq.sequence_holds TO jobq_viewer;

GRANT SELECT ON TABLE jobq.settings TO worker_runtime;
GRANT SELECT ON TABLE jobq.settings TO jobq_app;
GRANT SELECT ON TABLE jobq.settings TO jobq_operator;
GRANT SELECT ON TABLE jobq.settings TO jobq_app_gate;
GRANT SELECT ON TABLE jobq.settings TO jobq_viewer;

GRANT SELECT ON TABLE jobq.store_bindings TO jobq_app;
GRANT SELECT ON TABLE jobq.store_bindings TO jobq_app_gate;
GRANT SELECT ON TABLE jobq.store_bindings TO worker_runtime;
GRANT SELECT ON TABLE jobq.store_bindings TO jobq_operator;
GRANT SELECT ON TABLE jobq.store_bindings TO jobq_viewer;

GRANT SELECT ON TABLE jobq.workers TO jobq_operator;
GRANT SELECT ON TABLE jobq.workers TO worker_runtime;
GRANT SELECT ON TABLE jobq.workers TO jobq_viewer;
