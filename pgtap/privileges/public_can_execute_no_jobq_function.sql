-- A role with nothing but PUBLIC's privileges can do nothing in schema jobq.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('x');

CREATE ROLE nobody_test NOLOGIN;

SELECT is_empty(
    $$ SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND has_function_privilege('nobody_test', p.oid, 'EXECUTE') $$,
    'a role with only PUBLIC''s privileges can execute no jobq function');
SELECT is_empty(
    $$ SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'jobq' AND c.relkind IN ('r', 'v', 'm', 'S')
         AND (has_table_privilege('nobody_test', c.oid, 'SELECT') OR has_table_privilege('nobody_test', c.oid, 'INSERT')
              OR has_table_privilege('nobody_test', c.oid, 'UPDATE') OR has_table_privilege('nobody_test', c.oid, 'DELETE')) $$,
    'a role with only PUBLIC''s privileges has no privilege on any jobq table');
SELECT schema_privs_are('jobq', 'nobody_test', ARRAY[]::text[], 'PUBLIC has no privilege on schema jobq');

SET LOCAL ROLE nobody_test;
SELECT throws_ok($$ SELECT jobq.enqueue('x') $$, '42501', 'permission denied for schema jobq', 'as a PUBLIC-only role, enqueue is denied');
SELECT throws_ok($$ SELECT * FROM jobq.settings $$, '42501', 'permission denied for schema jobq', 'as a PUBLIC-only role, reading jobq.settings is denied');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
