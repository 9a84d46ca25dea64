-- A trigger function (jobq._workflow_on_history) is checked against its table and transition table.
BEGIN;
SELECT plan(3);

CREATE EXTENSION IF NOT EXISTS plpgsql_check;

SELECT cmp_ok(
    (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'jobq' AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql')),
    '>=', 20::bigint, 'there are PL/pgSQL functions in jobq to check');
SELECT is_empty(
    $$ SELECT p.oid::regprocedure, c.lineno, c.message
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace,
            LATERAL plpgsql_check_function_tb(p.oid, relid => coalesce((SELECT t.tgrelid FROM pg_trigger t WHERE t.tgfoid = p.oid LIMIT 1), 0),
                                           newtable => (SELECT t.tgnewtable FROM pg_trigger t WHERE t.tgfoid = p.oid LIMIT 1)) c
       WHERE n.nspname = 'jobq' AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql')
         AND c.level = 'error' $$,
    'plpgsql_check reports no errors in any jobq function');
CREATE TEMP TABLE warnings AS
SELECT p.oid::regprocedure::text AS proc, c.level, c.lineno, c.message
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace,
     LATERAL plpgsql_check_function_tb(p.oid, relid => coalesce((SELECT t.tgrelid FROM pg_trigger t WHERE t.tgfoid = p.oid LIMIT 1), 0),
                                    newtable => (SELECT t.tgnewtable FROM pg_trigger t WHERE t.tgfoid = p.oid LIMIT 1), extra_warnings => true, performance_warnings => true, security_warnings => true) c
WHERE n.nspname = 'jobq' AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql');

SELECT is_empty($$ SELECT * FROM warnings $$,
    'plpgsql_check reports no warnings (extra, performance or security) in any jobq function');

SELECT * FROM finish();
ROLLBACK;
