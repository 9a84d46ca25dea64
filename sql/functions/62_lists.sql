-- The operator's lists and counts (issue 32): one function per list that the CLI (cmd/jobq) and
-- the dashboard read through the Go package operator, so that both show the same rows. The lists
-- of jobs, attempts, history by minute and the audit log run as their caller: row-level security
-- keeps a store's staff (an application login signed in to the dashboard) to its store. The
-- queue list is a SECURITY DEFINER over jobq.stats, whose counts it keeps unchanged.

-- The result before blocked jobs were counted (issue 35).
DROP FUNCTION IF EXISTS jobq.queue_list(text,uuid);

-- Every queue an operator should see, one row each, with jobq.stats' counts: a queue of jobq.stats
-- (a live job, a job finished in the last hour or dead in the last day) keeps its row as stats gives it, and a queue known
-- only from configuration (a row of jobq.queues, a live worker's queues, a schedule's queue) gets a
-- row of zeros; each row says whether the queue is paused and whether a live worker serves it.
-- One list, so that jobq queues list, jobq stats and the dashboard's overview cannot disagree about
-- which queues exist or what "scheduled" counts. A caller that reads only its store (an
-- application) gets the rows of jobq.stats only: the other queues' names are not its business.
CREATE OR REPLACE FUNCTION jobq.queue_list(queue text DEFAULT NULL, store_id uuid DEFAULT NULL)
RETURNS TABLE (queue text, store_id uuid, paused boolean, paused_at timestamptz, paused_by text,
               queued bigint, retry_pending bigint, running bigint, scheduled bigint, blocked bigint,
               oldest_due_age interval,
               dead_last_hour bigint, dead_last_day bigint, succeeded_last_hour bigint, succeeded_per_minute numeric,
               wait_p50 interval, wait_p95 interval, run_p50 interval, run_p95 interval, limits jsonb,
               not_served bigint, not_served_oldest_age interval, served boolean)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    WITH s AS (
        SELECT * FROM jobq.stats($1, $2)
    ), configured AS (
        -- Queues without jobs that an operator configured or serves: operators and viewers only.
        SELECT k.name FROM (
            SELECT q.name FROM jobq.queues q
            UNION SELECT u.name FROM jobq.workers w CROSS JOIN LATERAL pg_catalog.unnest(w.queues) AS u(name)
                  WHERE w.state <> 'stopped'
            UNION SELECT coalesce(sc.queue, t.queue, 'default') FROM jobq.schedules sc JOIN jobq.tasks t ON t.name = sc.task
        ) k
        WHERE jobq._caller_sees_every_store()
          AND ($1 IS NULL OR k.name = $1)
          AND NOT EXISTS (SELECT 1 FROM s WHERE s.queue = k.name)
    ), served AS MATERIALIZED (
        SELECT DISTINCT v.queue FROM jobq._served_by_live_workers(now()) AS v
    ), all_rows AS (
        SELECT s.queue, s.store_id, s.queued, s.retry_pending, s.running, s.scheduled, s.blocked, s.oldest_due_age,
               s.dead_last_hour, s.dead_last_day, s.succeeded_last_hour, s.succeeded_per_minute,
               s.wait_p50, s.wait_p95, s.run_p50, s.run_p95, s.limits, s.not_served, s.not_served_oldest_age
        FROM s
        UNION ALL
        SELECT c.name, $2, 0, 0, 0, 0, 0, NULL,
               0, 0, 0, 0.00, NULL, NULL, NULL, NULL,
               (SELECT jobq._queue_limits(q) FROM jobq.queues q WHERE q.name = c.name), 0, NULL
        FROM configured c
    )
    SELECT r.queue, r.store_id, coalesce(q.paused, false), q.paused_at, q.paused_by,
           r.queued, r.retry_pending, r.running, r.scheduled, r.blocked, r.oldest_due_age,
           r.dead_last_hour, r.dead_last_day, r.succeeded_last_hour, r.succeeded_per_minute,
           r.wait_p50, r.wait_p95, r.run_p50, r.run_p95, r.limits, r.not_served, r.not_served_oldest_age,
           EXISTS (SELECT 1 FROM served v WHERE v.queue = r.queue)
    FROM all_rows r
    LEFT JOIN jobq.queues q ON q.name = r.queue
    ORDER BY r.queue, r.store_id NULLS FIRST
$$;
COMMENT ON FUNCTION jobq.queue_list(text,uuid) IS
    'The operator''s list of queues, one row per queue by name: the rows of jobq.stats(queue, store_id) with their counts unchanged (queued: due; retry_pending; running; scheduled: queued with a future run_at; blocked: waiting for parents or a sequence; oldest_due_age, dead_last_hour, dead_last_day, succeeded_last_hour, succeeded_per_minute, wait and run percentiles, limits, not_served, not_served_oldest_age), and for operators and viewers a row of zeros for every other queue the engine knows (a row of jobq.queues, the queues of a worker not stopped, a schedule''s queue); paused, paused_at, paused_by from jobq.queues; served, whether a live worker (active, heard from within worker_timeout, serving some task) takes the queue''s jobs. An application (its session''s store) gets the rows of jobq.stats only. Reveals no job content. Reads what jobq.stats reads, jobq.queues, jobq.workers and jobq.schedules; locks nothing. Callers: jobq queues list, jobq stats and the dashboard''s overview (package operator). Errors: those of jobq.stats.';

-- The last hour of the overview's chart, by queue and minute: the jobs that finished (succeeded,
-- dead) from jobq.job_history and the failed attempts from jobq.job_attempts since p_since. Runs
-- as its caller, so a store's staff counts its store's rows only. Without JIT: the body is planned
-- without the value of since (a function with a SET clause is not inlined), estimated at a third
-- of the history, and compiling it took 258 ms of a 284 ms call at 10,000,000 history rows whose
-- last hour is 68,000 (measured with auto_explain); the work itself is 27 ms.
CREATE OR REPLACE FUNCTION jobq.queue_minutes(since timestamptz)
RETURNS TABLE (queue text, minute timestamptz, succeeded bigint, dead bigint, failed bigint)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
    SELECT m.queue, m.minute, sum(m.succeeded)::bigint, sum(m.dead)::bigint, sum(m.failed)::bigint
    FROM (
        SELECT h.queue, pg_catalog.date_trunc('minute', h.finished_at) AS minute,
               count(*) FILTER (WHERE h.state = 'succeeded') AS succeeded,
               count(*) FILTER (WHERE h.state = 'dead') AS dead, 0::bigint AS failed
        FROM jobq.job_history h WHERE h.finished_at >= $1 GROUP BY 1, 2
        UNION ALL
        SELECT a.queue, pg_catalog.date_trunc('minute', a.ended_at), 0, 0, count(*)
        FROM jobq.job_attempts a WHERE a.ended_at >= $1 GROUP BY 1, 2
    ) m
    GROUP BY m.queue, m.minute
    ORDER BY m.queue, m.minute
$$;
COMMENT ON FUNCTION jobq.queue_minutes(timestamp with time zone) IS
    'Per queue and minute since since (NULL: no row): succeeded and dead, the jobs of jobq.job_history that finished so, and failed, the failed attempts of jobq.job_attempts that ended then. Runs as its caller: row-level security counts an application''s store only. Reads history through the finish-time indexes of its days (BRIN) and the attempts'' end-time index; runs without JIT (jit = off for the call); locks nothing. Callers: the dashboard''s overview chart (package operator). Errors: none.';

-- The log reference of an attempt whose runner gave none: the fields every log line of the runner
-- carries for it, as a search query for the log store. It is not stored: complete_jobs, fail_jobs
-- and the sweeper leave log_ref NULL (writing it cost 1.6 us and about 40 bytes of WAL a completed
-- job, measured), and job_list and job_attempt_list show this in its place for an attempt that ran
-- (rows written before keep it spelled out, which reads the same). Inlined into their statements:
-- STABLE like format() (an IMMUTABLE function over a STABLE one is not inlined) and without a SET
-- clause (a function with one runs on its own for every row, its setting saved and restored).
CREATE OR REPLACE FUNCTION jobq.default_log_ref(worker text, job_id bigint, attempt integer)
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT pg_catalog.left(pg_catalog.format('workerId=%s jobId=%s attempt=%s', coalesce($1, '-'), $2, $3), 1000)
$$;
COMMENT ON FUNCTION jobq.default_log_ref(text,bigint,integer) IS
    'The log reference of an attempt whose runner gave none: workerId=<worker> jobId=<job_id> attempt=<attempt> (- for a NULL worker), the fields of the runner''s log lines, at most 1000 characters. Not stored: jobq.job_history.log_ref and jobq.job_attempts.log_ref are NULL for it, and jobq.job_list and jobq.job_attempt_list show this in their place (coalesce(h.log_ref, jobq.default_log_ref(h.locked_by, h.id, h.attempt)) reads a succeeded or dead history row the same way). Inlined (STABLE SQL, no SET clause). Errors: none.';

-- job_list and job_attempt_list gained what an attempt keeps (issue 34: progress, output,
-- log_ref, exit_code, leader_epoch, the trace context): their results changed, so the old ones are
-- dropped (callers name their columns).
DROP FUNCTION IF EXISTS jobq.job_list(text,text,text,uuid,text,timestamp with time zone,bigint,integer,bigint);
DROP FUNCTION IF EXISTS jobq.job_attempt_list(bigint);

-- Jobs as an operator reads them, live and finished, newest first, matching every filter given:
-- the one query behind jobq jobs list, jobq dead list, jobq jobs show and the dashboard's job
-- pages. Runs as its caller (row-level security: a store's staff reads its store's jobs). No SET
-- clause, so the planner inlines it into the caller's statement: planned with the filters' values
-- (a custom plan), each "$n IS NULL OR ..." folds away and each filter reaches its index; planned
-- as a function, or generically, it would read every row for a job by id.
CREATE OR REPLACE FUNCTION jobq.job_list(queue text DEFAULT NULL, task text DEFAULT NULL, state text DEFAULT NULL,
                                         store_id uuid DEFAULT NULL, job_key text DEFAULT NULL,
                                         since timestamptz DEFAULT NULL, before bigint DEFAULT NULL,
                                         max_rows integer DEFAULT 50, id bigint DEFAULT NULL)
RETURNS TABLE (id bigint, task text, queue text, state text, store_id uuid, priority smallint, attempt integer,
               max_attempts integer, job_key text, run_at timestamptz, reason text, last_error text, error_code text,
               locked_by text, created_at timestamptz, updated_at timestamptz, finished_at timestamptz, payload jsonb,
               progress jsonb, output text, log_ref text, exit_code integer, leader_epoch bigint, traceparent text)
LANGUAGE sql
STABLE
AS $$
    SELECT j.* FROM (
        SELECT l.id, l.task, l.queue, l.state, l.store_id, l.priority, l.attempt, l.max_attempts, l.job_key, l.run_at,
               l.reason, l.last_error, l.error_code, l.locked_by, l.created_at, l.updated_at, NULL::timestamptz AS finished_at, l.payload,
               l.progress, NULL::text, NULL::text, NULL::integer, NULL::bigint, l.traceparent
        FROM jobq.jobs l
        UNION ALL
        SELECT h.id, h.task, h.queue, h.state, h.store_id, h.priority, h.attempt, h.max_attempts, h.job_key, h.run_at,
               h.reason, h.last_error, h.error_code, h.locked_by, h.created_at, h.updated_at, h.finished_at, h.payload,
               h.progress, h.output,
               coalesce(h.log_ref, CASE WHEN h.state IN ('succeeded', 'dead') THEN jobq.default_log_ref(h.locked_by, h.id, h.attempt) END),
               h.exit_code, h.leader_epoch, h.traceparent
        FROM jobq.job_history h
    ) j
    WHERE ($1 IS NULL OR j.queue = $1) AND ($2 IS NULL OR j.task = $2) AND ($3 IS NULL OR j.state = $3)
      AND ($4 IS NULL OR j.store_id = $4) AND ($5 IS NULL OR j.job_key = $5)
      AND ($6 IS NULL OR coalesce(j.finished_at, j.updated_at) >= $6)
      AND ($7 IS NULL OR j.id < $7) AND ($9 IS NULL OR j.id = $9)
    ORDER BY j.id DESC
    LIMIT least(greatest(coalesce($8, 50), 0), 100001)
$$;
COMMENT ON FUNCTION jobq.job_list(text,text,text,uuid,text,timestamp with time zone,bigint,integer,bigint) IS
    'Jobs live (jobq.jobs, finished_at NULL) and finished (jobq.job_history), newest id first, matching each filter that is not NULL: queue, task, state, store_id, job_key, since (finished, or for a live job last changed, at or after), before (ids below it: the next page), id (one job); at most max_rows rows (default 50, 0..100001). With what its running or last attempt keeps: progress (jobq.set_progress), and for a finished job its last attempt''s output, log_ref, exit_code and leader_epoch; traceparent, the trace context it was enqueued under. Runs as its caller: row-level security shows an application its store''s jobs only. Inlined into the caller''s statement: plan it with its arguments'' values (a custom plan, as a one-off statement is; the dashboard sets plan_cache_mode = force_custom_plan), since a generic plan reads every row to find one job. Locks nothing. Callers: jobq jobs list/show, jobq dead list, the dashboard''s job pages (package operator). Errors: none.';

-- A job's failed attempts, oldest first: what jobq jobs show and the dashboard's job page list
-- under the job. Runs as its caller (row-level security).
CREATE OR REPLACE FUNCTION jobq.job_attempt_list(job_id bigint)
RETURNS TABLE (attempt integer, worker text, started_at timestamptz, ended_at timestamptz, reason text,
               error text, error_code text, output text, log_ref text, progress jsonb, exit_code integer, leader_epoch bigint)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT a.attempt, a.worker, a.started_at, a.ended_at, a.reason, a.error, a.error_code, a.output,
           coalesce(a.log_ref, jobq.default_log_ref(a.worker, a.job_id, a.attempt)), a.progress,
           a.exit_code, a.leader_epoch
    FROM jobq.job_attempts a
    WHERE a.job_id = $1
    ORDER BY a.ended_at, a.attempt
$$;
COMMENT ON FUNCTION jobq.job_attempt_list(bigint) IS
    'The failed attempts of job job_id (jobq.job_attempts), oldest first: attempt, worker, started_at, ended_at, reason, error, error_code, output (the tail of an exec task''s output), log_ref, progress, exit_code, leader_epoch. Runs as its caller: row-level security shows an application its store''s attempts only. Locks nothing. Callers: jobq jobs show, the dashboard''s job page (package operator). Errors: none.';

-- The registered workers with what an operator asks of each: how long since its heartbeat and
-- whether it holds the leadership now. Operators and viewers.
CREATE OR REPLACE FUNCTION jobq.worker_list(state text DEFAULT NULL)
RETURNS TABLE (id text, node text, pid integer, queues text[], tasks text[], concurrency integer, running integer,
               state text, version text, started_at timestamptz, heartbeat_at timestamptz, heartbeat_age interval,
               state_changed_at timestamptz, leader boolean)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT w.id, w.node, w.pid, w.queues, w.tasks, w.concurrency, w.running, w.state, w.version,
           w.started_at, w.heartbeat_at, greatest(now() - w.heartbeat_at, interval '0'), w.state_changed_at,
           coalesce(l.holder = w.id AND l.lease_expires_at > now(), false)
    FROM jobq.workers w
    LEFT JOIN jobq.leader l ON true
    WHERE $1 IS NULL OR w.state = $1
    ORDER BY w.started_at, w.id
$$;
COMMENT ON FUNCTION jobq.worker_list(text) IS
    'The registered workers (jobq.workers), oldest start first, only those in state when it is not NULL: id, node, pid, queues, tasks (NULL: every task), concurrency, running, state, version, started_at, heartbeat_at, heartbeat_age (now() minus heartbeat_at, never negative), state_changed_at, leader (it holds an unexpired leadership lease). Locks nothing. Callers: jobq workers list, the dashboard''s workers page (package operator). Errors: none.';

-- The leadership as one row, also when no runner ever led (epoch 0, no holder): jobq leader show
-- and the dashboard.
CREATE OR REPLACE FUNCTION jobq.leader_state()
RETURNS TABLE (holder text, epoch bigint, acquired_at timestamptz, lease_expires_at timestamptz, held boolean)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT l.holder, coalesce(l.epoch, 0), l.acquired_at, l.lease_expires_at,
           coalesce(l.holder IS NOT NULL AND l.lease_expires_at > now(), false)
    FROM (SELECT 1) one
    LEFT JOIN jobq.leader l ON true
$$;
COMMENT ON FUNCTION jobq.leader_state() IS
    'One row: the leader (jobq.leader) holder, its fencing epoch (0 before any), acquired_at, lease_expires_at, and held (a holder whose lease has not expired). Locks nothing. Callers: jobq leader show, the dashboard (package operator). Errors: none.';

-- The cron schedules with their next three slots from now and their five latest runs (as jsonb,
-- newest first): jobq schedules list and the dashboard's schedules page.
CREATE OR REPLACE FUNCTION jobq.schedule_list()
RETURNS TABLE (name text, cron text, timezone text, task text, queue text, enabled boolean, paused_at timestamptz,
               paused_by text, concurrency_policy text, next_slot_at timestamptz, last_slot_at timestamptz,
               last_job_id bigint, upcoming timestamptz[], runs jsonb)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.name, s.cron, s.timezone, s.task, s.queue, s.enabled, s.paused_at, s.paused_by, s.concurrency_policy,
           s.next_slot_at, s.last_slot_at, s.last_job_id,
           ARRAY(SELECT jobq.cron_slots(s.cron, now(), now() + interval '400 days', s.timezone, 3)),
           coalesce((SELECT jsonb_agg(jsonb_build_object('slot_at', r.slot_at, 'outcome', r.outcome, 'reason', r.reason,
                                                         'job_id', r.job_id, 'created_at', r.created_at) ORDER BY r.slot_at DESC)
                     FROM (SELECT * FROM jobq.schedule_runs r WHERE r.schedule = s.name ORDER BY r.slot_at DESC LIMIT 5) r),
                    '[]'::jsonb)
    FROM jobq.schedules s
    ORDER BY s.name
$$;
COMMENT ON FUNCTION jobq.schedule_list() IS
    'The cron schedules (jobq.schedules) by name: name, cron, timezone, task, queue, enabled, paused_at, paused_by, concurrency_policy, next_slot_at, last_slot_at, last_job_id, upcoming (the next 3 slots after now, jobq.cron_slots) and runs (the 5 latest of jobq.schedule_runs, newest first, as [{slot_at, outcome, reason, job_id, created_at}]). Locks nothing. Callers: jobq schedules list, the dashboard''s schedules page (package operator). Errors: none.';

-- The engine's settings by name, or one of them: jobq settings list/get and the dashboard.
CREATE OR REPLACE FUNCTION jobq.setting_list(name text DEFAULT NULL)
RETURNS TABLE (name text, kind text, value text, description text, updated_at timestamptz)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.name, s.kind, s.value, s.description, s.updated_at
    FROM jobq.settings s
    WHERE $1 IS NULL OR s.name = $1
    ORDER BY s.name
$$;
COMMENT ON FUNCTION jobq.setting_list(text) IS
    'The engine''s settings (jobq.settings) by name, only name when it is not NULL (no row for an unknown one): name, kind, value, description, updated_at. Locks nothing. Callers: jobq settings list/get, the dashboard''s settings page (package operator). Errors: none.';

-- The audit log, newest first, by the filters given: jobq audit and the dashboard's audit page
-- and job page.
CREATE OR REPLACE FUNCTION jobq.audit_list(actor text DEFAULT NULL, action text DEFAULT NULL, job_id bigint DEFAULT NULL,
                                           since timestamptz DEFAULT NULL, before bigint DEFAULT NULL, max_rows integer DEFAULT 50)
RETURNS TABLE (id bigint, at timestamptz, actor text, action text, job_id bigint, detail jsonb)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT a.id, a.at, a.actor, a.action, a.job_id, a.detail
    FROM jobq.audit_log a
    WHERE ($1 IS NULL OR a.actor = $1) AND ($2 IS NULL OR a.action = $2) AND ($3 IS NULL OR a.job_id = $3)
      AND ($4 IS NULL OR a.at >= $4) AND ($5 IS NULL OR a.id < $5)
    ORDER BY a.id DESC
    LIMIT least(greatest(coalesce($6, 50), 0), 100001)
$$;
COMMENT ON FUNCTION jobq.audit_list(text,text,bigint,timestamp with time zone,bigint,integer) IS
    'The audit log (jobq.audit_log), newest first, matching each filter that is not NULL: actor, action, job_id, since (at or after), before (ids below it: the next page); at most max_rows rows (default 50, 0..100001). Locks nothing. Callers: jobq audit, the dashboard''s audit and job pages (package operator). Errors: none.';
