-- jobq schema step 13: workers, leadership with fencing epochs, and maintain().
--
-- Everything seed 002 puts in Redis and gRPC lives here, in tables:
--   jobq.workers   every runner registers and heartbeats (load included); an operator drains it
--                  (stop claiming, finish what it holds) or detaches it (stop claiming; its leases
--                  are rescued now) with one audited call, and the runner obeys at its next
--                  heartbeat. A worker whose heartbeat is older than worker_timeout is marked lost
--                  and its leases are rescued without waiting for each lease to expire.
--   jobq.leader    one row: holder, lease and an epoch that grows on every change of leader.
--                  maintain(worker, epoch) does its work only while that worker holds that epoch,
--                  and holds the row (FOR SHARE) for its whole transaction, so a new leader cannot
--                  take over in the middle: two leaders never act for one epoch, and a paused leader
--                  that wakes up with a stale epoch changes nothing.

-- +goose Up

INSERT INTO jobq.settings (name, kind, value, description) VALUES
    ('worker_heartbeat_interval', 'interval', '5 seconds', 'How often a runner heartbeats its jobq.workers row and reads the settings.'),
    ('worker_timeout',            'interval', '30 seconds', 'A worker whose heartbeat is older than this is marked lost; its leases are rescued.'),
    ('leader_ttl',                'interval', '15 seconds', 'Lease of the leadership; the leader renews it every third of it.'),
    ('maintain_interval',         'interval', '1 second', 'How often the leader calls jobq.maintain.'),
    ('poll_interval',             'interval', '1 second', 'How often runners claim without a NOTIFY.');

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.UNKNOWN_WORKER', 'JQ605', 'No worker has this id.', 'SELECT id, state FROM jobq.workers lists them.');

CREATE TABLE jobq.workers (
    id               text PRIMARY KEY CHECK (id <> ''),
    node             text NOT NULL,
    pid              integer,
    queues           text[] NOT NULL,
    concurrency      integer NOT NULL CHECK (concurrency >= 1),
    version          text NOT NULL DEFAULT '',
    running          integer NOT NULL DEFAULT 0,
    state            text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'draining', 'detached', 'lost', 'stopped')),
    started_at       timestamptz NOT NULL DEFAULT now(),
    heartbeat_at     timestamptz NOT NULL DEFAULT now(),
    state_changed_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE jobq.workers IS 'Registered runners: node, pid, queues, concurrency, load (running), heartbeat and state.';

CREATE TABLE jobq.leader (
    singleton        boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    holder           text,
    epoch            bigint NOT NULL DEFAULT 0,
    acquired_at      timestamptz,
    lease_expires_at timestamptz
);
COMMENT ON TABLE jobq.leader IS 'The one leadership: holder, fencing epoch (grows on every change of leader) and lease.';
INSERT INTO jobq.leader DEFAULT VALUES;

GRANT SELECT ON jobq.workers, jobq.leader TO jobq_operator, worker_runtime;

-- The settings a runner applies, as one JSON object {name: value}.
-- +goose StatementBegin
CREATE FUNCTION jobq._settings_json()
RETURNS jsonb
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(jsonb_object_agg(s.name, s.value), '{}') FROM jobq.settings s
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._settings_json() IS 'Private. Every setting as {name: value}.';

-- Registers (or re-registers) a runner. Returns the settings it should apply.
-- +goose StatementBegin
CREATE FUNCTION jobq.register_worker(worker_id text, node text, pid integer, queues text[], concurrency integer, version text DEFAULT '')
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
    INSERT INTO jobq.workers AS w (id, node, pid, queues, concurrency, version)
    VALUES (register_worker.worker_id, register_worker.node, register_worker.pid, register_worker.queues,
            register_worker.concurrency, coalesce(register_worker.version, ''))
    ON CONFLICT ON CONSTRAINT workers_pkey DO UPDATE SET
        node = EXCLUDED.node, pid = EXCLUDED.pid, queues = EXCLUDED.queues, concurrency = EXCLUDED.concurrency,
        version = EXCLUDED.version, state = 'active', started_at = now(), heartbeat_at = now(), state_changed_at = now();
    RETURN jobq._settings_json();
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.register_worker(text, text, integer, text[], integer, text) IS
    'Registers runner worker_id (node, pid, queues, concurrency, version) as active and returns the settings '
    '{name: value} it applies. Caller: runners at start. Errors: JOB.INVALID_ARGUMENT.';

-- A runner's heartbeat: records its load and returns what it must do (its state) and the
-- settings, so operators' drain/detach and setting changes reach it within one heartbeat.
-- +goose StatementBegin
CREATE FUNCTION jobq.worker_heartbeat(worker_id text, running integer DEFAULT 0)
RETURNS TABLE (state text, settings jsonb)
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_state text;
BEGIN
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.worker_heartbeat(text, integer) IS
    'Records a runner''s heartbeat and load; returns its state (active, draining, detached) and the settings. '
    'A runner that is draining or detached stops claiming. Caller: runners every worker_heartbeat_interval. '
    'Errors: JOB.UNKNOWN_WORKER.';

-- Expires, now, every lease worker p_worker_id holds, so the next sweep (run here) rescues them.
-- +goose StatementBegin
CREATE FUNCTION jobq._release_worker_leases(p_worker_id text, p_now timestamptz)
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_n integer;
BEGIN
    UPDATE jobq.jobs AS j SET lease_expires_at = p_now, updated_at = p_now
    WHERE j.locked_by = p_worker_id AND j.state = 'running' AND j.lease_expires_at > p_now;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    PERFORM 1 FROM jobq._rescue(greatest(v_n, 1) + 1000, p_now);
    RETURN v_n;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._release_worker_leases(text, timestamptz) IS
    'Private. Ends every lease a worker holds at p_now and sweeps: its jobs go back to the queue (orphaned).';

-- Sets a worker's state as an operator; audited.
-- +goose StatementBegin
CREATE FUNCTION jobq._set_worker_state(p_worker_id text, p_state text, p_action text)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_previous text;
BEGIN
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._set_worker_state(text, text, text) IS 'Private. Sets a worker''s state, audited as p_action; returns the previous state.';

-- +goose StatementBegin
CREATE FUNCTION jobq.drain_worker(worker_id text)
RETURNS void
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM jobq._set_worker_state(drain_worker.worker_id, 'draining', 'drain_worker')
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.drain_worker(text) IS
    'Drains a worker: it stops claiming at its next heartbeat and finishes the jobs it holds. Audited. '
    'Caller: operators. Errors: JOB.UNKNOWN_WORKER.';

-- +goose StatementBegin
CREATE FUNCTION jobq.resume_worker(worker_id text)
RETURNS void
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM jobq._set_worker_state(resume_worker.worker_id, 'active', 'resume_worker')
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.resume_worker(text) IS
    'Undoes a drain: the worker claims again at its next heartbeat. Audited. Caller: operators. Errors: JOB.UNKNOWN_WORKER.';

-- +goose StatementBegin
CREATE FUNCTION jobq.detach_worker(worker_id text)
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM jobq._set_worker_state(detach_worker.worker_id, 'detached', 'detach_worker');
    RETURN jobq._release_worker_leases(detach_worker.worker_id, now());
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.detach_worker(text) IS
    'Detaches a worker: it stops claiming, and every lease it holds is rescued now (its jobs run again elsewhere when '
    'they have attempts left, as with any orphaned job; its late writes are refused by their lease tokens). Returns the number of leases taken. Audited. Caller: operators. '
    'Errors: JOB.UNKNOWN_WORKER.';

-- Marks a worker stopped (clean exit). Its row stays until pruned.
-- +goose StatementBegin
CREATE FUNCTION jobq.deregister_worker(worker_id text)
RETURNS void
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    UPDATE jobq.workers AS w SET state = 'stopped', state_changed_at = now(), running = 0
    WHERE w.id = deregister_worker.worker_id;
    UPDATE jobq.leader AS l SET lease_expires_at = now() WHERE l.holder = deregister_worker.worker_id;
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.deregister_worker(text) IS
    'Marks a runner stopped after a clean drain and gives up its leadership, so another runner takes over at once. '
    'Caller: runners at exit.';

-- Takes or renews the leadership for p_worker_id at p_now. Returns the epoch when p_worker_id
-- leads, NULL when another worker does. The epoch grows whenever the leader changes (also when
-- the same worker takes it back after its lease lapsed).
-- +goose StatementBegin
CREATE FUNCTION jobq._acquire_leadership(p_worker_id text, p_ttl interval, p_now timestamptz)
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
    SELECT l.epoch INTO v_previous_epoch FROM jobq.leader l FOR UPDATE;
    UPDATE jobq.leader AS l
    SET epoch            = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.epoch ELSE l.epoch + 1 END,
        acquired_at      = CASE WHEN l.holder = p_worker_id AND l.lease_expires_at > p_now THEN l.acquired_at ELSE p_now END,
        holder           = p_worker_id,
        lease_expires_at = p_now + p_ttl
    WHERE l.holder IS NULL OR l.lease_expires_at <= p_now OR l.holder = p_worker_id
    RETURNING l.epoch INTO v_epoch;
    IF v_epoch IS NOT NULL AND v_epoch <> v_previous_epoch THEN
        INSERT INTO jobq.audit_log (action, detail)
        VALUES ('leader_changed', jsonb_build_object('worker_id', p_worker_id, 'epoch', v_epoch));
    END IF;
    RETURN v_epoch;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._acquire_leadership(text, interval, timestamptz) IS
    'Private. The leadership at time p_now; see jobq.acquire_leadership.';

-- +goose StatementBegin
CREATE FUNCTION jobq.acquire_leadership(worker_id text, ttl interval DEFAULT '15 seconds')
RETURNS bigint
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._acquire_leadership(acquire_leadership.worker_id, acquire_leadership.ttl, now())
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.acquire_leadership(text, interval) IS
    'Takes the leadership for worker_id when nobody holds a live lease on it, or renews it; returns the fencing epoch, '
    'or NULL when another worker leads. The epoch grows on every change of leader; pass it to jobq.maintain. Locks the '
    'leader row (waits for a maintain in progress). Caller: runners every leader_ttl / 3. Errors: JOB.INVALID_ARGUMENT, '
    'JOB.LEASE_INVALID.';

-- Everything periodic, at time p_now, when p_worker_id leads with p_epoch (or, unfenced, when
-- both are NULL): due cron slots, lost workers, expired leases and timeouts, retention. Each step
-- is batched; a call does a bounded amount of work and says what it did.
-- +goose StatementBegin
CREATE FUNCTION jobq._maintain(p_worker_id text, p_epoch bigint, p_now timestamptz)
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
    v_worker text;
    v_retention constant interval := jobq._setting_interval('history_retention');
BEGIN
    IF (p_worker_id IS NULL) <> (p_epoch IS NULL) THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'pass both worker_id and epoch (fenced), or neither (unfenced)');
    END IF;
    IF p_worker_id IS NOT NULL THEN
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
          AND w.heartbeat_at < p_now - jobq._setting_interval('worker_timeout')
        RETURNING w.id
    )
    SELECT coalesce(array_agg(lost.id ORDER BY lost.id), '{}') INTO v_lost FROM lost;
    v_rescued := 0;
    FOR v_worker IN
        SELECT w.id FROM jobq.workers w
        WHERE w.heartbeat_at < p_now - jobq._setting_interval('worker_timeout')
          AND EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.locked_by = w.id AND j.state = 'running')
    LOOP
        v_rescued := v_rescued + jobq._release_worker_leases(v_worker, p_now);
    END LOOP;

    v_rescued := v_rescued + (SELECT count(*)::integer FROM jobq._rescue(1000, p_now));

    DELETE FROM jobq.job_history AS h
    WHERE h.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.job_history o WHERE o.finished_at < p_now - v_retention LIMIT 10000));
    GET DIAGNOSTICS v_pruned = ROW_COUNT;
    DELETE FROM jobq.schedule_runs AS r
    WHERE r.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.schedule_runs o WHERE o.created_at < p_now - v_retention LIMIT 10000));
    DELETE FROM jobq.workers AS w
    WHERE w.state IN ('stopped', 'lost') AND w.state_changed_at < p_now - v_retention;

    RETURN jsonb_build_object('fenced', false, 'epoch', p_epoch, 'slots_enqueued', v_enqueued, 'slots_skipped', v_skipped,
                              'lost_workers', to_jsonb(v_lost), 'rescued', v_rescued, 'history_pruned', v_pruned);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._maintain(text, bigint, timestamptz) IS 'Private. jobq.maintain at time p_now.';

-- +goose StatementBegin
CREATE FUNCTION jobq.maintain(worker_id text DEFAULT NULL, epoch bigint DEFAULT NULL)
RETURNS jsonb
LANGUAGE sql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._maintain(maintain.worker_id, maintain.epoch, now())
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.maintain(text, bigint) IS
    'Does everything periodic in one call: enqueues due cron slots, marks workers lost and rescues their leases, sweeps '
    'expired leases and timeouts, prunes history, schedule runs and stopped workers past history_retention; each step '
    'batched. Fenced: with worker_id and epoch it acts only while that worker leads with that epoch (it returns '
    '{"fenced": true} and changes nothing otherwise) and holds the leadership row until it commits. Unfenced (no '
    'arguments), e.g. from pg_cron, it is safe too: every step is idempotent under concurrency. Returns what it did. '
    'Callers: the runners'' leader every maintain_interval; pg_cron. Errors: JOB.INVALID_ARGUMENT.';

GRANT EXECUTE ON FUNCTION
    jobq.register_worker(text, text, integer, text[], integer, text),
    jobq.worker_heartbeat(text, integer),
    jobq.deregister_worker(text),
    jobq.acquire_leadership(text, interval),
    jobq.maintain(text, bigint)
TO worker_runtime, jobq_operator;
GRANT EXECUTE ON FUNCTION jobq.drain_worker(text), jobq.resume_worker(text), jobq.detach_worker(text) TO jobq_operator;

-- +goose Down
DROP FUNCTION jobq.maintain(text, bigint);
DROP FUNCTION jobq._maintain(text, bigint, timestamptz);
DROP FUNCTION jobq.acquire_leadership(text, interval);
DROP FUNCTION jobq._acquire_leadership(text, interval, timestamptz);
DROP FUNCTION jobq.deregister_worker(text);
DROP FUNCTION jobq.detach_worker(text);
DROP FUNCTION jobq.resume_worker(text);
DROP FUNCTION jobq.drain_worker(text);
DROP FUNCTION jobq._set_worker_state(text, text, text);
DROP FUNCTION jobq._release_worker_leases(text, timestamptz);
DROP FUNCTION jobq.worker_heartbeat(text, integer);
DROP FUNCTION jobq.register_worker(text, text, integer, text[], integer, text);
DROP FUNCTION jobq._settings_json();
DROP TABLE jobq.leader;
DROP TABLE jobq.workers;
DELETE FROM jobq.error_codes WHERE sqlstate = 'JQ605';
DELETE FROM jobq.settings WHERE name IN ('worker_heartbeat_interval', 'worker_timeout', 'leader_ttl', 'maintain_interval', 'poll_interval');
