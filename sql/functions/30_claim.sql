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
-- over the index entries of the jobs claimed before them (they stay in jobs_claim_idx until a
-- vacuum, and every one is read while a snapshot older than them is open). Jobs of a higher
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
REVOKE ALL ON FUNCTION jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;
GRANT EXECUTE ON FUNCTION jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[]) TO worker_runtime;

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
REVOKE ALL ON FUNCTION jobq._check_claim_tasks(text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

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
REVOKE ALL ON FUNCTION jobq._claim_queues_ok(text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

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
-- The signature before the tasks a worker serves (issue 30).
DROP FUNCTION IF EXISTS jobq._claim(text,text[],integer,interval,timestamp with time zone,integer[],timestamp with time zone[],bigint[]);

-- The claim at time p_now, so that tests can move the clock: checks the arguments against their
-- limits, then claims queue by queue with SKIP LOCKED, each queue in one pass from its head or,
-- given a position, in two: the priorities above the position's, then the jobs after the
-- position; a queue with concurrency limits from its head: a small claim far below its limits
-- shared (jobq._shared_claim_slot, jobq._shared_claim_room), any other through
-- jobq._claim_limited. A stored timeout of
-- any size gives a deadline (infinity at worst), never an error.
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
    v_paused boolean;
    v_limited boolean;
    v_fair boolean;
    v_limits_locked boolean := false;
    v_started_at timestamptz;              -- the claimed_at of a rate-limited claim's jobs
    v_ceiling integer;                     -- a limited queue's jobq._shared_claim_ceiling
    v_rated boolean;                       -- it has a rate limit
    v_shared boolean;                      -- this claim of it is shared (jobq._shared_claim_slot)
    v_own integer;                         -- jobs this transaction's shared claims took of it before
    v_take integer;                        -- the most this queue may yield to this claim
    v_n integer;
    v_lock_timeout text;                   -- the caller's lock_timeout, put back after a guarded pick
BEGIN
    -- The usual call, every argument within its limits, is told apart by one expression (no
    -- queue can be too long when all of them together are not); only another call runs the
    -- checks, which raise the catalogued error of the first argument out of its limits.
    IF p_worker_id IS NULL OR btrim(p_worker_id) = '' OR char_length(p_worker_id) > jobq._limit('worker_id')
       OR NOT jobq._claim_queues_ok(p_queues)
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
    -- Positions as the runner passes them (one per queue, each all NULL or all set, the
    -- priorities smallints) are told apart by one expression too; only others are checked.
    IF (p_after_priority IS NOT NULL OR p_after_run_at IS NOT NULL OR p_after_id IS NOT NULL)
       AND NOT coalesce(array_ndims(p_after_priority) = 1 AND array_ndims(p_after_run_at) = 1 AND array_ndims(p_after_id) = 1
                        AND cardinality(p_after_priority) = cardinality(p_queues)
                        AND cardinality(p_after_run_at) = cardinality(p_queues)
                        AND cardinality(p_after_id) = cardinality(p_queues)
                        AND array_positions(p_after_run_at, NULL) = array_positions(p_after_priority, NULL)
                        AND array_positions(p_after_id, NULL) = array_positions(p_after_priority, NULL)
                        AND -32768 <= ALL (array_remove(p_after_priority, NULL))
                        AND 32767 >= ALL (array_remove(p_after_priority, NULL)), false) THEN
        PERFORM jobq._check_claim_positions(p_queues, p_after_priority, p_after_run_at, p_after_id);
    END IF;
    -- The tasks the worker serves: NULL (every task), or a list claims can match.
    IF p_tasks IS NOT NULL
       AND NOT coalesce(array_ndims(p_tasks) = 1 AND cardinality(p_tasks) <= jobq._limit('tasks')
                        AND array_position(p_tasks, NULL) IS NULL, false) THEN
        PERFORM jobq._check_claim_tasks(p_tasks);
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
        v_queue := p_queues[v_i];
        -- A paused queue (jobq.pause_queue) is skipped from the moment the pause commits: one
        -- primary-key probe of jobq.queues per queue listed; its jobs wait where they are. The
        -- same probe tells a queue with a concurrency limit (jobq.set_concurrency_limit and its
        -- siblings), which is claimed from its head; a queue without a row or without limits goes
        -- on below as ever.
        SELECT q.paused, q.limited, q.fair,
               jobq._shared_claim_ceiling(q.max_running, q.max_running_per_store, q.max_running_per_partition),
               q.max_started IS NOT NULL OR q.max_started_per_store IS NOT NULL
        INTO v_paused, v_limited, v_fair, v_ceiling, v_rated
        FROM jobq.queues q WHERE q.name = v_queue;
        CONTINUE WHEN v_paused;
        -- A small claim of a limited queue far below its limits is shared: it holds one of the
        -- queue's slots, picks as from a queue without limits (none of them can be full), and
        -- then counts the queue's running jobs beside the other slot holders
        -- (jobq._shared_claim_room). Every other claim of a limited queue is
        -- jobq._claim_limited's, under the queue's lock alone. The first limited queue listed
        -- decides: a later one is never waited for (jobq._claim_limited).
        v_shared := false;
        v_own := 0;
        IF v_limited AND NOT v_limits_locked THEN
            -- A transaction whose shared claims took jobs of the queue before holds its lock
            -- shared until it ends: its claims of the queue stay shared (taking the lock alone
            -- would wait for the other slot holders while they may wait for it) and take one
            -- shared batch in all, so that no slot holder has more unseen claims than the
            -- ceiling leaves room for (jobq._shared_claim_taken).
            v_own := jobq._shared_claim_taken(v_queue);
            IF v_own > 0 THEN
                CONTINUE WHEN v_rated OR NOT coalesce(v_ceiling > 0, false) OR v_own >= jobq._claim_slot_batch();
                v_shared := true;
            ELSE
                v_shared := jobq._shared_claim_slot(v_queue, v_ceiling, v_rated, v_left, p_queues);
            END IF;
            v_limits_locked := v_shared;
        END IF;
        FOR v_pass IN 1 .. CASE WHEN p_after_id[v_i] IS NULL OR v_limited OR v_fair THEN 1 ELSE 2 END LOOP
            v_started_at := NULL;
            v_take := CASE WHEN v_shared THEN least(v_left, jobq._claim_slot_batch() - v_own) ELSE v_left END;
            IF v_limited AND NOT v_shared THEN
                -- The jobs the limits allow (jobq._claim_limited). The locks of every limited
                -- queue listed, taken once and in one order, so that two claims listing them in
                -- different orders cannot deadlock: by the first limited queue's claim, once it
                -- has picked its jobs.
                -- A claim that had to give up a wait (jobq._guard_picks: a pick's row wait
                -- past its short lock_timeout, or a wait PostgreSQL found in a deadlock) takes
                -- nothing from the queue: its locks and picks go back with the subtransaction.
                v_lock_timeout := coalesce(v_lock_timeout, current_setting('lock_timeout'));
                BEGIN
                    SELECT l.claim_ids, l.claim_clock INTO v_ids, v_started_at
                    FROM jobq._claim_limited(v_queue, v_left, p_now, CASE WHEN NOT v_limits_locked THEN p_queues END, p_tasks) AS l;
                    PERFORM set_config('lock_timeout', v_lock_timeout, true);
                EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
                    v_ids := NULL;
                    v_started_at := NULL;
                END;
                v_limits_locked := true;
            ELSIF v_fair THEN
                -- A fair queue without limits: its stores in turn, from its head whatever the
                -- position (jobq._pick_fair); its claims run side by side and wait for none.
                IF jobq._claim_locks_held() THEN
                    -- Guarded (jobq._guard_picks): this transaction holds a limited queue's lock.
                    v_lock_timeout := coalesce(v_lock_timeout, current_setting('lock_timeout'));
                    BEGIN
                        PERFORM jobq._guard_picks();
                        SELECT f.ids INTO v_ids
                        FROM jobq._pick_fair(v_queue, v_take, p_now, '{}', NULL, '{}', '{}', p_tasks) AS f;
                        PERFORM set_config('lock_timeout', v_lock_timeout, true);
                    EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
                        v_ids := NULL;
                    END;
                ELSE
                    SELECT f.ids INTO v_ids
                    FROM jobq._pick_fair(v_queue, v_take, p_now, '{}', NULL, '{}', '{}', p_tasks) AS f;
                END IF;
            ELSE
                IF v_pass = 1 THEN
                    -- From the head: every priority, or those above the position's.
                    v_from_priority := (-32768)::smallint;
                    v_from_run_at := '-infinity';
                    v_from_id := -9223372036854775808;
                    v_to_priority := CASE WHEN v_limited THEN 32767 ELSE coalesce(p_after_priority[v_i] - 1, 32767) END;
                ELSE
                    v_from_priority := p_after_priority[v_i]::smallint;
                    v_from_run_at := p_after_run_at[v_i];
                    v_from_id := p_after_id[v_i];
                    v_to_priority := 32767;
                END IF;
                CONTINUE WHEN v_to_priority < -32768;
                -- Picked and locked first (jobq._pick_waiting), then updated by primary key
                -- (id = ANY): two statements, so that no plan can join the other way round.
                IF jobq._claim_locks_held() THEN
                    -- Guarded (jobq._guard_picks): this transaction holds a limited queue's lock.
                    v_lock_timeout := coalesce(v_lock_timeout, current_setting('lock_timeout'));
                    BEGIN
                        PERFORM jobq._guard_picks();
                        v_ids := jobq._pick_waiting(v_queue, v_from_priority, v_from_run_at, v_from_id, v_to_priority,
                                                    v_take, p_now, p_tasks);
                        PERFORM set_config('lock_timeout', v_lock_timeout, true);
                    EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
                        v_ids := NULL;
                    END;
                ELSE
                    v_ids := jobq._pick_waiting(v_queue, v_from_priority, v_from_run_at, v_from_id, v_to_priority,
                                                v_take, p_now, p_tasks);
                END IF;
            END IF;
            CONTINUE WHEN v_ids IS NULL;
            IF v_shared THEN
                v_n := jobq._shared_claim_room(v_queue, v_ceiling, v_take);
                CONTINUE WHEN v_n = 0;
                IF v_n < cardinality(v_ids) THEN
                    -- The first v_n in claim order: a fair pick's ids come in its turns, a plain
                    -- pick's are put in (priority, run_at, id) order (the rest stay queued).
                    IF NOT v_fair THEN
                        SELECT array_agg(j.id ORDER BY j.priority, j.run_at, j.id) INTO v_ids FROM jobq.jobs j WHERE j.id = ANY (v_ids);
                    END IF;
                    v_ids := v_ids[1:v_n];
                END IF;
            END IF;
            RETURN QUERY
            UPDATE jobq.jobs j
            SET state            = 'running',
                attempt          = j.attempt + 1,
                locked_by        = p_worker_id,
                lease_token      = gen_random_uuid(),
                -- A rate-limited start is the instant its window counted (jobq._claim_limited).
                claimed_at       = coalesce(v_started_at, p_now),
                heartbeat_at     = p_now,
                lease_expires_at = jobq._ts_add(p_now, p_lease),
                -- Saturating: a timeout stored before the limits (or by hand) cannot stop the queue.
                deadline_at      = jobq._ts_add(p_now, j.timeout),
                updated_at       = p_now
            WHERE j.id = ANY (v_ids)
            RETURNING j.*;
            GET DIAGNOSTICS v_got = ROW_COUNT;
            IF v_shared AND v_got > 0 THEN
                PERFORM jobq._note_shared_claim(v_queue, v_got);
            END IF;
            v_left := v_left - v_got;
            IF v_left = 0 THEN
                RETURN;
            END IF;
        END LOOP;
    END LOOP;
END
$$;
COMMENT ON FUNCTION jobq._claim(text,text[],integer,interval,timestamp with time zone,integer[],timestamp with time zone[],bigint[],text[]) IS
    'Private. The claim implementation at time p_now, from the head of each queue or after the position given for it, of the tasks p_tasks (NULL: every task); see jobq.claim_job. Claims nothing for a registered worker that is draining or detached, nor from a paused queue (one jobq.queues primary-key probe per queue, which also tells a limited queue, claimed from its head: a claim of at most 16 jobs far below its concurrency limits is shared, taking one of its slots before its pick (jobq._shared_claim_slot), picking as from a queue without limits and then counting its running jobs under its lock shared (jobq._shared_claim_room), which keeps the first jobs of the pick the count leaves room for; any other claim of it by jobq._claim_limited, after jobq._lock_limited_queues took the advisory locks of every limited queue listed; and a fair queue: picked by jobq._pick_fair, from its head, unless jobq._claim_limited picks it). Raises JOB.CLAIM_ISOLATION under REPEATABLE READ or SERIALIZABLE. A transaction whose shared claims took jobs of a limited queue keeps to shared claims of it, one batch of 16 in all (jobq._shared_claim_taken). Locks the rows it claims (SKIP LOCKED). The deadline of a job whose stored timeout reaches past the end of time is infinity. Errors: those of jobq.claim_job and jobq._check_claim_positions.';
REVOKE ALL ON FUNCTION jobq._claim(text,text[],integer,interval,timestamp with time zone,integer[],timestamp with time zone[],bigint[],text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The pick of a claim of one queue from a position: up to p_take due waiting jobs of the tasks
-- p_tasks (NULL: every task) after (p_from_priority, p_from_run_at, p_from_id) in claim order and
-- of priority p_to_priority or lower, locked (SKIP LOCKED), their ids in claim order (NULL for
-- none). jobq._claim then updates them by primary key (id = ANY): two statements, so that no plan
-- can join the other way round. As one statement (a join of the picked rows on the key) the plan
-- cached while jobq.jobs was small walked the whole primary key for a one-job claim once a held
-- snapshot had grown the table (4,143 buffers, auto_explain). Not id = ANY (ARRAY(…)) in one
-- statement either: that took 0.75 ms for a one-job claim (docs/benchmarks.md). Runs under the
-- planner settings of its caller, jobq._claim (no sequential scan, no bitmap, generic plans).
CREATE OR REPLACE FUNCTION jobq._pick_waiting(p_queue text, p_from_priority smallint, p_from_run_at timestamptz,
                                              p_from_id bigint, p_to_priority integer, p_take integer,
                                              p_now timestamptz, p_tasks text[])
RETURNS bigint[]
LANGUAGE plpgsql
VOLATILE
AS $$
-- VOLATILE for its row locks, which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_ids bigint[];
BEGIN
    SELECT array_agg(p.id) INTO v_ids
    FROM (SELECT j.id
          FROM jobq.jobs j
          WHERE j.state IN ('queued', 'retry_pending')
            AND j.queue = p_queue
            AND (j.priority, j.run_at, j.id) > (p_from_priority, p_from_run_at, p_from_id)
            AND j.priority <= p_to_priority
            AND j.run_at <= p_now
            AND (p_tasks IS NULL OR j.task = ANY (p_tasks))
          ORDER BY j.priority, j.run_at, j.id
          LIMIT p_take
          FOR UPDATE SKIP LOCKED) AS p;
    RETURN v_ids;
END
$$;
COMMENT ON FUNCTION jobq._pick_waiting(text,smallint,timestamp with time zone,bigint,integer,integer,timestamp with time zone,text[]) IS
    'Private. Locks (FOR UPDATE SKIP LOCKED) and returns the ids of up to p_take due waiting jobs (state queued or retry_pending, run_at <= p_now) of queue p_queue and of the tasks p_tasks (NULL: every task), after (p_from_priority, p_from_run_at, p_from_id) in (priority, run_at, id) order and of priority at most p_to_priority, in that order; NULL when none. Reads jobs_claim_idx under its caller''s planner settings. Caller: jobq._claim, which updates the jobs it returns.';
REVOKE ALL ON FUNCTION jobq._pick_waiting(text,smallint,timestamp with time zone,bigint,integer,integer,timestamp with time zone,text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

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
    'Private. Sets lock_timeout to jobq._guarded_lock_timeout() for the rest of the transaction, unless it is shorter already, before a pick made while the transaction holds a limited queue''s claim lock: PostgreSQL may wait for a row lock there (a row''s update chain, which SKIP LOCKED does not cover), and such a wait could close a cycle with claims waiting for that lock. Callers: jobq._claim and jobq._claim_limited, inside a block that catches lock_not_available and deadlock_detected (the pick then takes nothing) and sets the caller''s lock_timeout back after the pick.';
REVOKE ALL ON FUNCTION jobq._guard_picks() FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

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
REVOKE ALL ON FUNCTION jobq._guarded_lock_timeout() FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- Takes, in one order (by key), the transaction-level advisory lock of every queue in p_queues
-- that has a concurrency limit: the lock under which jobq._claim_limited counts a queue's running
-- jobs and claims, so that two claims of one limited queue run one after the other and never
-- exceed a limit together. Waits for a claim of those queues in progress (never for anything
-- else: a claim holding these locks waits for no row, SKIP LOCKED). Caller: jobq._claim, at the
-- first limited queue of its list.
CREATE OR REPLACE FUNCTION jobq._lock_limited_queues(p_queues text[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- Key: (1785684593, hashtext(queue)); 1785684593 is 'jobq' in ASCII. Two queues whose names
    -- share a hash share a lock, which serialises their claims and changes nothing else.
    -- A transaction that holds a limited queue's lock from an earlier claim never waits for
    -- another (jobq._claim_locks_held): it only tries them, and jobq._claim_limited takes nothing
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
COMMENT ON FUNCTION jobq._lock_limited_queues(text[]) IS
    'Private. Takes pg_advisory_xact_lock(1785684593, hashtext(name)) for every queue of p_queues with a concurrency limit (jobq.queues.limited), in key order; held until the transaction ends. Waits for another claim holding one of them, unless the transaction already holds a limited queue''s lock (jobq._claim_locks_held): then it only tries each lock, never waiting. Notes the locks held (jobq._note_claim_locks_held).';

-- Whether this transaction holds the lock of a limited queue, shared or alone, from a claim
-- (jobq._lock_limited_queues, jobq._shared_claim_room): such a transaction never waits for
-- another queue's lock, so that two transactions claiming limited queues in different orders
-- across their claims cannot wait for each other. A transaction-local custom setting, which a
-- rolled-back subtransaction takes back with the locks it took.
CREATE OR REPLACE FUNCTION jobq._claim_locks_held()
RETURNS boolean
LANGUAGE sql
STABLE
AS $$ SELECT pg_catalog.current_setting('jobq.claim_locks_held', true) IS NOT DISTINCT FROM 'held' $$;
COMMENT ON FUNCTION jobq._claim_locks_held() IS
    'Private. True when the transaction-local setting jobq.claim_locks_held is held: a claim of this transaction took a limited queue''s advisory lock (1785684593, hashtext(queue)), shared or exclusive. Callers: jobq._lock_limited_queues, jobq._shared_claim_room, which then only try locks. Reads nothing else.';
REVOKE ALL ON FUNCTION jobq._claim_locks_held() FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- Notes, until the transaction ends, that it holds a limited queue's lock (see
-- jobq._claim_locks_held).
CREATE OR REPLACE FUNCTION jobq._note_claim_locks_held()
RETURNS void
LANGUAGE sql
VOLATILE
AS $$ SELECT pg_catalog.set_config('jobq.claim_locks_held', 'held', true); $$;
COMMENT ON FUNCTION jobq._note_claim_locks_held() IS
    'Private. Sets the transaction-local setting jobq.claim_locks_held to held. Callers: jobq._lock_limited_queues, jobq._shared_claim_room, after they took a limited queue''s lock waiting for it.';
REVOKE ALL ON FUNCTION jobq._note_claim_locks_held() FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The name of the transaction-local setting that counts the jobs this transaction's shared claims
-- took of a queue: jobq.shared_claimed_ and the queue's hashtext in hexadecimal, as the near-limit
-- note's. Two queues whose names share a hash share the count, which only makes them take less.
CREATE OR REPLACE FUNCTION jobq._shared_claim_setting(p_queue text)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$ SELECT 'jobq.shared_claimed_' || pg_catalog.to_hex(pg_catalog.hashtext(p_queue)) $$;
COMMENT ON FUNCTION jobq._shared_claim_setting(text) IS
    'Private. jobq.shared_claimed_<to_hex(hashtext(p_queue))>: the transaction-local setting counting the jobs of the queue this transaction''s shared claims took. Callers: jobq._shared_claim_taken, jobq._note_shared_claim.';
REVOKE ALL ON FUNCTION jobq._shared_claim_setting(text) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- How many jobs of p_queue this transaction's shared claims took before: each slot holder may
-- have at most one shared batch (jobq._claim_slot_batch()) that the others cannot see, which is
-- what jobq._shared_claim_ceiling leaves room for; a transaction that claims several times
-- before it commits must not take more. 0 for none.
CREATE OR REPLACE FUNCTION jobq._shared_claim_taken(p_queue text)
RETURNS integer
LANGUAGE sql
STABLE
AS $$ SELECT coalesce(nullif(pg_catalog.current_setting(jobq._shared_claim_setting(p_queue), true), '')::integer, 0) $$;
COMMENT ON FUNCTION jobq._shared_claim_taken(text) IS
    'Private. The jobs of p_queue this transaction''s shared claims took (jobq._shared_claim_setting), 0 for none. Caller: jobq._claim, which keeps a transaction with any to shared claims of the queue and to one shared batch in all.';
REVOKE ALL ON FUNCTION jobq._shared_claim_taken(text) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- Adds p_n jobs to the count of p_queue's jobs this transaction's shared claims took.
CREATE OR REPLACE FUNCTION jobq._note_shared_claim(p_queue text, p_n integer)
RETURNS void
LANGUAGE sql
VOLATILE
AS $$
    SELECT pg_catalog.set_config(jobq._shared_claim_setting(p_queue), (jobq._shared_claim_taken(p_queue) + p_n)::text, true);
$$;
COMMENT ON FUNCTION jobq._note_shared_claim(text,integer) IS
    'Private. Adds p_n to the transaction-local count of p_queue''s jobs taken by shared claims (jobq._shared_claim_setting). Caller: jobq._claim, after a shared claim''s update.';
REVOKE ALL ON FUNCTION jobq._note_shared_claim(text,integer) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;
REVOKE ALL ON FUNCTION jobq._lock_limited_queues(text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- How many claims of one limited queue may count and claim side by side, each holding one slot of
-- the queue (jobq._shared_claim_slot), and the largest batch such a claim takes: the shared claim
-- of jobq._claim. Inlined constants, here so that every user reads the same ones.
CREATE OR REPLACE FUNCTION jobq._claim_slots()
RETURNS integer
LANGUAGE sql
IMMUTABLE
AS $$ SELECT 8 $$;
COMMENT ON FUNCTION jobq._claim_slots() IS
    'Private. 8: how many claims of one limited queue may hold a slot at once (jobq._shared_claim_slot), counting and claiming side by side. Callers: jobq._shared_claim_slot, jobq._shared_claim_ceiling.';
REVOKE ALL ON FUNCTION jobq._claim_slots() FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The largest batch a claim holding a slot takes (see jobq._claim_slots).
CREATE OR REPLACE FUNCTION jobq._claim_slot_batch()
RETURNS integer
LANGUAGE sql
IMMUTABLE
AS $$ SELECT 16 $$;
COMMENT ON FUNCTION jobq._claim_slot_batch() IS
    'Private. 16: the largest batch a claim holding a slot of a limited queue takes (jobq._shared_claim_slot). Callers: jobq._shared_claim_ceiling, jobq._shared_claim_slot, jobq._claim_limited.';
REVOKE ALL ON FUNCTION jobq._claim_slot_batch() FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The slot function before it decided whether a claim may be shared (issue 18: the decision
-- moved before the pick, into jobq._claim).
DROP FUNCTION IF EXISTS jobq._take_claim_slot(text);

-- Decides, before its pick, whether a claim of p_room jobs from the limited queue p_queue is
-- shared (the shared claim, below), and if so takes one of the queue's slots for the transaction
-- without waiting: the advisory locks (1785684594 + k, hashtext(queue)) for k in 0 ..
-- jobq._claim_slots() - 1, tried from the backend's pid mod slots onwards. Only for a queue whose
-- only controls are concurrency limits high enough to share (p_ceiling, its
-- jobq._shared_claim_ceiling, positive; p_rated false), a batch within a slot's, by a claim
-- that lists no other limited queue (p_lock_queues, the claim's list),
-- unless this session's last count found the queue near its limit. Returns whether it took a slot;
-- false: the claim takes the queue's lock alone (jobq._claim_limited). Caller: jobq._claim.
CREATE OR REPLACE FUNCTION jobq._shared_claim_slot(p_queue text, p_ceiling integer, p_rated boolean, p_room integer,
                                                   p_lock_queues text[])
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._shared_claim_slot(text,integer,boolean,integer,text[]) IS
    'Private. Whether a claim of p_room jobs from the limited queue p_queue (p_ceiling its jobq._shared_claim_ceiling, p_rated whether it has a rate limit) listing p_lock_queues is shared: false when it must take the queue''s advisory lock alone (a rate limit, a concurrency limit of 112 or less, p_room above jobq._claim_slot_batch() (16), another limited queue listed, the session''s note that the queue is near its limit, jobq._near_limit_setting, or no free slot); true when it took one of the queue''s jobq._claim_slots() (8) slots, the advisory locks (1785684594 + k, hashtext(queue)), tried from pg_backend_pid() mod 8 on and kept until the transaction ends. Never waits. Caller: jobq._claim, before its pick.';
REVOKE ALL ON FUNCTION jobq._shared_claim_slot(text,integer,boolean,integer,text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The most running jobs at which a queue still has room for a shared claim: its lowest concurrency
-- limit (queue, store or partition: a store or a partition never runs more than its queue) less
-- the batches the other slot holders may take unseen, (jobq._claim_slots() - 1) ×
-- jobq._claim_slot_batch(). NULL for a queue without a concurrency limit; not positive for one
-- whose limits are too low to share. Scalar arguments, not the jobq.queues row: a function
-- whose signature names the table's row type would stop a migration down from dropping it.
-- Callers: jobq._claim (a shared claim's ceiling), jobq._claim_limited (the near-limit note).
CREATE OR REPLACE FUNCTION jobq._shared_claim_ceiling(p_max_running integer, p_max_running_per_store integer,
                                                      p_max_running_per_partition integer)
RETURNS integer
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT least(p_max_running, p_max_running_per_store, p_max_running_per_partition)
           - (jobq._claim_slots() - 1) * jobq._claim_slot_batch()
$$;
COMMENT ON FUNCTION jobq._shared_claim_ceiling(integer,integer,integer) IS
    'Private. least(max_running, max_running_per_store, max_running_per_partition) - (jobq._claim_slots() - 1) * jobq._claim_slot_batch() (112), the concurrency limits of a queue: the most running jobs at which a shared claim may still take one; NULL without a concurrency limit. Callers: jobq._claim (for jobq._shared_claim_slot and jobq._shared_claim_room), jobq._claim_limited (whether to empty the near-limit note). Reads only its arguments.';
REVOKE ALL ON FUNCTION jobq._shared_claim_ceiling(integer,integer,integer) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The name of the custom setting in which a session notes that a queue was near its limit (set to
-- near by jobq._shared_claim_room, read by jobq._shared_claim_slot, emptied by
-- jobq._claim_limited): jobq.near_limit_ and the
-- queue's hashtext in hexadecimal (not md5, which a FIPS build refuses). Two queues whose names
-- share a hash share the note, which only makes claims take the lock alone.
CREATE OR REPLACE FUNCTION jobq._near_limit_setting(p_queue text)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$ SELECT 'jobq.near_limit_' || pg_catalog.to_hex(pg_catalog.hashtext(p_queue)) $$;
COMMENT ON FUNCTION jobq._near_limit_setting(text) IS
    'Private. jobq.near_limit_<to_hex(hashtext(p_queue))>: the custom setting noting, for the session, that a claim of the queue found no room for a shared claim. Callers: jobq._shared_claim_slot, jobq._shared_claim_room, jobq._claim_limited.';
REVOKE ALL ON FUNCTION jobq._near_limit_setting(text) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The signature before the shared claim's slot was taken before its pick (jobq._shared_claim_slot).
DROP FUNCTION IF EXISTS jobq._shared_claim_room(text,integer,boolean,integer,text[]);

-- The shared claim of a limited queue (issue 18's cost). Up to jobq._claim_slots() claims of a
-- queue, each holding a slot (jobq._shared_claim_slot), count and claim side by side, so the
-- queue's running jobs may exceed what one of them counted by what the others take, each at most
-- a slot's batch: a holder takes no more than leaves the queue at its ceiling
-- (jobq._shared_claim_ceiling, p_ceiling). A claim that takes the lock alone takes the queue's
-- advisory lock exclusive, which waits for every slot holder's shared hold, so the two kinds
-- never overlap; a slot holder waits only for that lock, and only behind a claim that holds no
-- slot. Returns how many of p_room jobs the claim may take, 0 when none: the queue is then noted
-- as near its limit (jobq._near_limit_setting) until jobq._claim_limited's count under the lock
-- alone finds room for a batch again, and the session's next claims of it are not shared. A
-- wrong note only changes how a claim waits: every shared claim counts under its slot. Caller:
-- jobq._claim, holding a slot, after its pick.
CREATE OR REPLACE FUNCTION jobq._shared_claim_room(p_queue text, p_ceiling integer, p_room integer)
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
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
    SELECT count(*)::integer INTO v_running
    FROM (SELECT 1 FROM jobq.jobs j WHERE j.state = 'running' AND j.queue = p_queue LIMIT p_ceiling) AS c;
    IF v_running >= p_ceiling THEN
        PERFORM set_config(jobq._near_limit_setting(p_queue), 'near', false);
        RETURN 0;
    END IF;
    RETURN least(p_room, p_ceiling - v_running);
END
$$;
COMMENT ON FUNCTION jobq._shared_claim_room(text,integer,integer) IS
    'Private. For a shared claim of p_room jobs from the limited queue p_queue (p_ceiling its jobq._shared_claim_ceiling), holding a slot (jobq._shared_claim_slot): takes the lock (1785684593, hashtext(queue)) shared until the transaction ends, waiting for a claim that holds it alone (only trying, and returning 0 when it is held, if the transaction holds a limited queue''s lock already: jobq._claim_locks_held), counts the running jobs of the queue and returns least(p_room, ceiling - running), or 0 after setting jobq._near_limit_setting(queue) to near for the session when there is no room. Caller: jobq._claim.';
REVOKE ALL ON FUNCTION jobq._shared_claim_room(text,integer,integer) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The signature before the first pick came before the locks (issue 18).
DROP FUNCTION IF EXISTS jobq._claim_limited(text,text,integer,interval,timestamp with time zone);
-- The signature before it left the claim's update to jobq._claim (issue 18: its rows were copied
-- from one set-returning function to the other).
DROP FUNCTION IF EXISTS jobq._claim_limited(text,text,integer,interval,timestamp with time zone,text[]);
-- The signature before the tasks a worker serves (issue 30).
DROP FUNCTION IF EXISTS jobq._claim_limited(text,integer,timestamp with time zone,text[]);

-- Picks, and locks, up to p_max_jobs due jobs of one queue that has concurrency limits for
-- jobq._claim to claim (it returns their ids, and for a rate-limited queue the instant their
-- starts were logged at, which becomes their claimed_at), from the head of the queue in claim
-- order, leaving queued every job that would exceed a limit: the queue's
-- max_running, its max_running_per_store (system jobs are one more store) or its
-- max_running_per_partition (per value of payload ->> partition_key; a job without the field is
-- not limited by it), or its rate limits: max_started jobs started in any window of started_per,
-- max_started_per_store per store in any window of store_started_per (a sliding window over the
-- log jobq.claim_starts, which this function writes and prunes). A skipped job uses no attempt and
-- is claimed by a later claim once a slot is free. The concurrency limits are counts of the
-- queue's running rows (read through jobs_lease_idx), taken under the queue's advisory lock
-- (jobq._lock_limited_queues), so every way out of running frees a slot by itself and two claims
-- cannot both take the last one. Its first pick comes before the counts and, given p_lock_queues
-- (the claim's first limited queue), before it takes the advisory locks of those queues,
-- so that the claims of the queue wait for each other only while they count and update: a pick
-- reads past the index entries of the jobs claimed since the last vacuum, and outside the lock
-- claims do that side by side. A small claim of a queue far below its limits does not come here:
-- jobq._claim makes it a shared claim (jobq._shared_claim_slot), up to eight of which count and
-- claim side by side. Caller: jobq._claim, for every other claim of a limited queue.
CREATE OR REPLACE FUNCTION jobq._claim_limited(p_queue text, p_max_jobs integer, p_now timestamptz, p_lock_queues text[], p_tasks text[],
                                               OUT claim_ids bigint[], OUT claim_clock timestamptz)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
-- As jobq._claim: never a sequential scan nor a bitmap, generic plans.
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_system constant uuid := '00000000-0000-0000-0000-000000000000'::uuid;
    v_limits jobq.queues;
    v_room integer := p_max_jobs;          -- jobs this call may still claim
    v_running integer;
    v_store_counts jsonb := '{}'::jsonb;          -- running jobs per store (text of the uuid)
    v_part_counts jsonb := '{}'::jsonb;           -- running jobs per partition value
    v_full_stores uuid[] := '{}'::uuid[];          -- stores at their limit: not picked
    v_full_parts text[] := '{}'::text[];           -- partition values at their limit: not picked
    v_ids bigint[];
    v_stores uuid[];
    v_parts text[];
    v_keep bigint[];
    v_n integer;
    v_rated boolean;                       -- a rate limit is set: starts are logged
    v_clock timestamptz;                   -- the instant of this claim's starts
    v_store_starts jsonb := '{}'::jsonb;   -- starts per store in the store window
    v_full_starts uuid[];
    v_keep_stores uuid[];
    v_counted boolean := false;            -- the limits were counted (under the lock)
    v_priorities smallint[];               -- of the jobs picked, in claim order
    v_run_ats timestamptz[];
    v_after_priority smallint := (-32768)::smallint;  -- where a plain pick starts: after the last job
    v_after_run_at timestamptz := '-infinity'::timestamptz;  -- the pick before took (the head first)
    v_after_id bigint := (-9223372036854775807)::bigint - 1;
BEGIN
    -- (jobq._claim refuses REPEATABLE READ and SERIALIZABLE, and does not come here for a queue
    -- that is fair without limits: its claims run side by side, each picking with SKIP LOCKED
    -- through jobq._pick_fair.)
    SELECT * INTO v_limits FROM jobq.queues q WHERE q.name = p_queue;

    -- Pick in claim order, passing over the stores and partitions at their limit; keep of the
    -- picked jobs those that still fit (a batch may fill a store), in order; claim them. When a
    -- job did not fit, its store or partition just became full: pick again without it. Each
    -- round either fills the room, finds no more jobs, or adds a full store or partition, so
    -- the loop ends. A job picked and not kept stays queued (its lock ends with the transaction).
    -- The first pick comes before the locks and the counts, as if no limit were full.
    LOOP
        -- A transaction holding a limited queue's lock (this queue's, once counted, or another's
        -- from an earlier claim) picks guarded (jobq._guard_picks); jobq._claim, which calls this
        -- function in a block that catches the wait given up, sets the lock_timeout back.
        IF jobq._claim_locks_held() THEN
            PERFORM jobq._guard_picks();
        END IF;
        IF v_limits.fair THEN
            -- A fair queue: the stores in turn (jobq._pick_fair).
            SELECT f.ids, f.stores, f.parts INTO v_ids, v_stores, v_parts
            FROM jobq._pick_fair(p_queue, v_room, p_now, v_full_stores, v_limits.partition_key, v_full_parts,
                                 coalesce(claim_ids, '{}'), p_tasks) AS f;
        ELSE
            -- A pick again starts after the last job the pick before took: every job up to it
            -- was picked (kept, or of a store or partition full now) or held by another claim,
            -- so neither the jobs kept (waiting until jobq._claim's update) nor those of the
            -- full stores are walked again.
            SELECT array_agg(p.id ORDER BY p.priority, p.run_at, p.id),
                   array_agg(p.store ORDER BY p.priority, p.run_at, p.id),
                   array_agg(p.part ORDER BY p.priority, p.run_at, p.id),
                   array_agg(p.priority ORDER BY p.priority, p.run_at, p.id),
                   array_agg(p.run_at ORDER BY p.priority, p.run_at, p.id)
            INTO v_ids, v_stores, v_parts, v_priorities, v_run_ats
            FROM (SELECT j.id, j.priority, j.run_at, coalesce(j.store_id, v_system) AS store,
                         j.payload ->> v_limits.partition_key AS part
                  FROM jobq.jobs j
                  WHERE j.state IN ('queued', 'retry_pending')
                    AND j.queue = p_queue
                    AND (j.priority, j.run_at, j.id) > (v_after_priority, v_after_run_at, v_after_id)
                    AND j.run_at <= p_now
                    AND (p_tasks IS NULL OR j.task = ANY (p_tasks))
                    AND coalesce(j.store_id, v_system) <> ALL (v_full_stores)
                    AND (v_limits.partition_key IS NULL OR j.payload ->> v_limits.partition_key IS NULL
                         OR j.payload ->> v_limits.partition_key <> ALL (v_full_parts))
                  ORDER BY j.priority, j.run_at, j.id
                  LIMIT v_room
                  FOR UPDATE OF j SKIP LOCKED) AS p;
            v_after_priority := v_priorities[cardinality(v_priorities)];
            v_after_run_at := v_run_ats[cardinality(v_run_ats)];
            v_after_id := v_ids[cardinality(v_ids)];
        END IF;
        IF NOT v_counted THEN
            IF p_lock_queues IS NOT NULL THEN
                PERFORM jobq._lock_limited_queues(p_lock_queues);
            END IF;
            EXIT WHEN v_ids IS NULL;
            IF v_limits.limited THEN
                -- Held already when jobq._lock_limited_queues locked the queues the claim
                -- lists; a queue that became limited since is not waited for (that could
                -- deadlock): it is left to the next claim.
                IF NOT pg_try_advisory_xact_lock(1785684593, hashtext(p_queue)) THEN
                    RETURN;
                END IF;
                PERFORM jobq._note_claim_locks_held();
            END IF;
            v_rated := v_limits.max_started IS NOT NULL OR v_limits.max_started_per_store IS NOT NULL;
            IF v_rated THEN
                -- Taken under the lock, so the starts of the queue are logged in the order they
                -- happen (now() is when the transaction began, maybe before a wait for the lock);
                -- never before p_now, so that tests can move the clock forward.
                v_clock := greatest(p_now, clock_timestamp());
                DELETE FROM jobq.claim_starts AS s
                WHERE s.queue = p_queue
                  AND s.started_at <= v_clock - greatest(coalesce(v_limits.started_per, interval '0'),
                                                         coalesce(v_limits.store_started_per, interval '0'));
                IF v_limits.max_started IS NOT NULL THEN
                    SELECT count(*)::integer INTO v_n FROM jobq.claim_starts s
                    WHERE s.queue = p_queue AND s.started_at > v_clock - v_limits.started_per;
                    v_room := least(v_room, v_limits.max_started - v_n);
                END IF;
            END IF;

            -- The queue's room, and each store's and partition's running jobs, counted once per
            -- call (this statement's snapshot is taken after the lock: it sees every claim before
            -- it). With a store limit, the queue's count is the sum of the stores' (one read).
            IF v_limits.max_running_per_store IS NOT NULL THEN
                SELECT coalesce(jsonb_object_agg(c.store, c.n), '{}'),
                       coalesce(array_agg(c.store) FILTER (WHERE c.n >= v_limits.max_running_per_store), '{}'),
                       coalesce(sum(c.n), 0)::integer
                INTO v_store_counts, v_full_stores, v_running
                FROM (SELECT coalesce(j.store_id, v_system) AS store, count(*) AS n
                      FROM jobq.jobs j WHERE j.state = 'running' AND j.queue = p_queue
                      GROUP BY 1) AS c;
            END IF;
            IF v_limits.max_running IS NOT NULL THEN
                IF v_running IS NULL THEN
                    SELECT count(*)::integer INTO v_running FROM jobq.jobs j WHERE j.state = 'running' AND j.queue = p_queue;
                END IF;
                v_room := least(v_room, v_limits.max_running - v_running);
            END IF;
            IF v_limits.max_started_per_store IS NOT NULL THEN
                SELECT coalesce(jsonb_object_agg(c.store, c.n), '{}'),
                       coalesce(array_agg(c.store) FILTER (WHERE c.n >= v_limits.max_started_per_store), '{}')
                INTO v_store_starts, v_full_starts
                FROM (SELECT coalesce(s.store_id, v_system) AS store, count(*) AS n
                      FROM jobq.claim_starts s
                      WHERE s.queue = p_queue AND s.started_at > v_clock - v_limits.store_started_per
                      GROUP BY 1) AS c;
                v_full_stores := v_full_stores || v_full_starts;
            END IF;
            IF v_limits.max_running_per_partition IS NOT NULL THEN
                SELECT coalesce(jsonb_object_agg(c.part, c.n), '{}'),
                       coalesce(array_agg(c.part) FILTER (WHERE c.n >= v_limits.max_running_per_partition), '{}')
                INTO v_part_counts, v_full_parts
                FROM (SELECT j.payload ->> v_limits.partition_key AS part, count(*) AS n
                      FROM jobq.jobs j WHERE j.state = 'running' AND j.queue = p_queue
                        AND j.payload ->> v_limits.partition_key IS NOT NULL
                      GROUP BY 1) AS c;
            END IF;
            v_counted := true;
            IF p_lock_queues IS NOT NULL AND current_setting(jobq._near_limit_setting(p_queue), true) = 'near' THEN
                -- The note of jobq._shared_claim_room is taken back when the queue has room for
                -- a shared claim's batch again.
                IF v_running IS NULL THEN
                    SELECT count(*)::integer INTO v_running FROM jobq.jobs j WHERE j.state = 'running' AND j.queue = p_queue;
                END IF;
                IF jobq._shared_claim_ceiling(v_limits.max_running, v_limits.max_running_per_store,
                                              v_limits.max_running_per_partition) - v_running >= jobq._claim_slot_batch() THEN
                    PERFORM set_config(jobq._near_limit_setting(p_queue), '', false);
                END IF;
            END IF;
            IF v_room <= 0 THEN
                RETURN;
            END IF;
        END IF;
        EXIT WHEN v_ids IS NULL;

        v_keep := '{}'::bigint[];
        v_keep_stores := '{}'::uuid[];
        FOR v_i IN 1 .. cardinality(v_ids) LOOP
            -- Jobs of the first pick beyond the room the counts leave stay queued.
            EXIT WHEN cardinality(v_keep) >= v_room;
            IF v_limits.max_running_per_store IS NOT NULL THEN
                v_n := coalesce((v_store_counts ->> v_stores[v_i]::text)::integer, 0);
                CONTINUE WHEN v_n >= v_limits.max_running_per_store;
            END IF;
            IF v_limits.max_running_per_partition IS NOT NULL AND v_parts[v_i] IS NOT NULL THEN
                v_n := coalesce((v_part_counts ->> v_parts[v_i])::integer, 0);
                CONTINUE WHEN v_n >= v_limits.max_running_per_partition;
            END IF;
            IF v_limits.max_started_per_store IS NOT NULL THEN
                v_n := coalesce((v_store_starts ->> v_stores[v_i]::text)::integer, 0);
                CONTINUE WHEN v_n >= v_limits.max_started_per_store;
            END IF;
            v_keep := v_keep || v_ids[v_i];
            v_keep_stores := v_keep_stores || v_stores[v_i];
            IF v_limits.max_started_per_store IS NOT NULL THEN
                v_n := coalesce((v_store_starts ->> v_stores[v_i]::text)::integer, 0) + 1;
                v_store_starts := v_store_starts || jsonb_build_object(v_stores[v_i]::text, v_n);
                IF v_n >= v_limits.max_started_per_store THEN
                    v_full_stores := v_full_stores || v_stores[v_i];
                END IF;
            END IF;
            IF v_limits.max_running_per_store IS NOT NULL THEN
                v_n := coalesce((v_store_counts ->> v_stores[v_i]::text)::integer, 0) + 1;
                v_store_counts := v_store_counts || jsonb_build_object(v_stores[v_i]::text, v_n);
                IF v_n >= v_limits.max_running_per_store THEN
                    v_full_stores := v_full_stores || v_stores[v_i];
                END IF;
            END IF;
            IF v_limits.max_running_per_partition IS NOT NULL AND v_parts[v_i] IS NOT NULL THEN
                v_n := coalesce((v_part_counts ->> v_parts[v_i])::integer, 0) + 1;
                v_part_counts := v_part_counts || jsonb_build_object(v_parts[v_i], v_n);
                IF v_n >= v_limits.max_running_per_partition THEN
                    v_full_parts := v_full_parts || v_parts[v_i];
                END IF;
            END IF;
        END LOOP;

        IF cardinality(v_keep) > 0 THEN
            -- Kept for jobq._claim's update; a later pick of this call passes over them (they
            -- are still waiting, and locked by this transaction, which SKIP LOCKED does not skip).
            claim_ids := claim_ids || v_keep;
            v_room := v_room - cardinality(v_keep);
            IF v_rated THEN
                claim_clock := v_clock;
                INSERT INTO jobq.claim_starts (queue, store_id, started_at)
                SELECT p_queue, nullif(k.store, v_system), v_clock FROM unnest(v_keep_stores) AS k(store);
            END IF;
        END IF;
        EXIT WHEN v_room <= 0 OR cardinality(v_keep) = cardinality(v_ids);
    END LOOP;
END
$$;
COMMENT ON FUNCTION jobq._claim_limited(text,integer,timestamp with time zone,text[],text[]) IS
    'Private. The pick of a claim of one queue with concurrency limits at time p_now (see jobq._claim, which claims the jobs it returns): from the head of the queue, at most p_max_jobs due jobs of the tasks p_tasks (NULL: every task), none beyond max_running running jobs of the queue, max_running_per_store per store (NULL store: one more store) or max_running_per_partition per value of payload ->> partition_key, nor more started than max_started in any window of started_per (max_started_per_store per store in any window of store_started_per; logged in jobq.claim_starts, pruned here; such a start''s claimed_at is the instant under the lock); the jobs left over stay queued and use no attempt. Returns the jobs'' ids in claim_ids (NULL for none) and, for a rate-limited queue, that instant in claim_clock (else NULL). Counts and claims under the queue''s advisory lock (1785684593, hashtext(queue)), exclusive, and empties the session''s note that the queue is near its limit (jobq._near_limit_setting) once its count finds room for a shared claim''s batch of 16 again (a shared claim, jobq._shared_claim_slot, does not come here). Given p_lock_queues (the claim''s first limited queue), it first picks and locks its jobs (SKIP LOCKED; a fair queue''s through jobq._pick_fair) as if no limit were full, then takes the locks of every limited queue of p_lock_queues, waiting unless the transaction holds one already (jobq._lock_limited_queues), and keeps of the picked jobs those the limits allow; else it takes the queue''s lock if free and claims nothing if not. Not called under REPEATABLE READ or SERIALIZABLE (jobq._claim refuses them). Locks the rows it picks (SKIP LOCKED; a picked job not kept stays queued, its row locked until the transaction ends) and the advisory locks until the transaction ends.';
REVOKE ALL ON FUNCTION jobq._claim_limited(text,integer,timestamp with time zone,text[],text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

-- The pick of a fair queue before it returned arrays (issue 18: a set of rows cost a tuplestore
-- here and an aggregate in the caller).
DROP FUNCTION IF EXISTS jobq._fair_pick(text,integer,timestamp with time zone,uuid[],text,text[]);

-- The signature before the tasks a worker serves (issue 30).
DROP FUNCTION IF EXISTS jobq._pick_fair(text,integer,timestamp with time zone,uuid[],text,text[],bigint[]);

-- Picks and locks up to p_max_jobs due jobs of a fair queue, the stores in turn: priority by
-- priority (highest first), each priority's stores (store_id; the zero uuid for system jobs) in
-- key order from after the store the queue's last claim served last (jobq.claim_cursors),
-- wrapping round; the first job of every store, then the second of every store, and so on. A
-- store with 100,000 due jobs and ten stores with 10 each: the ten's jobs are all among the first
-- 110 picked. Cost: one probe of jobs_fair_idx per store stepped over, which reads the store's
-- first waiting entry (past the entries of the jobs claimed since the last vacuum: the walk a
-- plain claim from the head makes once), and one locking scan per round that starts at each
-- store's first entry, so neither a store's backlog nor its claimed jobs cost the other stores
-- anything more. When no other store has a waiting job in the first priority (the usual backlog
-- of a burst), that store's due jobs are taken in one locking scan, without rounds. The stores in
-- p_skip_stores, and jobs whose payload ->> p_partition_key is in
-- p_skip_parts, are passed over (their limit is full), and so are the jobs p_skip_ids (picked
-- already by the caller, which holds their locks). Rows another transaction holds are
-- skipped (SKIP LOCKED), so claims side by side take the next jobs of the same stores. Records
-- the last store picked as the queue's cursor. Callers: jobq._claim for a fair queue without
-- limits and for a shared claim of one with limits; jobq._claim_limited for any other claim of
-- one with limits, whose first pick comes before the queue's advisory lock and its picks again
-- under it.
CREATE OR REPLACE FUNCTION jobq._pick_fair(p_queue text, p_max_jobs integer, p_now timestamptz, p_skip_stores uuid[],
                                           p_partition_key text, p_skip_parts text[], p_skip_ids bigint[],
                                           p_tasks text[] DEFAULT NULL,
                                           OUT ids bigint[], OUT stores uuid[], OUT parts text[])
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
-- As jobq._claim: never a sequential scan nor a bitmap, generic plans.
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
-- The store key is spelt out as a constant in every statement: with a variable, the expression
-- would not be jobs_fair_idx's and the planner would walk jobs_claim_idx over the whole backlog.
AS $$
DECLARE
    v_room integer := p_max_jobs;
    v_cursor uuid;                         -- the store served last
    v_start uuid;                          -- the cursor as this pick found it
    v_priority smallint;                   -- the priority being served
    v_first uuid;                          -- its first store, and that store's first job:
    v_first_run timestamptz;
    v_first_id bigint;
    v_first_part text;
    v_from_cursor boolean;                 -- the round starts after the cursor, then wraps round
    v_wrapped boolean;
    v_key uuid;
    v_run timestamptz;
    v_id bigint;
    v_part text;
    v_keys uuid[];                         -- the round's stores, and where each one's jobs start
    v_runs timestamptz[];
    v_ids bigint[];
    v_next uuid;
    v_turn uuid;                           -- the cursor as this priority's turn began
    v_stepped boolean;                     -- every store of the priority has been stepped over
    v_quota integer;
    v_took record;
    v_took_ids bigint[];                   -- what a one-store round took
    v_took_parts text[];
    v_served boolean := false;             -- the first priority was served by its one store
BEGIN
    SELECT c.store_key INTO v_cursor FROM jobq.claim_cursors c WHERE c.queue = p_queue;
    v_start := v_cursor;
    -- The queue's first waiting job: the highest priority with one, its first store.
    SELECT j.priority, coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id, j.payload ->> p_partition_key
    INTO v_priority, v_first, v_first_run, v_first_id, v_first_part
    FROM jobq.jobs j
    WHERE j.state IN ('queued', 'retry_pending') AND j.queue = p_queue AND (p_tasks IS NULL OR j.task = ANY (p_tasks))
    ORDER BY j.queue, j.priority, coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id LIMIT 1;
    -- The usual pick of a queue whose backlog is one store's: no other store has a waiting job
    -- in the first priority, so every turn of it is that store's, wherever the cursor is. Its
    -- due jobs in order, as many as wanted, in one locking scan (an ARRAY keeps the scan's order),
    -- without the rounds below (issue 18: 30 µs of a claim's 210); what it leaves wanted comes
    -- from the next priorities.
    IF v_priority IS NOT NULL AND v_first_run <= p_now
       AND p_partition_key IS NULL AND v_first <> ALL (p_skip_stores)
       AND NOT EXISTS (SELECT 1 FROM jobq.jobs j
                       WHERE j.state IN ('queued', 'retry_pending') AND j.queue = p_queue AND (p_tasks IS NULL OR j.task = ANY (p_tasks)) AND j.priority = v_priority
                         AND coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid) > v_first) THEN
        v_took_ids := ARRAY(SELECT j.id
                            FROM jobq.jobs j
                            WHERE j.state IN ('queued', 'retry_pending') AND j.queue = p_queue AND (p_tasks IS NULL OR j.task = ANY (p_tasks)) AND j.priority = v_priority
                              AND coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid) = v_first
                              AND (j.run_at, j.id) >= (v_first_run, v_first_id) AND j.run_at <= p_now
                              AND j.id <> ALL (p_skip_ids)
                            ORDER BY j.queue, j.priority, coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id
                            LIMIT v_room
                            FOR UPDATE OF j SKIP LOCKED);
        IF cardinality(v_took_ids) > 0 THEN
            ids := v_took_ids;
            stores := array_fill(v_first, ARRAY[cardinality(v_took_ids)]);
            parts := array_fill(NULL::text, ARRAY[cardinality(v_took_ids)]);
            v_room := v_room - cardinality(v_took_ids);
            v_cursor := v_first;
        END IF;
        v_served := true;
    END IF;
    WHILE v_priority IS NOT NULL AND v_room > 0 LOOP
        -- The stores of this priority in turn: from after the cursor to the last store, then
        -- from the first store up to the cursor; a round at a time, at most one store per job
        -- still wanted, each store with a job that may be taken.
        v_turn := v_cursor;
        v_from_cursor := v_turn IS NOT NULL AND v_turn >= v_first;
        v_wrapped := NOT v_from_cursor;
        v_key := CASE WHEN v_from_cursor THEN v_turn END;
        v_stepped := v_served;             -- nothing more to step over in a priority served above
        v_served := false;
        WHILE NOT v_stepped AND v_room > 0 LOOP
            v_keys := '{}'; v_runs := '{}'; v_ids := '{}';
            WHILE cardinality(v_keys) < v_room LOOP
                IF v_wrapped AND v_from_cursor AND v_key >= v_turn THEN
                    v_stepped := true;
                    EXIT;
                END IF;
                IF v_key IS NULL THEN
                    v_key := v_first; v_run := v_first_run; v_id := v_first_id; v_part := v_first_part;
                ELSE
                    -- The next store's first waiting job.
                    SELECT coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id, j.payload ->> p_partition_key
                    INTO v_next, v_run, v_id, v_part
                    FROM jobq.jobs j
                    WHERE j.state IN ('queued', 'retry_pending') AND j.queue = p_queue AND (p_tasks IS NULL OR j.task = ANY (p_tasks)) AND j.priority = v_priority
                      AND coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid) > v_key
                    ORDER BY j.queue, j.priority, coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id LIMIT 1;
                    IF NOT FOUND THEN
                        IF v_wrapped THEN
                            v_stepped := true;
                            EXIT;
                        END IF;
                        v_wrapped := true;
                        v_key := NULL;
                        CONTINUE;
                    END IF;
                    v_key := v_next;
                END IF;
                -- A store whose first job is not due has none due (its jobs are in run_at order).
                CONTINUE WHEN v_run > p_now OR v_key = ANY (p_skip_stores);
                IF p_partition_key IS NOT NULL AND v_part = ANY (p_skip_parts) THEN
                    -- Its first due job outside the full partitions, if any.
                    SELECT j.run_at, j.id INTO v_run, v_id
                    FROM jobq.jobs j
                    WHERE j.state IN ('queued', 'retry_pending') AND j.queue = p_queue AND (p_tasks IS NULL OR j.task = ANY (p_tasks)) AND j.priority = v_priority
                      AND coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid) = v_key
                      AND (j.run_at, j.id) > (v_run, v_id) AND j.run_at <= p_now
                      AND (j.payload ->> p_partition_key IS NULL OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
                    ORDER BY j.queue, j.priority, coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id LIMIT 1;
                    CONTINUE WHEN NOT FOUND;
                END IF;
                v_keys := v_keys || v_key; v_runs := v_runs || v_run; v_ids := v_ids || v_id;
            END LOOP;
            -- Take the round's jobs in turn, exactly as many as wanted: room / stores of each
            -- store, one more of the first (room mod stores); rows other claims hold are skipped.
            -- A store that gave fewer has no more to give now; those that gave their whole share
            -- are served again, from after their last job, while jobs are still wanted.
            WHILE cardinality(v_keys) > 0 AND v_room > 0 LOOP
                IF cardinality(v_keys) = 1 THEN
                    -- One store in the round (no other has a due job to give now): its jobs in
                    -- order, as many as wanted, without the interleaving of the statement below.
                    -- It gives all that is wanted or all it has, either of which ends the round.
                    SELECT array_agg(h.id ORDER BY h.run_at, h.id), array_agg(h.part ORDER BY h.run_at, h.id)
                    INTO v_took_ids, v_took_parts
                    FROM (SELECT j.id, j.run_at, j.payload ->> p_partition_key AS part
                          FROM jobq.jobs j
                          WHERE j.state IN ('queued', 'retry_pending') AND j.queue = p_queue AND (p_tasks IS NULL OR j.task = ANY (p_tasks)) AND j.priority = v_priority
                            AND coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid) = v_keys[1]
                            AND (j.run_at, j.id) >= (v_runs[1], v_ids[1]) AND j.run_at <= p_now
                            AND (p_partition_key IS NULL OR j.payload ->> p_partition_key IS NULL
                                 OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
                            AND j.id <> ALL (p_skip_ids)
                          ORDER BY j.queue, j.priority, coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id
                          LIMIT v_room
                          FOR UPDATE OF j SKIP LOCKED) AS h;
                    EXIT WHEN v_took_ids IS NULL;
                    ids := ids || v_took_ids;
                    stores := stores || array_fill(v_keys[1], ARRAY[cardinality(v_took_ids)]);
                    parts := parts || v_took_parts;
                    v_room := v_room - cardinality(v_took_ids);
                    v_cursor := v_keys[1];
                    EXIT;
                END IF;
                v_quota := v_room / cardinality(v_keys);
                SELECT array_agg(t.id ORDER BY t.rn, t.pos) AS ids, array_agg(t.k ORDER BY t.rn, t.pos) AS keys,
                       array_agg(t.part ORDER BY t.rn, t.pos) AS parts,
                       array_agg(t.k ORDER BY t.pos) FILTER (WHERE t.rn = t.share) AS full_keys,
                       array_agg(t.run_at ORDER BY t.pos) FILTER (WHERE t.rn = t.share) AS full_runs,
                       array_agg(t.id + 1 ORDER BY t.pos) FILTER (WHERE t.rn = t.share) AS full_ids
                INTO v_took
                FROM (SELECT h.id, h.run_at, h.part, s.k, s.pos, s.share,
                             row_number() OVER (PARTITION BY s.pos ORDER BY h.run_at, h.id) AS rn
                      FROM (SELECT u.k, u.r, u.i, u.pos,
                                   v_quota + CASE WHEN u.pos <= v_room % cardinality(v_keys) THEN 1 ELSE 0 END AS share
                            FROM unnest(v_keys, v_runs, v_ids) WITH ORDINALITY AS u(k, r, i, pos)) AS s
                      CROSS JOIN LATERAL (
                          SELECT j.id, j.run_at, j.payload ->> p_partition_key AS part
                          FROM jobq.jobs j
                          WHERE j.state IN ('queued', 'retry_pending') AND j.queue = p_queue AND (p_tasks IS NULL OR j.task = ANY (p_tasks)) AND j.priority = v_priority
                            AND coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid) = s.k
                            AND (j.run_at, j.id) >= (s.r, s.i) AND j.run_at <= p_now
                            AND (p_partition_key IS NULL OR j.payload ->> p_partition_key IS NULL
                                 OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
                            AND j.id <> ALL (p_skip_ids)
                          ORDER BY j.queue, j.priority, coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id
                          LIMIT s.share
                          FOR UPDATE OF j SKIP LOCKED) AS h
                      WHERE s.share > 0) AS t;
                EXIT WHEN v_took.ids IS NULL;
                ids := ids || v_took.ids;
                stores := stores || v_took.keys;
                parts := parts || v_took.parts;
                v_room := v_room - cardinality(v_took.ids);
                v_cursor := v_took.keys[cardinality(v_took.keys)];
                -- From after its last job, (run_at, id + 1): this transaction holds that job's
                -- lock, which SKIP LOCKED would not skip.
                v_keys := coalesce(v_took.full_keys, '{}');
                v_runs := coalesce(v_took.full_runs, '{}');
                v_ids := coalesce(v_took.full_ids, '{}');
            END LOOP;
        END LOOP;
        EXIT WHEN v_room <= 0;
        -- This priority has nothing more to give: the next one's first store and job.
        SELECT j.priority, coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id, j.payload ->> p_partition_key
        INTO v_priority, v_first, v_first_run, v_first_id, v_first_part
        FROM jobq.jobs j
        WHERE j.state IN ('queued', 'retry_pending') AND j.queue = p_queue AND (p_tasks IS NULL OR j.task = ANY (p_tasks)) AND j.priority > v_priority
        ORDER BY j.queue, j.priority, coalesce(j.store_id, '00000000-0000-0000-0000-000000000000'::uuid), j.run_at, j.id LIMIT 1;
        IF NOT FOUND THEN
            v_priority := NULL;
        END IF;
    END LOOP;
    -- The queue's next pick serves first the stores after the one served last. A job picked
    -- and then not kept (its store or partition filled up within the batch) had its turn too.
    -- Claims of a fair queue without limits run side by side: one that finds the cursor row
    -- locked by another (which moves it) leaves it, rather than wait for that claim to commit.
    -- The row is jobq.set_fair_claiming's: a claim never inserts it, so it never waits for
    -- another claim's insert nor takes a lock out of the order of jobq._lock_limited_queues.
    IF v_cursor IS DISTINCT FROM v_start THEN
        UPDATE jobq.claim_cursors AS c SET store_key = v_cursor
        WHERE c.queue = (SELECT l.queue FROM jobq.claim_cursors l WHERE l.queue = p_queue FOR UPDATE SKIP LOCKED);
    END IF;
END
$$;
COMMENT ON FUNCTION jobq._pick_fair(text,integer,timestamp with time zone,uuid[],text,text[],bigint[],text[]) IS
    'Private. Picks and locks (SKIP LOCKED) up to p_max_jobs due waiting jobs of the fair queue p_queue at time p_now, in turn between its stores (the zero uuid for system jobs) within each priority, highest priority first: the first due job of each store, then the second of each, and so on, the stores in key order from after the store in jobq.claim_cursors, wrapping round; passing over the stores of p_skip_stores, the jobs whose payload ->> p_partition_key is in p_skip_parts, the jobs p_skip_ids and, given p_tasks, the jobs of other tasks. Returns their ids in that order (ids), each one''s store key (stores) and partition value (parts) beside it, all three NULL when it picks none; and sets the queue''s cursor to the last store picked. Reads jobs_fair_idx (one probe per store stepped over; one locking scan per round from each store''s first entry; when no other store has a waiting job in the first priority, one probe for another store and one locking scan of that store''s due jobs, without rounds); writes the queue''s jobq.claim_cursors row (inserted by jobq.set_fair_claiming) unless another claim holds it (SKIP LOCKED: never waits); inserts none. Callers: jobq._claim (a fair queue without limits, or a shared claim of one with limits); jobq._claim_limited (any other claim of one with limits: its first pick before the queue''s advisory lock, its picks again under it).';
REVOKE ALL ON FUNCTION jobq._pick_fair(text,integer,timestamp with time zone,uuid[],text,text[],bigint[],text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;

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
              WHERE j.state IN ('queued', 'retry_pending')
                AND j.queue = p.queue
                AND j.priority = p.priority::smallint
                AND (j.run_at, j.id) <= (p.run_at, p.id)
                AND j.run_at <= now()
                AND (claim_passed_over.tasks IS NULL OR j.task = ANY (claim_passed_over.tasks))));
END
$$;
COMMENT ON FUNCTION jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[],text[]) IS
    'Whether a claim_job with these positions (after_priority[i], after_run_at[i], after_id[i] for queues[i]) passes over a job: true when a queue that is neither paused nor limited (a limited queue is claimed from its head) holds a due, waiting job of its position''s priority at or before the position (given tasks, of one of them). Positions of three NULLs (and three NULL arrays) pass over nothing. Caller: the runner, once per rescan interval, beside its claims; it claims from the head when the answer is true. Reads only; locks nothing. Errors: JOB.INVALID_ARGUMENT (queues NULL, empty, multidimensional or with a NULL; positions not all NULL or one per queue, partly NULL, or a priority outside -32768..32767; tasks as for claim_job), JOB.OUT_OF_RANGE (more than 1000 queues or tasks), JOB.VALUE_TOO_LONG (a queue above 200 characters).';
REVOKE ALL ON FUNCTION jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[],text[]) FROM PUBLIC, jobq_app, jobq_app_gate, jobq_operator, worker_runtime, worker_fanout_owner;
GRANT EXECUTE ON FUNCTION jobq.claim_passed_over(text[],integer[],timestamp with time zone[],bigint[],text[]) TO worker_runtime;

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
