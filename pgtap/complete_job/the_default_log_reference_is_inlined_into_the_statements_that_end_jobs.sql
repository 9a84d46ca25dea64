-- jobq._log_ref, the default log reference of every attempt that ends (complete_jobs, fail_jobs,
-- the sweeper), stays a function the planner inlines into those statements: a SQL function,
-- STABLE like the format() it calls (an IMMUTABLE function over a STABLE one is not inlined),
-- without SECURITY DEFINER or a SET clause (a function with one runs on its own for every row,
-- its setting saved and restored each time: 1.8 us a completed job). Inlining depends on these
-- properties, not on costs.
BEGIN;
SELECT plan(3);

SELECT ok((SELECT l.lanname = 'sql' AND NOT p.prosecdef AND p.proconfig IS NULL AND p.provolatile = 's'
           FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
           WHERE p.oid = 'jobq._log_ref(text,bigint,integer)'::regprocedure),
          '_log_ref is a STABLE SQL function without SECURITY DEFINER or SET clause: the planner can inline it');

-- Inlined, _log_ref is never called as a function: with track_functions = all (this transaction
-- only), completing a job counts no execution of it in this transaction's function statistics,
-- though complete_jobs computes the job's log reference with it. No plan is read: inlining
-- depends on the function's properties, not on costs.
SELECT jobq_test.reset();
SELECT jobq_test.tasks('a');
SELECT jobq.enqueue('a', queue => 'q');
CREATE TEMP TABLE leased AS SELECT id, lease_token FROM jobq.claim_job('worker-9', ARRAY['q'], 1, '1 minute');
SET LOCAL track_functions = 'all';
CREATE TEMP TABLE completed AS
SELECT * FROM jobq.complete_jobs(ARRAY(SELECT id FROM leased), ARRAY(SELECT lease_token FROM leased));
SELECT results_eq(
    $$ SELECT c.outcome, h.log_ref, coalesce((SELECT sum(f.calls) FROM pg_catalog.pg_stat_xact_user_functions f
                                              WHERE f.funcid = 'jobq._log_ref(text,bigint,integer)'::regprocedure), 0)::integer
       FROM completed c JOIN jobq.job_history h ON h.id = c.job_id $$,
    $$ SELECT 'succeeded'::text, format('workerId=worker-9 jobId=%s attempt=1', (SELECT id FROM leased)), 0 $$,
    'a completion keeps the default log reference, computed in complete_jobs'' statement: no execution of _log_ref is counted');
SELECT is((SELECT jobq._log_ref(NULL, 42, 3)), 'workerId=- jobId=42 attempt=3',
          'the default log reference names the worker (- for none), the job and the attempt');

SELECT * FROM finish();
ROLLBACK;
