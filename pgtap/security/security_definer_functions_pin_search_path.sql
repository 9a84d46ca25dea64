-- Every SECURITY DEFINER function runs with search_path = pg_catalog, pg_temp, so a caller's
-- objects can never shadow what it calls.
BEGIN;
SELECT plan(2);

SELECT isnt_empty(
    $$ SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'jobq' AND p.prosecdef $$,
    'schema jobq has SECURITY DEFINER functions to check');
SELECT is_empty(
    $$ SELECT p.oid::regprocedure, p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND p.prosecdef
         AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false) $$,
    'every SECURITY DEFINER function in jobq sets search_path=pg_catalog, pg_temp');

SELECT * FROM finish();
ROLLBACK;
