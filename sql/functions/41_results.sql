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

-- The done doorbell's probe, by a transaction that ends jobs: whether it may stay silent (no
-- client awaits a result). A NOTIFY makes PostgreSQL serialise the commits of every notifying
-- transaction (one lock of the whole database from before the commit until after its record is
-- flushed), so completions of all workers would queue behind each other for jobs nobody waits
-- for; jobq_done is therefore sent only while an awaiter holds the done doorbell. Two advisory
-- locks, key 0: class 1785790468 "an awaiter waits" (B, the doorbell, held shared for the session
-- by jobq.hold_done_doorbell) and class 1785790467 "a silent end is in flight" (A). Here: B tried
-- exclusively, without waiting; held by someone (an awaiter): not silent. Got it: A taken shared
-- until the transaction ends while B is still held, then B let go: silent. An awaiter that holds B
-- checks that nobody holds A (jobq.done_quiet): a transaction that probed before B was held still
-- holds A until after its commit is visible, so once A is free the awaiter's next read sees every
-- end that did not notify. B is tried before A, not after as the enqueue's doorbell does
-- (jobq._doorbell_silent): a notifying end then holds nothing, and done_quiet waits only for the
-- silent ends begun before the doorbell was held, never for the stream of ends that notify. Nobody
-- ever waits for A or B: every attempt here and in the awaiters is a try. One CASE, so that the
-- planner inlines it and the order of the calls is fixed.
CREATE OR REPLACE FUNCTION jobq._done_silent()
RETURNS boolean
LANGUAGE sql
VOLATILE
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
COMMENT ON FUNCTION jobq._done_silent() IS
    'Private. The done doorbell''s probe: tries the advisory lock (1785790468, 0) exclusively and, when it got it, takes (1785790467, 0) shared until the transaction ends, then lets (1785790468, 0) go. True (silent: no client awaits a result) when both were taken; false when (1785790468, 0) is held by an awaiter (jobq.hold_done_doorbell) or (1785790467, 0) by a session checking jobq.done_quiet. Never waits; inlined. Caller: jobq._tell_done.';

-- Tells waiting clients that the jobs p_ids ended: one notification on channel jobq_done per id,
-- its payload the id alone (no store, no payload: a listener of any store learns only that some id
-- ended and reads it with jobq.job_result, under its own rights), but only while a client awaits a
-- result (holds the done doorbell: jobq._done_silent); otherwise nothing. PostgreSQL delivers them
-- at the commit, so a rolled-back end tells nobody. The one sender of jobq_done. Callers:
-- jobq._notify_done (every job that reaches jobq.job_history), jobq.delete_job (a live job deleted).
CREATE OR REPLACE FUNCTION jobq._tell_done(p_ids bigint[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- A statement that ended no job probes nothing: it holds no lock an awaiter would wait out.
    IF coalesce(cardinality(p_ids), 0) = 0 OR jobq._done_silent() THEN
        RETURN;
    END IF;
    PERFORM pg_catalog.pg_notify('jobq_done', x::text) FROM unnest(p_ids) AS x;
END
$$;
COMMENT ON FUNCTION jobq._tell_done(bigint[]) IS
    'Private. NOTIFY jobq_done once per id of p_ids, the id as the payload (delivered at the commit), while a client awaits a result (holds the done doorbell, jobq.hold_done_doorbell); nothing otherwise (jobq._done_silent, which takes the advisory lock (1785790467, 0) shared until the transaction ends when silent), and nothing for an empty or NULL p_ids. Callers: jobq._notify_done, jobq.delete_job. Raises nothing.';

-- A client that awaits a result holds the done doorbell while it waits, so that every end of a
-- job NOTIFYs jobq_done (jobq._tell_done). The lock is session-level and shared: the awaiter holds
-- it on the connection it LISTENs on (after its LISTEN took effect), so it goes when that
-- connection goes. Never waiting: it fails only while an end probes the doorbell (microseconds),
-- and then the awaiter tries again. Each success is one more hold, undone by one
-- jobq.release_done_doorbell.
CREATE OR REPLACE FUNCTION jobq.hold_done_doorbell()
RETURNS boolean
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.pg_try_advisory_lock_shared(1785790468, 0)
$$;
COMMENT ON FUNCTION jobq.hold_done_doorbell() IS
    'Takes the done doorbell (the session advisory lock (1785790468, 0), shared) without waiting and reports whether it did: false only while a transaction that ends jobs probes it. Held, every end of a job NOTIFYs jobq_done (jobq._tell_done); it stays held until jobq.release_done_doorbell or the end of the session. Caller: the await helpers of the clients, after LISTEN jobq_done: then they wait for jobq.done_quiet before they read the job. EXECUTE for worker_runtime, jobq_app, jobq_operator and jobq_viewer (who may call jobq.job_result). Raises nothing.';

-- Whether no end of a job that stayed silent is in flight: a transaction that probed the done
-- doorbell before the awaiter held it, and so will not notify, holds lock A until after its
-- commit is visible. When this says true after jobq.hold_done_doorbell, the awaiter's next read
-- sees every end that did not notify; when it says false, the awaiter asks again a little later.
CREATE OR REPLACE FUNCTION jobq.done_quiet()
RETURNS boolean
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN pg_catalog.pg_try_advisory_lock(1785790467, 0) THEN pg_catalog.pg_advisory_unlock(1785790467, 0)
        ELSE false
    END
$$;
COMMENT ON FUNCTION jobq.done_quiet() IS
    'Reports whether no transaction that ended jobs without notifying (no done doorbell held when it probed, jobq._done_silent) is in flight: tries the advisory lock (1785790467, 0) exclusively and lets it go at once; never waits. Caller: the await helpers of the clients, after jobq.hold_done_doorbell. EXECUTE for worker_runtime, jobq_app, jobq_operator and jobq_viewer. Raises nothing.';

-- An awaiter that is done (the job ended, its timeout, an error) lets go of the done doorbell it
-- holds, so that ends stop notifying once nobody waits: one hold, as jobq.hold_done_doorbell took
-- it. It reports whether the session held one.
CREATE OR REPLACE FUNCTION jobq.release_done_doorbell()
RETURNS boolean
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.pg_advisory_unlock_shared(1785790468, 0)
$$;
COMMENT ON FUNCTION jobq.release_done_doorbell() IS
    'Lets go of one hold of the done doorbell (jobq.hold_done_doorbell): once no session holds it, ends of jobs stop notifying jobq_done. Returns whether this session held one (false, with PostgreSQL''s warning that you don''t own a lock, otherwise). Caller: the await helpers of the clients, before their connection goes back to its pool or their caller, on every way out. EXECUTE for worker_runtime, jobq_app, jobq_operator and jobq_viewer. Raises nothing.';

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
    'Private. Statement-level AFTER INSERT trigger of jobq.job_history (job_history_notify_done): jobq._tell_done of the inserted rows'' job ids (NOTIFY jobq_done, delivered at the commit, while a client holds the done doorbell). Raises nothing.';

DROP TRIGGER IF EXISTS job_history_notify_done ON jobq.job_history;
CREATE TRIGGER job_history_notify_done
    AFTER INSERT ON jobq.job_history
    REFERENCING NEW TABLE AS jobq_ended
    FOR EACH STATEMENT EXECUTE FUNCTION jobq._notify_done();
