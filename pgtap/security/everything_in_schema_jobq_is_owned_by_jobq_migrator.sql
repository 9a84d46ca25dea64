BEGIN;
SELECT plan(4);

SELECT schema_owner_is('jobq', 'jobq_migrator', 'schema jobq is owned by jobq_migrator');
SELECT is_empty(
    $$ SELECT p.oid::regprocedure, pg_get_userbyid(p.proowner) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND pg_get_userbyid(p.proowner) <> 'jobq_migrator' $$,
    'every jobq function, SECURITY DEFINER ones included, is owned by jobq_migrator');
SELECT is_empty(
    $$ SELECT c.oid::regclass, pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'jobq' AND pg_get_userbyid(c.relowner) <> 'jobq_migrator' $$,
    'every jobq table, index and sequence is owned by jobq_migrator');
SELECT is_empty(
    $$ SELECT t.oid::regtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
       WHERE n.nspname = 'jobq' AND pg_get_userbyid(t.typowner) <> 'jobq_migrator' $$,
    'every jobq type is owned by jobq_migrator');

SELECT * FROM finish();
ROLLBACK;
