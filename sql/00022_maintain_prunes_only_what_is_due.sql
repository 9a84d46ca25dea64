-- jobq schema step 22: maintain reads history only when something is past retention.
--
-- The body of step 13's _maintain, except that the retention prune first asks the btree of step
-- 21 for the oldest finished_at and deletes only when it is past history_retention.

-- +goose Up

-- +goose StatementBegin
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

    -- The oldest finished_at comes from the btree in O(log n): when nothing is past retention
    -- (nearly always: maintain runs every second), history is not read at all.
    v_pruned := 0;
    IF (SELECT min(o.finished_at) FROM jobq.job_history o) < p_now - v_retention THEN
        DELETE FROM jobq.job_history AS h
        WHERE h.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.job_history o WHERE o.finished_at < p_now - v_retention LIMIT 10000));
        GET DIAGNOSTICS v_pruned = ROW_COUNT;
    END IF;
    DELETE FROM jobq.schedule_runs AS r
    WHERE r.ctid = ANY (ARRAY(SELECT o.ctid FROM jobq.schedule_runs o WHERE o.created_at < p_now - v_retention LIMIT 10000));
    DELETE FROM jobq.workers AS w
    WHERE w.state IN ('stopped', 'lost') AND w.state_changed_at < p_now - v_retention;

    RETURN jsonb_build_object('fenced', false, 'epoch', p_epoch, 'slots_enqueued', v_enqueued, 'slots_skipped', v_skipped,
                              'lost_workers', to_jsonb(v_lost), 'rescued', v_rescued, 'history_pruned', v_pruned);
END
$$;
-- +goose StatementEnd

-- +goose Down

-- +goose StatementBegin
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
