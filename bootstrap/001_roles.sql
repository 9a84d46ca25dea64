-- jobq bootstrap, step 1: cluster-scope roles.
--
-- Run as a superuser (or a role with CREATEROLE) BEFORE the migrations:
--     psql "$SUPERUSER_URL" -v ON_ERROR_STOP=1 -f bootstrap/001_roles.sql
-- or  jobq bootstrap --database-url "$SUPERUSER_URL"
--
-- Idempotent: a second run creates nothing, alters only what drifted and raises no error.
--
-- Roles (see README "Roles"):
--   jobq_migrator        LOGIN. Owns the jobq schema; the only role the migrations run as.
--   worker_runtime       LOGIN NOSUPERUSER NOBYPASSRLS. What `jobq worker` connects as: it may call the
--                        engine's functions and nothing more (seed 000 §6.1).
--   worker_fanout_owner  NOLOGIN BYPASSRLS. Owns public.list_store_ids_for_fan_out() and nothing else;
--                        no role is ever made a member of it (seed 000 §6.1).
--   jobq_app             NOLOGIN. Grant it to the application's login role; it enqueues, reads,
--                        retries and cancels jobs of its own store.
--   jobq_app_gate        NOLOGIN. Owns the few engine functions an application may call (enqueue,
--                        retry, cancel) so that row-level security confines them to the caller's
--                        store; nobody logs in as it or is granted it but the migrator.
--   jobq_operator        NOLOGIN. Grant it to humans who run the queue; operator functions.
--   jobq_viewer          NOLOGIN. Reads what operators read (every store's jobs, history, attempts,
--                        workers, schedules, settings, audit log, the stats functions) and can change
--                        nothing. Grant it to monitoring logins.
--   jobq_dashboard       LOGIN, a member of jobq_viewer and of nothing else. What `jobq dashboard`
--                        connects as for its read-only pages; actions run on the signed-in person's own
--                        login, never on this one (docs/dashboard.md).
--   jobq_waker           LOGIN REPLICATION, and nothing else: no grant, no membership. What a runner in
--                        WAL wake-up mode streams logical messages from a temporary slot as. Never give
--                        worker_runtime REPLICATION instead: a REPLICATION role reads the WAL, every
--                        store's data included, past row-level security. In pg_hba.conf allow it on
--                        the application database's entry (logical replication connects there), never
--                        on the `replication` entry (physical streaming and base backups).
--
-- Passwords are never in this file. A LOGIN role gets a password only when one is passed in a
-- setting of this session, e.g.
--     PGOPTIONS='-c jobq.migrator_password=... -c jobq.worker_runtime_password=... -c jobq.waker_password=... -c jobq.dashboard_password=...' psql -f ...
-- (`jobq bootstrap` reads JOBQ_MIGRATOR_PASSWORD, WORKER_RUNTIME_PASSWORD and JOBQ_WAKER_PASSWORD
-- and passes them so.)
-- Without one, an existing password is left as it is and a new role has none (it can then log in
-- only where pg_hba.conf trusts it, as in the throwaway development cluster).

DO $bootstrap$
DECLARE
    v_role record;
    v_password text;
BEGIN
    FOR v_role IN
        SELECT *
        FROM (VALUES
            ('jobq_migrator',       'LOGIN INHERIT NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB', 'jobq.migrator_password'),
            ('worker_runtime',      'LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB', 'jobq.worker_runtime_password'),
            ('worker_fanout_owner', 'NOLOGIN NOSUPERUSER BYPASSRLS NOCREATEROLE NOCREATEDB',  NULL),
            ('jobq_app',            'NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB', NULL),
            ('jobq_app_gate',       'NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB', NULL),
            ('jobq_operator',       'NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB', NULL),
            ('jobq_viewer',         'NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB', NULL),
            ('jobq_dashboard',      'LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB', 'jobq.dashboard_password'),
            ('jobq_waker',          'LOGIN REPLICATION NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB', 'jobq.waker_password')
        ) AS r(name, attributes, password_setting)
    LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = v_role.name) THEN
            EXECUTE format('CREATE ROLE %I %s', v_role.name, v_role.attributes);
            RAISE NOTICE 'jobq bootstrap: created role %', v_role.name;
        ELSE
            -- Re-assert the attributes: a drifted role (say, worker_runtime made BYPASSRLS by hand)
            -- is put back, because the runtime's safety rests on them.
            EXECUTE format('ALTER ROLE %I %s', v_role.name, v_role.attributes);
        END IF;

        v_password := NULLIF(pg_catalog.current_setting(v_role.password_setting, true), '');
        IF v_role.password_setting IS NOT NULL AND v_password IS NOT NULL THEN
            EXECUTE format('ALTER ROLE %I PASSWORD %L', v_role.name, v_password);
        END IF;
    END LOOP;

    -- worker_fanout_owner and jobq_app_gate must stay roles nobody can become (seed 000 §6.1):
    -- remove any membership but the migrator's (it needs one to hand them functions).
    FOR v_role IN
        SELECT r.rolname AS owner_role, m.rolname AS member
        FROM pg_catalog.pg_auth_members a
        JOIN pg_catalog.pg_roles r ON r.oid = a.roleid
        JOIN pg_catalog.pg_roles m ON m.oid = a.member
        WHERE r.rolname IN ('worker_fanout_owner', 'jobq_app_gate')
          AND m.rolname <> 'jobq_migrator'
    LOOP
        EXECUTE format('REVOKE %I FROM %I', v_role.owner_role, v_role.member);
        RAISE WARNING 'jobq bootstrap: revoked % from %', v_role.owner_role, v_role.member;
    END LOOP;

    -- jobq_waker replicates and does nothing else: it is a member of no role, so it inherits no
    -- grant (REPLICATION itself is an attribute, never inherited by members of jobq_waker).
    FOR v_role IN
        SELECT r.rolname AS granted_role
        FROM pg_catalog.pg_auth_members a
        JOIN pg_catalog.pg_roles r ON r.oid = a.roleid
        JOIN pg_catalog.pg_roles m ON m.oid = a.member
        WHERE m.rolname = 'jobq_waker'
    LOOP
        EXECUTE format('REVOKE %I FROM jobq_waker', v_role.granted_role);
        RAISE WARNING 'jobq bootstrap: revoked % from jobq_waker', v_role.granted_role;
    END LOOP;

    -- jobq_dashboard reads and does nothing else: it is a member of jobq_viewer and of no other
    -- role, so the dashboard's pages for people who have not signed in can change nothing.
    FOR v_role IN
        SELECT r.rolname AS granted_role
        FROM pg_catalog.pg_auth_members a
        JOIN pg_catalog.pg_roles r ON r.oid = a.roleid
        JOIN pg_catalog.pg_roles m ON m.oid = a.member
        WHERE m.rolname = 'jobq_dashboard' AND r.rolname <> 'jobq_viewer'
    LOOP
        EXECUTE format('REVOKE %I FROM jobq_dashboard', v_role.granted_role);
        RAISE WARNING 'jobq bootstrap: revoked % from jobq_dashboard', v_role.granted_role;
    END LOOP;
    IF NOT EXISTS (
        SELECT 1
        FROM pg_catalog.pg_auth_members a
        WHERE a.roleid = 'jobq_viewer'::regrole AND a.member = 'jobq_dashboard'::regrole
    ) THEN
        GRANT jobq_viewer TO jobq_dashboard;
    END IF;

    -- jobq_migrator owns the tables, so it is who gives them back their size after a long
    -- transaction (jobq compact, jobq.upkeep_advice). Whether one still holds vacuum back is in
    -- other roles' rows of pg_stat_activity, which only members of pg_read_all_stats may read.
    IF NOT EXISTS (
        SELECT 1
        FROM pg_catalog.pg_auth_members a
        WHERE a.roleid = 'pg_read_all_stats'::regrole AND a.member = 'jobq_migrator'::regrole
    ) THEN
        GRANT pg_read_all_stats TO jobq_migrator;
    END IF;
END
$bootstrap$;
