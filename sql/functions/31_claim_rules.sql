-- jobq engine, the claim's rules. Each rule that can hold a waiting job is named here once: the
-- three picks (32_pick_plain, 33_pick_limited, 34_pick_fair) select with these functions, and
-- jobq.explain_job (65_explain) reports with the same ones, so that what explain_job says holds a
-- job is what a claim tests. The predicates are SQL expressions the planner inlines (the picks'
-- plans, and the indexes they use, are those of the expressions written out); the counts are
-- set-returning SQL functions, inlined into the statement that reads them.
--
-- The rules: a job is waiting (jobq._rule_waiting), due (jobq._rule_due: not scheduled, nor in
-- its retry's backoff), of a task the worker serves (jobq._rule_served); its queue not paused
-- (jobq.queues.paused, read by jobq._claim); its queue, store and partition below their
-- concurrency limits and its queue and store below their rate limits (jobq._rule_at_limit over
-- the counts below). A fair queue's turns order the claimable jobs; they hold none.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Whether a job in state p_state waits to be claimed: queued, or retry_pending (a failed attempt
-- waiting for its retry). A running job is held by its worker: it stays in jobs_claim_idx and
-- jobs_fair_idx (partial on ready, which a plain claim leaves true: no index names state), and
-- the picks step over it by this test, unless a limited queue's claim flagged it counted (ready
-- false); a blocked one (45_workflows.sql) waits for its parents or its sequence, outside those
-- indexes (ready false), so no claim reads it.
CREATE OR REPLACE FUNCTION jobq._rule_waiting(p_state text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$ SELECT p_state IN ('queued', 'retry_pending') $$;
COMMENT ON FUNCTION jobq._rule_waiting(text) IS
    'Private. p_state IN (''queued'', ''retry_pending''): the job waits for a claim (the picks test it beside ready, the predicate of jobs_claim_idx and jobs_fair_idx, which also hold the running jobs). Inlined. Callers: the picks (jobq._pick_plain, jobq._pick_limited, jobq._pick_fair), jobq.claim_passed_over.';

-- Whether a job whose run_at is p_run_at is due at p_now. A job not due is scheduled (enqueued
-- for later) or in its retry's backoff; explain_job names which.
CREATE OR REPLACE FUNCTION jobq._rule_due(p_run_at timestamptz, p_now timestamptz)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$ SELECT p_run_at <= p_now $$;
COMMENT ON FUNCTION jobq._rule_due(timestamp with time zone,timestamp with time zone) IS
    'Private. p_run_at <= p_now: the job is due (not scheduled for later, not in its retry''s backoff). Inlined. Callers: the picks, jobq.claim_passed_over, jobq._holds.';

-- Whether a worker serving the tasks p_tasks (NULL: every task) takes a job of task p_task. A job
-- of another task stays queued for a worker that serves it.
CREATE OR REPLACE FUNCTION jobq._rule_served(p_task text, p_tasks text[])
RETURNS boolean
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$ SELECT p_tasks IS NULL OR p_task = ANY (p_tasks) $$;
COMMENT ON FUNCTION jobq._rule_served(text,text[]) IS
    'Private. p_tasks IS NULL OR p_task = ANY (p_tasks): a worker serving p_tasks (NULL: every task) takes jobs of task p_task. Inlined. Callers: the picks, jobq.claim_passed_over.';

-- Whether a count p_n is at its limit p_limit (NULL: no limit): the test of every concurrency and
-- rate limit, for a queue, a store or a partition.
CREATE OR REPLACE FUNCTION jobq._rule_at_limit(p_n bigint, p_limit integer)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$ SELECT p_limit IS NOT NULL AND p_n >= p_limit $$;
COMMENT ON FUNCTION jobq._rule_at_limit(bigint,integer) IS
    'Private. p_limit IS NOT NULL AND p_n >= p_limit: a count of running jobs or starts is at its limit (NULL: none). Inlined. Callers: jobq._pick_limited, jobq._limited_counts, jobq._holds.';

-- The key a store's limits and fair turns are kept under: its id, or the zero uuid for system
-- jobs (no store), which count as one more store. The expression of jobs_fair_idx.
CREATE OR REPLACE FUNCTION jobq._store_key(p_store_id uuid)
RETURNS uuid
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$ SELECT coalesce(p_store_id, '00000000-0000-0000-0000-000000000000'::uuid) $$;
COMMENT ON FUNCTION jobq._store_key(uuid) IS
    'Private. coalesce(p_store_id, the zero uuid): the store a job counts under for store limits, fair turns and job keys (system jobs: one more store); the expression of jobs_fair_idx and jobs_job_key_idx, so a statement that names it matches them whether it is planned for its values or generically (a zero uuid held in a PL/pgSQL variable is a parameter of a generic plan, and no index expression matches it). Inlined. Callers: jobq._pick_fair, jobq._limited_counts, jobq._running_per_store, jobq._started_per_store, jobq._holds, jobq._insert_specs, jobq._enqueue_keyed.';

-- The running jobs of limited queue p_queue that its limits count: those flagged counted
-- (jobs_counted_idx), and while a limit newly set has not yet seen them flagged
-- (jobq.queues.counted_recheck) the unflagged ones too, read through jobs_claim_idx (the queue's
-- waiting jobs as well: the mark lasts until every transaction older than the limit's has ended,
-- jobq._settle_counted). No index holds only the running jobs: a claim changes no indexed
-- column (migration 00036).
CREATE OR REPLACE FUNCTION jobq._running_counted(p_queue text)
RETURNS TABLE (store_id uuid, payload jsonb)
LANGUAGE sql
STABLE
AS $$
    SELECT j.store_id, j.payload FROM jobq.jobs j WHERE j.counted AND j.queue = p_queue
    UNION ALL
    SELECT j.store_id, j.payload FROM jobq.jobs j
    WHERE j.ready AND j.queue = p_queue AND j.state = 'running' AND NOT j.counted
      AND (SELECT q.counted_recheck FROM jobq.queues q WHERE q.name = p_queue)
$$;
COMMENT ON FUNCTION jobq._running_counted(text) IS
    'Private. The running jobs of queue p_queue its limits count (store and payload of each): those flagged jobq.jobs.counted, and while jobq.queues.counted_recheck is set also the unflagged running ones, read through jobs_claim_idx. Inlined into the caller''s statement. Callers: jobq._running_in_queue, jobq._running_per_store, jobq._running_per_partition, jobq._shared_claim_room. Reads jobq.jobs and jobq.queues; locks nothing.';

-- The running jobs of queue p_queue, the count a queue's concurrency limit (max_running) holds
-- jobs by. One row.
CREATE OR REPLACE FUNCTION jobq._running_in_queue(p_queue text)
RETURNS TABLE (n bigint)
LANGUAGE sql
STABLE
AS $$
    SELECT count(*) FROM jobq._running_counted(p_queue) AS r
$$;
COMMENT ON FUNCTION jobq._running_in_queue(text) IS
    'Private. One row: the count of running jobs of queue p_queue (its max_running''s count). Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.jobs; locks nothing.';

-- The running jobs of queue p_queue per store (jobq._store_key), the counts its per-store limit
-- (max_running_per_store) holds jobs by; stores without a running job have no row.
CREATE OR REPLACE FUNCTION jobq._running_per_store(p_queue text)
RETURNS TABLE (store uuid, n bigint)
LANGUAGE sql
STABLE
AS $$
    SELECT jobq._store_key(r.store_id), count(*)
    FROM jobq._running_counted(p_queue) AS r
    GROUP BY 1
$$;
COMMENT ON FUNCTION jobq._running_per_store(text) IS
    'Private. The running jobs of queue p_queue per store key (jobq._store_key), a row per store with any (max_running_per_store''s counts). Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.jobs; locks nothing.';

-- The running jobs of queue p_queue per value of payload ->> p_key, the counts its per-partition
-- limit (max_running_per_partition) holds jobs by; a job without the field is in no partition.
CREATE OR REPLACE FUNCTION jobq._running_per_partition(p_queue text, p_key text)
RETURNS TABLE (part text, n bigint)
LANGUAGE sql
STABLE
AS $$
    SELECT r.payload ->> p_key, count(*)
    FROM jobq._running_counted(p_queue) AS r
    WHERE r.payload ->> p_key IS NOT NULL
    GROUP BY 1
$$;
COMMENT ON FUNCTION jobq._running_per_partition(text,text) IS
    'Private. The running jobs of queue p_queue per value of payload ->> p_key, a row per value with any (max_running_per_partition''s counts); jobs without the field are left out. Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.jobs; locks nothing.';

-- The starts of queue p_queue logged after p_since (jobq.claim_starts), the count its rate limit
-- (max_started in any window of started_per) holds jobs by. One row.
CREATE OR REPLACE FUNCTION jobq._started_since(p_queue text, p_since timestamptz)
RETURNS TABLE (n bigint)
LANGUAGE sql
STABLE
AS $$ SELECT count(*) FROM jobq.claim_starts s WHERE s.queue = p_queue AND s.started_at > p_since $$;
COMMENT ON FUNCTION jobq._started_since(text,timestamp with time zone) IS
    'Private. One row: the starts of queue p_queue in jobq.claim_starts after p_since (max_started''s count over the window started_per). Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.claim_starts; locks nothing.';

-- The starts of queue p_queue after p_since per store (jobq._store_key), the counts its per-store
-- rate limit (max_started_per_store in any window of store_started_per) holds jobs by.
CREATE OR REPLACE FUNCTION jobq._started_per_store(p_queue text, p_since timestamptz)
RETURNS TABLE (store uuid, n bigint)
LANGUAGE sql
STABLE
AS $$
    SELECT jobq._store_key(s.store_id), count(*)
    FROM jobq.claim_starts s WHERE s.queue = p_queue AND s.started_at > p_since
    GROUP BY 1
$$;
COMMENT ON FUNCTION jobq._started_per_store(text,timestamp with time zone) IS
    'Private. The starts of queue p_queue in jobq.claim_starts after p_since per store key (jobq._store_key), a row per store with any (max_started_per_store''s counts over the window store_started_per). Inlined into the caller''s statement. Callers: jobq._limited_counts, jobq._holds. Reads jobq.claim_starts; locks nothing.';
