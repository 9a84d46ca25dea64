-- Audit: a SECURITY DEFINER function that resolves names through the caller's search_path can be
-- hijacked by the caller's objects. Every SECURITY DEFINER function in the database, in every
-- schema but pg_catalog and information_schema (jobq's, public's, an extension's), sets
-- search_path, starting with pg_catalog and ending with pg_temp.
BEGIN;
SELECT plan(2);

SELECT isnt_empty(
    $$ SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE p.prosecdef AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname <> 'jobq' $$,
    'there are SECURITY DEFINER functions outside jobq to check too (public.list_store_ids_for_fan_out)');
SELECT is_empty(
    $$ SELECT p.oid::regprocedure, p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE p.prosecdef AND n.nspname NOT IN ('pg_catalog', 'information_schema')
         AND NOT EXISTS (SELECT 1 FROM unnest(p.proconfig) AS c(setting)
                         WHERE c.setting ~ '^search_path=("?pg_catalog"?)(,.*)?,\s*"?pg_temp"?$') $$,
    'every SECURITY DEFINER function in the database sets search_path to pg_catalog first and pg_temp last');

SELECT * FROM finish();
ROLLBACK;
