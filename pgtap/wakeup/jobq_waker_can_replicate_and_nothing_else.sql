-- jobq_waker, the login of runners in WAL wake-up mode, has REPLICATION and nothing else: no
-- superuser, BYPASSRLS, CREATEROLE or CREATEDB, no membership in any role, no right on schema
-- jobq. It can read no jobq table and call no jobq function, enqueue included.
BEGIN;
SELECT plan(12);

SELECT results_eq(
    $$ SELECT rolcanlogin, rolreplication, rolsuper, rolbypassrls, rolcreaterole, rolcreatedb
       FROM pg_catalog.pg_roles WHERE rolname = 'jobq_waker' $$,
    $$ VALUES (true, true, false, false, false, false) $$,
    'jobq_waker logs in with REPLICATION and no other attribute');
SELECT is_empty(
    $$ SELECT roleid::regrole FROM pg_catalog.pg_auth_members WHERE member = 'jobq_waker'::regrole $$,
    'jobq_waker is a member of no role, so it inherits no grant');
SELECT is(has_schema_privilege('jobq_waker', 'jobq', 'USAGE'), false, 'jobq_waker has no USAGE on schema jobq');
SELECT is_empty(
    $$ SELECT c.relname FROM pg_catalog.pg_class c
       WHERE c.relnamespace = 'jobq'::regnamespace AND c.relkind IN ('r', 'v', 'S')
         AND (has_table_privilege('jobq_waker', c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE') ) $$,
    'jobq_waker holds no privilege on any table or sequence of jobq');
SELECT is(has_database_privilege('jobq_waker', current_database(), 'CONNECT'), true,
          'jobq_waker may connect to the database (logical replication connects to it)');
SELECT is(has_database_privilege('jobq_waker', current_database(), 'CREATE'), false, 'jobq_waker may not create schemas here');

SET LOCAL ROLE jobq_waker;
SELECT throws_ok($$ SELECT * FROM jobq.jobs $$, '42501', 'permission denied for schema jobq', 'as jobq_waker, jobq.jobs cannot be read');
SELECT throws_ok($$ SELECT * FROM jobq.job_history $$, '42501', 'permission denied for schema jobq', 'as jobq_waker, jobq.job_history cannot be read');
SELECT throws_ok($$ SELECT * FROM jobq.settings $$, '42501', 'permission denied for schema jobq', 'as jobq_waker, jobq.settings cannot be read');
SELECT throws_ok($$ SELECT jobq.enqueue('ping') $$, '42501', 'permission denied for schema jobq', 'as jobq_waker, jobq.enqueue cannot be called');
SELECT throws_ok($$ SELECT jobq.claim_job('w', ARRAY['default']) $$, '42501', 'permission denied for schema jobq', 'as jobq_waker, no job can be claimed');
SELECT throws_ok($$ SELECT * FROM public.list_store_ids_for_fan_out() $$, '42501', NULL, 'as jobq_waker, the stores cannot be listed');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
