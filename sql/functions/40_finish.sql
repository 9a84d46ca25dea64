-- jobq engine, finish. What a runner does with a claimed job: heartbeat, complete, fail or snooze
-- it, each fenced by the job's lease token.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Renews one lease. A thin form of heartbeat_jobs that raises instead of returning nothing.
CREATE OR REPLACE FUNCTION jobq.heartbeat(worker_id text, job_id bigint, lease_token uuid, lease interval DEFAULT '30 seconds')
RETURNS timestamptz
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.heartbeat(text,bigint,uuid,interval) IS
    'Renews one lease and returns its new expiry. Caller: runners and tests. Locks the job row. Errors: JOB.LEASE_LOST (the lease is gone), JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id).';

-- Renews the leases a runner still holds, all in one statement, and tells it which it lost: a job
-- missing from the result was rescued, canceled or finished, and its handler must stop.
-- Caller: the runner, once per heartbeat interval.
CREATE OR REPLACE FUNCTION jobq.heartbeat_jobs(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval DEFAULT '30 seconds')
RETURNS TABLE (job_id bigint, lease_expires_at timestamptz)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.heartbeat_jobs(text,bigint[],uuid[],interval) IS
    'Renews, in one statement, every lease in (job_ids, lease_tokens) that worker_id still holds: lease_expires_at = now() + lease, except that a CONFIRMING lease (jobq.detach_worker) keeps its confirmation deadline until jobq.confirm_continuation. Returns the renewed jobs; a job missing from the result has lost its lease (rescued, canceled, finished) and its handler must stop. Caller: the runner, once per heartbeat interval. Locks the renewed rows. Errors: JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT (worker_id NULL or blank, array lengths), JOB.VALUE_TOO_LONG (worker_id).';

-- Records what a running attempt's handler reports of its progress, a JSON object, fenced by
-- the lease token: a zombie (a worker whose job was rescued, canceled or finished) writes nothing.
-- The latest report wins; the attempt's row in jobq.job_attempts or the job's history row keeps
-- the last one. Bounded (jobq._limit('progress_bytes')) so that a handler cannot bloat the
-- queue's hottest table. In a tenant transaction (app.current_store_id set), only a job of that
-- store. Caller: the runner, for its handlers.
CREATE OR REPLACE FUNCTION jobq.set_progress(job_id bigint, lease_token uuid, progress jsonb)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.set_progress(bigint,uuid,jsonb) IS
    'Sets the running attempt''s progress (jobq.jobs.progress) to a JSON object of at most 65536 bytes as text; the last one is kept with the attempt (jobq.job_attempts.progress, jobq.job_history.progress). Fenced by the lease token: writes nothing unless the job runs under it. Inside a tenant transaction (app.current_store_id set), only a job of the session''s store. Caller: the runner, for its handlers. Locks the job row. Errors: JOB.INVALID_ARGUMENT (NULL id or token; progress NULL or not an object), JOB.VALUE_TOO_LONG (above 65536 bytes), JOB.LEASE_LOST (not running under this token), JOB.TENANT_MISMATCH (another store''s job or a system job in a tenant transaction).';

-- complete_job took two arguments before the result (a two-argument call still resolves to the
-- new signature through its default).
DROP FUNCTION IF EXISTS jobq.complete_job(bigint,uuid);

-- Completes one attempt, with the handler's result if it gave one; raises JOB.LEASE_LOST or
-- JOB.RESULT_TOO_LARGE instead of reporting them.
CREATE OR REPLACE FUNCTION jobq.complete_job(job_id bigint, lease_token uuid, result jsonb DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.complete_job(bigint,uuid,jsonb) IS
    'Completes one attempt (the job moves to history as succeeded), keeping result (any JSON value, NULL for none) in jobq.job_history.result. Caller: runners, tests, a handler''s own transaction. Errors: JOB.LEASE_LOST when the job is not running under lease_token, JOB.RESULT_TOO_LARGE when result is above setting max_result_bytes as JSON text (nothing changes in either case).';

-- complete_jobs took two arguments before outputs, log_refs and exit_codes, and five before
-- results (a call of two to five arguments still resolves to the new signature through its
-- defaults).
DROP FUNCTION IF EXISTS jobq.complete_jobs(bigint[],uuid[]);
DROP FUNCTION IF EXISTS jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[]);

-- Completes many attempts in one statement: each job still running under its lease token moves to
-- history as succeeded, with what its attempt left behind (the tail of its output, where its logs
-- are, a command's exit status, its progress and the leader epoch of now), as a failed attempt's
-- jobq.job_attempts row keeps them, and the result its handler returned. A result above setting
-- max_result_bytes leaves its job running (outcome result_too_large) and the others complete.
-- Idempotent per lease, so a runner may repeat a call whose reply it lost. Caller: the runner.
CREATE OR REPLACE FUNCTION jobq.complete_jobs(job_ids bigint[], lease_tokens uuid[], outputs text[] DEFAULT NULL,
                                              log_refs text[] DEFAULT NULL, exit_codes integer[] DEFAULT NULL,
                                              results jsonb[] DEFAULT NULL)
RETURNS TABLE (job_id bigint, outcome text)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- The pairs' rows are read by key and joined to the pairs by hash, whatever the statistics say:
-- no sequential scan or bitmap (the plan cached while jobq.jobs was small read all of it once it
-- had grown; a bitmap of jobs_lease_idx read every running row), no nested loop (over a batch
-- it compared every pair with every row).
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_nestloop = off
SET plan_cache_mode = force_generic_plan -- planned once, not on every call (as in jobq._claim)
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
COMMENT ON FUNCTION jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[],jsonb[]) IS
    'Completes many attempts in one statement. Returns one row per input lease, in input order: outcome succeeded (moved to jobq.job_history now, or earlier under the same token: completing is idempotent per lease), result_too_large (results[i] is above setting max_result_bytes as JSON text; nothing changed, the job still runs under its lease) or lease_lost (not running under that token: rescued, canceled or finished otherwise; nothing changed). The history row keeps results[i] (any JSON value; NULL for none) in jobq.job_history.result. The history row keeps the attempt''s output (the last 16384 characters of outputs[i]), log_ref (the first 1000 characters of log_refs[i]; NULL when none is given: jobq.default_log_ref, which jobq.job_list shows in its place), exit_code (exit_codes[i]), its progress and leader_epoch (jobq.leader.epoch now); the four arrays are NULL or as long as job_ids. Caller: the runner. Locks (in id order) and deletes the completed rows. Errors: JOB.INVALID_ARGUMENT (array lengths differ), JOB.OUT_OF_RANGE (more than 10000 jobs).';

-- Fails one attempt; raises JOB.LEASE_LOST instead of reporting it. Returns the job's new state.
CREATE OR REPLACE FUNCTION jobq.fail_job(
    job_id     bigint,
    lease_token uuid,
    error      text,
    error_code text     DEFAULT NULL,
    retryable  boolean  DEFAULT true,
    retry_in   interval DEFAULT NULL
)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.fail_job(bigint,uuid,text,text,boolean,interval) IS
    'Fails one attempt and returns the job''s new state: retry_pending or dead. Caller: runners, tests. Errors: JOB.LEASE_LOST (nothing changes), JOB.INVALID_ARGUMENT.';

-- fail_jobs took six arguments before reasons, outputs and log_refs, and nine before exit_codes
-- (a six- or nine-argument call still resolves to the new signature through its defaults);
-- _fail_attempts took nine before p_exit_codes.
DROP FUNCTION IF EXISTS jobq.fail_jobs(bigint[],uuid[],text[],text[],boolean[],interval[]);
DROP FUNCTION IF EXISTS jobq.fail_jobs(bigint[],uuid[],text[],text[],boolean[],interval[],text[],text[],text[]);
DROP FUNCTION IF EXISTS jobq._fail_attempts(timestamp with time zone,bigint[],text[],text[],boolean[],interval[],text[],text[],text[]);

-- The fail-or-retry transition, written once: at time p_now each job of p_ids (running, its
-- lease matched and its row locked by the caller) fails its attempt. It dies, moved to
-- jobq.job_history, when p_retryable[i] is false or it used max_attempts; else it waits for its
-- retry, after p_retry_in[i] or, when that is NULL, its backoff (jobq._retry_at: saturating, so no
-- stored backoff makes it raise). p_reasons[i] says why the attempt failed (error, timed_out,
-- orphaned, detached); a dead job's reason is not_retryable, exhausted (for error) or that reason.
-- Each failed attempt is one jobq.job_attempts row, with the job's progress, p_exit_codes[i] and
-- the leader epoch of now; a job keeps its newest 25, and a retried job starts its next attempt
-- without progress. Callers:
-- jobq.fail_jobs (a handler's failure) and jobq._rescue (the sweeper's), which differ only in how
-- they find and lock the jobs.
CREATE OR REPLACE FUNCTION jobq._fail_attempts(p_now timestamptz, p_ids bigint[], p_errors text[], p_codes text[],
                                               p_retryable boolean[], p_retry_in interval[], p_reasons text[],
                                               p_outputs text[], p_log_refs text[], p_exit_codes integer[] DEFAULT NULL)
RETURNS TABLE (job_id bigint, outcome text, run_at timestamptz, reason text, task text, queue text, store_id uuid,
               attempt integer, locked_by text)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq._fail_attempts(timestamp with time zone,bigint[],text[],text[],boolean[],interval[],text[],text[],text[],integer[]) IS
    'Private. The fail-or-retry transition at time p_now of the running jobs p_ids, whose rows the caller locked after matching their leases: each dies (jobq.job_history, reason not_retryable when p_retryable[i] is false, exhausted for a reason of error, else p_reasons[i]) when not retryable or out of attempts, else becomes retry_pending at p_now + p_retry_in[i] or after its backoff (jobq._retry_at) with reason p_reasons[i] (NULL: error), last_error p_errors[i] and error_code p_codes[i]. Each is also one jobq.job_attempts row (ended_at p_now, output p_outputs[i], log_ref p_log_refs[i] (NULL for none: jobq.default_log_ref, which jobq.job_attempt_list and jobq.job_list show in its place), the job''s progress, exit_code p_exit_codes[i], leader_epoch jobq.leader.epoch now), and a dead job''s history row holds the same; a job keeps its newest 25, and a retried job''s progress is cleared. NULL arrays count as all NULL (retryable: true). Returns one row per job changed, with its outcome (dead or retry_pending), the retry''s run_at, its reason, task, queue, store, attempt and worker. Callers: jobq.fail_jobs, jobq._rescue.';

-- Fails many attempts in one statement: each job is retried after its backoff (or retry_in),
-- or dies when it is not retryable or used its attempts (jobq._fail_attempts, the one
-- fail-or-retry transition). Each attempt row keeps why it failed (error, or timed_out for a
-- handler stopped by its timeout), the tail of its output and where its logs are. Caller: the
-- runner.
CREATE OR REPLACE FUNCTION jobq.fail_jobs(
    job_ids      bigint[],
    lease_tokens uuid[],
    errors       text[],
    error_codes  text[]     DEFAULT NULL,
    retryable    boolean[]  DEFAULT NULL,
    retry_in     interval[] DEFAULT NULL,
    reasons      text[]     DEFAULT NULL,
    outputs      text[]     DEFAULT NULL,
    log_refs     text[]     DEFAULT NULL,
    exit_codes   integer[]  DEFAULT NULL
)
RETURNS TABLE (job_id bigint, outcome text, run_at timestamptz)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.fail_jobs(bigint[],uuid[],text[],text[],boolean[],interval[],text[],text[],text[],integer[]) IS
    'Fails many attempts in one statement. Returns one row per input lease, in input order: outcome retry_pending (with the new run_at = now() + retry_in[i] or backoff_delay(attempt, backoff_base, backoff_max)), dead (moved to jobq.job_history; reason not_retryable, timed_out or exhausted) or lease_lost (nothing changed; also for a NULL id or token). errors[i] is kept as last_error (first 10,000 characters); a NULL retryable[i] counts as true, a NULL retry_in[i] as the backoff. reasons[i] is error (NULL) or timed_out (the handler was stopped by the job''s timeout): the job''s reason when retried, and a dead job''s reason unless not_retryable. Each failed lease is also one jobq.job_attempts row (worker, claimed_at as started_at, now() as ended_at, reason error, timed_out, not_retryable or exhausted, the error and code, output = the last 16384 characters of outputs[i], log_ref = the first 1000 characters of log_refs[i] (NULL when none is given: jobq.default_log_ref, which jobq.job_attempt_list and jobq.job_list show in its place), exit_code = exit_codes[i], the job''s progress and the leader epoch of now; a dead job''s history row holds the same); a job keeps its newest 25 and a retried job starts its next attempt without progress (the transition is jobq._fail_attempts, shared with the sweeper). Caller: the runner. Locks the failed rows, in id order. Errors: JOB.INVALID_ARGUMENT (array lengths, a reason other than error or timed_out), JOB.LEASE_INVALID (negative retry_in), JOB.OUT_OF_RANGE (more than 10000 jobs, retry_in above 365 days), JOB.VALUE_TOO_LONG (an error code above 200 characters).';

-- Snoozes one job; raises JOB.LEASE_LOST instead of reporting it.
CREATE OR REPLACE FUNCTION jobq.snooze(job_id bigint, lease_token uuid, delay interval)
RETURNS timestamptz
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.snooze(bigint,uuid,interval) IS
    'Returns one running job to the queue after delay without counting the attempt; returns the new run_at. Errors: JOB.LEASE_LOST, JOB.LEASE_INVALID (negative delay).';

-- Hands running jobs back to the queue after a delay without counting the attempt: for handlers
-- that snooze, and for a runner that gives its jobs back at shutdown. Caller: the runner.
CREATE OR REPLACE FUNCTION jobq.snooze_jobs(job_ids bigint[], lease_tokens uuid[], delay interval DEFAULT '0 seconds')
RETURNS TABLE (job_id bigint, outcome text, run_at timestamptz)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
COMMENT ON FUNCTION jobq.snooze_jobs(bigint[],uuid[],interval) IS
    'Returns running jobs to the queue (state queued, run_at = now() + delay) without counting the attempt; a zero delay wakes the queue''s runners. One row per input lease, in order: queued (with run_at) or lease_lost. Callers: the runner (snoozing handlers; handing jobs back at shutdown). Locks the rows. Errors: JOB.LEASE_INVALID (negative delay), JOB.INVALID_ARGUMENT.';
