-- jobq engine, rescue. The sweeper and retention: jobs whose lease expired or whose timeout passed
-- go back to the queue (or die), and history past its retention is pruned.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Sweeps one batch of running jobs whose worker vanished (lease expired) or whose timeout passed,
-- so that they run again or die, and reports each for logs and alerts. Callers: the Go client,
-- operators, pg_cron; jobq.maintain sweeps through jobq._rescue.
CREATE OR REPLACE FUNCTION jobq.rescue_expired(batch_size integer DEFAULT 1000)
RETURNS TABLE (job_id bigint, outcome text, reason text, task text, queue text, store_id uuid, attempt integer, locked_by text)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF rescue_expired.batch_size > jobq._limit('sweep') THEN
        PERFORM jobq._check_int('batch_size', rescue_expired.batch_size, 1, jobq._limit('sweep'));
    END IF;
    RETURN QUERY SELECT * FROM jobq._rescue(rescue_expired.batch_size, now());
END
$$;
COMMENT ON FUNCTION jobq.rescue_expired(integer) IS
    'Sweeps at most batch_size running jobs whose lease expired (reason orphaned: back to the queue at once; reason detached for a job of a detached worker that did not confirm its continuation by its deadline, see jobq.detach_worker) or whose timeout passed (reason timed_out: back after its backoff); a job that used max_attempts becomes dead instead. The old lease token stops working, so the vanished worker''s late writes are refused. Returns one row per job (outcome retry_pending or dead). Callers: the runners'' leader, jobq.maintain, pg_cron. Locks the swept rows with SKIP LOCKED. Each row also names the job''s task, queue, store, attempt and the worker that lost it, for logs and alerts. Errors: JOB.INVALID_ARGUMENT (batch_size NULL or below 1), JOB.OUT_OF_RANGE (batch_size above 100000).';

-- The sweeper at time p_now: expired leases go back to the queue (orphaned), passed timeouts
-- after their backoff (timed_out), exhausted jobs die, all through the one fail-or-retry
-- transition (jobq._fail_attempts). Callers: jobq.rescue_expired, jobq._maintain,
-- jobq._release_worker_leases.
CREATE OR REPLACE FUNCTION jobq._rescue(p_batch_size integer, p_now timestamptz)
RETURNS TABLE (job_id bigint, outcome text, reason text, task text, queue text, store_id uuid, attempt integer, locked_by text)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_ids bigint[];
    v_reasons text[];
    v_errors text[];
    v_retry_in interval[];
BEGIN
    IF p_batch_size IS NULL OR p_batch_size < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('batch_size %s must be at least 1', coalesce(p_batch_size::text, 'NULL')));
    END IF;

    -- The leases to sweep, among the jobs of the claims' receipts due (jobq.leases: no index of
    -- jobq.jobs holds the running jobs), locked (SKIP LOCKED). A CONFIRMING job (jobq.continuations, same
    -- lease) has a lease that ends at its confirmation deadline, so it is not taken before;
    -- after, its attempt failed: detached. Orphaned and detached jobs run again at once (a
    -- retry_in of 0), timed-out ones after their backoff.
    SELECT array_agg(e.id ORDER BY e.n), array_agg(e.why ORDER BY e.n), array_agg(e.err ORDER BY e.n),
           array_agg(CASE WHEN e.why IN ('orphaned', 'detached') THEN interval '0' END ORDER BY e.n)
    INTO v_ids, v_reasons, v_errors, v_retry_in
    FROM (SELECT j.id, row_number() OVER () AS n,
                 CASE WHEN j.deadline_at <= p_now THEN 'timed_out'
                      WHEN c.job_id IS NOT NULL THEN 'detached'
                      ELSE 'orphaned' END AS why,
                 CASE WHEN j.deadline_at <= p_now
                      THEN format('timed out: ran longer than its timeout of %s (worker %s)', j.timeout, j.locked_by)
                      WHEN c.job_id IS NOT NULL
                      THEN format('detached: worker %s did not confirm the continuation by %s', j.locked_by, c.confirm_by)
                      ELSE format('orphaned: lease expired at %s without a heartbeat (worker %s)', j.lease_expires_at, j.locked_by)
                 END AS err
          FROM (SELECT j.* FROM jobq.jobs j
                WHERE j.id IN (SELECT unnest(l.job_ids) FROM jobq.leases l WHERE l.check_at <= p_now)
                  AND j.state = 'running'
                  AND (j.lease_expires_at <= p_now OR j.deadline_at <= p_now)
                ORDER BY least(j.lease_expires_at, j.deadline_at), j.id
                LIMIT p_batch_size
                FOR UPDATE OF j SKIP LOCKED) AS j
          LEFT JOIN jobq.continuations c ON c.job_id = j.id AND c.lease_token = j.lease_token) AS e;
    -- The receipts due move on to their jobs' next lease end or deadline, or go.
    PERFORM jobq._settle_leases(p_now, coalesce(v_ids, '{}'), 10000);
    IF v_ids IS NULL THEN
        RETURN;
    END IF;

    -- CONFIRMING ends with the lease; an unconfirmed continuation is audited.
    WITH ended AS (
        DELETE FROM jobq.continuations AS c
        USING unnest(v_ids, v_reasons) AS e(id, why)
        WHERE c.job_id = e.id
        RETURNING c.job_id, c.worker, c.confirm_by, e.why
    )
    INSERT INTO jobq.audit_log (action, job_id, detail)
    SELECT 'continuation_expired', d.job_id, jsonb_build_object('worker_id', d.worker, 'confirm_by', d.confirm_by)
    FROM ended d WHERE d.why = 'detached';

    RETURN QUERY
    SELECT f.job_id, f.outcome, f.reason, f.task, f.queue, f.store_id, f.attempt, f.locked_by
    FROM jobq._fail_attempts(p_now, v_ids, v_errors, NULL, NULL, v_retry_in, v_reasons, NULL, NULL) AS f;
END
$$;
COMMENT ON FUNCTION jobq._rescue(integer,timestamp with time zone) IS
    'Private. The sweeper at time p_now; see jobq.rescue_expired. Each swept lease is also one jobq.job_attempts row (reason timed_out, orphaned or detached, ended_at p_now, log_ref NULL: jobq.default_log_ref, shown on read by jobq.job_attempt_list); a job keeps its newest 25. A CONFIRMING job (jobq.continuations) is taken only once its lease ended at its confirmation deadline: reason detached, back to the queue at once, its continuation row deleted and audited as continuation_expired. A timed-out job runs again at jobq._retry_at: its stored backoff clamped to the backoff limit, the sum saturating, so no stored value makes it raise.';

-- Prunes history past setting history_retention, for operators and pg_cron that prune by hand:
-- whole days dropped, one batch of the rest deleted; call it until it returns less than
-- batch_size. The cut-off saturates.
CREATE OR REPLACE FUNCTION jobq.prune_history(batch_size integer DEFAULT 10000)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_cutoff constant timestamptz := jobq._ts_add(now(), -jobq._setting_interval('history_retention'));
    v_deleted bigint;
BEGIN
    IF prune_history.batch_size IS NULL OR prune_history.batch_size < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('batch_size %s must be at least 1', coalesce(prune_history.batch_size::text, 'NULL')));
    END IF;
    PERFORM jobq._check_int('batch_size', prune_history.batch_size, 1, jobq._limit('sweep'));
    -- Whole days past retention are dropped; the rest of history is deleted row by row.
    SELECT p.rows_deleted INTO v_deleted FROM jobq._prune_history(v_cutoff, prune_history.batch_size) p;
    -- Attempts (jobq.job_attempts) share the retention, by ended_at, in batches of the same size.
    DELETE FROM jobq.job_attempts AS a
    WHERE a.ctid = ANY (ARRAY(
        SELECT o.ctid FROM jobq.job_attempts o WHERE o.ended_at < v_cutoff LIMIT prune_history.batch_size));
    -- Settled batches (jobq.batches) too, by settled_at; open and sealed ones stay.
    DELETE FROM jobq.batches AS b
    WHERE b.id = ANY (ARRAY(
        SELECT o.id FROM jobq.batches o WHERE o.settled_at < v_cutoff LIMIT prune_history.batch_size));
    RETURN v_deleted;
END
$$;
COMMENT ON FUNCTION jobq.prune_history(integer) IS
    'Drops the partitions of jobq.job_history (one a UTC day; a span of days, the retention divided by 14 and rounded up, when history_retention is above 14 days) wholly before now() - setting history_retention (default 7 days), then deletes at most batch_size rows before that cut-off from the partitions pruned row by row (the default one and the history kept before migration 00037) and returns how many it deleted (jobq._prune_history): a partition straddling the cut-off stays whole until its end passes it, so a finished job is kept at most one day (one span) beyond the retention, unless it spans more days than the retention now asks (made before it was shortened): its rows before the cut-off are deleted row by row too. It deletes at most batch_size jobq.job_attempts rows with ended_at, and at most batch_size settled jobq.batches rows with settled_at, before the same cut-off too. Call it until it returns less than batch_size. Callers: jobq.maintain, operators, pg_cron. Errors: JOB.INVALID_ARGUMENT (batch_size NULL or below 1), JOB.OUT_OF_RANGE (above 100000).';

-- Expires, now, every lease worker p_worker_id holds, so the next sweep rescues them; a job that
-- is CONFIRMING (jobq.detach_worker) keeps its lease until its deadline. Caller: jobq._maintain,
-- for workers silent past worker_timeout, before its sweep.
CREATE OR REPLACE FUNCTION jobq._release_worker_leases(p_worker_id text, p_now timestamptz)
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_n integer;
BEGIN
    UPDATE jobq.jobs AS j SET lease_expires_at = p_now, updated_at = p_now
    WHERE j.id IN (SELECT unnest(l.job_ids) FROM jobq.leases l WHERE l.worker_id = p_worker_id)
      AND j.locked_by = p_worker_id AND j.state = 'running' AND j.lease_expires_at > p_now
      AND NOT EXISTS (SELECT 1 FROM jobq.continuations c
                      WHERE c.job_id = j.id AND c.lease_token = j.lease_token AND c.confirm_by > p_now);
    GET DIAGNOSTICS v_n = ROW_COUNT;
    RETURN v_n;
END
$$;
COMMENT ON FUNCTION jobq._release_worker_leases(text,timestamp with time zone) IS
    'Private. Ends at p_now every lease a worker holds, but those CONFIRMING before their deadline; the caller''s sweep (jobq._rescue) then takes them (orphaned). Returns how many it ended.';

-- The claims' receipts due at p_now (jobq.leases, check_at passed): each moves on to the first
-- lease end or deadline among its jobs still running under its worker, leaving out the jobs this
-- sweep takes (p_swept), or goes once none is left. At most p_limit receipts a call, the oldest
-- first (SKIP LOCKED); a receipt left over stays due for the next. Caller: jobq._rescue.
CREATE OR REPLACE FUNCTION jobq._settle_leases(p_now timestamptz, p_swept bigint[], p_limit integer)
RETURNS void
LANGUAGE sql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH due AS (
        SELECT l.ctid AS tid, l.worker_id, l.job_ids FROM jobq.leases l
        WHERE l.check_at <= p_now
        ORDER BY l.check_at
        LIMIT p_limit
        FOR UPDATE SKIP LOCKED
    ), next AS (
        SELECT d.tid,
               (SELECT min(least(j.lease_expires_at, j.deadline_at)) FROM jobq.jobs j
                WHERE j.id = ANY (d.job_ids) AND j.state = 'running' AND j.locked_by = d.worker_id
                  AND j.id <> ALL (p_swept)) AS check_at
        FROM due d
    ), gone AS (
        DELETE FROM jobq.leases AS l USING next n WHERE l.ctid = n.tid AND n.check_at IS NULL
    )
    UPDATE jobq.leases AS l SET check_at = n.check_at FROM next n WHERE l.ctid = n.tid AND n.check_at IS NOT NULL;
$$;
COMMENT ON FUNCTION jobq._settle_leases(timestamp with time zone,bigint[],integer) IS
    'Private. For at most p_limit jobq.leases rows due at p_now (check_at <= p_now, oldest first, locked SKIP LOCKED): check_at becomes the first lease end or deadline among the row''s jobs still running under its worker, other than p_swept (the jobs the calling sweep takes); the row is deleted when none is left. A row whose jobs still hold an expired lease stays due. Caller: jobq._rescue.';

-- Writes one jobq.leases row per worker for its running jobs that no receipt of that worker lists;
-- returns the rows written. One scan of the running jobs. Callers: jobq._cover_running_jobs, and
-- the pgTAP fixture jobq_test.leases_for_running (running jobs a test wrote by hand).
CREATE OR REPLACE FUNCTION jobq._write_missing_receipts()
RETURNS bigint
LANGUAGE sql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH written AS (
        INSERT INTO jobq.leases (worker_id, job_ids, check_at)
        SELECT j.locked_by, array_agg(j.id ORDER BY j.id), min(least(j.lease_expires_at, j.deadline_at))
        FROM jobq.jobs j
        WHERE j.state = 'running'
          AND NOT EXISTS (SELECT 1 FROM jobq.leases l WHERE l.worker_id = j.locked_by AND j.id = ANY (l.job_ids))
        GROUP BY j.locked_by
        RETURNING 1
    )
    SELECT count(*) FROM written
$$;
COMMENT ON FUNCTION jobq._write_missing_receipts() IS
    'Private. Writes one jobq.leases row per worker for its running jobs that no receipt of that worker lists (check_at their first lease end or deadline); returns the rows written. Callers: jobq._cover_running_jobs, the pgTAP fixture jobq_test.leases_for_running.';

-- Writes a jobq.leases row for every running job that has none, once no transaction that could
-- have claimed without writing one is left: the claims in flight while migration 00036 committed
-- ran the claim of the release before. One look a call, while jobq.leases_recheck has its row: the
-- first call records the horizon, a later one past it covers the jobs and deletes the row.
-- Caller: jobq._maintain.
CREATE OR REPLACE FUNCTION jobq._cover_running_jobs()
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_after xid8;
    v_n bigint := 0::bigint;
    v_snap constant pg_snapshot := pg_current_snapshot();
BEGIN
    SELECT r.after INTO v_after FROM jobq.leases_recheck r WHERE r.singleton FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN v_n;
    END IF;
    IF v_after IS NULL THEN
        UPDATE jobq.leases_recheck AS r SET after = pg_snapshot_xmax(v_snap) WHERE r.singleton;
    ELSIF pg_snapshot_xmin(v_snap) >= v_after AND NOT jobq._snapshot_older_than(v_after) THEN
        v_n := jobq._write_missing_receipts();
        DELETE FROM jobq.leases_recheck AS r WHERE r.singleton;
    END IF;
    RETURN v_n;
END
$$;
COMMENT ON FUNCTION jobq._cover_running_jobs() IS
    'Private. While jobq.leases_recheck has its row: the first call records pg_snapshot_xmax of its snapshot there; a call whose snapshot''s xmin has reached it, while no backend holds a snapshot older than it (jobq._snapshot_older_than), writes one jobq.leases row per worker for its running jobs that no row of that worker lists, and deletes the recheck row. Returns the rows written. Never waits (SKIP LOCKED). Caller: jobq._maintain.';

-- Keeps a claim's receipt due no later than the lease it covers: a lease or deadline moved
-- earlier (a worker's leases released, a detach, a heartbeat with a shorter lease, a test's time
-- travel) moves the receipts (jobq.leases) of its worker that list the job and are due later.
-- Row trigger jobs_lease_shortened; its WHEN clause leaves every claim and every longer lease.
CREATE OR REPLACE FUNCTION jobq._lease_shortened()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    UPDATE jobq.leases AS l SET check_at = least(NEW.lease_expires_at, NEW.deadline_at)
    WHERE l.worker_id = NEW.locked_by
      AND l.check_at > least(NEW.lease_expires_at, NEW.deadline_at)
      AND NEW.id = ANY (l.job_ids);
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION jobq._lease_shortened() IS
    'Private. Row-level AFTER UPDATE trigger of jobq.jobs (jobs_lease_shortened), for a running job whose lease end or deadline moved earlier: every jobq.leases row of its worker that lists it and is due later is due at the new end. Raises nothing.';

DROP TRIGGER IF EXISTS jobs_lease_shortened ON jobq.jobs;
CREATE TRIGGER jobs_lease_shortened
    AFTER UPDATE OF lease_expires_at, deadline_at ON jobq.jobs
    FOR EACH ROW
    WHEN (NEW.state = 'running' AND least(NEW.lease_expires_at, NEW.deadline_at) < least(OLD.lease_expires_at, OLD.deadline_at))
    EXECUTE FUNCTION jobq._lease_shortened();
