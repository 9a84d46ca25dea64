-- jobq engine, the plain pick. A queue without concurrency limits, rate limits or fair turns: its
-- due waiting jobs in claim order, (priority, run_at, id), locked with SKIP LOCKED. jobq._claim
-- leases what it picks in its one update.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The pick's name before the three picks had files of their own (issue 32).
DROP FUNCTION IF EXISTS jobq._pick_waiting(text,smallint,timestamp with time zone,bigint,integer,integer,timestamp with time zone,text[]);

-- Up to p_take jobs of queue p_queue that wait (jobq._rule_waiting), are due (jobq._rule_due) and
-- are of a task the worker serves (jobq._rule_served), locked (SKIP LOCKED); their ids in claim
-- order, (priority, run_at, id), NULL for none. Given a position (the last job the runner's
-- claims took in the queue), in two passes: the jobs of a higher priority than the position's
-- from the head, then the jobs after the position, so that the claim does not walk again over
-- the index entries of the jobs claimed before it (running, they stay in jobs_claim_idx, and
-- finished, until a vacuum).
-- A pick, then jobq._claim's update by primary key: two statements, so that no plan can join
-- the other way round (as one, the plan cached while jobq.jobs was small walked the whole primary
-- key for a one-job claim once a held snapshot had grown the table: 4,143 buffers, auto_explain).
-- Runs under its caller's planner settings (jobq._claim: no sequential scan, no bitmap, generic
-- plans), through jobs_claim_idx.
CREATE OR REPLACE FUNCTION jobq._pick_plain(p_queue text, p_after_priority smallint, p_after_run_at timestamptz,
                                            p_after_id bigint, p_take integer, p_now timestamptz, p_tasks text[])
RETURNS bigint[]
LANGUAGE plpgsql
VOLATILE
AS $$
-- VOLATILE for its row locks, which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_ids bigint[] := '{}'::bigint[];
    v_from_priority smallint := (-32768)::smallint;    -- each pass takes the jobs after (from) in claim order,
    v_from_run_at timestamptz := '-infinity'::timestamptz;  -- up to priority v_to: the head first
    v_from_id bigint := (-9223372036854775807)::bigint - 1;
    v_to integer := coalesce(p_after_priority - 1, 32767);
BEGIN
    FOR v_pass IN 1 .. CASE WHEN p_after_id IS NULL THEN 1 ELSE 2 END LOOP
        IF v_pass = 2 THEN
            v_from_priority := p_after_priority; v_from_run_at := p_after_run_at; v_from_id := p_after_id; v_to := 32767;
        END IF;
        CONTINUE WHEN v_to < -32768;
        v_ids := v_ids || ARRAY(
            SELECT j.id
            FROM jobq.jobs j
            WHERE j.ready AND jobq._rule_waiting(j.state)
              AND j.queue = p_queue
              AND (j.priority, j.run_at, j.id) > (v_from_priority, v_from_run_at, v_from_id)
              AND j.priority <= v_to
              AND jobq._rule_due(j.run_at, p_now)
              AND jobq._rule_served(j.task, p_tasks)
            ORDER BY j.priority, j.run_at, j.id
            LIMIT p_take - cardinality(v_ids)
            FOR UPDATE SKIP LOCKED);
        EXIT WHEN cardinality(v_ids) >= p_take;
    END LOOP;
    RETURN nullif(v_ids, '{}');
END
$$;
COMMENT ON FUNCTION jobq._pick_plain(text,smallint,timestamp with time zone,bigint,integer,timestamp with time zone,text[]) IS
    'Private. Locks (FOR UPDATE SKIP LOCKED) and returns the ids of up to p_take jobs of queue p_queue that wait, are due at p_now and are of the tasks p_tasks (NULL: every task): jobq._rule_waiting, _rule_due, _rule_served; in (priority, run_at, id) order; NULL when none. Given a position (p_after_priority, p_after_run_at, p_after_id), only the jobs of a higher priority than it and those after it; NULLs: from the head. Reads jobs_claim_idx under its caller''s planner settings. Callers: jobq._claim and jobq._pick_guarded; jobq._claim leases the jobs it returns.';
