-- jobq engine, history by day. jobq.job_history is partitioned by finished_at (migration 00037):
-- one partition a UTC day (a span of days when history_retention is above 14 days), made ahead
-- and dropped whole once all of it is past retention, so a finished job writes one index entry
-- into history and retention deletes no row of it; the default partition and the history kept
-- before 00037 are pruned row by row.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- The partitions of jobq.job_history with their bounds, read from the catalog (the one truth):
-- what the day-maker and the pruner decide from. Bounds print in UTC and ISO, so they read back
-- exactly whatever the caller's DateStyle and TimeZone. They are printed without naming the
-- partition (relid 0: a bound holds constants only), so no lock on it is taken: a partition being
-- attached or dropped right now does not make this wait.
CREATE OR REPLACE FUNCTION jobq._history_partitions()
RETURNS TABLE (part regclass, name text, lower timestamptz, upper timestamptz, by_day boolean, is_default boolean)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
SET datestyle = 'ISO, YMD'
SET timezone = 'UTC'
AS $$
    SELECT c.oid::regclass, c.relname::text,
           CASE WHEN b.m[1] = 'MINVALUE' THEN '-infinity'::timestamptz ELSE pg_catalog.btrim(b.m[1], '''')::timestamptz END,
           CASE WHEN b.m[2] = 'MAXVALUE' THEN 'infinity'::timestamptz ELSE pg_catalog.btrim(b.m[2], '''')::timestamptz END,
           c.relname ~ '^job_history_p[0-9]{8}(_[0-9]{12})?$',
           b.m IS NULL
    FROM pg_catalog.pg_inherits i
    JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL (SELECT pg_catalog.regexp_match(pg_catalog.pg_get_expr(c.relpartbound, 0),
                                                       '^FOR VALUES FROM \((.*)\) TO \((.*)\)$') AS m) b
    WHERE i.inhparent = 'jobq.job_history'::regclass
$$;
COMMENT ON FUNCTION jobq._history_partitions() IS
    'Private. One row per partition of jobq.job_history: its regclass and name, its bounds (lower inclusive, upper exclusive; -infinity and infinity for MINVALUE and MAXVALUE, NULL for the default partition), by_day (a partition jobq._history_add_span made: job_history_pYYYYMMDD, of one day or a span of days, pruned whole) and is_default. Read from pg_inherits and the partition bounds; locks nothing (a partition being attached is listed once attached, without waiting). Callers: jobq._history_add_span, jobq._history_days_ahead, jobq._prune_history.';

-- The days one partition of history spans: one while history_retention is at most 14 days, else
-- enough that 14 of them hold the retention. So history has at most about 17 partitions whatever
-- the retention: a lookup by id probes each of them (about 17 us a partition), and a retention
-- of a year in days would make every such lookup about 17 times slower (docs/scaling.md).
CREATE OR REPLACE FUNCTION jobq._history_span_days(p_retention interval)
RETURNS integer
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT CASE WHEN p_retention IS NULL OR p_retention <= interval '14 days' THEN 1
                ELSE least(366, pg_catalog.ceil(pg_catalog.date_part('epoch', p_retention) / (14 * 86400.0)))::integer
           END
$$;
COMMENT ON FUNCTION jobq._history_span_days(interval) IS
    'Private. The days a partition of jobq.job_history spans for a history_retention of p_retention: 1 up to 14 days (and for NULL), else the retention in days divided by 14, rounded up (at most 366; 27 for 365 days, 261 for the largest retention, 3650 days). Raises nothing. Inlined. Caller: jobq._history_days_ahead.';

-- The history kept before this function took a span (one day always).
DROP FUNCTION IF EXISTS jobq._history_add_day(timestamp with time zone);

-- Makes the partition of history holding p_at: its span of p_days UTC days counted from
-- 2000-01-01, less what partitions reaching into the span already cover, and starting after the
-- rows of it the default partition already holds; named for the UTC day it starts. Gives way
-- rather than queue: a lock it cannot take within 100 ms, a partition made by a concurrent
-- caller, or an overlap leaves everything as it was and returns false.
CREATE OR REPLACE FUNCTION jobq._history_add_span(p_at timestamptz, p_days integer)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '100ms'
AS $$
-- VOLATILE for its DDL (EXECUTE), which plpgsql_check does not count as a write:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_day date;
    v_start timestamptz;
    v_end timestamptz;
    v_from timestamptz;
    v_to timestamptz;
    v_name text;
BEGIN
    -- Partitions named by an eight-digit date only (none for a clock gone to the year 10000).
    IF p_at IS NULL OR NOT (p_at >= '2000-01-01 UTC' AND p_at < '9999-01-01 UTC') OR p_days IS NULL OR p_days NOT BETWEEN 1 AND 366 THEN
        RETURN false;
    END IF;
    v_day := (p_at AT TIME ZONE 'UTC')::date;
    v_start := (v_day - (v_day - date '2000-01-01') % p_days)::timestamp AT TIME ZONE 'UTC';
    v_end := v_start + pg_catalog.make_interval(days => p_days);
    BEGIN
        -- Nothing to make when a partition holds p_at. Else from after the partitions that end
        -- by p_at, to the first that starts after it, then after the default partition's rows.
        IF EXISTS (SELECT 1 FROM jobq._history_partitions() p WHERE NOT p.is_default AND p.lower <= p_at AND p_at < p.upper) THEN
            RETURN false;
        END IF;
        SELECT greatest(v_start, max(p.upper) FILTER (WHERE p.upper <= p_at)),
               least(v_end, min(p.lower) FILTER (WHERE p.lower > p_at))
        INTO v_from, v_to
        FROM jobq._history_partitions() p WHERE NOT p.is_default AND p.lower < v_end AND p.upper > v_start;
        v_from := greatest(v_from, (SELECT max(d.finished_at) + interval '1 microsecond' FROM jobq.job_history_default d
                                    WHERE d.finished_at >= v_from AND d.finished_at < v_to));
        IF v_from >= v_to THEN
            RETURN false;
        END IF;
        v_name := 'job_history_p' || pg_catalog.to_char(v_from AT TIME ZONE 'UTC', 'YYYYMMDD');
        IF pg_catalog.to_regclass(format('jobq.%I', v_name)) IS NOT NULL THEN
            -- A partition of that day ends where this one starts (after default rows): by time.
            v_name := v_name || pg_catalog.to_char(v_from AT TIME ZONE 'UTC', '"_"HH24MISSUS');
        END IF;
        EXECUTE format('CREATE TABLE jobq.%I (LIKE jobq.job_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_name);
        EXECUTE format('CREATE UNIQUE INDEX ON jobq.%I (id)', v_name);
        EXECUTE format('CREATE INDEX ON jobq.%I USING brin (finished_at)', v_name);
        -- Read through jobq.job_history, whose policies apply; by name, by the owner alone.
        EXECUTE format('ALTER TABLE jobq.%I ENABLE ROW LEVEL SECURITY', v_name);
        EXECUTE format('ALTER TABLE jobq.%I FORCE ROW LEVEL SECURITY', v_name);
        EXECUTE format('CREATE POLICY job_history_owner ON jobq.%I TO %I USING (true) WITH CHECK (true)', v_name, current_user);
        EXECUTE format('ALTER TABLE jobq.job_history ATTACH PARTITION jobq.%I FOR VALUES FROM (%L) TO (%L)',
                       v_name, v_from, v_to);
    EXCEPTION WHEN lock_not_available OR duplicate_table OR invalid_object_definition OR check_violation THEN
        -- Another caller attaching a partition holds the default partition, made this one
        -- first, or the bounds overlap: nothing changed; the next call tries again.
        RETURN false;
    END;
    RETURN true;
END
$$;
COMMENT ON FUNCTION jobq._history_add_span(timestamp with time zone, integer) IS
    'Private. Makes the partition of jobq.job_history holding p_at: its span of p_days UTC days (counted from 2000-01-01), from the span''s start or the end of a partition reaching into it, or just after the default partition''s last row there, to the span''s end or the start of the next partition; named jobq.job_history_pYYYYMMDD for the UTC day it starts (with _HHMISSUS after when a partition of that day exists); with a unique index on id and a BRIN index on finished_at (and the partial indexes declared on jobq.job_history), and row security forced with one policy, job_history_owner, for the owner alone. Returns whether it made it: false when a partition holds p_at, nothing of the span is left to cover, p_at is NULL or outside the years 2000 to 9998, p_days is NULL or outside 1 to 366, or a lock is not taken within 100 ms (lock_timeout), another caller made it first or a bound overlaps; then nothing changed. Runs as its caller, the owner (jobq.maintain is SECURITY DEFINER): the partitions are the owner''s. Callers: jobq._history_days_ahead.';

-- Makes sure partitions of jobq.job_history hold now and the next two days, so that finished
-- jobs never land in the default partition while jobq.maintain runs; each spans as many days as
-- history_retention asks (jobq._history_span_days). One catalog read when they exist. One caller
-- at a time makes them (an advisory lock held to its commit; the others go on without waiting):
-- racing callers would make each other's DDL time out, and days be missed.
CREATE OR REPLACE FUNCTION jobq._history_days_ahead(p_now timestamptz)
RETURNS integer
LANGUAGE sql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT count(*) FILTER (WHERE jobq._history_add_span(m.at, jobq._history_span_days(jobq._setting_interval('history_retention'))))::integer
    FROM (SELECT p_now + pg_catalog.make_interval(days => d) AS at
          FROM pg_catalog.generate_series(0, 2) d
          WHERE pg_catalog.isfinite(p_now)
            AND NOT EXISTS (SELECT 1 FROM jobq._history_partitions() p
                            WHERE NOT p.is_default AND p.lower <= p_now + pg_catalog.make_interval(days => d)
                              AND p_now + pg_catalog.make_interval(days => d) < p.upper)
          ORDER BY d) m
    WHERE pg_catalog.pg_try_advisory_xact_lock(1785790469, 0)
$$;
COMMENT ON FUNCTION jobq._history_days_ahead(timestamp with time zone) IS
    'Private. Makes the partitions of jobq.job_history that hold p_now, p_now + 1 day and p_now + 2 days when none does (jobq._history_add_span, each spanning jobq._history_span_days of the setting history_retention: a UTC day up to 14 days of retention) and returns how many it made; reads the partitions'' bounds first, and makes nothing (returns 0) while another transaction making them holds advisory lock (1785790469, 0) (taken here, held to commit), or when p_now is NULL or infinite; none for a time outside the years 2000 to 9998. Caller: jobq._maintain.';

-- Retention of history: drops every partition wholly before p_cutoff (a day or span, or the history kept
-- before migration 00037), then deletes at most p_batch rows before p_cutoff from the partitions
-- pruned row by row (the default one and the old history), through their finished_at btree:
-- when none of theirs is past retention, it reads no row. A partition straddling the cut-off
-- stays whole until its end passes it, unless it spans more days than history_retention now asks
-- (made before the retention was shortened): its rows past the cut-off are deleted row by row
-- too, so a shortened retention holds within one span of the new setting.
CREATE OR REPLACE FUNCTION jobq._prune_history(p_cutoff timestamptz, p_batch integer)
RETURNS TABLE (rows_deleted bigint, days_dropped integer)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '100ms'
AS $$
-- VOLATILE for its DROP and DELETE (EXECUTE), which plpgsql_check does not count as writes:
-- @plpgsql_check_options: performance_warnings = false
DECLARE
    v_part record;
    v_past boolean;
    v_n bigint;
    v_span constant interval := pg_catalog.make_interval(days => jobq._history_span_days(jobq._setting_interval('history_retention')));
BEGIN
    rows_deleted := 0;
    days_dropped := 0;
    IF p_cutoff IS NULL OR p_batch IS NULL OR p_batch < 1 THEN
        RETURN NEXT;
        RETURN;
    END IF;
    FOR v_part IN SELECT p.part FROM jobq._history_partitions() p WHERE NOT p.is_default AND p.upper <= p_cutoff ORDER BY p.upper LOOP
        BEGIN
            EXECUTE format('DROP TABLE %s', v_part.part);
            days_dropped := days_dropped + 1;
        EXCEPTION WHEN lock_not_available THEN
            -- A reader holds history: the next call drops it.
            NULL;
        END;
    END LOOP;
    FOR v_part IN SELECT p.part, p.by_day FROM jobq._history_partitions() p
                  WHERE NOT p.by_day OR (p.lower < p_cutoff AND p.upper - p.lower > v_span)
                  ORDER BY p.lower NULLS LAST LOOP
        EXIT WHEN rows_deleted >= p_batch;
        BEGIN
            -- The default partition and the old history through their finished_at btree; a wide
            -- span (no btree) by its first row past the cut-off, the oldest rows coming first.
            EXECUTE format(CASE WHEN v_part.by_day THEN 'SELECT EXISTS (SELECT 1 FROM %s h WHERE h.finished_at < $1)'
                                ELSE 'SELECT min(h.finished_at) < $1 FROM %s h' END, v_part.part)
                INTO v_past USING p_cutoff;
            CONTINUE WHEN v_past IS NOT TRUE;
            EXECUTE format('DELETE FROM %s h WHERE h.ctid = ANY (ARRAY(SELECT o.ctid FROM %s o WHERE o.finished_at < $1 LIMIT $2))',
                           v_part.part, v_part.part)
                USING p_cutoff, p_batch - rows_deleted;
            GET DIAGNOSTICS v_n = ROW_COUNT;
            rows_deleted := rows_deleted + v_n;
        EXCEPTION WHEN lock_not_available THEN
            -- A day being attached (which holds the default partition), or a row being deleted or
            -- moved back by an operator right now: the next call.
            NULL;
        END;
    END LOOP;
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION jobq._prune_history(timestamp with time zone, integer) IS
    'Private. History retention at cut-off p_cutoff: drops every partition of jobq.job_history whose upper bound is at or before p_cutoff (a day or a span of days, or the history kept before migration 00037), skipping one whose lock is not taken within 100 ms (lock_timeout: a reader holds history; the next call drops it), then deletes at most p_batch rows (a partition whose rows it cannot lock within 100 ms waits for the next call) with finished_at before p_cutoff from the partitions pruned row by row (the default partition, the old history, and a partition straddling p_cutoff that spans more days than jobq._history_span_days of the setting history_retention now asks: one made before the retention was shortened), reading none when the oldest of each (its finished_at btree) is not past p_cutoff. Returns the rows deleted and the partitions dropped; nothing when p_cutoff or p_batch is NULL or p_batch below 1. Runs as its caller, the owner (jobq.prune_history and jobq.maintain are SECURITY DEFINER). Callers: jobq.prune_history, jobq._maintain.';
