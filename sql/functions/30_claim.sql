-- jobq engine, claim. Claiming due jobs under a lease, queue by queue, without waiting for
-- another claimer (SKIP LOCKED).
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The signature before claim positions (issue 17).
DROP FUNCTION IF EXISTS jobq.claim_job(text,text[],integer,interval);
-- The signature before the tasks a worker serves (issue 30); callers of it resolve to the one below.
DROP FUNCTION IF EXISTS jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[]);

-- Claims up to max_jobs due jobs for worker_id from queues, in the order the queues are listed:
-- a later queue is served only when the earlier ones have no due job left. Given positions (the
-- runner passes the last (priority, run_at, id) its previous claim took in each queue), a queue is
-- claimed only after its position, so that the runner's claims do not walk, claim after claim,
-- over the index entries of the jobs claimed before them (a running job keeps its entry in
-- jobs_claim_idx, since its claim changes no indexed column, and a finished one's stays until a
-- vacuum; every one is read while a snapshot older than them is open). Jobs of a higher
-- priority than the position are claimed first, as ever. A waiting job that sorts at or before
-- the position (committed late by a long transaction, enqueued with a past run_at, a cron
-- catch-up slot, a job another claimer locked and let go) is left to the caller's next claim
-- without positions: the runner makes one whenever jobq.claim_passed_over, which it calls once
-- per rescan interval, finds such a job. A queue with a concurrency limit (docs/flow-control.md)
-- is claimed from its head whatever its position, so a job a full limit made it skip is never
-- passed over, and claims of it wait for each other. A fair queue (jobq.set_fair_claiming) is
-- claimed from its head too, its stores in turn within each priority (jobq._pick_fair). Given
-- tasks (those the worker has handlers for), a claim takes no job of another task, whatever the
-- queue: the job stays where it is for a worker that serves it.
CREATE OR REPLACE FUNCTION jobq.claim_job(
    worker_id      text,
    queues         text[]        DEFAULT ARRAY['default'],
    max_jobs       integer       DEFAULT 1,
    lease          interval      DEFAULT '30 seconds',
    after_priority integer[]     DEFAULT NULL,
    after_run_at   timestamptz[] DEFAULT NULL,
    after_id       bigint[]      DEFAULT NULL,
    tasks          text[]        DEFAULT NULL
)
RETURNS SETOF jobq.jobs
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT * FROM jobq._claim(claim_job.worker_id, claim_job.queues, claim_job.max_jobs, claim_job.lease, now(),
                                           claim_job.after_priority, claim_job.after_run_at, claim_job.after_id,
                                           claim_job.tasks);
END
$$;
COMMENT ON FUNCTION jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[]) IS
    'Claims up to max_jobs due jobs (state queued or retry_pending, run_at <= now()) for worker_id, queue by queue in the order given, each queue in (priority, run_at, id) order; a paused queue (jobq.pause_queue) is skipped. A queue with concurrency limits (jobq.set_concurrency_limit, set_store_concurrency_limit, set_partition_concurrency_limit) yields no job beyond them (the others stay queued and use no attempt), and is claimed from its head whatever its position; a transaction''s shared claims of it (batches of at most 16 far below its limits) take 16 jobs in all until it commits. A fair queue (jobq.set_fair_claiming) is claimed from its head, its stores in turn within each priority (round-robin, system jobs one more store). Every claimed job gets state running, attempt + 1, a fresh lease_token and lease_expires_at = now() + lease (deadline_at = now() + timeout). With positions (after_priority[i], after_run_at[i], after_id[i] for queues[i]), a queue yields only jobs of a higher priority than its position''s and jobs after the position in claim order; jobs at or before it are left for a claim without positions. NULL arrays, or a position of three NULLs, claim from the head. Given tasks (the tasks the worker has handlers for; NULL: every task), no job of another task is claimed, whatever its queue: it stays queued for a worker that serves it. Caller: the runner (worker_runtime), passing the last position its previous claim took in each queue, and none when jobq.claim_passed_over finds a job the positions pass over. Locks the claimed rows with SKIP LOCKED, so it never waits for another claimer, but for a claim of the same limited queue (a transaction-level advisory lock per limited queue, held until the caller''s transaction ends), and only while its transaction holds no other limited queue''s lock: then it only tries them, and its picks give up a row wait (PostgreSQL''s wait on a row''s update chain, which SKIP LOCKED does not cover) after 2 ms (jobq._guard_picks), so claims never deadlock: a wait given up, or found in a deadlock, takes nothing from that queue. Runs under READ COMMITTED only. Errors: JOB.INVALID_ARGUMENT (worker_id, queues, max_jobs outside 1..10000; positions not all NULL or one per queue, partly NULL, or a priority outside -32768..32767; tasks empty, multidimensional or with a NULL), JOB.OUT_OF_RANGE (more than 1000 tasks), JOB.LEASE_INVALID, JOB.CLAIM_ISOLATION (a REPEATABLE READ or SERIALIZABLE transaction, whose snapshot cannot see a pause or other claims committed since).';

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

-- Refuses a list of tasks a claim serves that is not NULL nor a non-empty, one-dimensional array
-- of at most 1000 names without NULLs, with the catalogued error. A name that is no declared
-- task's (one above 100 characters included) matches no job: nothing to refuse, and no check of
-- each name on the claim's path.
CREATE OR REPLACE FUNCTION jobq._check_claim_tasks(p_tasks text[])
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._check_claim_tasks(text[]) IS
    'Private. Raises JOB.INVALID_ARGUMENT (empty, multidimensional, a NULL element) or JOB.OUT_OF_RANGE (more than 1000 tasks) for a list of tasks claim_job or claim_passed_over cannot take; NULL (every task) passes, and so does a name of no declared task (it matches no job). Locks nothing.';

-- Whether a list of queues is one jobq._check_claim_queues passes: one expression, so that the
-- usual call (the runner's list) skips that check's function call; only another list is checked.
-- No queue name can be too long when all of them together are not. Inlined into its callers.
CREATE OR REPLACE FUNCTION jobq._claim_queues_ok(p_queues text[])
RETURNS boolean
LANGUAGE sql
-- Stable, not immutable: array_to_string is stable, and an immutable SQL function whose body is
-- not is never inlined (it would then cost a planned call each time).
STABLE
PARALLEL SAFE
AS $$
    SELECT coalesce(pg_catalog.array_ndims(p_queues) = 1
                    AND pg_catalog.cardinality(p_queues) <= jobq._limit('queues')
                    AND pg_catalog.array_position(p_queues, NULL) IS NULL
                    AND pg_catalog.char_length(pg_catalog.array_to_string(p_queues, '')) <= jobq._limit('queue'), false)
$$;
COMMENT ON FUNCTION jobq._claim_queues_ok(text[]) IS
    'Private. True when p_queues is a one-dimensional array of at most 1000 names without NULLs whose names together have at most 200 characters, a list jobq._check_claim_queues passes; false otherwise, never NULL, raises nothing. Inlined. Callers: jobq._claim, jobq.claim_passed_over, jobq.hold_doorbell, jobq.doorbell_quiet, jobq.release_doorbell, which call jobq._check_claim_queues only when it is false.';

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

-- Whether a claim's arguments are all within their limits, as the runner passes them: one
-- expression (inlined), so that the usual call runs no check; any other call goes through
-- jobq._check_claim_call, which raises the catalogued error of the first argument out of its
-- limits. No queue name can be too long when all of them together are not.
CREATE OR REPLACE FUNCTION jobq._claim_call_ok(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval,
                                               p_after_priority integer[], p_after_run_at timestamptz[], p_after_id bigint[],
                                               p_tasks text[])
RETURNS boolean
LANGUAGE sql
STABLE
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
COMMENT ON FUNCTION jobq._claim_call_ok(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[]) IS
    'Private. True when every argument of a claim is within its limits (those jobq._check_claim_call checks); false otherwise, never NULL, raises nothing. Inlined. Caller: jobq._claim, which calls jobq._check_claim_call only when it is false.';

-- Raises the catalogued error of the first argument of a claim out of its limits, in the order
-- of claim_job's arguments; returns for a call jobq._claim_call_ok passes.
CREATE OR REPLACE FUNCTION jobq._check_claim_call(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval,
                                                  p_after_priority integer[], p_after_run_at timestamptz[], p_after_id bigint[],
                                                  p_tasks text[])
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._check_claim_call(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[]) IS
    'Private. Raises JOB.INVALID_ARGUMENT, JOB.VALUE_TOO_LONG, JOB.OUT_OF_RANGE or JOB.LEASE_INVALID for the first argument of a claim out of its limits (worker_id, queues, max_jobs, lease, positions, tasks; see jobq.claim_job). Locks nothing. Caller: jobq._claim, when jobq._claim_call_ok is false.';

-- The signature before claim positions (issue 17).
DROP FUNCTION IF EXISTS jobq._claim(text,text[],integer,interval,timestamp with time zone);
-- The signature before the tasks a worker serves (issue 30).
DROP FUNCTION IF EXISTS jobq._claim(text,text[],integer,interval,timestamp with time zone,integer[],timestamp with time zone[],bigint[]);

-- The claim at time p_now, so that tests can move the clock. Queue by queue, in the order listed:
-- a paused queue is skipped; every other one is picked by one of three picks, each returning ids
-- of jobs it locked: a queue with concurrency or rate limits by jobq._pick_limited (or, for a
-- small claim far below its limits, shared beside up to seven others: jobq._shared_claim_slot,
-- then the plain or fair pick, then jobq._shared_claim_room), a fair queue by jobq._pick_fair, any
-- other by jobq._pick_plain from its position; then its one update leases what was picked. A pick
-- made while the transaction holds a limited queue's lock is guarded (jobq._pick_guarded).
CREATE OR REPLACE FUNCTION jobq._claim(p_worker_id text, p_queues text[], p_max_jobs integer, p_lease interval, p_now timestamptz,
                                       p_after_priority integer[] DEFAULT NULL, p_after_run_at timestamptz[] DEFAULT NULL,
                                       p_after_id bigint[] DEFAULT NULL, p_tasks text[] DEFAULT NULL)
RETURNS SETOF jobq.jobs
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
-- Never a sequential scan, nor a bitmap of the primary key: the plan cached while jobq.jobs was
-- small read every page of it once it had grown with the row versions a held snapshot keeps
-- (472 pages for a one-job claim, auto_explain). Generic plans always: with id = ANY of an
-- array the planner judged each custom plan cheaper and planned the UPDATE on every call, a
-- one-job claim 0.83 ms instead of 0.30 (pgbench). The picks run under these settings.
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
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
COMMENT ON FUNCTION jobq._claim(text,text[],integer,interval,timestamp with time zone,integer[],timestamp with time zone[],bigint[],text[]) IS
    'Private. The claim implementation at time p_now; see jobq.claim_job. Checks the arguments (jobq._claim_call_ok, jobq._check_claim_call), refuses REPEATABLE READ and SERIALIZABLE (JOB.CLAIM_ISOLATION), claims nothing for a registered worker that is draining or detached; then queue by queue in the order listed, skipping a paused queue (one jobq.queues primary-key probe each): picks with jobq._pick_limited (a queue with concurrency or rate limits; a claim of at most 16 jobs far below its concurrency limits is shared instead: jobq._shared_claim_slot before the plain or fair pick, jobq._shared_claim_room after it), jobq._pick_fair (a fair queue) or jobq._pick_plain (any other, from its position), guarded by jobq._pick_guarded while the transaction holds a limited queue''s lock, and leases the picked jobs in one update. Returns the claimed jobs queue by queue, each queue''s in claim order. Locks the rows it claims (SKIP LOCKED). Errors: those of jobq.claim_job.';

-- A pick made while the transaction holds, or may take, a limited queue's lock: the limited pick
-- always, the plain and fair picks after a limited queue of the same transaction. It runs in a
-- subtransaction under a short lock_timeout (jobq._guard_picks); a row wait given up, or one
-- PostgreSQL found in a deadlock, takes nothing from the queue (its locks and picks go back with
-- the subtransaction). The plain pick is from the head: a transaction holding a claim lock claims
-- its other queues from their heads. Caller: jobq._claim.
CREATE OR REPLACE FUNCTION jobq._pick_guarded(p_kind text, p_queue text, p_take integer, p_now timestamptz,
                                              p_lock_queues text[], p_tasks text[],
                                              OUT ids bigint[], OUT clock timestamptz)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._pick_guarded(text,text,integer,timestamp with time zone,text[],text[]) IS
    'Private. Runs the pick p_kind (limited: jobq._pick_limited, given p_lock_queues; fair: jobq._pick_fair; plain: jobq._pick_plain from the head) of up to p_take jobs of p_queue in a subtransaction, under jobq._guard_picks'' lock_timeout when the transaction holds a limited queue''s lock, and sets the caller''s lock_timeout back; a lock_not_available or deadlock_detected inside takes nothing (ids and clock NULL; the pick''s row and advisory locks go back). Returns the ids picked (NULL for none) and a rate-limited pick''s clock. Caller: jobq._claim.';

-- The claim's update was a function of its own before it went back into jobq._claim (a call
-- and a copy of the rows less per claim).
DROP FUNCTION IF EXISTS jobq._lease(bigint[],text,interval,timestamp with time zone,timestamp with time zone);

-- Bounds the row waits of the picks that follow, for a transaction that holds a limited queue's
-- lock (jobq._claim_locks_held). SKIP LOCKED skips a locked row, but not every wait: a row version
-- the pick's snapshot sees, updated by a transaction that has just committed, is locked by
-- following its update chain, and PostgreSQL waits there for whoever locks the newer version
-- (heap_lock_updated_tuple), SKIP LOCKED or not. A transaction that holds a limited queue's lock
-- and waits there can close a cycle with claims waiting for that lock (a deadlock, found after
-- deadlock_timeout). Guarded, it gives the wait up after jobq._guarded_lock_timeout() and takes
-- nothing from the queue: so a transaction that holds a claim lock never waits long for anything,
-- and no cycle through claim locks lasts. The caller sets the lock_timeout back after the pick.
CREATE OR REPLACE FUNCTION jobq._guard_picks()
RETURNS void
LANGUAGE sql
VOLATILE
AS $$
    SELECT pg_catalog.set_config('lock_timeout', jobq._guarded_lock_timeout(), true)
    WHERE pg_catalog.current_setting('lock_timeout')::interval = interval '0'
       OR pg_catalog.current_setting('lock_timeout')::interval > jobq._guarded_lock_timeout()::interval;
$$;
COMMENT ON FUNCTION jobq._guard_picks() IS
    'Private. Sets lock_timeout to jobq._guarded_lock_timeout() for the rest of the transaction, unless it is shorter already, before a pick made while the transaction holds a limited queue''s claim lock: PostgreSQL may wait for a row lock there (a row''s update chain, which SKIP LOCKED does not cover), and such a wait could close a cycle with claims waiting for that lock. Callers: jobq._claim and jobq._pick_limited, inside a block that catches lock_not_available and deadlock_detected (the pick then takes nothing) and sets the caller''s lock_timeout back after the pick.';

-- How long a guarded pick (jobq._guard_picks) waits for a row lock before it gives up: 2 ms, far
-- below any sane deadlock_timeout (1 s by default), so that a cycle through it is gone long before
-- PostgreSQL looks for one.
CREATE OR REPLACE FUNCTION jobq._guarded_lock_timeout()
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$ SELECT '2ms'::text $$;
COMMENT ON FUNCTION jobq._guarded_lock_timeout() IS
    'Private. 2ms: the lock_timeout of a pick made while the transaction holds a limited queue''s claim lock (jobq._guard_picks). Caller: jobq._guard_picks.';

-- The signature before the tasks a worker serves (issue 30).
DROP FUNCTION IF EXISTS jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[]);

-- Tells the runner whether its claims after positions passed over a job: a due, waiting job of a
-- position's priority at or before the position (committed late by a long transaction, enqueued
-- with a past run_at, a cron catch-up slot, handed back) in a queue that is not paused, which only
-- a claim from the head takes. The runner asks once per rescan interval on a connection of its own,
-- so the walk over the index entries of claimed jobs that the answer costs (the walk positioned
-- claims avoid) is never on a claim's path, and it claims from the head only when the answer is
-- yes. A queue with concurrency limits is always claimed from its head, so nothing is passed
-- over there: a job its limits hold back is not reported, claim after claim. Reads only: a job
-- another claimer is claiming still counts, at worst one claim too many.
CREATE OR REPLACE FUNCTION jobq.claim_passed_over(queues text[], after_priority integer[], after_run_at timestamptz[], after_id bigint[],
                                                  tasks text[] DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off -- the claim index always (as in jobq._claim)
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
COMMENT ON FUNCTION jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[],text[]) IS
    'Whether a claim_job with these positions (after_priority[i], after_run_at[i], after_id[i] for queues[i]) passes over a job: true when a queue that is neither paused nor limited (a limited queue is claimed from its head) holds a due, waiting job of its position''s priority at or before the position (given tasks, of one of them). Positions of three NULLs (and three NULL arrays) pass over nothing. Caller: the runner, once per rescan interval, beside its claims; it claims from the head when the answer is true. Reads only; locks nothing. Errors: JOB.INVALID_ARGUMENT (queues NULL, empty, multidimensional or with a NULL; positions not all NULL or one per queue, partly NULL, or a priority outside -32768..32767; tasks as for claim_job), JOB.OUT_OF_RANGE (more than 1000 queues or tasks), JOB.VALUE_TOO_LONG (a queue above 200 characters).';

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
COMMENT ON FUNCTION jobq.hand_back_unheld(text,uuid[]) IS
    'Hands back the jobs whose claim answer worker_id lost: every job running under worker_id, claimed since its current registration (jobq.workers.started_at), whose lease token is not in lease_tokens (the tokens the caller holds) goes back to the queue now (state queued, run_at now(), attempt not used) and its queue''s runners are woken. Jobs of other workers, and jobs whose token the caller passes, are untouched; a detached, lost or stopped worker hands back nothing. Returns the jobs handed back. Caller: the runner, before its next claim after a failed one (never while one of its claims is in flight). Locks the jobs it hands back (SKIP LOCKED) and the worker row (FOR SHARE). Errors: JOB.INVALID_ARGUMENT (worker_id NULL or empty, lease_tokens NULL), JOB.VALUE_TOO_LONG (worker_id), JOB.OUT_OF_RANGE (more than 10000 tokens), JOB.UNKNOWN_WORKER (not registered).';
