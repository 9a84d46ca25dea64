-- jobq engine, batches. A batch groups jobs added together or over time (jobq.batch_enqueue);
-- once sealed (jobq.seal_batch) it settles when every one of its jobs has ended, and its callback
-- jobs (on_success, on_complete, on_discard) are enqueued then, exactly once. Its counts are kept
-- by one statement-level trigger on jobq.job_history, so no path that ends a job can forget them.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The fields a callback spec may have: those of an element of jobq.enqueue_many but store_id (a
-- callback runs in its batch's store) and run_at (it runs when the batch settles).
CREATE OR REPLACE FUNCTION jobq._batch_callback_fields()
RETURNS text[]
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT ARRAY['task', 'payload', 'queue', 'priority', 'max_attempts', 'job_key', 'job_key_mode', 'timeout',
                 'backoff_base', 'backoff_max', 'unique_for']::text[]
$$;
COMMENT ON FUNCTION jobq._batch_callback_fields() IS
    'Private. The fields a batch callback spec may have (those of an enqueue_many element but store_id and run_at). Immutable.';

-- The enqueue_many element of a callback of batch p_batch: the spec in the batch's store, its
-- payload with the key "batch" holding the batch's id and counts.
CREATE OR REPLACE FUNCTION jobq._batch_callback_job(p_spec jsonb, p_batch jobq.batches)
RETURNS jsonb
LANGUAGE sql
STABLE
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
COMMENT ON FUNCTION jobq._batch_callback_job(jsonb,jobq.batches) IS
    'Private. The jobq.enqueue_many element of callback spec p_spec of batch p_batch: store_id the batch''s (none for a system batch), payload the spec''s (an object; {} when absent) plus "batch": {id, total, succeeded, dead, canceled, pending}. Raises nothing, locks nothing.';

-- Creates a batch in a store (store_id, else the session's store; none: a system batch, which
-- only trusted callers may create) with its callbacks, each checked by enqueuing it in a
-- subtransaction that is always rolled back: a callback that could not be enqueued now is refused
-- now, not discovered when the batch settles. With jobs (and seal) a whole batch is made in one
-- call, as jobq.batch_enqueue and jobq.seal_batch would. A gate function, like jobq.enqueue_many.
CREATE OR REPLACE FUNCTION jobq.create_batch(on_success jsonb DEFAULT NULL, on_complete jsonb DEFAULT NULL,
                                             on_discard jsonb DEFAULT NULL, store_id uuid DEFAULT NULL,
                                             description text DEFAULT NULL, jobs jsonb DEFAULT NULL,
                                             seal boolean DEFAULT false)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.create_batch(jsonb,jsonb,jsonb,uuid,text,jsonb,boolean) IS
    'Creates an open batch and returns its id. store_id NULL = the session''s store (jobq.current_store_id()), none = a system batch (trusted callers and operators only). on_success (every job succeeded), on_complete (every job ended) and on_discard (at least one dead or canceled): NULL or a job spec object with the fields of an enqueue_many element but store_id and run_at, enqueued in the batch''s store when the batch settles, its payload plus "batch": {id, total, succeeded, dead, canceled, pending}; each is checked now by a rolled-back enqueue. description: at most 1000 characters. jobs: NULL, or jobs added at once as by jobq.batch_enqueue; seal: seal it at once as jobq.seal_batch (an empty or already ended batch settles in this call). Callers: applications (their store), handlers, operators. Locks nothing but, with jobs or seal, the new batch''s row and its jobs. Errors: JOB.BATCH_CALLBACK_INVALID (with the enqueue''s reason), JOB.TENANT_MISMATCH (another store), JOB.NOT_ALLOWED (an application without a store), JOB.INVALID_ARGUMENT, JOB.VALUE_TOO_LONG, and those of jobq.batch_enqueue for jobs.';
-- The gate needs CREATE on the schema at the moment it becomes the owner, and not after.
GRANT CREATE ON SCHEMA jobq TO jobq_app_gate;
ALTER FUNCTION jobq.create_batch(jsonb,jsonb,jsonb,uuid,text,jsonb,boolean) OWNER TO jobq_app_gate;
REVOKE CREATE ON SCHEMA jobq FROM jobq_app_gate;

-- The batch p_batch_id locked for a change by the caller of a gate function, or
-- JOB.BATCH_NOT_FOUND: another store's batch is not found either (as cancel_job does with a
-- job). Callers: jobq.batch_enqueue, jobq.seal_batch.
CREATE OR REPLACE FUNCTION jobq._lock_batch(p_batch_id bigint)
RETURNS jobq.batches
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._lock_batch(bigint) IS
    'Private. Locks (FOR UPDATE) and returns batch p_batch_id when the caller of the gate function reaches its store (jobq._caller_reaches). Errors: JOB.BATCH_NOT_FOUND (unknown, NULL, or another store''s).';

-- Adds jobs to an open batch: enqueues them as jobq.enqueue_many does (each element without a
-- store_id gets the batch's) and counts them in the batch's total, under the batch's row lock, so
-- adders, the seal and the counting of ended jobs follow one another on it. A keyed job could
-- merge into a live job outside the batch: refused.
CREATE OR REPLACE FUNCTION jobq.batch_enqueue(batch_id bigint, jobs jsonb)
RETURNS SETOF bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.batch_enqueue(bigint,jsonb) IS
    'Adds jobs to open batch batch_id: jobs is a JSON array as for jobq.enqueue_many (all or nothing, at most 100000 elements), an element without store_id taking the batch''s store; no element may have job_key or unique_for. Returns the new job ids in input order. Locks the batch row until commit (adders, seal_batch and the counting of the batch''s ended jobs wait for each other). Callers: applications (their store''s batches), handlers, operators. Errors: JOB.BATCH_NOT_FOUND (unknown or another store''s), JOB.BATCH_SEALED, JOB.BATCH_STORE_MISMATCH, JOB.INVALID_ARGUMENT, and every error of jobq.enqueue_many.';
-- The gate needs CREATE on the schema at the moment it becomes the owner, and not after.
GRANT CREATE ON SCHEMA jobq TO jobq_app_gate;
ALTER FUNCTION jobq.batch_enqueue(bigint,jsonb) OWNER TO jobq_app_gate;
REVOKE CREATE ON SCHEMA jobq FROM jobq_app_gate;

-- Seals a batch: no job may be added any more, and it settles as soon as all its jobs have
-- ended (at once when they have, or when it has none). Sealing a sealed batch changes nothing.
CREATE OR REPLACE FUNCTION jobq.seal_batch(batch_id bigint)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.seal_batch(bigint) IS
    'Seals batch batch_id (idempotent): no more jobs; it settles, enqueuing its callbacks once, when every one of its jobs has ended: at once when they have or when it has none. Returns settled or sealed. Locks the batch row. Callers: applications (their store''s batches), handlers, operators. Errors: JOB.BATCH_NOT_FOUND (unknown or another store''s).';
-- The gate needs CREATE on the schema at the moment it becomes the owner, and not after.
GRANT CREATE ON SCHEMA jobq TO jobq_app_gate;
ALTER FUNCTION jobq.seal_batch(bigint) OWNER TO jobq_app_gate;
REVOKE CREATE ON SCHEMA jobq FROM jobq_app_gate;

-- Settles every batch of p_batch_ids that is sealed, unsettled and whose jobs have all ended,
-- and enqueues its callbacks: settled_at is set under the batch's row lock, only where it was
-- NULL, so each batch settles once. A callback that cannot be enqueued (its task was deleted
-- since the batch was created) is recorded in callback_error and does not stop the settle nor
-- the completion that caused it. A definer, so that the callbacks are the engine's act in the
-- batch's store whoever ends the last job (the gate's seal_batch, the trigger, delete_job).
CREATE OR REPLACE FUNCTION jobq._settle_batches(p_batch_ids bigint[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._settle_batches(bigint[]) IS
    'Private. Settles each batch of p_batch_ids that is sealed, not settled, and whose jobs have all ended (settled_at, once: under its row lock) and enqueues its callbacks: on_success when none ended dead or canceled, on_complete always, on_discard when one did; their ids go to callback_job_ids, or the reason they could not be enqueued to callback_error. Enqueues through jobq._enqueue as the owner, in the batch''s store (checked by jobq.create_batch). Callers: jobq.seal_batch, jobq._batch_ended. Locks the batch rows.';

-- Counts ended jobs in their batches: one UPDATE for every batch of the ended rows (p_batch_ids
-- and p_states pairwise), after locking those batches in id order so that two transactions ending
-- jobs of the same batches never deadlock; then settles the batches that this completes.
-- Callers: the trigger on jobq.job_history, jobq.delete_job (a live job deleted counts canceled).
CREATE OR REPLACE FUNCTION jobq._batch_ended(p_batch_ids bigint[], p_states text[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._batch_ended(bigint[],text[]) IS
    'Private. Adds ended jobs (batch p_batch_ids[i] ended in state p_states[i]: succeeded, dead, canceled) to their batches'' counts, one UPDATE for all, after locking the batches in id order; then settles those it completes (jobq._settle_batches). Callers: jobq._batches_count (the trigger), jobq.delete_job.';

-- The trigger on jobq.job_history: every statement that ends jobs, whatever its path (complete,
-- fail, the sweeper, cancel, a skipped schedule run), counts them in their batches. One scan of
-- the transition table, and nothing more when no ended job belongs to a batch.
CREATE OR REPLACE FUNCTION jobq._batches_count()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._batches_count() IS
    'Private. Statement-level AFTER INSERT trigger function of jobq.job_history (trigger jobq_batches_count, transition table ended): counts the inserted rows that have a batch_id in their batches (jobq._batch_ended); returns after one scan of the transition table when none has.';
DROP TRIGGER IF EXISTS jobq_batches_count ON jobq.job_history;
CREATE TRIGGER jobq_batches_count AFTER INSERT ON jobq.job_history
    REFERENCING NEW TABLE AS ended
    FOR EACH STATEMENT EXECUTE FUNCTION jobq._batches_count();

-- Batches, newest first, with their counts and state (open, sealed, settled), matching each
-- filter that is not NULL. Runs as its caller: row-level security shows an application its
-- store's batches (and system batches when its login is bound to no store).
CREATE OR REPLACE FUNCTION jobq.batch_list(store_id uuid DEFAULT NULL, state text DEFAULT NULL, before bigint DEFAULT NULL,
                                           max_rows integer DEFAULT 50, id bigint DEFAULT NULL, job_id bigint DEFAULT NULL)
RETURNS TABLE (id bigint, store_id uuid, description text, state text, total bigint, succeeded bigint, dead bigint,
               canceled bigint, pending bigint, created_at timestamptz, sealed_at timestamptz, settled_at timestamptz,
               on_success text, on_complete text, on_discard text, callback_job_ids bigint[], callback_error text)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
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
$$;
COMMENT ON FUNCTION jobq.batch_list(uuid,text,bigint,integer,bigint,bigint) IS
    'Batches, newest id first, matching each filter that is not NULL: store_id, state (open, sealed, settled), before (ids below it: the next page), id (one batch), job_id (the batch of this job, live or finished); at most max_rows rows (default 50, 0..100001). With counts total, succeeded, dead, canceled, pending (not yet ended), the callbacks'' tasks, the callback jobs enqueued at the settle and callback_error. Runs as its caller: row-level security shows an application its store''s batches only. Locks nothing. Callers: jobq batches list, the dashboard''s job page (package operator). Errors: none.';

-- One batch, as jobq.batch_list shows it, or JOB.BATCH_NOT_FOUND. A definer, as jobq.explain_job
-- (so that an application may be told the catalogued error): operators and viewers see every
-- batch, the engine's roles system batches, an application only its store's; any other id is not
-- found, so nothing of another store is told.
CREATE OR REPLACE FUNCTION jobq.batch_status(batch_id bigint)
RETURNS TABLE (id bigint, store_id uuid, description text, state text, total bigint, succeeded bigint, dead bigint,
               canceled bigint, pending bigint, created_at timestamptz, sealed_at timestamptz, settled_at timestamptz,
               on_success text, on_complete text, on_discard text, callback_job_ids bigint[], callback_error text)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.batch_status(bigint) IS
    'One batch as jobq.batch_list shows it (state, counts, callbacks). EXECUTE for jobq_operator and jobq_viewer, who see every batch, and jobq_app, which sees only its store''s (jobq.current_store_id()); a trusted caller (the owner) sees system batches too. Locks nothing. Callers: applications, jobq batches show, the dashboard. Errors: JOB.BATCH_NOT_FOUND (unknown, NULL, another store''s, or a system batch for an application).';

-- The row policies of jobq.batches, as jobq.jobs's (70_tenancy.sql): the engine sees every row;
-- the gate reads the caller's store's rows and system rows and changes only rows
-- jobq._caller_reaches lets it; applications read their store's rows, and system rows only when
-- their login is bound to no store; operators and viewers read everything.
DROP POLICY IF EXISTS batches_engine ON jobq.batches;
CREATE POLICY batches_engine ON jobq.batches TO jobq_migrator
    USING (true)
    WITH CHECK (true);
DROP POLICY IF EXISTS batches_app_read ON jobq.batches;
CREATE POLICY batches_app_read ON jobq.batches FOR SELECT TO jobq_app
    USING (store_id = jobq.current_store_id()
           OR (store_id IS NULL AND NOT EXISTS (SELECT 1 FROM jobq.store_bindings b WHERE b.login = SESSION_USER)));
DROP POLICY IF EXISTS batches_gate_read ON jobq.batches;
CREATE POLICY batches_gate_read ON jobq.batches FOR SELECT TO jobq_app_gate
    USING (((store_id IS NULL) OR jobq._caller_reaches(store_id)));
DROP POLICY IF EXISTS batches_gate_insert ON jobq.batches;
CREATE POLICY batches_gate_insert ON jobq.batches FOR INSERT TO jobq_app_gate
    WITH CHECK (jobq._caller_reaches(store_id));
DROP POLICY IF EXISTS batches_gate_update ON jobq.batches;
CREATE POLICY batches_gate_update ON jobq.batches FOR UPDATE TO jobq_app_gate
    USING (jobq._caller_reaches(store_id))
    WITH CHECK (jobq._caller_reaches(store_id));
DROP POLICY IF EXISTS batches_operator_read ON jobq.batches;
CREATE POLICY batches_operator_read ON jobq.batches FOR SELECT TO jobq_operator, jobq_viewer
    USING (true);
