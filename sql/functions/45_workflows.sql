-- jobq engine, workflows: dependencies between jobs and sequences of jobs (issue 35; see
-- docs/dependencies.md). A job enqueued with parents (depends_on) or behind an earlier job of its
-- sequence key waits in state blocked, outside the claim's indexes; when a job ends, the
-- statement-level trigger on jobq.job_history (jobq._workflow_on_history) releases what it
-- unblocked and cancels what depended on it when it failed, every ending path alike.
--
-- Locks, always in this order: the parents' rows (enqueue) or the ended job's row (its finish);
-- then the sequences' advisory locks (pg_advisory_xact_lock(1785684700, hash of store and key)),
-- in hash order; then the rows of the jobs to release or cancel, in id order.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, DROP TRIGGER IF EXISTS before CREATE.


-- A workflow spec as jobq.enqueue takes it, as one JSON object for jobq._workflow_prepare and
-- jobq._attach_workflow (NULL when the job has no workflow): depends_on (ids), ref_ords (the input
-- positions of earlier elements of the same enqueue_many call), on_parent_failure, sequence_key,
-- on_sequence_failure.
CREATE OR REPLACE FUNCTION jobq._workflow_spec(p_depends_on bigint[], p_ref_ords bigint[], p_on_parent_failure text,
                                               p_sequence_key text, p_on_sequence_failure text)
RETURNS jsonb
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT CASE WHEN coalesce(cardinality(p_depends_on), 0) + coalesce(cardinality(p_ref_ords), 0) > 0
                  OR p_on_parent_failure IS NOT NULL OR p_sequence_key IS NOT NULL OR p_on_sequence_failure IS NOT NULL
           THEN pg_catalog.jsonb_build_object('depends_on', p_depends_on, 'ref_ords', p_ref_ords,
                                              'on_parent_failure', p_on_parent_failure, 'sequence_key', p_sequence_key,
                                              'on_sequence_failure', p_on_sequence_failure) END
$$;
COMMENT ON FUNCTION jobq._workflow_spec(bigint[],bigint[],text,text,text) IS
    'Private. The workflow of one job to enqueue as a JSON object (depends_on, ref_ords, on_parent_failure, sequence_key, on_sequence_failure), NULL when it has none. Callers: jobq.enqueue, jobq._workflow_specs.';

-- The workflow specs of enqueue_many's elements, in input order (NULL for an element without one):
-- its ref names it for later elements, depends_on_refs become the input positions of the earlier
-- elements they name. A ref is a non-blank string of at most 200 characters, unique in the call.
CREATE OR REPLACE FUNCTION jobq._workflow_specs(p_jobs jsonb)
RETURNS jsonb[]
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._workflow_specs(jsonb) IS
    'Private. The workflow specs of enqueue_many''s elements in input order (jobq._workflow_spec''s shape; NULL for an element without workflow fields): depends_on as given, depends_on_refs as the input positions of the earlier elements whose ref they name. Errors: JOB.UNKNOWN_REF (a ref not a non-blank string of at most 200 characters or not unique; depends_on_refs not an array or naming no element), JOB.DEPENDENCY_CYCLE (naming itself or a later element). Caller: jobq.enqueue_many.';

-- Takes the advisory lock of each sequence (store, key) given, in hash order, until the
-- transaction ends: enqueuers and the trigger that releases a sequence's next job are serialized
-- per key, and a key's jobs get their ids in the order their enqueuers took the lock.
CREATE OR REPLACE FUNCTION jobq._lock_sequences(p_store_ids uuid[], p_keys text[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pg_catalog.pg_advisory_xact_lock(1785684700, l.h)
    FROM (SELECT DISTINCT pg_catalog.hashtext(coalesce(u.s::text, '-') || '/' || u.k) AS h
          FROM unnest(p_store_ids, p_keys) AS u(s, k)
          WHERE u.k IS NOT NULL
          ORDER BY 1) AS l;
END
$$;
COMMENT ON FUNCTION jobq._lock_sequences(uuid[],text[]) IS
    'Private. Takes pg_advisory_xact_lock(1785684700, hashtext(store/key)) for every (store, sequence key) given, in hash order; held until the transaction ends. Callers: jobq._workflow_prepare (enqueue), jobq._settle_ended (the trigger).';

-- Waits until no other transaction holds the advisory lock of any sequence (store, key) given,
-- and keeps none of them: the locks are taken in a subtransaction that is rolled back at once.
-- A lock's queue is fair, so a cancel that held a sequence when its deadlock with this
-- transaction was broken (on this side) finishes first. Caller: jobq._workflow_prepare, before it
-- takes its locks again.
CREATE OR REPLACE FUNCTION jobq._await_sequences(p_store_ids uuid[], p_keys text[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM jobq._lock_sequences(p_store_ids, p_keys);
    -- JQ709 never leaves this block: it only lets the locks just taken go.
    RAISE EXCEPTION USING ERRCODE = 'JQ709', MESSAGE = 'jobq: sequences awaited';
EXCEPTION
    WHEN SQLSTATE 'JQ709' OR deadlock_detected THEN NULL;
END
$$;
COMMENT ON FUNCTION jobq._await_sequences(uuid[],text[]) IS
    'Private. Waits for every transaction holding the advisory lock of a (store, sequence key) given (jobq._lock_sequences) to end, and holds none of the locks afterwards (taken in a subtransaction rolled back at once; a deadlock while waiting is let go, the caller''s next try meets it). Caller: jobq._workflow_prepare, after PostgreSQL aborted its side of a deadlock with a cancel.';

-- Checks the workflow specs of an enqueue before any job is inserted, then locks what the insert
-- must not race: the live parents' rows (a parent finishing now waits, or has finished and is seen
-- in jobq.job_history by the next statement) and the sequences' keys (so ids follow the order of
-- enqueue per key). Caller: jobq.enqueue, jobq.enqueue_many.
CREATE OR REPLACE FUNCTION jobq._workflow_prepare(p_wf jsonb[], p_store_ids uuid[], p_job_keys text[], p_label_index boolean)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
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
$$;
COMMENT ON FUNCTION jobq._workflow_prepare(jsonb[],uuid[],text[],boolean) IS
    'Private. Before an enqueue with workflow specs inserts anything: refuses a job_key beside a workflow (JOB.WORKFLOW_KEYED), on_parent_failure other than cancel | run and on_sequence_failure other than hold | continue (JOB.INVALID_ARGUMENT), a blank sequence_key (JOB.INVALID_ARGUMENT) or one above 500 characters (JOB.VALUE_TOO_LONG), a depends_on element that is no positive id (JOB.INVALID_ARGUMENT), more than 10000 dependencies (JOB.TOO_MANY_DEPENDENCIES); then locks the live parents'' rows (FOR KEY SHARE, id order) and the sequences (jobq._lock_sequences). SECURITY DEFINER: the locks need no policy. Callers: jobq.enqueue, jobq.enqueue_many.';

-- Attaches the workflows of jobs just inserted (p_ids in input order, p_wf their specs): records
-- parents and sequence, writes the edges still waiting, blocks the jobs that must wait, and
-- cancels at once a job whose parent already ended dead or canceled (on_parent_failure cancel).
-- Parents must be jobs of the child's store, live or in jobq.job_history, and not jobs of this
-- call given by id (refs name earlier elements). Caller: jobq.enqueue, jobq.enqueue_many.
CREATE OR REPLACE FUNCTION jobq._attach_workflow(p_ids bigint[], p_wf jsonb[], p_label_index boolean)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._attach_workflow(bigint[],jsonb[],boolean) IS
    'Private. Attaches the workflow specs p_wf to the jobs p_ids just inserted (same order): refuses a parent given by id that this call inserted (JOB.DEPENDENCY_CYCLE) and a parent that is no job of the child''s store live or in jobq.job_history (JOB.DEPENDENCY_NOT_FOUND: unknown, pruned, another store''s, a system job for a store''s job and the other way round); sets depends_on, on_parent_failure, sequence_key, on_sequence_failure; marks live parents has_dependents; inserts the waiting edges (jobq.job_dependencies; a succeeded parent is satisfied at once); sets blocked what must wait; cancels at once (jobq._cancel_with_dependents) a job whose parent ended dead or canceled when it asked for cancel. SECURITY DEFINER: the caller''s store was checked by jobq._check_tenant, and parents are matched to the child''s store here. Locks the rows it writes. Callers: jobq.enqueue, jobq.enqueue_many.';

-- Whether job p_id heads its sequence: no live job of its store and key has a lower id, and no dead
-- job holds the sequence (jobq.sequence_holds).
CREATE OR REPLACE FUNCTION jobq._heads_sequence(p_id bigint, p_store_id uuid, p_key text)
RETURNS boolean
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._heads_sequence(bigint,uuid,text) IS
    'Private. Whether job p_id is the head of sequence (p_store_id, p_key): no live job of it with a lower id (jobs_sequence_idx) and no hold (jobq.sequence_holds). Callers: jobq._attach_workflow, jobq._release_blocked, jobq._holds. Locks nothing.';

-- The head of each sequence (store, key) given: its live job with the lowest id, through
-- jobs_sequence_idx; a sequence without live jobs has none.
CREATE OR REPLACE FUNCTION jobq._sequence_heads(p_store_ids uuid[], p_keys text[])
RETURNS bigint[]
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._sequence_heads(uuid[],text[]) IS
    'Private. The ids of the heads (live job with the lowest id, jobs_sequence_idx) of the sequences (p_store_ids, p_keys), one per sequence with a live job. Callers: jobq._settle_ended, jobq._unhold_sequences. Locks nothing.';

-- Cancels jobs p_ids (with p_errors naming why) and, in the same statement, every live job that
-- depends on one of them transitively and asked to be canceled with its parent: a chain 10,000
-- deep is one recursive query, and the trigger the move fires finds nothing left to cancel.
CREATE OR REPLACE FUNCTION jobq._cancel_with_dependents(p_ids bigint[], p_errors text[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._cancel_with_dependents(bigint[],text[]) IS
    'Private. Cancels the live jobs p_ids (last_error "canceled: " and p_errors) and every live job depending on them transitively with on_parent_failure cancel (one recursive query over jobq.job_dependencies), moving them to jobq.job_history as canceled (reason canceled) in one statement; their waiting edges go. A running job is left alone (it cannot have waiting edges). Locks the rows in id order. Callers: jobq._attach_workflow, jobq._settle_ended.';

-- Releases the blocked jobs among p_ids whose every edge is satisfied and that head their
-- sequence: each row is locked first (id order), and the test is a later statement, so that of
-- many transactions satisfying a child's last edges at once exactly one releases it.
CREATE OR REPLACE FUNCTION jobq._release_blocked(p_ids bigint[])
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._release_blocked(bigint[]) IS
    'Private. Returns how many it released. Moves the blocked jobs among p_ids with no waiting edge (jobq.job_dependencies) that head their sequence (jobq._heads_sequence) to queued, and wakes their queues (jobq._wake). Locks the blocked rows in id order before it tests them in a later statement (a new snapshot): of concurrent callers for one job, the last to lock sees every other''s edge gone, so the job is released exactly once. Callers: jobq._settle_ended, jobq.delete_job.';

-- What ended jobs change for the others: the waiting edges of ended children go; the children of
-- ended parents are released (succeeded, or ended for good with on_parent_failure run) or
-- canceled with their dependents (dead or canceled, cancel); a sequence whose job ended releases
-- its next job, or is held by a dead job with on_sequence_failure hold. p_ended are rows as
-- jobq.job_history holds them (a deleted live job is passed as canceled, reason deleted).
CREATE OR REPLACE FUNCTION jobq._settle_ended(p_ended jobq.job_history[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._settle_ended(jobq.job_history[]) IS
    'Private. Settles what the ended jobs p_ended change: deletes the waiting edges of ended children; for ended parents (has_dependents) cancels the dependents with on_parent_failure cancel of a dead or canceled one, transitively (jobq._cancel_with_dependents), and satisfies every other edge; for ended sequence jobs takes the sequences'' locks, records a hold for a dead one with on_sequence_failure hold (jobq.sequence_holds), and takes each sequence''s head; releases what is free (jobq._release_blocked). SECURITY DEFINER: the trigger runs it for every caller that ends a job. Callers: jobq._workflow_on_history, jobq.delete_job.';

-- The statement-level trigger on jobq.job_history: every ending path (complete, fail, cancel,
-- rescue, a skipped schedule run) inserts there. Returns at once, after one scan of the ended
-- rows and no index probe, when none of them has dependents, parents or a sequence.
CREATE OR REPLACE FUNCTION jobq._workflow_on_history()
RETURNS trigger
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._workflow_on_history() IS
    'Private. Trigger function of jobq_history_workflow (AFTER INSERT ... FOR EACH STATEMENT on jobq.job_history, transition table jobq_ended): passes the ended rows with dependents, parents or a sequence to jobq._settle_ended; returns at once when there is none. SECURITY DEFINER (search_path pinned): it acts for whichever role ended the jobs.';
DROP TRIGGER IF EXISTS jobq_history_workflow ON jobq.job_history;
CREATE TRIGGER jobq_history_workflow
    AFTER INSERT ON jobq.job_history
    REFERENCING NEW TABLE AS jobq_ended
    FOR EACH STATEMENT EXECUTE FUNCTION jobq._workflow_on_history();

-- Clears the holds of sequences whose dead job is requeued or deleted by an operator. A requeued
-- job comes back with its id, the lowest of its sequence, and runs first; a deleted one lets the
-- sequence's next job go (jobq._release_blocked).
CREATE OR REPLACE FUNCTION jobq._unhold_sequences(p_job_ids bigint[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._unhold_sequences(bigint[]) IS
    'Private. Deletes the holds (jobq.sequence_holds) of the dead jobs p_job_ids, under the sequences'' locks, and releases each sequence''s head if it is free (jobq._release_blocked). SECURITY DEFINER: retry_job runs as the gate. Callers: jobq._revive (retry_job, requeue_dead), jobq.delete_job.';

-- A job's workflow as its caller may read it (row-level security): its dependencies with their
-- states (live, finished, or pruned), its dependents, its sequence key and its place in it. What
-- jobq jobs show and the dashboard's job page list.
CREATE OR REPLACE FUNCTION jobq.job_workflow(job_id bigint)
RETURNS TABLE (relation text, other_id bigint, state text, detail text)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
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
$$;
COMMENT ON FUNCTION jobq.job_workflow(bigint) IS
    'A job''s workflow, one row each (relation, other_id, state, detail): dependency (a parent: its state live or finished, pruned when gone; detail pending or settled and the job''s on_parent_failure), dependent (a job enqueued depending on it, live or finished, with its state), sequence (detail: key, position among its live jobs and on_sequence_failure, or finished; and the hold, when a dead job holds it). No rows for a job without a workflow or one the caller cannot see. Runs as its caller (row-level security). Callers: jobq jobs show, the dashboard (package operator). Locks nothing. Errors: none.';

-- A job's parents as it was enqueued with them (depends_on), live or finished, in id order: what
-- jobq.parent_results (results, issue 35) reads. Runs as its caller (row-level security).
CREATE OR REPLACE FUNCTION jobq._parents_of(p_job_id bigint)
RETURNS SETOF bigint
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p.id
    FROM unnest(coalesce((SELECT j.depends_on FROM jobq.jobs j WHERE j.id = p_job_id),
                         (SELECT h.depends_on FROM jobq.job_history h WHERE h.id = p_job_id))) AS p(id)
    ORDER BY p.id
$$;
COMMENT ON FUNCTION jobq._parents_of(bigint) IS
    'Private. The ids of job p_job_id''s parents (its depends_on, live or in jobq.job_history), in id order; none for a job without parents or one the caller cannot see. Runs as its caller. Caller: jobq.parent_results (results). Locks nothing.';

-- The graph of the workflow a job belongs to, as its caller may read it (row-level security), for
-- the dashboard's job page to draw: the job, its parents and their parents, its dependents and
-- theirs (breadth first, one level up and one level down in turn, each level in id order), and
-- the live jobs just ahead of it and just behind it in its sequence; at most max_nodes nodes
-- (1..1000, NULL 200), truncated on every row saying that the walk was cut there. Each node's
-- parent_ids are its parents among the nodes returned: the edges, parent to child. A parent
-- pruned from the history is a node in state pruned. No rows for a job the caller cannot see.
-- Plain PL/pgSQL with one query per level: a chain 10,000 deep costs max_nodes levels, no more.
CREATE OR REPLACE FUNCTION jobq.workflow_graph(job_id bigint, max_nodes integer DEFAULT 200)
RETURNS TABLE (id bigint, task text, queue text, state text, relation text, depth integer, parent_ids bigint[],
               truncated boolean)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.workflow_graph(bigint,integer) IS
    'The graph of the workflow job job_id belongs to, one row per node (id, task, queue, state, relation, depth, parent_ids, truncated): the job (relation job, depth 0), its ancestors (depth -1 for its parents, -2 for theirs ...) and descendants (depth 1, 2 ...), breadth first a level up and a level down in turn, and the live jobs just ahead and behind it in its sequence (sequence_ahead, sequence_behind) when the walk did not reach them; at most max_nodes nodes (clamped to 1..1000; NULL 200); truncated (the same on every row) when the walk was cut at that bound. parent_ids: the node''s parents among the rows returned (edges parent to child). state is the live or latest finished state, or pruned (task and queue NULL) for a parent gone from the history. No rows for a job the caller cannot see. Runs as its caller (row-level security). Callers: the dashboard''s job page (package operator). Locks nothing. Errors: none.';
