-- jobq engine, claim. Claiming due jobs under a lease, queue by queue, without waiting for
-- another claimer (SKIP LOCKED).
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The signature before claim positions (issue 17).
DROP FUNCTION IF EXISTS jobq.claim_job(text,text[],integer,interval);

-- Claims up to max_jobs due jobs for worker_id from queues, in the order the queues are listed:
-- a later queue is served only when the earlier ones have no due job left. Given positions (the
-- runner passes the last (priority, run_at, id) its previous claim took in each queue), a queue is
-- claimed only after its position, so that the runner's claims do not walk, claim after claim,
-- over the index entries of the jobs claimed before them (they stay in jobs_claim_idx until a
-- vacuum, and every one is read while a snapshot older than them is open). Jobs of a higher
-- priority than the position are claimed first, as ever. A waiting job that sorts at or before
-- the position (committed late by a long transaction, enqueued with a past run_at, a cron
-- catch-up slot, a job another claimer locked and let go) is left to the caller's next claim
-- without positions: the runner makes one whenever jobq.claim_passed_over, which it calls once
-- per rescan interval, finds such a job.
CREATE OR REPLACE FUNCTION jobq.claim_job(
    worker_id      text,
    queues         text[]        DEFAULT ARRAY['default'],
    max_jobs       integer       DEFAULT 1,
    lease          interval      DEFAULT '30 seconds',
    after_priority integer[]     DEFAULT NULL,
    after_run_at   timestamptz[] DEFAULT NULL,
    after_id       bigint[]      DEFAULT NULL
)
RETURNS SETOF jobq.jobs
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT * FROM jobq._claim(claim_job.worker_id, claim_job.queues, claim_job.max_jobs, claim_job.lease, now(),
                                           claim_job.after_priority, claim_job.after_run_at, claim_job.after_id);
END
$$;
COMMENT ON FUNCTION jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[]) IS
    'Claims up to max_jobs due jobs (state queued or retry_pending, run_at <= now()) for worker_id, queue by queue in the order given, each queue in (priority, run_at, id) order; a paused queue (jobq.pause_queue) is skipped. Every claimed job gets state running, attempt + 1, a fresh lease_token and lease_expires_at = now() + lease (deadline_at = now() + timeout). With positions (after_priority[i], after_run_at[i], after_id[i] for queues[i]), a queue yields only jobs of a higher priority than its position''s and jobs after the position in claim order; jobs at or before it are left for a claim without positions. NULL arrays, or a position of three NULLs, claim from the head. Caller: the runner (worker_runtime), passing the last position its previous claim took in each queue, and none when jobq.claim_passed_over finds a job the positions pass over. Locks the claimed rows with SKIP LOCKED, so it never waits for another claimer. Errors: JOB.INVALID_ARGUMENT (worker_id, queues, max_jobs outside 1..10000; positions not all NULL or one per queue, partly NULL, or a priority outside -32768..32767), JOB.LEASE_INVALID.';
REVOKE ALL ON FUNCTION jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;
GRANT EXECUTE ON FUNCTION jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[]) TO worker_runtime;

-- Refuses a list of queues to claim from that is not a non-empty, one-dimensional array of at
-- most 1000 names without NULLs, each at most 200 characters, with the catalogued error.
CREATE OR REPLACE FUNCTION jobq._check_claim_queues(p_queues text[])
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._check_claim_queues(text[]) IS
    'Private. Raises JOB.INVALID_ARGUMENT (NULL, empty, multidimensional, a NULL element), JOB.OUT_OF_RANGE (more than 1000 queues) or JOB.VALUE_TOO_LONG (a name above 200 characters, by position) for a list of queues claim_job or claim_passed_over cannot take. Locks nothing.';
REVOKE ALL ON FUNCTION jobq._check_claim_queues(text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- Refuses positions that do not fit the queues they are for, with the catalogued error: the three
-- arrays all NULL or all one-dimensional with one element per queue, each position all NULL or
-- all set, each priority a smallint.
CREATE OR REPLACE FUNCTION jobq._check_claim_positions(p_queues text[], p_priority integer[], p_run_at timestamptz[], p_id bigint[])
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._check_claim_positions(text[],integer[],timestamp with time zone[],bigint[]) IS
    'Private. Raises JOB.INVALID_ARGUMENT unless the claim positions are all NULL, or one per queue, each all NULL or all set with a priority in -32768..32767. Locks nothing.';
REVOKE ALL ON FUNCTION jobq._check_claim_positions(text[],integer[],timestamp with time zone[],bigint[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The signature before claim positions (issue 17).
DROP FUNCTION IF EXISTS jobq._claim(text,text[],integer,interval,timestamp with time zone);

-- The claim at time p_now, so that tests can move the clock: checks the arguments against their
-- limits, then claims queue by queue with SKIP LOCKED, each queue in one pass from its head or,
-- given a position, in two: the priorities above the position's, then the jobs after the
-- position. A stored timeout of any size gives a deadline (infinity at worst), never an error.
CREATE OR REPLACE FUNCTION jobq._claim(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_now timestamptz,
                                       p_after_priority integer[] DEFAULT NULL, p_after_run_at timestamptz[] DEFAULT NULL,
                                       p_after_id bigint[] DEFAULT NULL)
RETURNS SETOF jobq.jobs
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
-- Never a sequential scan, nor a bitmap of the primary key: the plan cached while jobq.jobs was
-- small read every page of it once it had grown with the row versions a held snapshot keeps
-- (472 pages for a one-job claim, auto_explain). Generic plans always: with id = ANY of an
-- array the planner judged each custom plan cheaper and planned the UPDATE on every call, a
-- one-job claim 0.83 ms instead of 0.30 (pgbench).
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_queue text;
    v_left integer := p_max_jobs;
    v_got integer;
    -- Each pass claims the jobs after (v_from_priority, v_from_run_at, v_from_id) in claim
    -- order, up to priority v_to_priority; the first position sorts before every job.
    v_from_priority smallint;
    v_from_run_at timestamptz;
    v_from_id bigint;
    v_to_priority integer;
    v_ids bigint[];
BEGIN
    -- The usual call, every argument within its limits, is told apart by one expression (no
    -- queue can be too long when all of them together are not); only another call runs the
    -- checks, which raise the catalogued error of the first argument out of its limits.
    IF p_worker_id IS NULL OR btrim(p_worker_id) = '' OR char_length(p_worker_id) > jobq._limit('worker_id')
       OR p_queues IS NULL OR array_ndims(p_queues) IS DISTINCT FROM 1 OR cardinality(p_queues) > jobq._limit('queues')
       OR array_position(p_queues, NULL) IS NOT NULL
       OR char_length(array_to_string(p_queues, '')) > jobq._limit('queue')
       OR p_max_jobs IS NULL OR p_max_jobs < 1 OR p_max_jobs > jobq._limit('batch')
       OR p_lease IS NULL OR p_lease <= interval '0' OR p_lease > jobq._limit_interval('lease') THEN
        IF p_worker_id IS NULL OR btrim(p_worker_id) = '' THEN
            PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id is NULL or empty');
        END IF;
        PERFORM jobq._check_text('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
        PERFORM jobq._check_claim_queues(p_queues);
        IF p_max_jobs IS NULL OR p_max_jobs < 1 OR p_max_jobs > jobq._limit('batch') THEN
            PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('max_jobs %s is outside 1..%s', coalesce(p_max_jobs::text, 'NULL'), jobq._limit('batch')));
        END IF;
        PERFORM jobq._check_lease(p_lease);
    END IF;
    IF p_after_priority IS NOT NULL OR p_after_run_at IS NOT NULL OR p_after_id IS NOT NULL THEN
        PERFORM jobq._check_claim_positions(p_queues, p_after_priority, p_after_run_at, p_after_id);
    END IF;
    -- A registered worker that an operator drained or detached claims nothing, from the moment
    -- of the drain or detach (not only from its next heartbeat).
    IF EXISTS (SELECT 1 FROM jobq.workers w WHERE w.id = p_worker_id AND w.state IN ('draining', 'detached')) THEN
        RETURN;
    END IF;

    FOR v_i IN 1 .. cardinality(p_queues) LOOP
        v_queue := p_queues[v_i];
        -- A paused queue (jobq.pause_queue) is skipped from the moment the pause commits: one
        -- primary-key probe of jobq.queues per queue listed; its jobs wait where they are.
        CONTINUE WHEN EXISTS (SELECT 1 FROM jobq.queues q WHERE q.name = v_queue AND q.paused);
        FOR v_pass IN 1 .. CASE WHEN p_after_id[v_i] IS NULL THEN 1 ELSE 2 END LOOP
            IF v_pass = 1 THEN
                -- From the head: every priority, or those above the position's.
                v_from_priority := (-32768)::smallint;
                v_from_run_at := '-infinity';
                v_from_id := -9223372036854775808;
                v_to_priority := coalesce(p_after_priority[v_i] - 1, 32767);
            ELSE
                v_from_priority := p_after_priority[v_i]::smallint;
                v_from_run_at := p_after_run_at[v_i];
                v_from_id := p_after_id[v_i];
                v_to_priority := 32767;
            END IF;
            CONTINUE WHEN v_to_priority < -32768;
            -- Picked and locked first, then updated by primary key (id = ANY): two statements,
            -- so that no plan can join the other way round. As one statement (a join of the
            -- picked rows on the key) the plan cached while jobq.jobs was small walked the
            -- whole primary key for a one-job claim once a held snapshot had grown the table
            -- (4,143 buffers, auto_explain). Not id = ANY (ARRAY(…)) in one statement either:
            -- that took 0.75 ms for a one-job claim (docs/benchmarks.md).
            SELECT array_agg(p.id) INTO v_ids
            FROM (SELECT j.id
                  FROM jobq.jobs j
                  WHERE j.state IN ('queued', 'retry_pending')
                    AND j.queue = v_queue
                    AND (j.priority, j.run_at, j.id) > (v_from_priority, v_from_run_at, v_from_id)
                    AND j.priority <= v_to_priority
                    AND j.run_at <= p_now
                  ORDER BY j.priority, j.run_at, j.id
                  LIMIT v_left
                  FOR UPDATE SKIP LOCKED) AS p;
            CONTINUE WHEN v_ids IS NULL;
            RETURN QUERY
            UPDATE jobq.jobs j
            SET state            = 'running',
                attempt          = j.attempt + 1,
                locked_by        = p_worker_id,
                lease_token      = gen_random_uuid(),
                claimed_at       = p_now,
                heartbeat_at     = p_now,
                lease_expires_at = jobq._ts_add(p_now, p_lease),
                -- Saturating: a timeout stored before the limits (or by hand) cannot stop the queue.
                deadline_at      = jobq._ts_add(p_now, j.timeout),
                updated_at       = p_now
            WHERE j.id = ANY (v_ids)
            RETURNING j.*;
            GET DIAGNOSTICS v_got = ROW_COUNT;
            v_left := v_left - v_got;
            IF v_left = 0 THEN
                RETURN;
            END IF;
        END LOOP;
    END LOOP;
END
$$;
COMMENT ON FUNCTION jobq._claim(text,text[],integer,interval,timestamp with time zone,integer[],timestamp with time zone[],bigint[]) IS
    'Private. The claim implementation at time p_now, from the head of each queue or after the position given for it; see jobq.claim_job. Claims nothing for a registered worker that is draining or detached, nor from a paused queue (one jobq.queues primary-key probe per queue). Locks the rows it claims (SKIP LOCKED). The deadline of a job whose stored timeout reaches past the end of time is infinity. Errors: those of jobq.claim_job and jobq._check_claim_positions.';
REVOKE ALL ON FUNCTION jobq._claim(text,text[],integer,interval,timestamp with time zone,integer[],timestamp with time zone[],bigint[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- Tells the runner whether its claims after positions passed over a job: a due, waiting job of a
-- position's priority at or before the position (committed late by a long transaction, enqueued
-- with a past run_at, a cron catch-up slot, handed back) in a queue that is not paused, which only
-- a claim from the head takes. The runner asks once per rescan interval on a connection of its own,
-- so the walk over the index entries of claimed jobs that the answer costs (the walk positioned
-- claims avoid) is never on a claim's path, and it claims from the head only when the answer is
-- yes. Reads only: a job another claimer is claiming still counts, at worst one claim too many.
CREATE OR REPLACE FUNCTION jobq.claim_passed_over(queues text[], after_priority integer[], after_run_at timestamptz[], after_id bigint[])
RETURNS boolean
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off -- the claim index always (as in jobq._claim)
AS $$
BEGIN
    PERFORM jobq._check_claim_queues(claim_passed_over.queues);
    PERFORM jobq._check_claim_positions(claim_passed_over.queues, claim_passed_over.after_priority,
                                        claim_passed_over.after_run_at, claim_passed_over.after_id);
    RETURN EXISTS (
        SELECT 1
        FROM unnest(claim_passed_over.queues, claim_passed_over.after_priority, claim_passed_over.after_run_at,
                    claim_passed_over.after_id) AS p(queue, priority, run_at, id)
        WHERE p.id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM jobq.queues q WHERE q.name = p.queue AND q.paused)
          AND EXISTS (
              SELECT 1
              FROM jobq.jobs j
              WHERE j.state IN ('queued', 'retry_pending')
                AND j.queue = p.queue
                AND j.priority = p.priority::smallint
                AND (j.run_at, j.id) <= (p.run_at, p.id)
                AND j.run_at <= now()));
END
$$;
COMMENT ON FUNCTION jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[]) IS
    'Whether a claim_job with these positions (after_priority[i], after_run_at[i], after_id[i] for queues[i]) passes over a job: true when a queue that is not paused holds a due, waiting job of its position''s priority at or before the position. Positions of three NULLs (and three NULL arrays) pass over nothing. Caller: the runner, once per rescan interval, beside its claims; it claims from the head when the answer is true. Reads only; locks nothing. Errors: JOB.INVALID_ARGUMENT (queues NULL, empty, multidimensional or with a NULL; positions not all NULL or one per queue, partly NULL, or a priority outside -32768..32767), JOB.OUT_OF_RANGE (more than 1000 queues), JOB.VALUE_TOO_LONG (a queue above 200 characters).';
REVOKE ALL ON FUNCTION jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;
GRANT EXECUTE ON FUNCTION jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[]) TO worker_runtime;

-- A claim whose answer never reached its worker (the connection broke after the commit) leaves
-- jobs running under that worker with tokens it never saw; they would wait out the whole lease.
-- The worker hands them back on its next claim after a failed one: every job running under its
-- id, claimed since its current registration, whose token is not among those it holds, goes back
-- to the queue at once without using an attempt. Caller: the runner.
CREATE OR REPLACE FUNCTION jobq.hand_back_unheld(worker_id text, lease_tokens uuid[])
RETURNS TABLE (job_id bigint, task text, queue text)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_worker jobq.workers;
BEGIN
    IF hand_back_unheld.worker_id IS NULL OR btrim(hand_back_unheld.worker_id) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id is NULL or empty');
    END IF;
    PERFORM jobq._check_text('worker_id', hand_back_unheld.worker_id, jobq._limit('worker_id')::integer);
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
        WHERE j.locked_by = hand_back_unheld.worker_id
          AND j.state = 'running'
          AND j.claimed_at >= v_worker.started_at
          AND j.lease_token <> ALL (coalesce(array_remove(hand_back_unheld.lease_tokens, NULL), '{}'))
        ORDER BY j.id
        FOR UPDATE SKIP LOCKED
    ), back AS (
        UPDATE jobq.jobs AS j
        SET state            = 'queued',
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
COMMENT ON FUNCTION jobq.hand_back_unheld(text,uuid[]) IS
    'Hands back the jobs whose claim answer worker_id lost: every job running under worker_id, claimed since its current registration (jobq.workers.started_at), whose lease token is not in lease_tokens (the tokens the caller holds) goes back to the queue now (state queued, run_at now(), attempt not used) and its queue''s runners are woken. Jobs of other workers, and jobs whose token the caller passes, are untouched; a detached, lost or stopped worker hands back nothing. Returns the jobs handed back. Caller: the runner, before its next claim after a failed one (never while one of its claims is in flight). Locks the jobs it hands back (SKIP LOCKED) and the worker row (FOR SHARE). Errors: JOB.INVALID_ARGUMENT (worker_id NULL or empty, lease_tokens NULL), JOB.VALUE_TOO_LONG (worker_id), JOB.OUT_OF_RANGE (more than 10000 tokens), JOB.UNKNOWN_WORKER (not registered).';
REVOKE ALL ON FUNCTION jobq.hand_back_unheld(text,uuid[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;
GRANT EXECUTE ON FUNCTION jobq.hand_back_unheld(text,uuid[]) TO worker_runtime;
