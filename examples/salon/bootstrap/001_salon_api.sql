-- salon bootstrap: the application's own login role, created after jobq's bootstrap.
--
-- salon_api is what the salon's API server logs in as. It is a member of jobq_app, so it may
-- enqueue, retry and cancel jobs of the store its transaction names (app.current_store_id), and
-- it reads and writes the business tables under their row-level security like every tenant
-- session. It is never a superuser and never bypasses RLS. Run as a superuser (`salon bootstrap`),
-- idempotent; its password comes only from the session setting salon.api_password.

DO $bootstrap$
DECLARE
    v_password text := NULLIF(pg_catalog.current_setting('salon.api_password', true), '');
BEGIN
    -- Installers that start together take turns (role changes of one cluster collide otherwise).
    PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('salon.bootstrap'));
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'salon_api') THEN
        CREATE ROLE salon_api LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB;
    ELSE
        ALTER ROLE salon_api LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB;
    END IF;
    IF v_password IS NOT NULL THEN
        EXECUTE format('ALTER ROLE salon_api PASSWORD %L', v_password);
    END IF;
    GRANT jobq_app TO salon_api;
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO salon_api', pg_catalog.current_database());
END
$bootstrap$;
