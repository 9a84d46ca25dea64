-- jobq.error_codes and the code are kept in step: every code a function names ('JOB.X') is catalogued,
-- and every catalogued code is raised by some function (JOB.BOOTSTRAP_MISSING excepted: the
-- first migration raises it before any function exists).
BEGIN;
SELECT plan(3);

CREATE TEMP TABLE raised AS
SELECT DISTINCT m[1] AS code
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
CROSS JOIN LATERAL regexp_matches(p.prosrc, '''((?:JOB|WORKER)\.[A-Z_]+)''', 'g') AS m
WHERE n.nspname = 'jobq';

SELECT cmp_ok((SELECT count(*) FROM raised), '>=', 9::bigint, 'jobq functions raise at least nine distinct catalogued codes');
SELECT is_empty($$ SELECT code FROM raised EXCEPT SELECT code FROM jobq.error_codes $$,
                'every error code named in a jobq function is in jobq.error_codes');
SELECT is_empty($$ SELECT code FROM jobq.error_codes WHERE code <> 'JOB.BOOTSTRAP_MISSING' AND code NOT LIKE 'WORKER.%' EXCEPT SELECT code FROM raised $$,
                'every catalogued JOB code but JOB.BOOTSTRAP_MISSING is raised by some jobq function (WORKER codes are the runner''s)');

SELECT * FROM finish();
ROLLBACK;
