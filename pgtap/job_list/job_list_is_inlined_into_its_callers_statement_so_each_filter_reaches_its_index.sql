-- jobq.job_list stays a function the planner inlines into its caller's statement: a plain SQL
-- function, neither SECURITY DEFINER nor with a SET clause, not STRICT, not VOLATILE. Then a
-- custom plan sees each filter's value, its "$n IS NULL OR ..." folds away and a job by id is one
-- probe of a primary key; a function with a SET clause is planned on its own, generically, and
-- read every live and finished row for one job (18 s a dashboard job page at 10 million rows).
-- The last test shows the inlining on this database: the function itself is never executed.
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

-- Inlined, job_list is never called as a function: with track_functions = all (this session
-- only), a call of job_list by id counts no execution of it in this transaction's function
-- statistics. No plan is read: inlining depends on the function's properties, not on costs.
SET LOCAL track_functions = 'all';
SELECT count(*) FROM jobq.job_list(id => 42, max_rows => 1);
SELECT is((SELECT coalesce(sum(calls), 0)::integer FROM pg_catalog.pg_stat_xact_user_functions
           WHERE funcid = 'jobq.job_list(text,text,text,uuid,text,timestamp with time zone,bigint,integer,bigint)'::regprocedure), 0,
          'a call of job_list runs as the statement it inlines: no execution of the function is counted');

SELECT * FROM finish();
ROLLBACK;
