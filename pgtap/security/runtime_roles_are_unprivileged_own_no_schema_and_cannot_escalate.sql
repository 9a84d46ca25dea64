BEGIN;
SELECT plan(9);

SELECT is((SELECT count(*) FROM pg_roles WHERE rolname IN ('worker_runtime', 'jobq_app', 'jobq_operator')), 3::bigint,
          'the three runtime roles exist');
SELECT is_empty(
    $$ SELECT rolname FROM pg_roles WHERE rolname IN ('worker_runtime', 'jobq_app', 'jobq_operator', 'jobq_migrator')
       AND (rolsuper OR rolbypassrls OR rolcreaterole OR rolcreatedb) $$,
    'no runtime role and not the migrator is superuser, BYPASSRLS, CREATEROLE or CREATEDB');
SELECT is_empty(
    $$ SELECT n.nspname FROM pg_namespace n WHERE pg_get_userbyid(n.nspowner) IN ('worker_runtime', 'jobq_app', 'jobq_operator') $$,
    'no runtime role owns a schema');
SELECT results_eq(
    $$ SELECT rolcanlogin, rolsuper, rolbypassrls, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = 'jobq_app_gate' $$,
    $$ VALUES (false, false, false, false, false) $$,
    'jobq_app_gate, the owner of the gate functions, cannot log in and has no special attribute');
SELECT results_eq(
    $$ SELECT rolcanlogin, rolbypassrls FROM pg_roles WHERE rolname = 'worker_fanout_owner' $$,
    $$ VALUES (false, true) $$,
    'worker_fanout_owner, the one BYPASSRLS role, cannot log in');

-- Nor can they become a role that is: they are members of neither jobq_migrator (the owner of
-- everything in jobq), worker_fanout_owner (BYPASSRLS) nor jobq_app_gate (reaches every store for
-- a caller with jobq_operator's rights).
SELECT is_empty(
    $$ SELECT r.role, t.target FROM unnest(ARRAY['worker_runtime', 'jobq_app', 'jobq_operator']) AS r(role)
       CROSS JOIN unnest(ARRAY['jobq_migrator', 'worker_fanout_owner', 'jobq_app_gate']) AS t(target)
       WHERE pg_has_role(r.role, t.target, 'MEMBER') $$,
    'no runtime role is a member of jobq_migrator, worker_fanout_owner or jobq_app_gate');
-- SET ROLE is checked against the session user, so become worker_runtime as a session would.
SET SESSION AUTHORIZATION worker_runtime;
SELECT throws_ok($$ SET ROLE worker_fanout_owner $$, '42501', 'permission denied to set role "worker_fanout_owner"', 'worker_runtime cannot SET ROLE worker_fanout_owner');
SELECT throws_ok($$ SET ROLE jobq_migrator $$, '42501', 'permission denied to set role "jobq_migrator"', 'worker_runtime cannot SET ROLE jobq_migrator');
SELECT throws_ok($$ SET ROLE jobq_app_gate $$, '42501', 'permission denied to set role "jobq_app_gate"', 'worker_runtime cannot SET ROLE jobq_app_gate');
RESET SESSION AUTHORIZATION;

SELECT * FROM finish();
ROLLBACK;
