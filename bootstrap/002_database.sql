-- jobq bootstrap, step 2: what the roles need on THIS database.
--
-- Run as a superuser or the database owner, connected to the application database, after
-- 001_roles.sql and before the migrations. Idempotent.
--
-- The migrator may create the jobq schema in this database; the runtime roles may connect, and so
-- may jobq_waker, whose logical replication connections are connections to this database.
-- The migrator is also made a member of worker_fanout_owner and jobq_app_gate, so it can hand them
-- ownership of functions and take it back in a Down migration (PostgreSQL requires membership for
-- ALTER ... OWNER and REASSIGN OWNED). It gains nothing it lacks: BYPASSRLS is an attribute and is
-- never inherited, and the migrator already owns the tables. No login role that runs jobs is ever
-- a member of either.

DO $bootstrap$
BEGIN
    EXECUTE format('GRANT CONNECT, CREATE, TEMPORARY ON DATABASE %I TO jobq_migrator', pg_catalog.current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO worker_runtime, jobq_app, jobq_operator, jobq_viewer, jobq_waker', pg_catalog.current_database());
    IF NOT EXISTS (
        SELECT 1
        FROM pg_catalog.pg_auth_members a
        WHERE a.roleid = 'worker_fanout_owner'::regrole AND a.member = 'jobq_migrator'::regrole
    ) THEN
        GRANT worker_fanout_owner TO jobq_migrator;
    END IF;
    IF NOT EXISTS (
        SELECT 1
        FROM pg_catalog.pg_auth_members a
        WHERE a.roleid = 'jobq_app_gate'::regrole AND a.member = 'jobq_migrator'::regrole
    ) THEN
        GRANT jobq_app_gate TO jobq_migrator;
    END IF;
END
$bootstrap$;

-- The migrator creates public.list_store_ids_for_fan_out() and, in a database that has none, a
-- minimal public.store (see sql/00010_fanout.sql); the function's owner, worker_fanout_owner,
-- must hold CREATE on the schema for ALTER FUNCTION ... OWNER TO it. Nothing else of jobq lives in
-- public.
GRANT USAGE, CREATE ON SCHEMA public TO jobq_migrator, worker_fanout_owner;
