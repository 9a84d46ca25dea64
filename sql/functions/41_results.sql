-- jobq engine, results. What a succeeded job returned, who may read it, and the notification that
-- tells a waiting client a job has ended (issue 35, item 2). complete_job and complete_jobs
-- (40_finish.sql) write the result into the job's jobq.job_history row; this file reads it.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Whether the caller may read the result of a job of store p_store_id (NULL: a system job).
-- Operators and viewers read every job; a worker (worker_runtime) every job outside a tenant
-- transaction and only its store's inside one; an application only its store's
-- (jobq.current_store_id()), never a system job. Callers: jobq.job_result, jobq.parent_results.
CREATE OR REPLACE FUNCTION jobq._result_visible(p_store_id uuid)
RETURNS boolean
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._caller_sees_every_store()
        OR (NOT jobq._caller_is_restricted()
            AND nullif(pg_catalog.current_setting('app.current_store_id', true), '') IS NULL)
        OR coalesce(p_store_id = jobq.current_store_id(), false)
$$;
COMMENT ON FUNCTION jobq._result_visible(uuid) IS
    'Private. Whether the caller may read a job of store p_store_id (NULL: a system job) and its result: operators and viewers every job; worker_runtime and jobq_migrator every job outside a tenant transaction (app.current_store_id unset) and only the session store''s inside one; an application only the jobs of jobq.current_store_id(). Callers: jobq.job_result, jobq.parent_results. Locks nothing.';

-- What is known of job p_id, with its store for the visibility check: the live job's state (no
-- result, no finish yet), else its latest history row's state, result and finish time; no row
-- when neither exists (never enqueued, or pruned). Inlined into its callers.
-- Callers: jobq.job_result, jobq.parent_results.
CREATE OR REPLACE FUNCTION jobq._job_outcome(p_id bigint)
RETURNS TABLE (store_id uuid, state text, result jsonb, finished_at timestamptz)
LANGUAGE sql
STABLE
AS $$
    SELECT j.store_id, j.state, NULL::jsonb, NULL::timestamptz FROM jobq.jobs j WHERE j.id = p_id
    UNION ALL
    (SELECT h.store_id, h.state, h.result, h.finished_at FROM jobq.job_history h
     WHERE h.id = p_id AND NOT EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.id = p_id)
     ORDER BY h.finished_at DESC LIMIT 1)
$$;
COMMENT ON FUNCTION jobq._job_outcome(bigint) IS
    'Private. One row (store_id, state, result, finished_at) for job p_id: the live job''s store and state (result and finished_at NULL), else its latest jobq.job_history row''s; none when neither exists. Callers: jobq.job_result, jobq.parent_results. Locks nothing.';

-- The state and result of one job while the job or its history row lives: a live job's state
-- with no result yet; a finished one's state, the result its succeeded attempt returned (NULL
-- when none) and when it finished. A job the caller may not see (another store's, a system job
-- for an application) is JOB.NOT_FOUND, as an id that does not exist, so nothing of another store
-- is told. The await helpers of the clients read it after each jobq_done notification.
CREATE OR REPLACE FUNCTION jobq.job_result(job_id bigint)
RETURNS TABLE (state text, result jsonb, finished_at timestamptz)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.job_result(bigint) IS
    'One row (state, result, finished_at) for job job_id: a live job''s state (queued, running, retry_pending ...) with result and finished_at NULL; a finished job''s state (succeeded, dead, canceled), the result its succeeded attempt gave jobq.complete_job (any JSON value; NULL when none) and when it finished. EXECUTE for jobq_app (its store''s jobs only: jobq.current_store_id()), worker_runtime (every job, the session store''s only in a tenant transaction), jobq_operator and jobq_viewer (every job). Reads jobq.jobs and jobq.job_history; locks nothing. Errors: JOB.INVALID_ARGUMENT (job_id NULL), JOB.NOT_FOUND (no such job, its history row pruned, or one the caller may not see: another store''s, a system job for an application).';

-- The parents of job job_id (the jobs it was enqueued depending on) with their state and result,
-- so that a fan-in's handler reads what its parents returned. The child is checked as
-- jobq.job_result checks a job; each parent is of the child's store by construction and is
-- checked again. A parent whose history row was pruned is listed with state and result NULL.
CREATE OR REPLACE FUNCTION jobq.parent_results(job_id bigint)
RETURNS TABLE (parent_id bigint, state text, result jsonb)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.parent_results(bigint) IS
    'The parents of job job_id (jobq._parents_of), one row each in id order: parent_id, its state (live, or finished from jobq.job_history; NULL when its history row was pruned) and the result its succeeded attempt returned (NULL when none or not finished). Visibility as jobq.job_result: EXECUTE for worker_runtime, jobq_app (its store''s jobs only), jobq_operator and jobq_viewer. Reads jobq.jobs and jobq.job_history; locks nothing. Errors: JOB.INVALID_ARGUMENT (job_id NULL), JOB.NOT_FOUND (no such job, or one the caller may not see).';

-- Tells waiting clients that the jobs p_ids ended: one notification on channel jobq_done per id,
-- its payload the id alone (no store, no payload: a listener of any store learns only that some id
-- ended and reads it with jobq.job_result, under its own rights). PostgreSQL delivers them at the
-- commit, so a rolled-back end tells nobody. The one sender of jobq_done. Callers:
-- jobq._notify_done (every job that reaches jobq.job_history), jobq.delete_job (a live job deleted).
CREATE OR REPLACE FUNCTION jobq._tell_done(p_ids bigint[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pg_catalog.pg_notify('jobq_done', x::text) FROM unnest(p_ids) AS x;
END
$$;
COMMENT ON FUNCTION jobq._tell_done(bigint[]) IS
    'Private. NOTIFY jobq_done once per id of p_ids, the id as the payload (delivered at the commit). Callers: jobq._notify_done, jobq.delete_job. Locks nothing; raises nothing.';

-- Tells waiting clients that jobs ended (jobq._tell_done): every job that left jobq.jobs for
-- jobq.job_history in the statement (succeeded, dead or canceled). One statement-level trigger over
-- the transition table: every ending path (complete_jobs, the fail/retry transition, cancel, a
-- replaced schedule run) inserts into history, so none can forget it.
CREATE OR REPLACE FUNCTION jobq._notify_done()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM jobq._tell_done(ARRAY(SELECT e.id FROM jobq_ended e));
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION jobq._notify_done() IS
    'Private. Statement-level AFTER INSERT trigger of jobq.job_history (job_history_notify_done): jobq._tell_done of the inserted rows'' job ids (NOTIFY jobq_done, delivered at the commit). Locks nothing; raises nothing.';

DROP TRIGGER IF EXISTS job_history_notify_done ON jobq.job_history;
CREATE TRIGGER job_history_notify_done
    AFTER INSERT ON jobq.job_history
    REFERENCING NEW TABLE AS jobq_ended
    FOR EACH STATEMENT EXECUTE FUNCTION jobq._notify_done();
