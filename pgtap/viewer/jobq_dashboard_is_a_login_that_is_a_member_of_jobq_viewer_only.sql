-- jobq_dashboard, the dashboard's read-only login, is a plain LOGIN that is a member of
-- jobq_viewer and of no other role (bootstrap revokes any other membership), so the pages of
-- people who have not signed in can change nothing.
BEGIN;
SELECT plan(4);

SELECT ok((SELECT rolcanlogin AND NOT rolsuper AND NOT rolbypassrls AND NOT rolcreaterole AND NOT rolcreatedb
           FROM pg_catalog.pg_roles WHERE rolname = 'jobq_dashboard'),
          'jobq_dashboard is a LOGIN without superuser, BYPASSRLS, CREATEROLE or CREATEDB');
SELECT is(
    (SELECT array_agg(r.rolname::text ORDER BY r.rolname) FROM pg_catalog.pg_auth_members a
     JOIN pg_catalog.pg_roles r ON r.oid = a.roleid WHERE a.member = 'jobq_dashboard'::regrole),
    ARRAY['jobq_viewer'],
    'jobq_dashboard is a member of jobq_viewer and of nothing else');
SELECT ok(NOT (SELECT rolcanlogin FROM pg_catalog.pg_roles WHERE rolname = 'jobq_viewer'), 'jobq_viewer cannot log in');
SELECT ok(NOT pg_catalog.pg_has_role('jobq_dashboard', 'jobq_operator', 'USAGE')
          AND NOT pg_catalog.pg_has_role('jobq_dashboard', 'jobq_app', 'USAGE')
          AND NOT pg_catalog.pg_has_role('jobq_dashboard', 'worker_runtime', 'USAGE'),
          'jobq_dashboard has none of the rights of jobq_operator, jobq_app or worker_runtime');

SELECT * FROM finish();
ROLLBACK;
