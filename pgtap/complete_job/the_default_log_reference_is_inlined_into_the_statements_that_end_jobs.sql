-- jobq._log_ref, the default log reference of every attempt that ends (complete_jobs, fail_jobs,
-- the sweeper), stays a function the planner inlines into those statements: a SQL function,
-- STABLE like the format() it calls (an IMMUTABLE function over a STABLE one is not inlined),
-- without SECURITY DEFINER or a SET clause (a function with one runs on its own for every row,
-- its setting saved and restored each time: 1.8 us a completed job). Inlining depends on these
-- properties, not on costs; the EXPLAIN of a statement calling it shows its body in its place.
BEGIN;
SELECT plan(3);

SELECT ok((SELECT l.lanname = 'sql' AND NOT p.prosecdef AND p.proconfig IS NULL AND p.provolatile = 's'
           FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
           WHERE p.oid = 'jobq._log_ref(text,bigint,integer)'::regprocedure),
          '_log_ref is a STABLE SQL function without SECURITY DEFINER or SET clause: the planner can inline it');

CREATE FUNCTION pg_temp.verbose_plan(p_sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_line text;
    v_plan text := '';
BEGIN
    FOR v_line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || p_sql LOOP
        v_plan := v_plan || v_line || E'\n';
    END LOOP;
    RETURN v_plan;
END
$$;
SELECT unalike(pg_temp.verbose_plan($$ SELECT jobq._log_ref('w' || g, g, 1) FROM generate_series(1, 3) AS g $$), '%_log_ref%',
               'a statement calling _log_ref runs its body in place: the function is not in the plan');
SELECT is((SELECT jobq._log_ref(NULL, 42, 3)), 'workerId=- jobId=42 attempt=3',
          'the default log reference names the worker (- for none), the job and the attempt');

SELECT * FROM finish();
ROLLBACK;
