-- jobq engine, the fair pick. A fair queue (jobq.set_fair_claiming): its stores take turns within
-- each priority, so that one store's backlog cannot hold the others' jobs back. jobq._claim
-- leases what it picks in its one update. Every statement that reads jobs_fair_idx names
-- j.fair, its predicate beside jobq._rule_waiting: only the jobs flagged fair are in it
-- (jobq.jobs.fair: set by the enqueue, jobq.set_fair_claiming and jobq._settle_fair_flags).
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The pick of a fair queue before it returned arrays (issue 18: a set of rows cost a tuplestore
-- here and an aggregate in the caller).
DROP FUNCTION IF EXISTS jobq._fair_pick(text,integer,timestamp with time zone,uuid[],text,text[]);

-- The signature before the tasks a worker serves (issue 30).
DROP FUNCTION IF EXISTS jobq._pick_fair(text,integer,timestamp with time zone,uuid[],text,text[],bigint[]);

-- Picks and locks up to p_max_jobs due jobs of a fair queue, the stores in turn: priority by
-- priority (highest first), each priority's stores (store_id; the zero uuid for system jobs) in
-- key order from after the store the queue's last claim served last (jobq.claim_cursors),
-- wrapping round; the first job of every store, then the second of every store, and so on. A
-- store with 100,000 due jobs and ten stores with 10 each: the ten's jobs are all among the first
-- 110 picked. Cost: one probe of jobs_fair_idx per store stepped over, which reads the store's
-- first waiting entry (past the entries of the jobs claimed since the last vacuum: the walk a
-- plain claim from the head makes once), and one locking scan per round that starts at each
-- store's first entry, so neither a store's backlog nor its claimed jobs cost the other stores
-- anything more. When no other store has a waiting job in the first priority (the usual backlog
-- of a burst), that store's due jobs are taken in one locking scan, without rounds. The stores in
-- p_skip_stores, and jobs whose payload ->> p_partition_key is in
-- p_skip_parts, are passed over (their limit is full), and so are the jobs p_skip_ids (picked
-- already by the caller, which holds their locks). Rows another transaction holds are
-- skipped (SKIP LOCKED), so claims side by side take the next jobs of the same stores. Records
-- the last store picked as the queue's cursor. Callers: jobq._claim for a fair queue without
-- limits and for a shared claim of one with limits; jobq._pick_limited for any other claim of
-- one with limits, whose first pick comes before the queue's advisory lock and its picks again
-- under it.
CREATE OR REPLACE FUNCTION jobq._pick_fair(p_queue text, p_max_jobs integer, p_now timestamptz, p_skip_stores uuid[],
                                           p_partition_key text, p_skip_parts text[], p_skip_ids bigint[],
                                           p_tasks text[] DEFAULT NULL,
                                           OUT ids bigint[], OUT stores uuid[], OUT parts text[])
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
-- As jobq._claim: never a sequential scan nor a bitmap, generic plans. The store key is
-- jobq._store_key, inlined into the expression of jobs_fair_idx, in every statement.
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_room integer := p_max_jobs;
    v_cursor uuid;                         -- the store served last
    v_start uuid;                          -- the cursor as this pick found it
    v_first record;                        -- the priority served, its first store and that store's first job
    v_key uuid;                            -- the store stepped to
    v_next record;                         -- its first waiting job
    v_turn uuid;                           -- the cursor as this priority's turn began
    v_from_cursor boolean;                 -- the round starts after the cursor, then wraps round
    v_wrapped boolean;
    v_stepped boolean;                     -- every store of the priority has been stepped over
    v_served boolean := false;             -- the first priority was served by its one store
    v_keys uuid[];                         -- the round's stores, and where each one's jobs start
    v_runs timestamptz[];
    v_ids bigint[];
    v_took record;
BEGIN
    SELECT c.store_key INTO v_cursor FROM jobq.claim_cursors c WHERE c.queue = p_queue;
    v_start := v_cursor;
    SELECT * INTO v_first FROM jobq._fair_first(p_queue, NULL, p_partition_key, p_tasks);
    -- The usual pick of a burst: no other store has a waiting job in the first priority, so every
    -- turn of it is that store's, wherever the cursor is: its due jobs in one locking scan,
    -- without rounds (issue 18: 30 µs of a claim's 210).
    IF v_first.priority IS NOT NULL AND v_first.run_at <= p_now AND p_partition_key IS NULL AND v_first.store <> ALL (p_skip_stores)
       AND NOT EXISTS (SELECT 1 FROM jobq._fair_next_store(p_queue, v_first.priority, v_first.store, NULL, p_tasks)) THEN
        v_took := jobq._fair_take_store(p_queue, v_first.priority, v_first.store, v_first.run_at, v_first.id, v_room, p_now,
                                        NULL, '{}', p_skip_ids, p_tasks);
        IF v_took.ids IS NOT NULL THEN
            ids := v_took.ids; stores := array_fill(v_first.store, ARRAY[cardinality(v_took.ids)]); parts := v_took.parts;
            v_room := v_room - cardinality(v_took.ids);
            v_cursor := v_first.store;
        END IF;
        v_served := true;
    END IF;
    WHILE v_first.priority IS NOT NULL AND v_room > 0 LOOP
        -- This priority's stores in turn: from after the cursor to the last store, then from the
        -- first up to the cursor; a round at a time, at most one store per job still wanted.
        v_turn := v_cursor;
        v_from_cursor := v_turn IS NOT NULL AND v_turn >= v_first.store;
        v_wrapped := NOT v_from_cursor;
        v_key := CASE WHEN v_from_cursor THEN v_turn END;
        v_stepped := v_served;             -- nothing more to step over in a priority served above
        v_served := false;
        WHILE NOT v_stepped AND v_room > 0 LOOP
            v_keys := '{}'::uuid[]; v_runs := '{}'::timestamptz[]; v_ids := '{}'::bigint[];
            WHILE cardinality(v_keys) < v_room LOOP
                IF v_wrapped AND v_from_cursor AND v_key >= v_turn THEN
                    v_stepped := true;
                    EXIT;
                END IF;
                IF v_key IS NULL THEN
                    v_next := v_first;
                ELSE
                    SELECT * INTO v_next FROM jobq._fair_next_store(p_queue, v_first.priority, v_key, p_partition_key, p_tasks);
                    IF v_next.store IS NULL THEN   -- past the last store: wrap round once
                        v_stepped := v_wrapped;
                        EXIT WHEN v_wrapped;
                        v_wrapped := true;
                        v_key := NULL;
                        CONTINUE;
                    END IF;
                END IF;
                v_key := v_next.store;
                -- A store whose first job is not due has none due (its jobs are in run_at order).
                CONTINUE WHEN v_next.run_at > p_now OR v_key = ANY (p_skip_stores);
                IF p_partition_key IS NOT NULL AND v_next.part = ANY (p_skip_parts) THEN
                    SELECT * INTO v_next FROM jobq._fair_first_outside(p_queue, v_first.priority, v_key, v_next.run_at, v_next.id,
                                                                       p_now, p_partition_key, p_skip_parts, p_tasks);
                    CONTINUE WHEN v_next.id IS NULL;
                END IF;
                v_keys := v_keys || v_key; v_runs := v_runs || v_next.run_at; v_ids := v_ids || v_next.id;
            END LOOP;
            -- Take the round's jobs in turn; the stores that gave their whole share are served
            -- again, from after their last job, while jobs are still wanted.
            WHILE cardinality(v_keys) > 0 AND v_room > 0 LOOP
                IF cardinality(v_keys) = 1 THEN    -- one store: its jobs in order, and the round ends
                    SELECT t.ids, CASE WHEN t.ids IS NOT NULL THEN array_fill(v_keys[1], ARRAY[cardinality(t.ids)]) END AS keys,
                           t.parts, '{}'::uuid[] AS full_keys, '{}'::timestamptz[] AS full_runs, '{}'::bigint[] AS full_ids
                    INTO v_took
                    FROM jobq._fair_take_store(p_queue, v_first.priority, v_keys[1], v_runs[1], v_ids[1], v_room, p_now,
                                               p_partition_key, p_skip_parts, p_skip_ids, p_tasks) AS t;
                ELSE
                    v_took := jobq._fair_take_round(p_queue, v_first.priority, v_keys, v_runs, v_ids, v_room, p_now,
                                                    p_partition_key, p_skip_parts, p_skip_ids, p_tasks);
                END IF;
                EXIT WHEN v_took.ids IS NULL;
                ids := ids || v_took.ids; stores := stores || v_took.keys; parts := parts || v_took.parts;
                v_room := v_room - cardinality(v_took.ids);
                v_cursor := v_took.keys[cardinality(v_took.keys)];
                v_keys := v_took.full_keys; v_runs := v_took.full_runs; v_ids := v_took.full_ids;
            END LOOP;
        END LOOP;
        EXIT WHEN v_room <= 0;
        SELECT * INTO v_first FROM jobq._fair_first(p_queue, v_first.priority, p_partition_key, p_tasks);
    END LOOP;
    -- The next pick serves first the stores after the one served last. Claims run side by side:
    -- one that finds the cursor row locked by another (which moves it) leaves it, rather than
    -- wait; the row is jobq.set_fair_claiming's, never inserted by a claim.
    IF v_cursor IS DISTINCT FROM v_start THEN
        UPDATE jobq.claim_cursors AS c SET store_key = v_cursor
        WHERE c.queue = (SELECT l.queue FROM jobq.claim_cursors l WHERE l.queue = p_queue FOR UPDATE SKIP LOCKED);
    END IF;
END
$$;
COMMENT ON FUNCTION jobq._pick_fair(text,integer,timestamp with time zone,uuid[],text,text[],bigint[],text[]) IS
    'Private. Picks and locks (SKIP LOCKED) up to p_max_jobs due waiting jobs of the fair queue p_queue at time p_now, in turn between its stores (the zero uuid for system jobs) within each priority, highest priority first: the first due job of each store, then the second of each, and so on, the stores in key order from after the store in jobq.claim_cursors, wrapping round; passing over the stores of p_skip_stores, the jobs whose payload ->> p_partition_key is in p_skip_parts, the jobs p_skip_ids and, given p_tasks, the jobs of other tasks. Returns their ids in that order (ids), each one''s store key (stores) and partition value (parts) beside it, all three NULL when it picks none; and sets the queue''s cursor to the last store picked. Reads jobs_fair_idx (one probe per store stepped over; one locking scan per round from each store''s first entry; when no other store has a waiting job in the first priority, one probe for another store and one locking scan of that store''s due jobs, without rounds); writes the queue''s jobq.claim_cursors row (inserted by jobq.set_fair_claiming) unless another claim holds it (SKIP LOCKED: never waits); inserts none. Callers: jobq._claim (a fair queue without limits, or a shared claim of one with limits); jobq._pick_limited (any other claim of one with limits: its first pick before the queue''s advisory lock, its picks again under it).';


-- The signatures before the probes were inlined into the fair pick's statements.
DROP FUNCTION IF EXISTS jobq._fair_first(text,smallint,text,text[]);
DROP FUNCTION IF EXISTS jobq._fair_next_store(text,smallint,uuid,text,text[]);
DROP FUNCTION IF EXISTS jobq._fair_first_outside(text,smallint,uuid,timestamp with time zone,bigint,timestamp with time zone,text,text[],text[]);

-- The first waiting job of the fair queue p_queue (jobq._rule_waiting, jobq._rule_served) in the
-- first priority after p_after_priority (NULL: the highest), in jobs_fair_idx order: its
-- priority, store key, run_at, id and partition value; no row when there is none. A SQL
-- function its caller's statement inlines (one probe, planned with the caller's).
CREATE OR REPLACE FUNCTION jobq._fair_first(p_queue text, p_after_priority smallint, p_partition_key text, p_tasks text[])
RETURNS TABLE (priority smallint, store uuid, run_at timestamptz, id bigint, part text)
LANGUAGE sql
STABLE
AS $$
    SELECT j.priority, jobq._store_key(j.store_id), j.run_at, j.id, j.payload ->> p_partition_key
    FROM jobq.jobs j
    WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks)
      AND j.priority > coalesce(p_after_priority, -32769)
    ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
    LIMIT 1
$$;
COMMENT ON FUNCTION jobq._fair_first(text,smallint,text,text[]) IS
    'Private. The first waiting job of queue p_queue of the tasks p_tasks (NULL: every task) in the first priority after p_after_priority (NULL: any), by (priority, store key, run_at, id): its priority, store key (jobq._store_key), run_at, id and payload ->> p_partition_key; no row for none. One probe of jobs_fair_idx, inlined into the caller''s statement and planned under its settings. Caller: jobq._pick_fair.';

-- The first waiting job of the next store after p_store in priority p_priority of the fair queue
-- p_queue: one probe of jobs_fair_idx, past the entries of that store; no row when p_store is the
-- priority's last store. Inlined, as jobq._fair_first.
CREATE OR REPLACE FUNCTION jobq._fair_next_store(p_queue text, p_priority smallint, p_store uuid, p_partition_key text, p_tasks text[])
RETURNS TABLE (store uuid, run_at timestamptz, id bigint, part text)
LANGUAGE sql
STABLE
AS $$
    SELECT jobq._store_key(j.store_id), j.run_at, j.id, j.payload ->> p_partition_key
    FROM jobq.jobs j
    WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks) AND j.priority = p_priority
      AND jobq._store_key(j.store_id) > p_store
    ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
    LIMIT 1
$$;
COMMENT ON FUNCTION jobq._fair_next_store(text,smallint,uuid,text,text[]) IS
    'Private. The first waiting job (of the tasks p_tasks) of the first store after p_store in priority p_priority of queue p_queue: its store key, run_at, id and payload ->> p_partition_key; no row when there is no later store. One probe of jobs_fair_idx, inlined into the caller''s statement. Caller: jobq._pick_fair.';

-- The first due job of store p_store in priority p_priority of the fair queue p_queue after
-- (p_run_at, p_id) outside the full partitions p_skip_parts (a job without the field is in
-- none); store, run_at and id, or no row. Inlined, as jobq._fair_first.
CREATE OR REPLACE FUNCTION jobq._fair_first_outside(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamptz, p_id bigint,
                                                    p_now timestamptz, p_partition_key text, p_skip_parts text[], p_tasks text[])
RETURNS TABLE (store uuid, run_at timestamptz, id bigint)
LANGUAGE sql
STABLE
AS $$
    SELECT jobq._store_key(j.store_id), j.run_at, j.id
    FROM jobq.jobs j
    WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks) AND j.priority = p_priority
      AND jobq._store_key(j.store_id) = p_store
      AND (j.run_at, j.id) > (p_run_at, p_id) AND jobq._rule_due(j.run_at, p_now)
      AND (j.payload ->> p_partition_key IS NULL OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
    ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
    LIMIT 1
$$;
COMMENT ON FUNCTION jobq._fair_first_outside(text,smallint,uuid,timestamp with time zone,bigint,timestamp with time zone,text,text[],text[]) IS
    'Private. The first due waiting job (of the tasks p_tasks) of store p_store in priority p_priority of queue p_queue after (p_run_at, p_id) whose payload ->> p_partition_key is NULL or outside p_skip_parts: its store key, run_at and id; no row for none. Inlined into the caller''s statement. Caller: jobq._pick_fair, for a store whose first job is in a full partition.';

-- One store's due jobs of priority p_priority from (p_run_at, p_id) on, in order, up to p_room,
-- outside the full partitions and the jobs p_skip_ids, locked (SKIP LOCKED): a round with one
-- store, without the interleaving of jobq._fair_take_round. Their ids and partition values, NULL
-- for none.
CREATE OR REPLACE FUNCTION jobq._fair_take_store(p_queue text, p_priority smallint, p_store uuid, p_run_at timestamptz, p_id bigint,
                                                 p_room integer, p_now timestamptz, p_partition_key text, p_skip_parts text[],
                                                 p_skip_ids bigint[], p_tasks text[], OUT ids bigint[], OUT parts text[])
LANGUAGE plpgsql
VOLATILE
AS $$
-- VOLATILE for its row locks, which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
BEGIN
    -- An ARRAY keeps the locking scan's order: no sort (the usual pick of a burst comes here).
    ids := ARRAY(SELECT j.id
                 FROM jobq.jobs j
                 WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks) AND j.priority = p_priority
                   AND jobq._store_key(j.store_id) = p_store
                   AND (j.run_at, j.id) >= (p_run_at, p_id) AND jobq._rule_due(j.run_at, p_now)
                   AND (p_partition_key IS NULL OR j.payload ->> p_partition_key IS NULL OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
                   AND j.id <> ALL (p_skip_ids)
                 ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
                 LIMIT p_room
                 FOR UPDATE OF j SKIP LOCKED);
    IF cardinality(ids) = 0 THEN
        ids := NULL;
    ELSIF p_partition_key IS NULL THEN
        parts := array_fill(NULL::text, ARRAY[cardinality(ids)]);
    ELSE
        -- The partition of each job taken, in the same order (rows this transaction holds).
        parts := ARRAY(SELECT j.payload ->> p_partition_key FROM unnest(ids) WITH ORDINALITY AS t(id, n)
                       JOIN jobq.jobs j ON j.id = t.id ORDER BY t.n);
    END IF;
END
$$;
COMMENT ON FUNCTION jobq._fair_take_store(text,smallint,uuid,timestamp with time zone,bigint,integer,timestamp with time zone,text,text[],bigint[],text[]) IS
    'Private. Locks (SKIP LOCKED) and returns up to p_room due waiting jobs (of the tasks p_tasks) of store p_store in priority p_priority of queue p_queue, from (p_run_at, p_id) on in (run_at, id) order, outside p_skip_parts (payload ->> p_partition_key) and p_skip_ids: ids and partition values, NULL for none. One locking scan of jobs_fair_idx under its caller''s planner settings. Caller: jobq._pick_fair (the burst of one store, and a round with one store).';

-- A round of the fair pick: from each store of p_keys (in turn order; its jobs from p_runs,
-- p_ids on), a share of p_room in one locking scan per store (SKIP LOCKED), room / stores each
-- and one more for the first room mod stores; the jobs in turns: every store's first, then every
-- store's second, and so on. A store that gave fewer has no more to give now; those that gave
-- their whole share are returned (full_keys, full_runs, full_ids: from after their last job,
-- (run_at, id + 1), a job this transaction holds and SKIP LOCKED would not skip) to be served
-- again. Two stores or more: one store alone is taken by jobq._fair_take_store.
CREATE OR REPLACE FUNCTION jobq._fair_take_round(p_queue text, p_priority smallint, p_keys uuid[], p_runs timestamptz[], p_ids bigint[],
                                                 p_room integer, p_now timestamptz, p_partition_key text, p_skip_parts text[],
                                                 p_skip_ids bigint[], p_tasks text[],
                                                 OUT ids bigint[], OUT keys uuid[], OUT parts text[],
                                                 OUT full_keys uuid[], OUT full_runs timestamptz[], OUT full_ids bigint[])
LANGUAGE plpgsql
VOLATILE
AS $$
-- VOLATILE for its row locks, which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_quota constant integer := p_room / cardinality(p_keys);
BEGIN
    SELECT array_agg(t.id ORDER BY t.rn, t.pos), array_agg(t.k ORDER BY t.rn, t.pos), array_agg(t.part ORDER BY t.rn, t.pos),
           coalesce(array_agg(t.k ORDER BY t.pos) FILTER (WHERE t.rn = t.share), '{}'),
           coalesce(array_agg(t.run_at ORDER BY t.pos) FILTER (WHERE t.rn = t.share), '{}'),
           coalesce(array_agg(t.id + 1 ORDER BY t.pos) FILTER (WHERE t.rn = t.share), '{}')
    INTO ids, keys, parts, full_keys, full_runs, full_ids
    FROM (SELECT h.id, h.run_at, h.part, s.k, s.pos, s.share,
                 row_number() OVER (PARTITION BY s.pos ORDER BY h.run_at, h.id) AS rn
          FROM (SELECT u.k, u.r, u.i, u.pos, v_quota + CASE WHEN u.pos <= p_room % cardinality(p_keys) THEN 1 ELSE 0 END AS share
                FROM unnest(p_keys, p_runs, p_ids) WITH ORDINALITY AS u(k, r, i, pos)) AS s
          CROSS JOIN LATERAL (
              SELECT j.id, j.run_at, j.payload ->> p_partition_key AS part
              FROM jobq.jobs j
              WHERE j.ready AND jobq._rule_waiting(j.state) AND j.fair AND j.queue = p_queue AND jobq._rule_served(j.task, p_tasks) AND j.priority = p_priority
                AND jobq._store_key(j.store_id) = s.k
                AND (j.run_at, j.id) >= (s.r, s.i) AND jobq._rule_due(j.run_at, p_now)
                AND (p_partition_key IS NULL OR j.payload ->> p_partition_key IS NULL OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
                AND j.id <> ALL (p_skip_ids)
              ORDER BY j.queue, j.priority, jobq._store_key(j.store_id), j.run_at, j.id
              LIMIT s.share
              FOR UPDATE OF j SKIP LOCKED) AS h
          WHERE s.share > 0) AS t;
    IF ids IS NULL THEN
        full_keys := '{}'::uuid[]; full_runs := '{}'::timestamptz[]; full_ids := '{}'::bigint[];
    END IF;
END
$$;
COMMENT ON FUNCTION jobq._fair_take_round(text,smallint,uuid[],timestamp with time zone[],bigint[],integer,timestamp with time zone,text,text[],bigint[],text[]) IS
    'Private. One round of the fair pick over the stores p_keys (each from (p_runs[i], p_ids[i]) on) of priority p_priority of queue p_queue: locks (SKIP LOCKED) up to p_room due waiting jobs (of the tasks p_tasks, outside p_skip_parts and p_skip_ids), room / stores per store and one more for the first room mod stores, and returns them in turns (ids, their store keys and partition values; NULL for none) with the stores that gave their whole share and where each is to go on from (full_keys, full_runs, full_ids). Called with two stores or more (one alone is taken by jobq._fair_take_store). Caller: jobq._pick_fair.';
