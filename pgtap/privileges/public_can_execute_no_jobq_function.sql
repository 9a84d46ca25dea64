-- A role with nothing but PUBLIC's privileges can do nothing in schema jobq.
BEGIN;
SELECT plan(5);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;
-- The tasks this file enqueues: every enqueue needs a declared task (jobq.define_task is
-- idempotent and puts back a task whose declaration differs).
SELECT FROM jobq.define_task('x');

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
