-- jobq_test: the fixtures the pgTAP suites share. Test-only: `jobq sandbox` installs it, as the
-- superuser, right after the migrations and CREATE EXTENSION pgtap; no jobq install ever runs it,
-- and nothing in it belongs to jobq_migrator. pg_prove does not run this file: its extension is
-- .pgsql and pg_prove is given --ext .sql. See pgtap/README.md.
--
-- By hand, on a database that was just migrated (the setting defaults are read from it):
--   psql -v ON_ERROR_STOP=1 -f pgtap/jobq_test.pgsql
-- Running the file again replaces the functions and keeps the defaults it read the first time.

DO $guard$
BEGIN
    IF NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION 'jobq_test: install as a superuser (the suites run as one), not as %', current_user;
    END IF;
    IF to_regclass('jobq.settings') IS NULL THEN
        RAISE EXCEPTION 'jobq_test: schema jobq is missing: bootstrap and migrate the database first';
    END IF;
    IF to_regnamespace('jobq_test') IS NULL
       AND EXISTS (SELECT 1 FROM jobq.audit_log a WHERE a.action = 'set_setting') THEN
        RAISE EXCEPTION 'jobq_test: a setting of this database was changed: install on a freshly migrated database, '
                        'whose settings are the migration defaults';
    END IF;
END
$guard$;

CREATE SCHEMA IF NOT EXISTS jobq_test;
COMMENT ON SCHEMA jobq_test IS 'Test-only fixtures of the pgTAP suites (pgtap/jobq_test.pgsql); never installed in production.';

-- The settings as the migrations left them: the one source of the defaults reset() restores.
CREATE TABLE IF NOT EXISTS jobq_test.setting_defaults AS SELECT s.name, s.value FROM jobq.settings s;
COMMENT ON TABLE jobq_test.setting_defaults IS 'Every jobq.settings value right after the migrations, read when jobq_test was installed.';

-- The tasks the migrations declare (none today): reset() keeps them and removes every other.
CREATE TABLE IF NOT EXISTS jobq_test.migration_tasks AS SELECT t.name FROM jobq.tasks t;
COMMENT ON TABLE jobq_test.migration_tasks IS 'The jobq.tasks rows right after the migrations.';

-- The known state every file starts from, whatever ran before in the database: no jobs, history,
-- schedules (nor their runs), workers, store bindings, audit rows or tasks of earlier tests;
-- nobody leading (the leader row as the migration inserts it, epoch 0); every setting at its
-- migration default. Stores (public.store, the application's table) are left alone: see stores().
-- Inside the test's transaction, so the ROLLBACK at the end undoes it.
CREATE OR REPLACE FUNCTION jobq_test.reset() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM jobq.job_dependencies;
    DELETE FROM jobq.sequence_holds;
    DELETE FROM jobq.jobs;
    DELETE FROM jobq.leases;
    DELETE FROM jobq.leases_recheck;
    DELETE FROM jobq.job_history;
    DELETE FROM jobq.job_attempts;
    DELETE FROM jobq.schedule_runs;
    DELETE FROM jobq.schedules;
    DELETE FROM jobq.workers;
    DELETE FROM jobq.queues;
    DELETE FROM jobq.store_bindings;
    DELETE FROM jobq.audit_log;
    DELETE FROM jobq.tasks t WHERE t.name NOT IN (SELECT m.name FROM jobq_test.migration_tasks m);
    DELETE FROM jobq.leader;
    INSERT INTO jobq.leader DEFAULT VALUES;
    DELETE FROM jobq.live_counts;
    UPDATE jobq.live_counts_taken SET counted_at = '-infinity', took = interval '0', total = 0;
    UPDATE jobq.settings s SET value = d.value
    FROM jobq_test.setting_defaults d
    WHERE s.name = d.name AND s.value IS DISTINCT FROM d.value;
END
$$;
COMMENT ON FUNCTION jobq_test.reset() IS 'Known state: no jobs, history, schedules, workers, queue pauses, bindings, audit rows, test tasks or live counts kept by maintain; the leader row and every setting as after the migrations.';

-- Makes public.store hold exactly these stores, inserted in the order given (a test of ordering
-- passes them out of order); stores() with no argument leaves none.
CREATE OR REPLACE FUNCTION jobq_test.stores(VARIADIC p_ids uuid[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM public.store;
    INSERT INTO public.store (id, name)
    SELECT i.id, 'pgtap store ' || i.ord
    FROM unnest(p_ids) WITH ORDINALITY AS i(id, ord)
    ORDER BY i.ord;
END
$$;
COMMENT ON FUNCTION jobq_test.stores(uuid[]) IS 'public.store holds exactly these stores, inserted in the order given.';

CREATE OR REPLACE FUNCTION jobq_test.stores() RETURNS void
LANGUAGE sql AS $$
    DELETE FROM public.store;
$$;
COMMENT ON FUNCTION jobq_test.stores() IS 'public.store holds no store.';

-- Declares plain system tasks (no contract, no defaults) through jobq.define_task, in the order
-- given. A task with a scope, a contract or defaults is declared with jobq.define_task itself.
CREATE OR REPLACE FUNCTION jobq_test.tasks(VARIADIC p_names text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_name text;
BEGIN
    FOREACH v_name IN ARRAY p_names LOOP
        PERFORM jobq.define_task(v_name);
    END LOOP;
END
$$;
COMMENT ON FUNCTION jobq_test.tasks(text[]) IS 'Declares each name as a plain system task with jobq.define_task.';

-- Writes the claim's receipt (jobq.leases) of every running job a test wrote by hand, one row a
-- worker, as jobq._cover_running_jobs does for the jobs running across the upgrade to migration
-- 00036: a claim writes its own, and the sweep finds a running job only through one.
CREATE OR REPLACE FUNCTION jobq_test.leases_for_running() RETURNS void LANGUAGE sql AS $$
    SELECT FROM jobq._write_missing_receipts();
$$;
COMMENT ON FUNCTION jobq_test.leases_for_running() IS 'Writes a jobq.leases row for the running jobs written by hand that none lists.';

-- How many rows the tables hold now; a test that proves a refusal wrote nothing keeps this row in
-- a temporary table (CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts()) and compares.
CREATE OR REPLACE FUNCTION jobq_test.counts(
    OUT jobs bigint, OUT history bigint, OUT workers bigint, OUT schedules bigint, OUT tasks bigint, OUT audits bigint)
LANGUAGE sql AS $$
    SELECT (SELECT count(*) FROM jobq.jobs), (SELECT count(*) FROM jobq.job_history), (SELECT count(*) FROM jobq.workers),
           (SELECT count(*) FROM jobq.schedules), (SELECT count(*) FROM jobq.tasks), (SELECT count(*) FROM jobq.audit_log);
$$;
COMMENT ON FUNCTION jobq_test.counts() IS 'Row counts of jobs, job_history, workers, schedules, tasks and audit_log.';

-- The error a statement raises, as one text: 'SQLSTATE message', or 'no error'. For comparing
-- two code paths' refusals row by row (throws_ok takes one statement at a time).
CREATE OR REPLACE FUNCTION jobq_test.error_of(p_sql text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE p_sql;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || SQLERRM;
END
$$;
COMMENT ON FUNCTION jobq_test.error_of(text) IS 'SQLSTATE and message of the error p_sql raises, or ''no error''; its effects are rolled back on error.';

-- The error a statement raises, field by field (all NULL when it raises none).
CREATE OR REPLACE FUNCTION jobq_test.error_fields(p_sql text, OUT err_state text, OUT err_message text, OUT err_hint text)
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE p_sql;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT, err_hint = PG_EXCEPTION_HINT;
END
$$;
COMMENT ON FUNCTION jobq_test.error_fields(text) IS 'SQLSTATE, message and hint of the error p_sql raises; NULLs when none.';

-- Jobs in two stores and in the system, for the tenancy suites: store A
-- (aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa), store B (bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb) and the
-- system (no store) each get two jobs, enqueued as the caller (a superuser reaches every store):
-- *_live in its own queue (pgtap_a, pgtap_b, pgtap_system) and *_done in queue pgtap_done, for the
-- test to finish. Temporary table named (name, id) holds their ids. Tasks pgtap-store-task (scope
-- store) and pgtap-system-task must be declared first: the test declares them as it needs them.
CREATE OR REPLACE FUNCTION jobq_test.tenant_jobs() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    CREATE TEMP TABLE named (name text, id bigint);
    INSERT INTO named VALUES
        ('a_live',      jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', queue => 'pgtap_a')),
        ('a_done',      jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', queue => 'pgtap_done')),
        ('b_live',      jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', queue => 'pgtap_b')),
        ('b_done',      jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', queue => 'pgtap_done')),
        ('system_live', jobq.enqueue('pgtap-system-task', queue => 'pgtap_system')),
        ('system_done', jobq.enqueue('pgtap-system-task', queue => 'pgtap_done'));
END
$$;
COMMENT ON FUNCTION jobq_test.tenant_jobs() IS 'A live and a to-be-finished job in store A, store B and the system; temp table named (name, id).';

-- A libpq connection string back to this database as this user (trust on loopback in jobq
-- sandbox), for a second session through dblink: NOTIFYs and logical messages exist only once a
-- transaction commits, which a test's own transaction never does.
CREATE OR REPLACE FUNCTION jobq_test.loopback() RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT format('host=%s port=%s dbname=%s user=%s',
                  coalesce(host(inet_server_addr()), split_part(current_setting('unix_socket_directories'), ',', 1)),
                  current_setting('port'), current_database(), current_user);
$$;
COMMENT ON FUNCTION jobq_test.loopback() IS 'Connection string of this database as current_user, for a dblink second session.';

-- The advisory locks of the claim that this session holds, per queue of jobq.queues: the queue's
-- lock (its modes, comma-separated; NULL when not held) and how many of its slots
-- (jobq._shared_claim_slot).
CREATE OR REPLACE FUNCTION jobq_test.held_claim_locks()
RETURNS TABLE (queue text, queue_lock text, slots bigint)
LANGUAGE sql STABLE AS $$
    SELECT q.name,
           (SELECT string_agg(l.mode, ',' ORDER BY l.mode) FROM pg_locks l
            WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.classid = 1785684593
              AND l.objid = hashtext(q.name)::oid AND l.objsubid = 2),
           (SELECT count(*) FROM pg_locks l
            WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.classid BETWEEN 1785684594 AND 1785684601
              AND l.objid = hashtext(q.name)::oid AND l.objsubid = 2)
    FROM jobq.queues q;
$$;
COMMENT ON FUNCTION jobq_test.held_claim_locks() IS 'Per queue, the modes of its claim lock and the number of its claim slots this session holds.';

-- The plan of a query as EXPLAIN (VERBOSE, COSTS OFF) prints it, one text: a test that a SQL
-- function is inlined looks for its name there (a call that is not inlined is printed by name).
CREATE OR REPLACE FUNCTION jobq_test.verbose_plan(p_query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_line text;
    v_plan text := '';
BEGIN
    FOR v_line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || p_query LOOP
        v_plan := v_plan || v_line || E'\n';
    END LOOP;
    RETURN v_plan;
END
$$;
COMMENT ON FUNCTION jobq_test.verbose_plan(text) IS 'The EXPLAIN (VERBOSE, COSTS OFF) plan of p_query, its lines joined.';

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA jobq_test FROM PUBLIC;
