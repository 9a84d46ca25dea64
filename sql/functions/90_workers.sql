-- jobq engine, workers. Runners and their leader: registration, heartbeats, drain and detach
-- (which give up the leadership), leadership with fencing epochs, an operator's demotion, and
-- maintain, the periodic work of the leader.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The rule every function that takes a worker id applies before it reads or writes anything: a
-- worker id is neither NULL nor blank (empty or spaces only), and has at most
-- jobq._limit('worker_id') characters. A NULL or blank id matches no worker and no lease, so
-- without it such a call did nothing and said nothing. (jobq.claim_job applies the same rule in
-- its own lines, behind the one expression that tells its usual arguments apart.)
CREATE OR REPLACE FUNCTION jobq._check_worker_id(p_worker_id text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN jobq._check_name('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
END
$$;
COMMENT ON FUNCTION jobq._check_worker_id(text) IS
    'Private. Returns p_worker_id when it is a valid worker id; raises JOB.INVALID_ARGUMENT (NULL, empty or spaces only) or JOB.VALUE_TOO_LONG (above 200 characters) otherwise.';

-- The signature before the tasks a worker serves (issue 30); calls of its shape resolve to the
-- one below.
DROP FUNCTION IF EXISTS jobq.register_worker(text,text,integer,text[],integer,text);

-- Registers a runner as active when it starts (again), with the tasks it serves, and hands it the
-- settings to apply. Caller: runners at start.
CREATE OR REPLACE FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer,
                                                version text DEFAULT '', tasks text[] DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF register_worker.worker_id IS NULL OR btrim(register_worker.worker_id) = '' OR register_worker.node IS NULL
       OR register_worker.queues IS NULL OR cardinality(register_worker.queues) = 0
       OR register_worker.concurrency IS NULL OR register_worker.concurrency < 1 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id, node, queues (non-empty) and concurrency (>= 1) are required');
    END IF;
    IF array_position(register_worker.queues, NULL) IS NOT NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queues must not hold NULLs');
    END IF;
    -- A blank queue is no queue: enqueue refuses one, so nothing could ever be claimed from it.
    IF EXISTS (SELECT 1 FROM unnest(register_worker.queues) AS q(name) WHERE btrim(q.name) = '') THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'queues must not hold an empty name');
    END IF;
    PERFORM jobq._check_text('worker_id', register_worker.worker_id, jobq._limit('worker_id')::integer);
    PERFORM jobq._check_text('node', register_worker.node, jobq._limit('node')::integer);
    PERFORM jobq._check_text('version', register_worker.version, jobq._limit('version')::integer);
    PERFORM jobq._check_int('pid', register_worker.pid, 0, 2147483647);
    PERFORM jobq._check_int('concurrency', register_worker.concurrency, 1, jobq._limit('concurrency'));
    PERFORM jobq._check_length('queues', register_worker.queues, jobq._limit('queues')::integer);
    PERFORM jobq._check_text(format('queues[%s]', q.n), q.name, jobq._limit('queue')::integer)
    FROM unnest(register_worker.queues) WITH ORDINALITY AS q(name, n)
    WHERE char_length(q.name) > jobq._limit('queue');
    -- The tasks it serves: NULL (every task), none ({}: a runner without handlers), or a list of
    -- names, as a claim takes them.
    IF register_worker.tasks IS NOT NULL AND cardinality(register_worker.tasks) > 0 THEN
        PERFORM jobq._check_claim_tasks(register_worker.tasks);
        PERFORM jobq._check_name(format('tasks[%s]', t.n), t.name, jobq._limit('task')::integer)
        FROM unnest(register_worker.tasks) WITH ORDINALITY AS t(name, n)
        WHERE btrim(t.name) = '' OR char_length(t.name) > jobq._limit('task');
    END IF;
    INSERT INTO jobq.workers AS w (id, node, pid, queues, concurrency, version, tasks)
    VALUES (register_worker.worker_id, register_worker.node, register_worker.pid, register_worker.queues,
            register_worker.concurrency, coalesce(register_worker.version, ''),
            CASE WHEN register_worker.tasks IS NOT NULL
                 THEN ARRAY(SELECT DISTINCT t.name FROM unnest(register_worker.tasks) AS t(name) ORDER BY t.name) END)
    ON CONFLICT ON CONSTRAINT workers_pkey DO UPDATE SET
        node = EXCLUDED.node, pid = EXCLUDED.pid, queues = EXCLUDED.queues, concurrency = EXCLUDED.concurrency,
        version = EXCLUDED.version, tasks = EXCLUDED.tasks, state = 'active', started_at = now(), heartbeat_at = now(),
        state_changed_at = now();
    RETURN jobq._settings_json();
END
$$;
COMMENT ON FUNCTION jobq.register_worker(text,text,integer,text[],integer,text,text[]) IS
    'Registers runner worker_id (node, pid, queues, concurrency, version, and tasks: the tasks it serves, NULL for every task, {} for none, stored sorted without duplicates) as active and returns the settings {name: value} it applies. A waiting job of a task that no live worker of its queue serves is "not served" (jobq.queue_not_served, jobq.stats, jobq.queue_summary). Caller: runners at start. Errors: JOB.INVALID_ARGUMENT (a required argument NULL or empty, a NULL or blank queue; tasks multidimensional or holding a NULL or blank name), JOB.VALUE_TOO_LONG (worker_id, node, version, a queue, a task above 100 characters), JOB.OUT_OF_RANGE (pid negative, concurrency above 10000, more than 1000 queues or tasks).';

-- Records that a runner is alive and how busy it is, and tells it its state (an operator may have
-- drained or detached it) and the current settings. Caller: runners every worker_heartbeat_interval.
CREATE OR REPLACE FUNCTION jobq.worker_heartbeat(worker_id text, running integer DEFAULT 0)
RETURNS TABLE (state text, settings jsonb)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_state text;
BEGIN
    PERFORM jobq._check_worker_id(worker_heartbeat.worker_id);
    PERFORM jobq._check_int('running', worker_heartbeat.running, 0, jobq._limit('running'));
    UPDATE jobq.workers AS w
    SET heartbeat_at = now(),
        running = coalesce(worker_heartbeat.running, 0),
        -- A worker marked lost that heartbeats again is back (its old leases were rescued and
        -- their tokens no longer work); drained and detached workers stay so.
        state = CASE WHEN w.state = 'lost' THEN 'active' ELSE w.state END,
        state_changed_at = CASE WHEN w.state = 'lost' THEN now() ELSE w.state_changed_at END
    WHERE w.id = worker_heartbeat.worker_id
    RETURNING w.state INTO v_state;
    IF v_state IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_WORKER', format('worker %L is not registered', worker_heartbeat.worker_id));
    END IF;
    state := v_state;
    settings := jobq._settings_json();
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION jobq.worker_heartbeat(text,integer) IS
    'Records a runner''s heartbeat and load; returns its state (active, draining, detached) and the settings. A runner that is draining or detached stops claiming. Caller: runners every worker_heartbeat_interval. running NULL counts as 0. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.UNKNOWN_WORKER, JOB.VALUE_TOO_LONG (worker_id), JOB.OUT_OF_RANGE (running outside 0..1000000).';

-- Marks a runner stopped after a clean drain and gives up its leadership, so another runner leads
-- at once. Caller: runners at exit.
CREATE OR REPLACE FUNCTION jobq.deregister_worker(worker_id text)
RETURNS void
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._check_worker_id(deregister_worker.worker_id);
    UPDATE jobq.workers AS w SET state = 'stopped', state_changed_at = now(), running = 0
    WHERE w.id = deregister_worker.worker_id;
    UPDATE jobq.leader AS l SET lease_expires_at = now() WHERE l.holder = deregister_worker.worker_id;
$$;
COMMENT ON FUNCTION jobq.deregister_worker(text) IS
    'Marks a runner stopped after a clean drain and gives up its leadership, so another runner takes over at once. Caller: runners at exit. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id above 200 characters).';

-- Operator drain: the runner stops claiming and finishes the jobs it holds, e.g. before its host
-- goes down. Undone by jobq.resume_worker.
CREATE OR REPLACE FUNCTION jobq.drain_worker(worker_id text)
RETURNS void
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM jobq._set_worker_state(drain_worker.worker_id, 'draining', 'drain_worker');
    -- A draining worker gives up the leadership at once (as deregister_worker does).
    UPDATE jobq.leader AS l SET lease_expires_at = now() WHERE l.holder = drain_worker.worker_id AND l.lease_expires_at > now();
$$;
COMMENT ON FUNCTION jobq.drain_worker(text) IS
    'Drains a worker: it claims nothing from now on and finishes the jobs it holds; if it leads, its lease ends now (its fenced maintain is refused) and it cannot lead again while draining. Audited. Caller: operators. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id), JOB.UNKNOWN_WORKER.';

-- Operator resume: a drained runner claims jobs again.
CREATE OR REPLACE FUNCTION jobq.resume_worker(worker_id text)
RETURNS void
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM jobq._set_worker_state(resume_worker.worker_id, 'active', 'resume_worker')
$$;
COMMENT ON FUNCTION jobq.resume_worker(text) IS
    'Undoes a drain: the worker claims again at its next heartbeat. Audited. Caller: operators. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id), JOB.UNKNOWN_WORKER.';

-- Operator detach, for a runner that is stuck or gone (seed 002 section 7.3): it stops claiming,
-- and each job it runs becomes CONFIRMING. The runner, told at once (NOTIFY jobq_control), has
-- continuation_retry_count x continuation_retry_interval to confirm that it goes on
-- (jobq.confirm_continuation); until then nobody else may take the job, and after it the sweeper
-- fails the attempt with reason detached and the job runs again elsewhere.
CREATE OR REPLACE FUNCTION jobq.detach_worker(worker_id text)
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_confirm_by constant timestamptz := jobq._ts_add(now(),
        (SELECT s.value::integer FROM jobq.settings s WHERE s.name = 'continuation_retry_count') * jobq._setting_interval('continuation_retry_interval'));
    v_jobs bigint[];
BEGIN
    PERFORM jobq._set_worker_state(detach_worker.worker_id, 'detached', 'detach_worker');
    -- A detached worker gives up the leadership at once.
    UPDATE jobq.leader AS l SET lease_expires_at = now() WHERE l.holder = detach_worker.worker_id AND l.lease_expires_at > now();
    -- CONFIRMING: the lease lasts exactly until the deadline. The sweep (jobq._rescue) takes only
    -- expired leases, so it leaves these alone until then, and heartbeats do not extend them
    -- (jobq.heartbeat_jobs) until the worker confirms. A job detached twice keeps its first
    -- deadline.
    WITH running AS (
        SELECT j.id, j.lease_token FROM jobq.jobs j
        WHERE j.id IN (SELECT unnest(l.job_ids) FROM jobq.leases l WHERE l.worker_id = detach_worker.worker_id)
          AND j.locked_by = detach_worker.worker_id AND j.state = 'running'
        ORDER BY j.id
        FOR UPDATE OF j
    ), marked AS (
        INSERT INTO jobq.continuations AS c (job_id, lease_token, worker, started_at, confirm_by)
        SELECT r.id, r.lease_token, detach_worker.worker_id, now(), v_confirm_by FROM running r
        ON CONFLICT ON CONSTRAINT continuations_pkey DO UPDATE
        SET lease_token = EXCLUDED.lease_token, worker = EXCLUDED.worker, started_at = EXCLUDED.started_at,
            confirm_by = EXCLUDED.confirm_by
        WHERE c.lease_token IS DISTINCT FROM EXCLUDED.lease_token
        RETURNING c.job_id, c.confirm_by
    ), held AS (
        UPDATE jobq.jobs AS j SET lease_expires_at = m.confirm_by, updated_at = now()
        FROM marked m
        WHERE j.id = m.job_id
        RETURNING j.id
    )
    SELECT coalesce(array_agg(h.id ORDER BY h.id), '{}') INTO v_jobs FROM held h;
    IF cardinality(v_jobs) > 0 THEN
        INSERT INTO jobq.audit_log (action, detail)
        SELECT 'continuation_requested',
               jsonb_build_object('worker_id', detach_worker.worker_id, 'jobs', to_jsonb(v_jobs),
                                  'confirm_by', v_confirm_by);
    END IF;
    -- The runner learns of it now, not at its next worker heartbeat.
    PERFORM pg_notify('jobq_control', 'detached:' || detach_worker.worker_id);
    RETURN cardinality(v_jobs);
END
$$;
COMMENT ON FUNCTION jobq.detach_worker(text) IS
    'Detaches a worker: it stops claiming, and every job it runs becomes CONFIRMING (a jobq.continuations row) until now() + continuation_retry_count x continuation_retry_interval (0.9 s as shipped): its lease ends exactly then and is not extended by heartbeats, so no other worker can take the job before. The worker, woken by NOTIFY jobq_control (payload detached:<worker_id>), confirms with jobq.confirm_continuation and runs the job to its end; an unconfirmed job is swept after the deadline as a failed attempt with reason detached (it runs again when it has attempts left). If it leads, its lease ends now (its fenced maintain is refused) and it cannot lead again while detached. Returns the number of jobs it marked CONFIRMING (a job already CONFIRMING under the same lease keeps its first deadline and is not counted). Audited (detach_worker; continuation_requested with the jobs and the deadline). Caller: operators. Locks the worker''s running jobs. Errors: JOB.INVALID_ARGUMENT (worker_id NULL or blank), JOB.VALUE_TOO_LONG (worker_id), JOB.UNKNOWN_WORKER.';

-- A detached runner confirms that its CONFIRMING jobs go on (seed 002 section 7.3), each fenced by
-- its lease token: before the deadline the job continues on that runner under a normal lease;
-- after it, the attempt fails now with reason detached (as the sweep would) and the runner must
-- stop the handler. Caller: a runner told it is detached, up to continuation_retry_count times.
CREATE OR REPLACE FUNCTION jobq.confirm_continuation(worker_id text, job_ids bigint[], lease_tokens uuid[], lease interval DEFAULT '30 seconds')
RETURNS TABLE (job_id bigint, outcome text)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_held jsonb;
BEGIN
    PERFORM jobq._check_lease(confirm_continuation.lease);
    PERFORM jobq._check_lease_batch(confirm_continuation.job_ids, confirm_continuation.lease_tokens);
    PERFORM jobq._check_worker_id(confirm_continuation.worker_id);

    -- The leases still held, locked in id order (as heartbeat_jobs locks them), each with its
    -- verdict: confirmed in time (or not CONFIRMING at all), or too late.
    WITH held AS (
        SELECT j.id, j.lease_token AS token, coalesce(c.confirm_by > now(), true) AS in_time
        FROM (SELECT DISTINCT h.id, h.token
              FROM unnest(confirm_continuation.job_ids, confirm_continuation.lease_tokens) AS h(id, token)) h
        JOIN jobq.jobs j ON j.id = h.id AND j.lease_token = h.token
        LEFT JOIN jobq.continuations c ON c.job_id = j.id AND c.lease_token = j.lease_token
        WHERE j.state = 'running' AND j.locked_by = confirm_continuation.worker_id
        ORDER BY j.id
        FOR UPDATE OF j
    ), confirmed AS (
        -- In time: CONFIRMING ends and the job goes on under a normal lease.
        DELETE FROM jobq.continuations AS c USING held h
        WHERE c.job_id = h.id AND c.lease_token = h.token AND h.in_time
        RETURNING c.job_id
    ), renewed AS (
        UPDATE jobq.jobs AS j
        SET lease_expires_at = jobq._ts_add(now(), confirm_continuation.lease), heartbeat_at = now(), updated_at = now()
        FROM held h
        WHERE j.id = h.id AND h.in_time
        RETURNING j.id
    ), audited AS (
        INSERT INTO jobq.audit_log (action, detail)
        SELECT 'continuation_confirmed',
               jsonb_build_object('worker_id', confirm_continuation.worker_id, 'jobs', to_jsonb(array_agg(c.job_id ORDER BY c.job_id)))
        FROM confirmed c
        HAVING count(*) > 0
        RETURNING 1
    )
    SELECT coalesce(jsonb_object_agg(h.id::text || ':' || h.token::text, CASE WHEN h.in_time THEN 'confirmed' ELSE 'detached' END), '{}')
    INTO v_held
    FROM held h;

    -- Too late, and the sweep has not come yet: the attempt fails now, reason detached (the lease
    -- ended at the deadline, so jobq._rescue takes it).
    IF EXISTS (SELECT 1 FROM jsonb_each_text(v_held) AS v(k, o) WHERE v.o = 'detached') THEN
        PERFORM 1 FROM jobq._rescue(cardinality(confirm_continuation.job_ids) + 1000, now());
    END IF;

    RETURN QUERY
    SELECT h.id, coalesce(v_held ->> (h.id::text || ':' || h.token::text), 'lease_lost')
    FROM unnest(confirm_continuation.job_ids, confirm_continuation.lease_tokens) WITH ORDINALITY AS h(id, token, ord)
    ORDER BY h.ord;
END
$$;
COMMENT ON FUNCTION jobq.confirm_continuation(text,bigint[],uuid[],interval) IS
    'A detached runner confirms that its jobs go on. One row per input lease, in input order: confirmed (the job runs on here: CONFIRMING ends and the lease is renewed to now() + lease; also for a lease held without being CONFIRMING, so repeating a call whose answer was lost is safe), detached (the deadline of jobq.detach_worker passed: the attempt failed now with reason detached, as jobq._rescue records it, and the handler must stop) or lease_lost (not running under that token for worker_id). Audited (continuation_confirmed; the swept ones as continuation_expired). Caller: the runner. Locks the rows in id order. Errors: JOB.LEASE_INVALID, JOB.INVALID_ARGUMENT (worker_id NULL or blank, array lengths), JOB.OUT_OF_RANGE (more than 10000 jobs, lease above 1 day), JOB.VALUE_TOO_LONG (worker_id). A refused call writes nothing.';

-- Sets a runner's state for drain_worker, resume_worker and detach_worker, and audits the change.
CREATE OR REPLACE FUNCTION jobq._set_worker_state(p_worker_id text, p_state text, p_action text)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_previous text;
BEGIN
    PERFORM jobq._check_worker_id(p_worker_id);
    SELECT w.state INTO v_previous FROM jobq.workers w WHERE w.id = p_worker_id FOR UPDATE;
    IF v_previous IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_WORKER', format('worker %L is not registered', p_worker_id));
    END IF;
    UPDATE jobq.workers AS w SET state = p_state, state_changed_at = now() WHERE w.id = p_worker_id;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES (p_action, jsonb_build_object('worker_id', p_worker_id, 'previous_state', v_previous, 'state', p_state));
    RETURN v_previous;
END
$$;
COMMENT ON FUNCTION jobq._set_worker_state(text,text,text) IS
    'Private. Sets a worker''s state, audited as p_action; returns the previous state.';

-- Takes or renews the leadership for a runner and returns its fencing epoch, NULL while another
-- runner leads. The leader passes the epoch to jobq.maintain. Caller: runners every leader_ttl / 3.
CREATE OR REPLACE FUNCTION jobq.acquire_leadership(worker_id text, ttl interval DEFAULT '15 seconds')
RETURNS bigint
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._acquire_leadership(acquire_leadership.worker_id, acquire_leadership.ttl, now())
$$;
COMMENT ON FUNCTION jobq.acquire_leadership(text,interval) IS
    'Takes the leadership for worker_id when nobody holds a live lease on it, or renews it; returns the fencing epoch, or NULL when another worker leads, worker_id is a registered worker that is draining or detached, or worker_id is the leader an operator demoted less than leader_ttl ago (jobq.demote_leader: held off until jobq.leader.demoted_until). The epoch grows on every change of leader; pass it to jobq.maintain. Locks the leader row (waits for a maintain in progress). Caller: runners every leader_ttl / 3. Errors: JOB.INVALID_ARGUMENT, JOB.LEASE_INVALID.';

-- The leadership at time p_now, so that tests can move the clock; jobq.acquire_leadership calls it
-- with now().
CREATE OR REPLACE FUNCTION jobq._acquire_leadership(p_worker_id text, p_ttl interval, p_now timestamptz)
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_epoch bigint;
    v_previous_epoch bigint;
BEGIN
    IF p_worker_id IS NULL OR btrim(p_worker_id) = '' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'worker_id is NULL or empty');
    END IF;
    IF p_ttl IS NULL OR p_ttl <= interval '0' THEN
        PERFORM jobq._raise('JOB.LEASE_INVALID', format('ttl %s is not positive', coalesce(p_ttl::text, 'NULL')));
    END IF;
    PERFORM jobq._check_interval('ttl', p_ttl, jobq._limit_interval('ttl'));
    PERFORM jobq._check_text('worker_id', p_worker_id, jobq._limit('worker_id')::integer);
    -- A registered worker that an operator drained or detached does not lead.
    IF EXISTS (SELECT 1 FROM jobq.workers w WHERE w.id = p_worker_id AND w.state IN ('draining', 'detached')) THEN
        RETURN NULL;
    END IF;
    SELECT l.epoch INTO v_previous_epoch FROM jobq.leader l FOR UPDATE;
    -- The worker an operator demoted is held off until demoted_until (jobq.demote_leader). The
    -- test is in the WHERE clause, read under the row lock, so an acquisition that waited for the
    -- demotion's lock sees it.
    UPDATE jobq.leader AS l
    SET epoch            = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.epoch ELSE l.epoch + 1 END,
        acquired_at      = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.acquired_at ELSE p_now END,
        holder           = p_worker_id,
        lease_expires_at = jobq._ts_add(p_now, p_ttl)
    WHERE (l.holder IS NULL OR l.lease_expires_at <= p_now OR l.holder = p_worker_id)
      AND NOT coalesce(l.demoted_holder = p_worker_id AND l.demoted_until > p_now, false)
    RETURNING l.epoch INTO v_epoch;
    IF v_epoch IS NOT NULL AND v_epoch <> v_previous_epoch THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('leader_changed', jsonb_build_object('worker_id', p_worker_id, 'epoch', v_epoch));
    END IF;
    RETURN v_epoch;
END
$$;
COMMENT ON FUNCTION jobq._acquire_leadership(text,interval,timestamp with time zone) IS
    'Private. The leadership at time p_now; see jobq.acquire_leadership. NULL for a registered worker that is draining or detached, and for the worker jobq.demote_leader demoted until its demoted_until.';

-- An operator demotes the leader: the epoch moves on and nobody holds it, so the old leader's
-- fenced maintain is refused at once. The old leader is held off for leader_ttl, so that another
-- runner (which asks every leader_ttl / 3) takes over rather than the demoted one at its next
-- renewal; the demoted one leads again only by winning acquire_leadership after that, with a
-- newer epoch (at once when it is the only candidate, as a crashed leader is replaced).
CREATE OR REPLACE FUNCTION jobq.demote_leader()
RETURNS bigint
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_old jobq.leader;
    v_epoch bigint;
    v_held_off_until timestamptz;
BEGIN
    SELECT * INTO v_old FROM jobq.leader l FOR UPDATE;
    -- Only a live lease's holder is held off: a lapsed one already lost the leadership.
    UPDATE jobq.leader AS l
    SET epoch = l.epoch + 1, holder = NULL, acquired_at = NULL, lease_expires_at = now(),
        demoted_holder = CASE WHEN l.lease_expires_at > now() THEN l.holder END,
        demoted_until  = CASE WHEN l.holder IS NOT NULL AND l.lease_expires_at > now()
                              THEN jobq._ts_add(now(), jobq._setting_interval('leader_ttl')) END
    RETURNING l.epoch, l.demoted_until INTO v_epoch, v_held_off_until;
    INSERT INTO jobq.audit_log (action, detail)
    VALUES ('demote_leader', jsonb_build_object('holder', v_old.holder, 'epoch', v_old.epoch, 'new_epoch', v_epoch,
                                                'lease_expires_at', v_old.lease_expires_at,
                                                'held_off_until', v_held_off_until));
    RETURN v_epoch;
END
$$;
COMMENT ON FUNCTION jobq.demote_leader() IS
    'Demotes the leader at once: the fencing epoch grows by one, nobody holds it and the lease is expired, so the old leader''s fenced jobq.maintain returns {"fenced": true} and changes nothing until a runner wins jobq.acquire_leadership again (with a newer epoch). The old leader (the holder of a live lease) is held off: acquire_leadership refuses it for leader_ttl (jobq.leader.demoted_holder, demoted_until), so another runner takes over; after that it may win again. Audited as demote_leader with the old holder, both epochs and held_off_until (NULL when nobody led), also when nobody led. Returns the new epoch. Caller: operators. Locks the leader row (waits for a maintain in progress). Errors: none.';

-- Does all the periodic work in one call (cron slots, lost workers, the sweep, retention), fenced
-- by the leader's epoch or unfenced for pg_cron. Callers: the runners' leader every
-- maintain_interval; pg_cron.
CREATE OR REPLACE FUNCTION jobq.maintain(worker_id text DEFAULT NULL, epoch bigint DEFAULT NULL)
RETURNS jsonb
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._maintain(maintain.worker_id, maintain.epoch, now())
$$;
COMMENT ON FUNCTION jobq.maintain(text,bigint) IS
    'Does everything periodic in one call: enqueues due cron slots, marks workers lost and rescues their leases, sweeps expired leases and timeouts, makes the partitions of jobq.job_history for today and the next two UTC days (jobq._history_days_ahead; each a day, or a span of days when history_retention is above 14 days), prunes history (whole partitions dropped, the rest row by row: jobq._prune_history), schedule runs and stopped workers past history_retention; each step batched. Fenced: with worker_id and epoch it acts only while that worker leads with that epoch (it returns {"fenced": true} and changes nothing otherwise) and holds the leadership row until it commits. Unfenced (no arguments), e.g. from pg_cron, it is safe too: every step is idempotent under concurrency. Returns what it did: fenced, epoch, slots_enqueued, slots_skipped, lost_workers, rescued, history_pruned (rows deleted), history_days_dropped (partitions dropped), and dead: one object per job that died in this sweep (orphaned, timed_out or detached on its last attempt: job_id, task, queue, store_id, attempt, reason, worker, error, duration_ms), each returned by exactly one maintain, for the caller to report (the runner sends one Sentry event each). Deletes jobq.continuations rows whose lease ended otherwise. Flags the jobs of fair queues that a transaction older than jobq.set_fair_claiming inserted unflagged, once no such transaction is left (jobq._settle_fair_flags). Counts the live jobs for jobq.stats when they number at least half of stats_cached_above and the last count is older than greatest(stats_count_interval, 20 x its duration) (jobq._count_live_jobs). Callers: the runners'' leader every maintain_interval; pg_cron. Errors: JOB.INVALID_ARGUMENT (worker_id without epoch or epoch without worker_id, worker_id blank), JOB.VALUE_TOO_LONG (worker_id).';

-- maintain at time p_now, so that tests can move the clock. Every cut-off saturates, so no value
-- of the settings can make it raise.
CREATE OR REPLACE FUNCTION jobq._maintain(p_worker_id text, p_epoch bigint, p_now timestamptz)
RETURNS jsonb
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_leader jobq.leader;
    v_enqueued integer;
    v_skipped integer;
    v_lost text[];
    v_rescued integer;
    v_pruned bigint;
    v_days_dropped integer;
    v_worker text;
    v_dead jsonb;
    v_dead_ids bigint[];
    v_retention_cutoff constant timestamptz := jobq._ts_add(p_now, -jobq._setting_interval('history_retention'));
    v_silent_cutoff constant timestamptz := jobq._ts_add(p_now, -jobq._setting_interval('worker_timeout'));
BEGIN
    IF (p_worker_id IS NULL) <> (p_epoch IS NULL) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'pass both worker_id and epoch (fenced), or neither (unfenced)');
    END IF;
    IF p_worker_id IS NOT NULL THEN
        -- NULL (with a NULL epoch) is the unfenced form; any other worker id follows the rule.
        PERFORM jobq._check_worker_id(p_worker_id);
        -- Held until commit: no other worker can take the leadership while this call acts.
        SELECT * INTO v_leader FROM jobq.leader l FOR SHARE;
        IF v_leader.holder IS DISTINCT FROM p_worker_id OR v_leader.epoch <> p_epoch OR v_leader.lease_expires_at <= p_now THEN
            RETURN jsonb_build_object('fenced', true, 'epoch', p_epoch, 'current_epoch', v_leader.epoch,
                                      'holder', v_leader.holder);
        END IF;
    END IF;

    SELECT (count(*) FILTER (WHERE d.outcome = 'enqueued'))::integer, (count(*) FILTER (WHERE d.outcome = 'skipped'))::integer
    INTO v_enqueued, v_skipped
    FROM jobq._enqueue_due_slots(p_now, 100) AS d;

    -- Silent workers: an active one is marked lost (a draining or detached one keeps the state
    -- an operator gave it); the leases of every silent worker are rescued now.
    WITH lost AS (
        UPDATE jobq.workers AS w SET state = 'lost', state_changed_at = p_now
        WHERE w.state = 'active'
          AND w.heartbeat_at < v_silent_cutoff
        RETURNING w.id
    )
    SELECT coalesce(array_agg(lost.id ORDER BY lost.id), '{}') INTO v_lost FROM lost;
    FOR v_worker IN
        SELECT w.id FROM jobq.workers w
        WHERE w.heartbeat_at < v_silent_cutoff
          AND EXISTS (SELECT 1 FROM jobq.leases l WHERE l.worker_id = w.id)
    LOOP
        PERFORM jobq._release_worker_leases(v_worker, p_now);
    END LOOP;

    -- One sweep takes the released leases with every other expired one. Each job that died in it
    -- (orphaned, timed out or detached on its last attempt) is returned, so that the runner that
    -- called maintain reports it (Sentry): the sweep and the answer commit together, and a job
    -- dies in exactly one sweep, so it is returned exactly once, whichever worker leads.
    SELECT count(*)::integer, coalesce(array_agg(r.job_id) FILTER (WHERE r.outcome = 'dead'), '{}')
    INTO v_rescued, v_dead_ids
    FROM jobq._rescue(1000, p_now) AS r;
    -- A statement of its own: the history rows the sweep just wrote are visible from here. When
    -- nothing died (nearly always) history is not read: on a small history the planner would
    -- scan it whole for an empty id list.
    v_dead := '[]';
    IF cardinality(v_dead_ids) > 0 THEN
        SELECT coalesce(jsonb_agg(jsonb_build_object('job_id', h.id, 'task', h.task, 'queue', h.queue, 'store_id', h.store_id,
                                                     'attempt', h.attempt, 'reason', h.reason, 'worker', h.locked_by,
                                                     'error', h.last_error, 'duration_ms',
                                                     round(extract(epoch FROM p_now - h.claimed_at) * 1000)::bigint)
                                  ORDER BY h.id), '[]')
        INTO v_dead
        FROM jobq.job_history h
        WHERE h.id = ANY (v_dead_ids);
    END IF;

    -- CONFIRMING rows whose lease ended otherwise (completed, failed, canceled before the
    -- deadline) are left over: they never apply to another lease, and go here.
    DELETE FROM jobq.continuations AS c
    WHERE NOT EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.id = c.job_id AND j.lease_token = c.lease_token AND j.state = 'running');

    -- Jobs a setter of fair claiming could not see, flagged once they can be (none nearly always:
    -- one probe of the small jobq.queues).
    PERFORM jobq._settle_fair_flags();
    -- Running jobs claimed while their queue was not limited, counted by its limits once flagged,
    -- and, once after the upgrade to migration 00036, running jobs without a claim's receipt.
    PERFORM jobq._settle_counted_flags();
    PERFORM jobq._cover_running_jobs();

    -- The live jobs counted for jobq.stats when it is time (a big backlog only, at most a
    -- twentieth of one core: jobq._count_live_jobs).
    PERFORM jobq._count_live_jobs(p_now);

    -- History by day: the next days' partitions made ahead (one catalog probe when they exist),
    -- days past retention dropped, the rest pruned row by row; when nothing is past retention
    -- (nearly always: maintain runs every second), no row of history is read.
    PERFORM jobq._history_days_ahead(p_now);
    SELECT p.rows_deleted, p.days_dropped INTO v_pruned, v_days_dropped FROM jobq._prune_history(v_retention_cutoff, 10000) p;
    IF (SELECT min(o.ended_at) FROM jobq.job_attempts o) < v_retention_cutoff THEN
        DELETE FROM jobq.job_attempts AS a
        WHERE a.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.job_attempts o WHERE o.ended_at < v_retention_cutoff LIMIT 10000));
    END IF;
    DELETE FROM jobq.schedule_runs AS r
    WHERE r.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.schedule_runs o WHERE o.created_at < v_retention_cutoff LIMIT 10000));
    DELETE FROM jobq.workers AS w
    WHERE w.state IN ('stopped', 'lost') AND w.state_changed_at < v_retention_cutoff;

    RETURN jsonb_build_object('fenced', false, 'epoch', p_epoch, 'slots_enqueued', v_enqueued, 'slots_skipped', v_skipped,
                              'lost_workers', to_jsonb(v_lost), 'rescued', v_rescued, 'history_pruned', v_pruned,
                              'history_days_dropped', v_days_dropped,
                              'dead', v_dead);
END
$$;
COMMENT ON FUNCTION jobq._maintain(text,bigint,timestamp with time zone) IS
    'Private. jobq.maintain at time p_now. Its cut-offs (history_retention, worker_timeout) saturate (jobq._ts_add).';
