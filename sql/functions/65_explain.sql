-- jobq engine, explain. Why a job waits: the rules that hold a job now, one row each, for the
-- operators and for the application whose store it is (issue 32).
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The rules that hold job p_id at time p_now, one row each, none when a claim of its queue may
-- take it. Each rule is the test a claim makes, through the same functions (31_claim_rules.sql:
-- jobq._rule_waiting, _rule_due, _rule_at_limit over _running_in_queue, _running_per_store,
-- _running_per_partition, _started_since, _started_per_store), stated for one job: a job that runs; one not due (scheduled, or waiting for its retry's backoff); its queue
-- paused; its queue, its store or its partition at its concurrency limit; its queue or its store at
-- its rate limit; no live worker serving its task in its queue. The order among claimable jobs
-- (priority, run_at, a fair queue's turns) holds nothing: a claim of the queue takes them in that
-- order. Caller: jobq.explain_job, after its visibility check.
CREATE OR REPLACE FUNCTION jobq._holds(p_id bigint, p_now timestamptz)
RETURNS TABLE (rule text, detail text)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._holds(bigint,timestamp with time zone) IS
    'Private. The rules that hold job p_id at time p_now, one row each (rule, detail): dependency (blocked: the parents still pending) and sequence (blocked: the job ahead of it in its sequence, or the dead job holding it) for a blocked job, nothing else listed; running (it runs; nothing else is listed), scheduled or backoff (run_at after p_now), queue_paused, queue_limit, store_limit, partition_limit (running jobs at max_running, max_running_per_store, max_running_per_partition), rate_limit, store_rate_limit (starts in jobq.claim_starts within started_per or store_started_per at max_started or max_started_per_store), not_served (no live worker serves its task in its queue: jobq._served_by_live_workers). None for a job a claim of its queue may take, or no such job. Caller: jobq.explain_job. Reads jobq.jobs, jobq.queues, jobq.claim_starts, jobq.workers; locks nothing. Errors: none.';

-- Why job job_id waits: the rules that hold it now, one row each (jobq._holds), none when a claim
-- of its queue may take it; for a finished job, one row finished. Operators and viewers see every
-- job; an application only its store's (jobq.current_store_id()): any other id, a system job's
-- among them, is JOB.NOT_FOUND, as an id that does not exist, so that nothing of another store is
-- told.
CREATE OR REPLACE FUNCTION jobq.explain_job(job_id bigint)
RETURNS TABLE (rule text, detail text)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.explain_job(bigint) IS
    'Why job job_id waits, now: one row (rule, detail) per rule that holds it (see jobq._holds: dependency, sequence, running, scheduled, backoff, queue_paused, queue_limit, store_limit, partition_limit, rate_limit, store_rate_limit, not_served), none when a claim of its queue may take it (claimable); for a job in jobq.job_history, one row finished (its state and when). EXECUTE for jobq_operator and jobq_viewer, who see every job, and jobq_app, which sees only the jobs of its store (jobq.current_store_id()). Reads jobq.jobs, jobq.job_history, jobq.queues, jobq.claim_starts, jobq.workers; locks nothing. Errors: JOB.INVALID_ARGUMENT (job_id NULL), JOB.NOT_FOUND (no such job, or one the caller does not see: another store''s, or a system job for an application).';
