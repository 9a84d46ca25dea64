-- jobq engine: upkeep of the tables' size (issue 17: jobq.jobs back to its size within a minute
-- after a long transaction ends).
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.
--
-- A transaction that keeps a snapshot open keeps every row deleted after it: jobq.jobs, where each
-- job is inserted, updated and deleted within seconds, grows by every job that ran meanwhile. Once
-- the snapshot ends, vacuum makes the space reusable but gives little of it back, and never
-- shrinks an index. Only the tables' owner may rewrite a table (VACUUM FULL) or rebuild its indexes
-- (REINDEX), and neither runs inside a function. So the engine only advises: jobq.upkeep_advice()
-- says, table by table, what to run and why, and `jobq compact` (run as the owner) runs it.

-- What to do with one table, from its sizes and live rows: the whole rule of the advice, apart
-- from the catalog reads, so pgTAP can check it case by case.
CREATE OR REPLACE FUNCTION jobq._upkeep_action(
    p_total_bytes bigint,
    p_index_bytes bigint,
    p_live_rows bigint,
    p_min_bytes bigint,
    p_max_rows bigint)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        -- Few live rows: a rewrite takes milliseconds and returns heap and indexes at once.
        WHEN p_live_rows <= p_max_rows
             AND p_total_bytes > greatest(p_min_bytes, p_live_rows::numeric * 4096) THEN 'rewrite'
        -- Many live rows: a rewrite would lock the table for long; rebuild the indexes online.
        WHEN p_live_rows > p_max_rows
             AND p_index_bytes > greatest(p_min_bytes, p_live_rows::numeric * 1024) THEN 'reindex'
        ELSE 'none'
    END
$$;
COMMENT ON FUNCTION jobq._upkeep_action(bigint,bigint,bigint,bigint,bigint) IS
    'Private. The action jobq.upkeep_advice gives a table: rewrite when it has at most p_max_rows live rows and takes more than p_min_bytes and more than 4 kB per live row; reindex when it has more live rows and its indexes take more than p_min_bytes and more than 1 kB per live row; none otherwise (and for NULL inputs).';

-- The sessions and prepared transactions of this database whose snapshot is older than
-- p_held_after: while one exists, vacuum keeps every row deleted since, and a rewrite would copy
-- them all. Describes the oldest, or returns NULL when none holds. (PostgreSQL 13 also keeps rows
-- for snapshots of other databases; 14 and later only for this one's.)
CREATE OR REPLACE FUNCTION jobq._upkeep_held_by(p_held_after interval)
RETURNS text
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT h.what
    FROM (
        SELECT format('pid %s (%s, %s) has kept a snapshot since %s', a.pid, coalesce(nullif(a.usename, ''), a.backend_type),
                      a.state, date_trunc('second', coalesce(a.xact_start, a.backend_start))) AS what,
               coalesce(a.xact_start, a.backend_start) AS since
        FROM pg_catalog.pg_stat_activity a
        WHERE a.backend_xmin IS NOT NULL
          AND a.pid <> pg_catalog.pg_backend_pid()
          AND a.backend_type <> 'autovacuum worker'
          -- This database's sessions, and physical replication with hot_standby_feedback (a
          -- walsender of no database); a logical walsender holds back only the catalogs.
          AND ((a.datid = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
                AND a.backend_type <> 'walsender')
               OR (a.backend_type = 'walsender' AND a.datid IS NULL))
          AND coalesce(a.xact_start, a.backend_start) < pg_catalog.now() - p_held_after
        UNION ALL
        SELECT format('prepared transaction %L has been open since %s', p.gid, date_trunc('second', p.prepared)), p.prepared
        FROM pg_catalog.pg_prepared_xacts p
        WHERE p.database = pg_catalog.current_database()
          AND p.prepared < pg_catalog.now() - p_held_after
    ) h
    ORDER BY h.since
    LIMIT 1
$$;
COMMENT ON FUNCTION jobq._upkeep_held_by(interval) IS
    'Private. Describes the oldest session (pg_stat_activity.backend_xmin set, not autovacuum: this database''s backends, and walsenders of physical replication) or prepared transaction of this database whose transaction began more than p_held_after ago, or returns NULL. Sees other roles'' sessions only when the caller may (a superuser or a member of pg_read_all_stats; jobq.upkeep_advice runs as the tables'' owner).';

-- Advice on the size of every table of the jobq schema: for each, its sizes and live rows, and
-- what the owner should run (a rewrite for tables of few live rows grown large, an online index
-- rebuild for large ones, dropping an index a stopped REINDEX CONCURRENTLY left invalid), or why
-- to wait. Read-only; `jobq compact` runs the statements as the owner.
CREATE OR REPLACE FUNCTION jobq.upkeep_advice(
    min_bytes bigint DEFAULT 8388608,
    max_rows integer DEFAULT 10000,
    held_after interval DEFAULT interval '10 seconds')
RETURNS TABLE (table_name text, total_bytes bigint, index_bytes bigint, live_rows bigint,
               action text, statement text, reason text)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_held text;
    v_rel record;
    v_counted bigint;
BEGIN
    PERFORM jobq._check_int('min_bytes', upkeep_advice.min_bytes, 0, 1099511627776);
    PERFORM jobq._check_int('max_rows', upkeep_advice.max_rows, 0, 1000000);
    PERFORM jobq._check_interval('held_after', upkeep_advice.held_after, interval '1 day', true);
    IF upkeep_advice.min_bytes IS NULL OR upkeep_advice.max_rows IS NULL OR upkeep_advice.held_after IS NULL THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', 'min_bytes, max_rows and held_after must not be NULL');
    END IF;
    v_held := jobq._upkeep_held_by(upkeep_advice.held_after);

    -- An index a stopped REINDEX CONCURRENTLY left behind (suffix _ccnew or _ccold) is written by
    -- every insert and read by none: drop it, unless a rebuild of its table is running now.
    FOR v_rel IN
        SELECT i.indexrelid::regclass AS idx, t.relname AS tbl
        FROM pg_catalog.pg_index i
        JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
        JOIN pg_catalog.pg_class t ON t.oid = i.indrelid
        WHERE t.relnamespace = 'jobq'::regnamespace
          AND NOT i.indisvalid
          AND c.relname ~ '_cc(new|old)[0-9]*$'
          AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_stat_progress_create_index p WHERE p.relid = i.indrelid)
        ORDER BY 1
    LOOP
        table_name := 'jobq.' || v_rel.tbl;
        total_bytes := pg_catalog.pg_total_relation_size(format('jobq.%I', v_rel.tbl)::regclass);
        index_bytes := pg_catalog.pg_indexes_size(format('jobq.%I', v_rel.tbl)::regclass);
        live_rows := NULL;
        action := 'drop_invalid_index';
        statement := format('DROP INDEX CONCURRENTLY IF EXISTS %s', v_rel.idx);
        reason := format('%s is an invalid index left by a stopped REINDEX CONCURRENTLY', v_rel.idx);
        RETURN NEXT;
    END LOOP;

    FOR v_rel IN
        SELECT c.oid, c.relname, c.reltuples::bigint AS reltuples,
               pg_catalog.pg_total_relation_size(c.oid) AS total, pg_catalog.pg_indexes_size(c.oid) AS indexes,
               coalesce(pg_catalog.pg_stat_get_live_tuples(c.oid), 0) AS stat_live
        FROM pg_catalog.pg_class c
        WHERE c.relnamespace = 'jobq'::regnamespace AND c.relkind = 'r'
        ORDER BY c.relname
    LOOP
        table_name := 'jobq.' || v_rel.relname;
        total_bytes := v_rel.total;
        index_bytes := v_rel.indexes;
        -- Live rows, counted up to max_rows + 1 (the rule needs no more), and never fewer than the
        -- planner's and the statistics' estimates: counts under a row policy, and statistics reset
        -- by a crash, must not make a large table look small.
        EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM jobq.%I LIMIT %s) s', v_rel.relname, upkeep_advice.max_rows + 1)
            INTO v_counted;
        live_rows := greatest(v_counted, v_rel.reltuples, v_rel.stat_live);
        action := jobq._upkeep_action(total_bytes, index_bytes, live_rows, upkeep_advice.min_bytes, upkeep_advice.max_rows);
        statement := NULL;
        reason := NULL;
        IF action <> 'none' AND EXISTS (SELECT 1 FROM pg_catalog.pg_stat_progress_create_index p WHERE p.relid = v_rel.oid) THEN
            action := 'wait';
            reason := 'an index of the table is being built now';
        ELSIF action <> 'none' AND v_held IS NOT NULL THEN
            action := 'wait';
            reason := v_held || ': until it ends, a rewrite would keep the rows it still sees';
        ELSIF action = 'rewrite' THEN
            statement := format('VACUUM (FULL) jobq.%I', v_rel.relname);
            reason := format('%s for %s live rows', pg_catalog.pg_size_pretty(total_bytes), live_rows);
        ELSIF action = 'reindex' THEN
            statement := format('REINDEX TABLE CONCURRENTLY jobq.%I', v_rel.relname);
            reason := format('indexes of %s for %s live rows', pg_catalog.pg_size_pretty(index_bytes), live_rows);
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION jobq.upkeep_advice(bigint,integer,interval) IS
    'One row per table of the jobq schema (and first, one per invalid index a stopped REINDEX CONCURRENTLY left, action drop_invalid_index): total and index bytes, live rows (counted up to max_rows + 1, never below the planner''s or the statistics'' estimate), and the action: rewrite (VACUUM (FULL); at most max_rows live rows and more than min_bytes and 4 kB per live row), reindex (REINDEX TABLE CONCURRENTLY; more live rows, indexes above min_bytes and 1 kB per live row), wait (one of those, but a snapshot older than held_after in this database, a prepared transaction or an index build holds it back; reason says which), or none. statement is what the tables'' owner runs outside a transaction (jobq compact does). Runs as the owner: reads every row policy''s rows to count, and sees other roles'' sessions only when the owner is a superuser or a member of pg_read_all_stats (bootstrap grants it). Takes no lock beyond reads (AccessShareLock on each table). Caller: operators, jobq compact. Defaults: min_bytes 8 MiB, max_rows 10000, held_after 10 seconds. Errors: JOB.OUT_OF_RANGE (min_bytes outside 0..1 TiB, max_rows outside 0..1000000, held_after above 1 day), JOB.LEASE_INVALID (negative held_after), JOB.INVALID_ARGUMENT (NULL).';
