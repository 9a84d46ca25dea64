-- jobq engine, the limited pick. A queue with concurrency limits (per queue, store or partition)
-- or rate limits: its claims count and pick under the queue's advisory lock, or, for a small
-- claim far below its limits, side by side in one of its slots (the shared claim). jobq._claim
-- leases what they pick in its one update.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Takes, in one order (by key), the transaction-level advisory lock of every queue in p_queues
-- that has a concurrency limit: the lock under which jobq._pick_limited counts a queue's running
-- jobs and claims, so that two claims of one limited queue run one after the other and never
-- exceed a limit together. Waits for a claim of those queues in progress (never for anything
-- else: a claim holding these locks waits for no row, SKIP LOCKED). Caller: jobq._claim, at the
-- first limited queue of its list.
CREATE OR REPLACE FUNCTION jobq._lock_limited_queues(p_queues text[])
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- Key: (1785684593, hashtext(queue)); 1785684593 is 'jobq' in ASCII. Two queues whose names
    -- share a hash share a lock, which serialises their claims and changes nothing else.
    -- A transaction that holds a limited queue's lock from an earlier claim never waits for
    -- another (jobq._claim_locks_held): it only tries them, and jobq._pick_limited takes nothing
    -- from a queue whose lock it could not get. So a claim waits for a lock only while it holds
    -- none but those this call took in key order, and claims cannot deadlock.
    IF jobq._claim_locks_held() THEN
        PERFORM pg_try_advisory_xact_lock(1785684593, l.k)
        FROM (SELECT DISTINCT hashtext(q.name) AS k FROM jobq.queues q WHERE q.name = ANY (p_queues) AND q.limited ORDER BY 1) AS l;
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(1785684593, l.k)
    FROM (SELECT DISTINCT hashtext(q.name) AS k FROM jobq.queues q WHERE q.name = ANY (p_queues) AND q.limited ORDER BY 1) AS l;
    IF FOUND THEN
        PERFORM jobq._note_claim_locks_held();
    END IF;
END
$$;
COMMENT ON FUNCTION jobq._lock_limited_queues(text[]) IS
    'Private. Takes pg_advisory_xact_lock(1785684593, hashtext(name)) for every queue of p_queues with a concurrency limit (jobq.queues.limited), in key order; held until the transaction ends. Waits for another claim holding one of them, unless the transaction already holds a limited queue''s lock (jobq._claim_locks_held): then it only tries each lock, never waiting. Notes the locks held (jobq._note_claim_locks_held).';

-- Whether this transaction holds the lock of a limited queue, shared or alone, from a claim
-- (jobq._lock_limited_queues, jobq._shared_claim_room): such a transaction never waits for
-- another queue's lock, so that two transactions claiming limited queues in different orders
-- across their claims cannot wait for each other. A transaction-local custom setting, which a
-- rolled-back subtransaction takes back with the locks it took.
CREATE OR REPLACE FUNCTION jobq._claim_locks_held()
RETURNS boolean
LANGUAGE sql
STABLE
AS $$ SELECT pg_catalog.current_setting('jobq.claim_locks_held', true) IS NOT DISTINCT FROM 'held' $$;
COMMENT ON FUNCTION jobq._claim_locks_held() IS
    'Private. True when the transaction-local setting jobq.claim_locks_held is held: a claim of this transaction took a limited queue''s advisory lock (1785684593, hashtext(queue)), shared or exclusive. Callers: jobq._lock_limited_queues, jobq._shared_claim_room, which then only try locks. Reads nothing else.';

-- Notes, until the transaction ends, that it holds a limited queue's lock (see
-- jobq._claim_locks_held).
CREATE OR REPLACE FUNCTION jobq._note_claim_locks_held()
RETURNS void
LANGUAGE sql
VOLATILE
AS $$ SELECT pg_catalog.set_config('jobq.claim_locks_held', 'held', true); $$;
COMMENT ON FUNCTION jobq._note_claim_locks_held() IS
    'Private. Sets the transaction-local setting jobq.claim_locks_held to held. Callers: jobq._lock_limited_queues, jobq._shared_claim_room, after they took a limited queue''s lock waiting for it.';

-- The name of the transaction-local setting that counts the jobs this transaction's shared claims
-- took of a queue: jobq.shared_claimed_ and the queue's hashtext in hexadecimal, as the near-limit
-- note's. Two queues whose names share a hash share the count, which only makes them take less.
CREATE OR REPLACE FUNCTION jobq._shared_claim_setting(p_queue text)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$ SELECT 'jobq.shared_claimed_' || pg_catalog.to_hex(pg_catalog.hashtext(p_queue)) $$;
COMMENT ON FUNCTION jobq._shared_claim_setting(text) IS
    'Private. jobq.shared_claimed_<to_hex(hashtext(p_queue))>: the transaction-local setting counting the jobs of the queue this transaction''s shared claims took. Callers: jobq._shared_claim_taken, jobq._note_shared_claim.';

-- How many jobs of p_queue this transaction's shared claims took before: each slot holder may
-- have at most one shared batch (jobq._claim_slot_batch()) that the others cannot see, which is
-- what jobq._shared_claim_ceiling leaves room for; a transaction that claims several times
-- before it commits must not take more. 0 for none.
CREATE OR REPLACE FUNCTION jobq._shared_claim_taken(p_queue text)
RETURNS integer
LANGUAGE sql
STABLE
AS $$ SELECT coalesce(nullif(pg_catalog.current_setting(jobq._shared_claim_setting(p_queue), true), '')::integer, 0) $$;
COMMENT ON FUNCTION jobq._shared_claim_taken(text) IS
    'Private. The jobs of p_queue this transaction''s shared claims took (jobq._shared_claim_setting), 0 for none. Caller: jobq._claim, which keeps a transaction with any to shared claims of the queue and to one shared batch in all.';

-- Adds p_n jobs to the count of p_queue's jobs this transaction's shared claims took.
CREATE OR REPLACE FUNCTION jobq._note_shared_claim(p_queue text, p_n integer)
RETURNS void
LANGUAGE sql
VOLATILE
AS $$
    SELECT pg_catalog.set_config(jobq._shared_claim_setting(p_queue), (jobq._shared_claim_taken(p_queue) + p_n)::text, true);
$$;
COMMENT ON FUNCTION jobq._note_shared_claim(text,integer) IS
    'Private. Adds p_n to the transaction-local count of p_queue''s jobs taken by shared claims (jobq._shared_claim_setting). Caller: jobq._claim, after a shared claim''s update.';

-- How many claims of one limited queue may count and claim side by side, each holding one slot of
-- the queue (jobq._shared_claim_slot), and the largest batch such a claim takes: the shared claim
-- of jobq._claim. Inlined constants, here so that every user reads the same ones.
CREATE OR REPLACE FUNCTION jobq._claim_slots()
RETURNS integer
LANGUAGE sql
IMMUTABLE
AS $$ SELECT 8 $$;
COMMENT ON FUNCTION jobq._claim_slots() IS
    'Private. 8: how many claims of one limited queue may hold a slot at once (jobq._shared_claim_slot), counting and claiming side by side. Callers: jobq._shared_claim_slot, jobq._shared_claim_ceiling.';

-- The largest batch a claim holding a slot takes (see jobq._claim_slots).
CREATE OR REPLACE FUNCTION jobq._claim_slot_batch()
RETURNS integer
LANGUAGE sql
IMMUTABLE
AS $$ SELECT 16 $$;
COMMENT ON FUNCTION jobq._claim_slot_batch() IS
    'Private. 16: the largest batch a claim holding a slot of a limited queue takes (jobq._shared_claim_slot). Callers: jobq._shared_claim_ceiling, jobq._shared_claim_slot, jobq._pick_limited.';

-- The slot function before it decided whether a claim may be shared (issue 18: the decision
-- moved before the pick, into jobq._claim).
DROP FUNCTION IF EXISTS jobq._take_claim_slot(text);

-- Decides, before its pick, whether a claim of p_room jobs from the limited queue p_queue is
-- shared (the shared claim, below), and if so takes one of the queue's slots for the transaction
-- without waiting: the advisory locks (1785684594 + k, hashtext(queue)) for k in 0 ..
-- jobq._claim_slots() - 1, tried from the backend's pid mod slots onwards. Only for a queue whose
-- only controls are concurrency limits high enough to share (p_ceiling, its
-- jobq._shared_claim_ceiling, positive; p_rated false), a batch within a slot's, by a claim
-- that lists no other limited queue (p_lock_queues, the claim's list),
-- unless this session's last count found the queue near its limit. Returns whether it took a slot;
-- false: the claim takes the queue's lock alone (jobq._pick_limited). Caller: jobq._claim.
CREATE OR REPLACE FUNCTION jobq._shared_claim_slot(p_queue text, p_ceiling integer, p_rated boolean, p_room integer,
                                                   p_lock_queues text[])
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_key constant integer := hashtext(p_queue);
    v_first constant integer := pg_backend_pid() % jobq._claim_slots();
BEGIN
    IF NOT coalesce(p_ceiling > 0, false) OR p_rated OR p_room > jobq._claim_slot_batch()
       OR current_setting(jobq._near_limit_setting(p_queue), true) IS NOT DISTINCT FROM 'near' THEN
        RETURN false;
    END IF;
    IF cardinality(p_lock_queues) > 1
       AND EXISTS (SELECT 1 FROM jobq.queues q WHERE q.name = ANY (p_lock_queues) AND q.name <> p_queue AND q.limited) THEN
        RETURN false;
    END IF;
    FOR v_k IN 0 .. jobq._claim_slots() - 1 LOOP
        IF pg_try_advisory_xact_lock(1785684594 + (v_first + v_k) % jobq._claim_slots(), v_key) THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END
$$;
COMMENT ON FUNCTION jobq._shared_claim_slot(text,integer,boolean,integer,text[]) IS
    'Private. Whether a claim of p_room jobs from the limited queue p_queue (p_ceiling its jobq._shared_claim_ceiling, p_rated whether it has a rate limit) listing p_lock_queues is shared: false when it must take the queue''s advisory lock alone (a rate limit, a concurrency limit of 112 or less, p_room above jobq._claim_slot_batch() (16), another limited queue listed, the session''s note that the queue is near its limit, jobq._near_limit_setting, or no free slot); true when it took one of the queue''s jobq._claim_slots() (8) slots, the advisory locks (1785684594 + k, hashtext(queue)), tried from pg_backend_pid() mod 8 on and kept until the transaction ends. Never waits. Caller: jobq._claim, before its pick.';

-- The most running jobs at which a queue still has room for a shared claim: its lowest concurrency
-- limit (queue, store or partition: a store or a partition never runs more than its queue) less
-- the batches the other slot holders may take unseen, (jobq._claim_slots() - 1) ×
-- jobq._claim_slot_batch(). NULL for a queue without a concurrency limit; not positive for one
-- whose limits are too low to share. Scalar arguments, not the jobq.queues row: a function
-- whose signature names the table's row type would stop a migration down from dropping it.
-- Callers: jobq._claim (a shared claim's ceiling), jobq._pick_limited (the near-limit note).
CREATE OR REPLACE FUNCTION jobq._shared_claim_ceiling(p_max_running integer, p_max_running_per_store integer,
                                                      p_max_running_per_partition integer)
RETURNS integer
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT least(p_max_running, p_max_running_per_store, p_max_running_per_partition)
           - (jobq._claim_slots() - 1) * jobq._claim_slot_batch()
$$;
COMMENT ON FUNCTION jobq._shared_claim_ceiling(integer,integer,integer) IS
    'Private. least(max_running, max_running_per_store, max_running_per_partition) - (jobq._claim_slots() - 1) * jobq._claim_slot_batch() (112), the concurrency limits of a queue: the most running jobs at which a shared claim may still take one; NULL without a concurrency limit. Callers: jobq._claim (for jobq._shared_claim_slot and jobq._shared_claim_room), jobq._pick_limited (whether to empty the near-limit note). Reads only its arguments.';

-- The name of the custom setting in which a session notes that a queue was near its limit (set to
-- near by jobq._shared_claim_room, read by jobq._shared_claim_slot, emptied by
-- jobq._pick_limited): jobq.near_limit_ and the
-- queue's hashtext in hexadecimal (not md5, which a FIPS build refuses). Two queues whose names
-- share a hash share the note, which only makes claims take the lock alone.
CREATE OR REPLACE FUNCTION jobq._near_limit_setting(p_queue text)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$ SELECT 'jobq.near_limit_' || pg_catalog.to_hex(pg_catalog.hashtext(p_queue)) $$;
COMMENT ON FUNCTION jobq._near_limit_setting(text) IS
    'Private. jobq.near_limit_<to_hex(hashtext(p_queue))>: the custom setting noting, for the session, that a claim of the queue found no room for a shared claim. Callers: jobq._shared_claim_slot, jobq._shared_claim_room, jobq._pick_limited.';

-- The signature before the shared claim's slot was taken before its pick (jobq._shared_claim_slot).
DROP FUNCTION IF EXISTS jobq._shared_claim_room(text,integer,boolean,integer,text[]);

-- The shared claim of a limited queue (issue 18's cost). Up to jobq._claim_slots() claims of a
-- queue, each holding a slot (jobq._shared_claim_slot), count and claim side by side, so the
-- queue's running jobs may exceed what one of them counted by what the others take, each at most
-- a slot's batch: a holder takes no more than leaves the queue at its ceiling
-- (jobq._shared_claim_ceiling, p_ceiling). A claim that takes the lock alone takes the queue's
-- advisory lock exclusive, which waits for every slot holder's shared hold, so the two kinds
-- never overlap; a slot holder waits only for that lock, and only behind a claim that holds no
-- slot. Returns how many of p_room jobs the claim may take, 0 when none: the queue is then noted
-- as near its limit (jobq._near_limit_setting) until jobq._pick_limited's count under the lock
-- alone finds room for a batch again, and the session's next claims of it are not shared. A
-- wrong note only changes how a claim waits: every shared claim counts under its slot. Caller:
-- jobq._claim, holding a slot, after its pick.
CREATE OR REPLACE FUNCTION jobq._shared_claim_room(p_queue text, p_ceiling integer, p_room integer)
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_running integer;
BEGIN
    -- As jobq._lock_limited_queues: a transaction holding a limited queue's lock only tries.
    IF jobq._claim_locks_held() THEN
        IF NOT pg_try_advisory_xact_lock_shared(1785684593, hashtext(p_queue)) THEN
            RETURN 0;
        END IF;
    ELSE
        -- Holding no claim lock, it waits; a wait PostgreSQL finds in a deadlock, or one past the
        -- caller's lock_timeout, takes nothing (its picked rows stay queued).
        BEGIN
            PERFORM pg_advisory_xact_lock_shared(1785684593, hashtext(p_queue));
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            RETURN 0;
        END;
        PERFORM jobq._note_claim_locks_held();
    END IF;
    -- A limit newly set: its running jobs claimed unlimited are flagged as soon as none can be
    -- missing any more (until then jobq._running_counted also reads the unflagged ones).
    IF (SELECT q.counted_recheck FROM jobq.queues q WHERE q.name = p_queue) THEN
        PERFORM jobq._settle_counted(p_queue);
    END IF;
    SELECT count(*)::integer INTO v_running
    FROM (SELECT 1 FROM jobq._running_counted(p_queue) AS r LIMIT p_ceiling) AS c;
    IF v_running >= p_ceiling THEN
        PERFORM set_config(jobq._near_limit_setting(p_queue), 'near', false);
        RETURN 0;
    END IF;
    RETURN least(p_room, p_ceiling - v_running);
END
$$;
COMMENT ON FUNCTION jobq._shared_claim_room(text,integer,integer) IS
    'Private. For a shared claim of p_room jobs from the limited queue p_queue (p_ceiling its jobq._shared_claim_ceiling), holding a slot (jobq._shared_claim_slot): takes the lock (1785684593, hashtext(queue)) shared until the transaction ends, waiting for a claim that holds it alone (only trying, and returning 0 when it is held, if the transaction holds a limited queue''s lock already: jobq._claim_locks_held), counts the running jobs of the queue and returns least(p_room, ceiling - running), or 0 after setting jobq._near_limit_setting(queue) to near for the session when there is no room. Caller: jobq._claim.';

-- The signature before the first pick came before the locks (issue 18).
DROP FUNCTION IF EXISTS jobq._claim_limited(text,text,integer,interval,timestamp with time zone);
-- The signature before it left the claim's update to jobq._claim (issue 18: its rows were copied
-- from one set-returning function to the other).
DROP FUNCTION IF EXISTS jobq._claim_limited(text,text,integer,interval,timestamp with time zone,text[]);
-- The signature before the tasks a worker serves (issue 30).
DROP FUNCTION IF EXISTS jobq._claim_limited(text,integer,timestamp with time zone,text[]);
-- The name before the three picks had files of their own (issue 32).
DROP FUNCTION IF EXISTS jobq._claim_limited(text,integer,timestamp with time zone,text[],text[]);

-- The limited pick: up to p_max_jobs due jobs of one queue with concurrency or rate limits, from
-- its head in claim order (a fair queue's in its stores' turns), leaving queued every job that
-- would exceed a limit: the queue's max_running, max_running_per_store (system jobs are one more
-- store), max_running_per_partition (per value of payload ->> partition_key), max_started in any
-- window of started_per, max_started_per_store in any window of store_started_per. A job left
-- uses no attempt. The limits are counted under the queue's advisory lock (jobq._limited_counts),
-- so two claims cannot both take the last slot; the first pick comes before the lock (given
-- p_lock_queues, the claim's list, it then takes the locks of every limited queue listed, in key
-- order: jobq._lock_limited_queues), so that claims wait for each other only while they count.
-- Each round keeps the picked jobs that fit (jobq._keep_within_limits); when one did not, its
-- store or partition just filled, and the next round picks again without it. Returns the ids,
-- and for a rate-limited queue the instant its starts were logged at (their claimed_at).
-- Caller: jobq._pick_guarded, for every claim of a limited queue but a shared one.
CREATE OR REPLACE FUNCTION jobq._pick_limited(p_queue text, p_max_jobs integer, p_now timestamptz, p_lock_queues text[], p_tasks text[],
                                              OUT claim_ids bigint[], OUT claim_clock timestamptz)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
-- As jobq._claim: never a sequential scan nor a bitmap, generic plans.
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_q jobq.queues;
    v_c record;                            -- the counts (jobq._limited_counts), once under the lock
    v_room integer := p_max_jobs;          -- jobs this call may still claim
    v_pick record;                         -- a round's pick: ids, stores, parts and where it ended
    v_keep record;                         -- the jobs of the pick that fit, and the counts after them
    v_counts jsonb;                        -- running jobs and starts per store and partition
    v_full_stores uuid[] := '{}'::uuid[];          -- stores and partitions at a limit: not picked again
    v_full_parts text[] := '{}'::text[];
    v_counted boolean := false;            -- the limits were counted (under the lock)
    v_after_priority smallint := (-32768)::smallint;   -- a plain pick starts after the last job picked
    v_after_run_at timestamptz := '-infinity'::timestamptz;
    v_after_id bigint := (-9223372036854775807)::bigint - 1;
BEGIN
    SELECT * INTO v_q FROM jobq.queues q WHERE q.name = p_queue;
    LOOP
        IF jobq._claim_locks_held() THEN
            PERFORM jobq._guard_picks();   -- jobq._pick_guarded sets the lock_timeout back
        END IF;
        SELECT * INTO v_pick FROM jobq._limited_round(p_queue, v_q.fair, v_room, p_now, v_full_stores, v_q.partition_key, v_full_parts,
                                                      coalesce(claim_ids, '{}'), v_after_priority, v_after_run_at, v_after_id, p_tasks);
        IF NOT v_counted THEN
            -- The first round: lock, then count (this statement's snapshot follows the lock).
            IF p_lock_queues IS NOT NULL THEN
                PERFORM jobq._lock_limited_queues(p_lock_queues);
            END IF;
            EXIT WHEN v_pick.ids IS NULL;
            IF v_q.limited THEN
                -- Held already when jobq._lock_limited_queues locked the claim's queues; a queue
                -- limited since is not waited for (that could deadlock): left to the next claim.
                IF NOT pg_try_advisory_xact_lock(1785684593, hashtext(p_queue)) THEN
                    RETURN;
                END IF;
                PERFORM jobq._note_claim_locks_held();
            END IF;
            SELECT * INTO v_c FROM jobq._limited_counts(p_queue, p_now, p_lock_queues IS NOT NULL);
            v_counted := true;
            v_room := least(v_room, v_c.room);
            EXIT WHEN v_room <= 0;
            v_counts := v_c.counts;
            v_full_stores := v_c.full_stores;
            v_full_parts := v_c.full_parts;
        END IF;
        EXIT WHEN v_pick.ids IS NULL;
        IF num_nonnulls(v_q.max_running_per_store, v_q.max_started_per_store, v_q.max_running_per_partition) = 0 THEN
            -- Only queue-wide limits: the room is the whole test.
            SELECT v_pick.ids[1:v_room] AS ids, v_pick.stores[1:v_room] AS stores, v_counts AS counts,
                   '{}'::uuid[] AS full_stores, '{}'::text[] AS full_parts INTO v_keep;
        ELSE
            SELECT * INTO v_keep FROM jobq._keep_within_limits(p_queue, v_pick.ids, v_pick.stores, v_pick.parts, v_room, v_counts);
        END IF;
        v_counts := v_keep.counts;
        v_full_stores := v_full_stores || v_keep.full_stores;
        v_full_parts := v_full_parts || v_keep.full_parts;
        v_after_priority := v_pick.last_priority; v_after_run_at := v_pick.last_run_at; v_after_id := v_pick.last_id;
        IF cardinality(v_keep.ids) > 0 THEN
            claim_ids := coalesce(claim_ids, '{}') || v_keep.ids;
            v_room := v_room - cardinality(v_keep.ids);
            IF v_c.clock IS NOT NULL THEN
                claim_clock := v_c.clock;
                INSERT INTO jobq.claim_starts (queue, store_id, started_at)
                SELECT p_queue, nullif(k.store, jobq._store_key(NULL)), v_c.clock FROM unnest(v_keep.stores) AS k(store);
            END IF;
        END IF;
        EXIT WHEN v_room <= 0 OR cardinality(v_keep.ids) = cardinality(v_pick.ids);
    END LOOP;
END
$$;
COMMENT ON FUNCTION jobq._pick_limited(text,integer,timestamp with time zone,text[],text[]) IS
    'Private. The pick of a claim of one queue with concurrency or rate limits at time p_now: from the head of the queue, at most p_max_jobs due jobs of the tasks p_tasks (NULL: every task), none beyond max_running running jobs of the queue, max_running_per_store per store (NULL store: one more store) or max_running_per_partition per value of payload ->> partition_key, nor more started than max_started in any window of started_per (max_started_per_store per store in any window of store_started_per; logged in jobq.claim_starts, pruned by jobq._limited_counts; such a start''s claimed_at is the instant under the lock); the jobs left over stay queued and use no attempt. Returns the jobs'' ids in claim_ids (NULL for none) and, for a rate-limited queue, that instant in claim_clock (else NULL). Picks with jobq._limited_round, counts with jobq._limited_counts and keeps with jobq._keep_within_limits, under the queue''s advisory lock (1785684593, hashtext(queue)), exclusive. Given p_lock_queues (the claim''s first limited queue), it first picks and locks its jobs (SKIP LOCKED) as if no limit were full, then takes the locks of every limited queue of p_lock_queues, waiting unless the transaction holds one already (jobq._lock_limited_queues); else it takes the queue''s lock if free and claims nothing if not. Locks the rows it picks (a picked job not kept stays queued, its row locked until the transaction ends) and the advisory locks until the transaction ends. Caller: jobq._pick_guarded.';

-- One round of the limited pick: up to p_room due waiting jobs of p_queue, locked, passing over
-- the stores p_skip_stores and the partitions p_skip_parts (at a limit) — a fair queue's through
-- jobq._pick_fair, any other's in claim order after the last job the round before took (every
-- job up to it was picked, kept or of a store full now, or held by another claim, so none is
-- walked again). Returns the ids with each one's store key and partition, and where it ended.
CREATE OR REPLACE FUNCTION jobq._limited_round(p_queue text, p_fair boolean, p_room integer, p_now timestamptz,
                                               p_skip_stores uuid[], p_partition_key text, p_skip_parts text[], p_skip_ids bigint[],
                                               p_after_priority smallint, p_after_run_at timestamptz, p_after_id bigint, p_tasks text[],
                                               OUT ids bigint[], OUT stores uuid[], OUT parts text[],
                                               OUT last_priority smallint, OUT last_run_at timestamptz, OUT last_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
-- VOLATILE for its row locks, which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_priorities smallint[];
    v_run_ats timestamptz[];
BEGIN
    IF p_fair THEN
        SELECT f.ids, f.stores, f.parts INTO ids, stores, parts
        FROM jobq._pick_fair(p_queue, p_room, p_now, p_skip_stores, p_partition_key, p_skip_parts, p_skip_ids, p_tasks) AS f;
        RETURN;
    END IF;
    SELECT array_agg(p.id ORDER BY p.priority, p.run_at, p.id), array_agg(p.store ORDER BY p.priority, p.run_at, p.id),
           array_agg(p.part ORDER BY p.priority, p.run_at, p.id), array_agg(p.priority ORDER BY p.priority, p.run_at, p.id),
           array_agg(p.run_at ORDER BY p.priority, p.run_at, p.id)
    INTO ids, stores, parts, v_priorities, v_run_ats
    FROM (SELECT j.id, j.priority, j.run_at, jobq._store_key(j.store_id) AS store, j.payload ->> p_partition_key AS part
          FROM jobq.jobs j
          WHERE j.ready AND jobq._rule_waiting(j.state)
            AND j.queue = p_queue
            AND (j.priority, j.run_at, j.id) > (p_after_priority, p_after_run_at, p_after_id)
            AND jobq._rule_due(j.run_at, p_now)
            AND jobq._rule_served(j.task, p_tasks)
            AND jobq._store_key(j.store_id) <> ALL (p_skip_stores)
            AND (p_partition_key IS NULL OR j.payload ->> p_partition_key IS NULL OR j.payload ->> p_partition_key <> ALL (p_skip_parts))
          ORDER BY j.priority, j.run_at, j.id
          LIMIT p_room
          FOR UPDATE OF j SKIP LOCKED) AS p;
    last_priority := v_priorities[cardinality(v_priorities)];
    last_run_at := v_run_ats[cardinality(v_run_ats)];
    last_id := ids[cardinality(ids)];
END
$$;
COMMENT ON FUNCTION jobq._limited_round(text,boolean,integer,timestamp with time zone,uuid[],text,text[],bigint[],smallint,timestamp with time zone,bigint,text[]) IS
    'Private. One pick of jobq._pick_limited: up to p_room jobs of p_queue that wait, are due at p_now and are of the tasks p_tasks (jobq._rule_waiting, _rule_due, _rule_served), locked (SKIP LOCKED), outside the stores p_skip_stores and the partitions p_skip_parts (payload ->> p_partition_key); a fair queue''s (p_fair) by jobq._pick_fair, passing over p_skip_ids; any other''s in claim order after (p_after_priority, p_after_run_at, p_after_id). Returns ids, each one''s store key and partition value, all NULL for none, and the last job''s position (NULL for a fair queue). Runs under its caller''s planner settings. Caller: jobq._pick_limited.';

-- The counts a limited queue's claim keeps its jobs within, taken under the queue's advisory lock
-- (so the statement's snapshot sees every claim before it): the room its queue-wide limits leave
-- (max_running less the running jobs, max_started less the starts in the window), the running
-- jobs and starts per store and per partition, and the stores and partitions already at a limit.
-- A rate-limited queue's starts are logged at the instant under the lock, clock (never before
-- p_now, so that tests can move the clock), and the log is pruned here. p_note: the claim may
-- have been noted near its limit (jobq._shared_claim_room); the note is taken back once the queue
-- has room for a shared claim's batch again.
CREATE OR REPLACE FUNCTION jobq._limited_counts(p_queue text, p_now timestamptz, p_note boolean,
                                                OUT room integer, OUT counts jsonb, OUT full_stores uuid[], OUT full_parts text[],
                                                OUT clock timestamptz)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_q jobq.queues;
    v_running bigint;
BEGIN
    SELECT * INTO v_q FROM jobq.queues q WHERE q.name = p_queue;
    -- A limit newly set: its running jobs claimed unlimited are flagged as soon as none can be
    -- missing any more (until then jobq._running_counted also reads the unflagged ones).
    IF v_q.counted_recheck THEN
        PERFORM jobq._settle_counted(p_queue);
    END IF;
    room := 2147483647;
    counts := '{"store": {}, "part": {}, "start": {}}';
    IF v_q.max_started IS NOT NULL OR v_q.max_started_per_store IS NOT NULL THEN
        clock := greatest(p_now, clock_timestamp());
        DELETE FROM jobq.claim_starts AS s
        WHERE s.queue = p_queue
          AND s.started_at <= clock - greatest(coalesce(v_q.started_per, interval '0'), coalesce(v_q.store_started_per, interval '0'));
    END IF;
    SELECT r.n INTO v_running FROM jobq._running_in_queue(p_queue) AS r;
    IF v_q.max_running IS NOT NULL THEN
        room := least(room, v_q.max_running - v_running)::integer;
    END IF;
    IF v_q.max_started IS NOT NULL THEN
        room := least(room, v_q.max_started - (SELECT s.n FROM jobq._started_since(p_queue, clock - v_q.started_per) AS s))::integer;
    END IF;
    SELECT jsonb_set(counts, '{store}', coalesce(jsonb_object_agg(c.store, c.n), '{}')),
           coalesce(array_agg(c.store) FILTER (WHERE jobq._rule_at_limit(c.n, v_q.max_running_per_store)), '{}')
    INTO counts, full_stores
    FROM jobq._running_per_store(p_queue) AS c WHERE v_q.max_running_per_store IS NOT NULL;
    SELECT jsonb_set(counts, '{start}', coalesce(jsonb_object_agg(c.store, c.n), '{}')),
           full_stores || coalesce(array_agg(c.store) FILTER (WHERE jobq._rule_at_limit(c.n, v_q.max_started_per_store)), '{}')
    INTO counts, full_stores
    FROM jobq._started_per_store(p_queue, clock - v_q.store_started_per) AS c WHERE v_q.max_started_per_store IS NOT NULL;
    SELECT jsonb_set(counts, '{part}', coalesce(jsonb_object_agg(c.part, c.n), '{}')),
           coalesce(array_agg(c.part) FILTER (WHERE jobq._rule_at_limit(c.n, v_q.max_running_per_partition)), '{}')
    INTO counts, full_parts
    FROM jobq._running_per_partition(p_queue, v_q.partition_key) AS c WHERE v_q.max_running_per_partition IS NOT NULL;
    IF p_note AND current_setting(jobq._near_limit_setting(p_queue), true) = 'near'
       AND jobq._shared_claim_ceiling(v_q.max_running, v_q.max_running_per_store, v_q.max_running_per_partition) - v_running
           >= jobq._claim_slot_batch() THEN
        PERFORM set_config(jobq._near_limit_setting(p_queue), '', false);
    END IF;
END
$$;
COMMENT ON FUNCTION jobq._limited_counts(text,timestamp with time zone,boolean) IS
    'Private. Under the queue''s advisory lock, the counts of the limited queue p_queue: room, what max_running and max_started leave (2147483647 without either); counts, a jsonb {"store": {store key: running}, "part": {value: running}, "start": {store key: starts in store_started_per}} of the per-store and per-partition limits set; full_stores and full_parts, those at a limit (jobq._rule_at_limit); clock, the instant of a rate-limited queue''s starts (greatest(p_now, clock_timestamp()), else NULL), after pruning its jobq.claim_starts older than its windows. Reads through jobq._running_in_queue, _running_per_store, _running_per_partition, _started_since, _started_per_store. Given p_note, empties the session''s near-limit note (jobq._near_limit_setting) when the queue has room for a shared claim''s batch of 16 again. Caller: jobq._pick_limited.';

-- Keeps, in claim order, the picked jobs p_ids (with their store keys p_stores and partitions
-- p_parts) that fit the room p_room and the per-store and per-partition limits of p_queue, given
-- the counts so far (jobq._limited_counts' shape); each job kept counts towards its store and
-- partition. Returns the jobs kept, their stores, the counts after them, and the stores and
-- partitions that filled up.
CREATE OR REPLACE FUNCTION jobq._keep_within_limits(p_queue text, p_ids bigint[], p_stores uuid[], p_parts text[], p_room integer,
                                                    p_counts jsonb, OUT ids bigint[], OUT stores uuid[], OUT counts jsonb,
                                                    OUT full_stores uuid[], OUT full_parts text[])
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_q jobq.queues;
    v_store text;
    v_part text;
BEGIN
    SELECT * INTO v_q FROM jobq.queues q WHERE q.name = p_queue;
    ids := '{}'::bigint[]; stores := '{}'::uuid[]; counts := p_counts; full_stores := '{}'::uuid[]; full_parts := '{}'::text[];
    FOR v_i IN 1 .. cardinality(p_ids) LOOP
        EXIT WHEN cardinality(ids) >= p_room;
        v_store := p_stores[v_i]::text;
        v_part := p_parts[v_i];
        CONTINUE WHEN jobq._rule_at_limit(coalesce((counts #>> ARRAY['store', v_store])::bigint, 0), v_q.max_running_per_store)
                   OR jobq._rule_at_limit(coalesce((counts #>> ARRAY['start', v_store])::bigint, 0), v_q.max_started_per_store)
                   OR (v_part IS NOT NULL AND jobq._rule_at_limit(coalesce((counts #>> ARRAY['part', v_part])::bigint, 0),
                                                                  v_q.max_running_per_partition));
        ids := ids || p_ids[v_i];
        stores := stores || p_stores[v_i];
        IF v_q.max_running_per_store IS NOT NULL OR v_q.max_started_per_store IS NOT NULL THEN
            counts := jsonb_set(counts, ARRAY['store', v_store], to_jsonb(coalesce((counts #>> ARRAY['store', v_store])::bigint, 0) + 1));
            counts := jsonb_set(counts, ARRAY['start', v_store], to_jsonb(coalesce((counts #>> ARRAY['start', v_store])::bigint, 0) + 1));
            IF jobq._rule_at_limit((counts #>> ARRAY['store', v_store])::bigint, v_q.max_running_per_store)
               OR jobq._rule_at_limit((counts #>> ARRAY['start', v_store])::bigint, v_q.max_started_per_store) THEN
                full_stores := full_stores || p_stores[v_i];
            END IF;
        END IF;
        IF v_part IS NOT NULL AND v_q.max_running_per_partition IS NOT NULL THEN
            counts := jsonb_set(counts, ARRAY['part', v_part], to_jsonb(coalesce((counts #>> ARRAY['part', v_part])::bigint, 0) + 1));
            IF jobq._rule_at_limit((counts #>> ARRAY['part', v_part])::bigint, v_q.max_running_per_partition) THEN
                full_parts := full_parts || v_part;
            END IF;
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION jobq._keep_within_limits(text,bigint[],uuid[],text[],integer,jsonb) IS
    'Private. Of the picked jobs p_ids (store keys p_stores, partition values p_parts), in order, keeps at most p_room that fit the per-store concurrency and rate limits and the per-partition limit of queue p_queue given p_counts (jobq._limited_counts'' shape), counting each job kept; returns the ids and stores kept, the counts after them, and the stores and partitions that reached a limit (jobq._rule_at_limit). Reads jobq.queues; writes nothing. Caller: jobq._pick_limited.';
