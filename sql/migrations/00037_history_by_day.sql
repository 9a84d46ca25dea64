-- History kept by day (issue 33: fewer writes per job). A finished job wrote two index entries
-- into jobq.job_history (job_history_pkey and job_history_finished_idx), and retention deleted
-- every row again, one by one, and vacuumed them. Now jobq.job_history is partitioned by
-- finished_at, one partition a UTC day, and retention drops a day once all of it is past
-- history_retention (jobq._prune_history):
--
--   jobq.job_history_pYYYYMMDD   one UTC day (its first partition may start later: see below),
--                                made ahead by jobq.maintain (jobq._history_days_ahead). Its own
--                                indexes: a unique one on id (a job's history row by id), the one
--                                entry a finished job writes, and a BRIN on finished_at (the last
--                                hour's and minute's reads), which an insert into a new page range
--                                does not write. Dropped whole once its end is past retention.
--   jobq.job_history_default     the rows no day holds (maintain stopped for days, a finish time
--                                set by hand): unique on id, a btree on finished_at, pruned row by
--                                row, as history was. Empty in normal operation.
--   jobq.job_history_before_00037
--                                the history kept before this migration, from MINVALUE to the
--                                migration's time (or MAXVALUE after a finish time of infinity),
--                                with its indexes as they were: pruned row by row through its
--                                btree, dropped once its end is past retention. Absent when
--                                history was empty.
--
-- The partial indexes (dead jobs, job keys, dependencies, batches) are declared on jobq.job_history,
-- so every partition has them; they take no entry for a plain success. Row security and grants
-- are the parent's: a query through jobq.job_history checks them, and no role but the owner may
-- read or write a partition directly (its grants are revoked; pgtap/job_history). Each partition
-- forces row security too, with one policy, job_history_owner, for the owner alone (whose
-- pruning deletes from a partition by name): a grant given by mistake would show nothing.
--
-- The old table's type goes with it: the functions that take or return it (jobq._settle_ended,
-- jobq._to_history, and any of an earlier release's signature) are dropped here, and the function
-- files make today's again on the new type.
--
-- Attaching the old history reads it once, under the upgrade's lock (docs/upgrading.md).

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    v_fn record;
BEGIN
    FOR v_fn IN
        SELECT DISTINCT d.objid::regprocedure AS fn
        FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_type t ON d.refobjid IN (t.oid, t.typarray)
        WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.refclassid = 'pg_catalog.pg_type'::regclass
          AND t.typrelid = 'jobq.job_history'::regclass
    LOOP
        EXECUTE format('DROP FUNCTION %s', v_fn.fn);
    END LOOP;
END
$$;
-- +goose StatementEnd
ALTER TABLE jobq.job_history RENAME TO job_history_before_00037;
ALTER INDEX jobq.job_history_pkey RENAME TO job_history_before_00037_pkey;
ALTER INDEX jobq.job_history_finished_idx RENAME TO job_history_before_00037_finished_idx;
ALTER INDEX jobq.job_history_dead_idx RENAME TO job_history_before_00037_dead_idx;
ALTER INDEX jobq.job_history_dead_id_idx RENAME TO job_history_before_00037_dead_id_idx;
ALTER INDEX jobq.job_history_job_key_idx RENAME TO job_history_before_00037_job_key_idx;
ALTER INDEX jobq.job_history_depends_on_idx RENAME TO job_history_before_00037_depends_on_idx;
ALTER INDEX jobq.job_history_batch_idx RENAME TO job_history_before_00037_batch_idx;

CREATE TABLE jobq.job_history (
    LIKE jobq.job_history_before_00037 INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMMENTS
) PARTITION BY RANGE (finished_at);
COMMENT ON TABLE jobq.job_history IS
    'Finished jobs (succeeded, dead, canceled), kept for the history_retention setting: partitioned by finished_at, one partition a UTC day (jobq.job_history_pYYYYMMDD, dropped whole once all of it is past retention), jobq.job_history_default for rows no day holds, and jobq.job_history_before_00037 for history kept before migration 00037 (both pruned row by row).';
ALTER TABLE jobq.job_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_history FORCE ROW LEVEL SECURITY;
CREATE INDEX job_history_dead_idx ON jobq.job_history (finished_at, task) INCLUDE (queue, store_id) WHERE state = 'dead';
CREATE INDEX job_history_dead_id_idx ON jobq.job_history (id) WHERE state = 'dead';
CREATE INDEX job_history_job_key_idx
    ON jobq.job_history ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), job_key, created_at)
    WHERE job_key IS NOT NULL;
CREATE INDEX job_history_depends_on_idx ON jobq.job_history USING gin (depends_on) WHERE depends_on IS NOT NULL;
CREATE INDEX job_history_batch_idx ON jobq.job_history (batch_id) WHERE batch_id IS NOT NULL;

-- +goose StatementBegin
DO $$
DECLARE
    v_grant record;
    v_obj record;
    v_max timestamptz;
    v_from timestamptz;
    v_day timestamptz;
BEGIN
    -- The grants move to the parent; the old table keeps none (nor its policies and triggers,
    -- which the function files make on the parent), so it is read through the parent alone.
    FOR v_grant IN
        SELECT a.privilege_type, a.grantee::regrole AS grantee
        FROM pg_catalog.pg_class c, LATERAL pg_catalog.aclexplode(c.relacl) a
        WHERE c.oid = 'jobq.job_history_before_00037'::regclass AND a.grantee <> c.relowner AND a.grantee <> 0
    LOOP
        EXECUTE format('GRANT %s ON jobq.job_history TO %s', v_grant.privilege_type, v_grant.grantee);
        EXECUTE format('REVOKE %s ON jobq.job_history_before_00037 FROM %s', v_grant.privilege_type, v_grant.grantee);
    END LOOP;
    FOR v_obj IN SELECT p.polname FROM pg_catalog.pg_policy p WHERE p.polrelid = 'jobq.job_history_before_00037'::regclass LOOP
        EXECUTE format('DROP POLICY %I ON jobq.job_history_before_00037', v_obj.polname);
    END LOOP;
    FOR v_obj IN SELECT t.tgname FROM pg_catalog.pg_trigger t WHERE t.tgrelid = 'jobq.job_history_before_00037'::regclass AND NOT t.tgisinternal LOOP
        EXECUTE format('DROP TRIGGER %I ON jobq.job_history_before_00037', v_obj.tgname);
    END LOOP;
    -- Row security stays forced, with the owner's policy alone (its pruning deletes by name).
    EXECUTE format('CREATE POLICY job_history_owner ON jobq.job_history_before_00037 TO %I USING (true) WITH CHECK (true)', current_user);

    -- The old history, if any, up to now (or past its latest finish time).
    v_from := '-infinity';
    IF EXISTS (SELECT 1 FROM jobq.job_history_before_00037) THEN
        v_max := (SELECT max(h.finished_at) FROM jobq.job_history_before_00037 h);
        IF v_max = 'infinity' THEN
            v_from := 'infinity';
            ALTER TABLE jobq.job_history ATTACH PARTITION jobq.job_history_before_00037 FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
        ELSE
            v_from := greatest(pg_catalog.clock_timestamp(), v_max + interval '1 microsecond');
            EXECUTE format('ALTER TABLE jobq.job_history ATTACH PARTITION jobq.job_history_before_00037 FOR VALUES FROM (MINVALUE) TO (%L)', v_from);
        END IF;
    ELSE
        DROP TABLE jobq.job_history_before_00037;
    END IF;

    -- Today and the next two days (jobq._history_add_day makes them from now on); the first
    -- starts where the old history ends.
    FOR i IN 0..2 LOOP
        v_day := pg_catalog.date_trunc('day', pg_catalog.now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + make_interval(days => i);
        CONTINUE WHEN greatest(v_day, v_from) >= v_day + interval '1 day';
        EXECUTE format('CREATE TABLE jobq.%I (LIKE jobq.job_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS)',
                       'job_history_p' || pg_catalog.to_char(v_day AT TIME ZONE 'UTC', 'YYYYMMDD'));
        EXECUTE format('CREATE UNIQUE INDEX ON jobq.%I (id)', 'job_history_p' || pg_catalog.to_char(v_day AT TIME ZONE 'UTC', 'YYYYMMDD'));
        EXECUTE format('CREATE INDEX ON jobq.%I USING brin (finished_at)', 'job_history_p' || pg_catalog.to_char(v_day AT TIME ZONE 'UTC', 'YYYYMMDD'));
        EXECUTE format('ALTER TABLE jobq.%I ENABLE ROW LEVEL SECURITY', 'job_history_p' || pg_catalog.to_char(v_day AT TIME ZONE 'UTC', 'YYYYMMDD'));
        EXECUTE format('ALTER TABLE jobq.%I FORCE ROW LEVEL SECURITY', 'job_history_p' || pg_catalog.to_char(v_day AT TIME ZONE 'UTC', 'YYYYMMDD'));
        EXECUTE format('CREATE POLICY job_history_owner ON jobq.%I TO %I USING (true) WITH CHECK (true)',
                       'job_history_p' || pg_catalog.to_char(v_day AT TIME ZONE 'UTC', 'YYYYMMDD'), current_user);
        EXECUTE format('ALTER TABLE jobq.job_history ATTACH PARTITION jobq.%I FOR VALUES FROM (%L) TO (%L)',
                       'job_history_p' || pg_catalog.to_char(v_day AT TIME ZONE 'UTC', 'YYYYMMDD'), greatest(v_day, v_from), v_day + interval '1 day');
    END LOOP;
END
$$;
-- +goose StatementEnd

CREATE TABLE jobq.job_history_default PARTITION OF jobq.job_history DEFAULT;
CREATE UNIQUE INDEX job_history_default_id_key ON jobq.job_history_default (id);
CREATE INDEX job_history_default_finished_idx ON jobq.job_history_default (finished_at);
ALTER TABLE jobq.job_history_default ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_history_default FORCE ROW LEVEL SECURITY;
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('CREATE POLICY job_history_owner ON jobq.job_history_default TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
-- +goose StatementEnd

UPDATE jobq.settings SET description = 'How long finished jobs stay in jobq.job_history at least: jobq.maintain and jobq.prune_history drop a UTC day of it once all of that day is past this (so at most one day longer), and delete the rows no day holds one by one.'
WHERE name = 'history_retention';

-- +goose Down
UPDATE jobq.settings SET description = 'How long finished jobs stay in jobq.job_history before jobq.prune_history() deletes them.'
WHERE name = 'history_retention';
-- The functions of this release that name the partitions go here (migrate down forgets them).
DROP FUNCTION IF EXISTS jobq._prune_history(timestamp with time zone, integer);
DROP FUNCTION IF EXISTS jobq._history_add_day(timestamp with time zone);
DROP FUNCTION IF EXISTS jobq._history_days_ahead(timestamp with time zone);
DROP FUNCTION IF EXISTS jobq._history_partitions();
-- +goose StatementBegin
DO $$
DECLARE
    v_fn record;
BEGIN
    FOR v_fn IN
        SELECT DISTINCT d.objid::regprocedure AS fn
        FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_type t ON d.refobjid IN (t.oid, t.typarray)
        WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.refclassid = 'pg_catalog.pg_type'::regclass
          AND t.typrelid = 'jobq.job_history'::regclass
    LOOP
        EXECUTE format('DROP FUNCTION %s', v_fn.fn);
    END LOOP;
END
$$;
-- +goose StatementEnd
ALTER TABLE jobq.job_history RENAME TO job_history_by_day;
CREATE TABLE jobq.job_history (
    LIKE jobq.job_history_by_day INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMMENTS
);
INSERT INTO jobq.job_history SELECT * FROM jobq.job_history_by_day;
-- +goose StatementBegin
DO $$
DECLARE
    v_grant record;
BEGIN
    FOR v_grant IN
        SELECT a.privilege_type, a.grantee::regrole AS grantee
        FROM pg_catalog.pg_class c, LATERAL pg_catalog.aclexplode(c.relacl) a
        WHERE c.oid = 'jobq.job_history_by_day'::regclass AND a.grantee <> c.relowner AND a.grantee <> 0
    LOOP
        EXECUTE format('GRANT %s ON jobq.job_history TO %s', v_grant.privilege_type, v_grant.grantee);
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP TABLE jobq.job_history_by_day;
COMMENT ON TABLE jobq.job_history IS 'Finished jobs (succeeded, dead, canceled), kept for the history_retention setting.';
ALTER TABLE jobq.job_history ADD PRIMARY KEY (id);
CREATE INDEX job_history_finished_idx ON jobq.job_history (finished_at);
CREATE INDEX job_history_dead_idx ON jobq.job_history (finished_at, task) INCLUDE (queue, store_id) WHERE state = 'dead';
CREATE INDEX job_history_dead_id_idx ON jobq.job_history (id) WHERE state = 'dead';
CREATE INDEX job_history_job_key_idx
    ON jobq.job_history ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), job_key, created_at)
    WHERE job_key IS NOT NULL;
CREATE INDEX job_history_depends_on_idx ON jobq.job_history USING gin (depends_on) WHERE depends_on IS NOT NULL;
CREATE INDEX job_history_batch_idx ON jobq.job_history (batch_id) WHERE batch_id IS NOT NULL;
ALTER TABLE jobq.job_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_history FORCE ROW LEVEL SECURITY;
