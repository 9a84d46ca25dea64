-- jobq.error_codes and the code are kept in step: every code a function names ('JOB.X') is catalogued,
-- and every catalogued code is raised by some function (the installers' codes excepted: the first
-- migration raises JOB.BOOTSTRAP_MISSING before any function exists, and the SQL install of
-- jobq migrate script raises it and JOB.ALREADY_INSTALLED, proven by migrate/install_test.go).
BEGIN;
SELECT plan(7);

CREATE TEMP TABLE raised AS
SELECT DISTINCT m[1] AS code
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
CROSS JOIN LATERAL regexp_matches(p.prosrc, '''((?:JOB|WORKER)\.[A-Z_]+)''', 'g') AS m
WHERE n.nspname = 'jobq';

SELECT cmp_ok((SELECT count(*) FROM raised), '>=', 9::bigint, 'jobq functions raise at least nine distinct catalogued codes');
SELECT is_empty($$ SELECT code FROM raised EXCEPT SELECT code FROM jobq.error_codes $$,
                'every error code named in a jobq function is in jobq.error_codes');
SELECT is_empty($$ SELECT code FROM jobq.error_codes WHERE code NOT IN ('JOB.BOOTSTRAP_MISSING', 'JOB.ALREADY_INSTALLED') AND code NOT LIKE 'WORKER.%' EXCEPT SELECT code FROM raised $$,
                'every catalogued JOB code but the installers'' (JOB.BOOTSTRAP_MISSING, JOB.ALREADY_INSTALLED) is raised by some jobq function (WORKER codes are the runner''s)');

-- The errors of the task registry and of tenancy.
SELECT results_eq(
    $$ SELECT sqlstate, code FROM jobq.error_codes WHERE sqlstate LIKE 'JQ4%' ORDER BY sqlstate $$,
    $$ VALUES ('JQ401'::text, 'JOB.UNKNOWN_TASK'::text), ('JQ402', 'JOB.PAYLOAD_INVALID'), ('JQ403', 'JOB.STORE_REQUIRED'),
              ('JQ404', 'JOB.STORE_NOT_ALLOWED'), ('JQ405', 'JOB.INVALID_TASK_NAME'), ('JQ406', 'JOB.TENANT_MISMATCH'),
              ('JQ407', 'JOB.NOT_ALLOWED'), ('JQ408', 'JOB.STORE_NOT_BOUND') $$,
    'the catalogue holds JQ401 to JQ408: unknown task, invalid payload, store required, store not allowed, invalid task name, '
    'tenant mismatch, not allowed (system jobs and cron keys), store not bound');
SELECT is_empty(
    $$ SELECT code FROM jobq.error_codes WHERE sqlstate LIKE 'JQ4%' EXCEPT SELECT code FROM raised $$,
    'each of JQ401 to JQ408 is raised by some jobq function');

-- The errors of cron, schedules and workers. JQ604 is not used.
SELECT results_eq(
    $$ SELECT sqlstate, code FROM jobq.error_codes WHERE sqlstate LIKE 'JQ6%' ORDER BY sqlstate $$,
    $$ VALUES ('JQ601'::text, 'JOB.INVALID_CRON'::text), ('JQ602', 'JOB.INVALID_TIMEZONE'), ('JQ603', 'JOB.UNKNOWN_SCHEDULE'),
              ('JQ605', 'JOB.UNKNOWN_WORKER'), ('JQ606', 'JOB.SCHEDULE_OVERLAP') $$,
    'the catalogue holds JQ601, JQ602, JQ603, JQ605 and JQ606: invalid cron, invalid time zone, unknown schedule, unknown worker, '
    'a run now that its schedule''s forbid policy refuses (no JQ604)');
SELECT is_empty(
    $$ SELECT code FROM jobq.error_codes WHERE sqlstate LIKE 'JQ6%' EXCEPT SELECT code FROM raised $$,
    'each of the JQ6 errors is raised by some jobq function');

SELECT * FROM finish();
ROLLBACK;
