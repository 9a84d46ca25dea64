-- jobq.job_list stays a function the planner inlines into its caller's statement: a plain SQL
-- function, neither SECURITY DEFINER nor with a SET clause, not STRICT, not VOLATILE. Then a
-- custom plan sees each filter's value, its "$n IS NULL OR ..." folds away and a job by id is one
-- probe of a primary key; a function with a SET clause is planned on its own, generically, and
-- read every live and finished row for one job (18 s a dashboard job page at 10 million rows).
-- The last test shows the inlining on this database: the plan reads the tables, not a function.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();

SELECT ok((SELECT l.lanname = 'sql' AND NOT p.prosecdef AND p.proconfig IS NULL AND NOT p.proisstrict AND p.provolatile = 's'
            FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
            WHERE p.oid = 'jobq.job_list(text,text,text,uuid,text,timestamp with time zone,bigint,integer,bigint)'::regprocedure),
          'job_list is a STABLE SQL function without SECURITY DEFINER, SET clause or STRICT: the planner can inline it');

SELECT is((SELECT count(*)::integer FROM pg_catalog.pg_proc p
           WHERE p.oid = 'jobq.job_list(text,text,text,uuid,text,timestamp with time zone,bigint,integer,bigint)'::regprocedure
             AND p.proretset AND p.prorows > 0), 1,
          'job_list returns a set (an inlinable table function)');

-- With its arguments as constants, the inlined statement names no function scan: the plan reads
-- the tables themselves. (Whether by index or sequential scan is the planner's choice; that it is
-- inlined is not.)
CREATE TEMP TABLE plan_lines (line text);
DO $$
DECLARE r record;
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT * FROM jobq.job_list(id => 42, max_rows => 1)' LOOP
        INSERT INTO plan_lines VALUES (r."QUERY PLAN");
    END LOOP;
END $$;
SELECT ok(NOT EXISTS (SELECT 1 FROM plan_lines WHERE line ~ 'Function Scan')
          AND EXISTS (SELECT 1 FROM plan_lines WHERE line ~ 'job_history'),
          'a call of job_list is planned as the statement it inlines (no Function Scan; it reads jobq.job_history itself)');

SELECT * FROM finish();
ROLLBACK;
