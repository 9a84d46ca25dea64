-- An attempt whose runner gave no log reference keeps none: complete_jobs and fail_jobs leave
-- log_ref NULL (writing the default cost every completed job 1.6 us and about 40 bytes of WAL),
-- and jobq.job_list and jobq.job_attempt_list show jobq.default_log_ref in its place, for an
-- attempt that ran only: a job canceled before it ran shows none. default_log_ref is inlined into
-- the lists' statements: a STABLE SQL function without SECURITY DEFINER or SET clause (a function
-- with one runs on its own for every row). Inlining depends on these properties, not on costs, so
-- no plan is read: with track_functions = all (this transaction only), reading the lists counts
-- no execution of it.
BEGIN;
SELECT plan(8);

SELECT ok((SELECT l.lanname = 'sql' AND NOT p.prosecdef AND p.proconfig IS NULL AND p.provolatile = 's'
           FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
           WHERE p.oid = 'jobq.default_log_ref(text,bigint,integer)'::regprocedure),
          'default_log_ref is a STABLE SQL function without SECURITY DEFINER or SET clause: the planner can inline it');
SELECT is((SELECT jobq.default_log_ref(NULL, 42, 3)), 'workerId=- jobId=42 attempt=3',
          'the default log reference names the worker (- for none), the job and the attempt');

SELECT jobq_test.reset();
SELECT jobq_test.tasks('a');
CREATE TEMP TABLE jobs AS
SELECT jobq.enqueue('a', queue => 'q', max_attempts => 3) AS id FROM generate_series(1, 2);
CREATE TEMP TABLE leased AS SELECT id, lease_token FROM jobq.claim_job('worker-9', ARRAY['q'], 2, '1 minute');
SELECT results_eq(
    $$ SELECT f.outcome FROM jobq.fail_jobs(ARRAY(SELECT min(id) FROM leased), ARRAY(SELECT lease_token FROM leased WHERE id = (SELECT min(id) FROM leased)),
                                             ARRAY['boom'], retry_in => ARRAY[interval '1 hour']) AS f
       UNION ALL
       SELECT c.outcome FROM jobq.complete_jobs(ARRAY(SELECT max(id) FROM leased), ARRAY(SELECT lease_token FROM leased WHERE id = (SELECT max(id) FROM leased))) AS c $$,
    $$ VALUES ('retry_pending'::text), ('succeeded') $$,
    'one attempt fails and is retried later, the other job succeeds, neither with a log reference of its runner');
SELECT results_eq(
    $$ SELECT (SELECT a.log_ref FROM jobq.job_attempts a WHERE a.job_id = (SELECT min(id) FROM leased)),
              (SELECT h.log_ref FROM jobq.job_history h WHERE h.id = (SELECT max(id) FROM leased)) $$,
    $$ VALUES (NULL::text, NULL::text) $$,
    'neither the failed attempt nor the succeeded job stores a log reference');

SET LOCAL track_functions = 'all';
SELECT results_eq(
    $$ SELECT (SELECT a.log_ref FROM jobq.job_attempt_list((SELECT min(id) FROM leased)) a),
              (SELECT l.log_ref FROM jobq.job_list(id => (SELECT max(id) FROM leased)) l) $$,
    $$ SELECT format('workerId=worker-9 jobId=%s attempt=1', (SELECT min(id) FROM leased)),
              format('workerId=worker-9 jobId=%s attempt=1', (SELECT max(id) FROM leased)) $$,
    'job_attempt_list and job_list show the default for both: the worker, the job and the attempt');
SELECT is((SELECT coalesce(sum(f.calls), 0)::integer FROM pg_catalog.pg_stat_xact_user_functions f
           WHERE f.funcid = 'jobq.default_log_ref(text,bigint,integer)'::regprocedure), 0,
          'inlined: reading the lists counted no execution of default_log_ref');

-- A job canceled while it waits never ran: no log reference to show.
SELECT jobq.cancel_job((SELECT min(id) FROM leased));
SELECT is((SELECT l.state || '/' || coalesce(l.log_ref, 'none') FROM jobq.job_list(id => (SELECT min(id) FROM leased)) l), 'canceled/none',
          'a job canceled before its next attempt ran shows no log reference of its own');
-- A runner's own log reference is shown as it was given.
CREATE TEMP TABLE job3 AS SELECT jobq.enqueue('a', queue => 'q') AS id;
CREATE TEMP TABLE leased3 AS SELECT id, lease_token FROM jobq.claim_job('worker-9', ARRAY['q'], 1, '1 minute');
SELECT outcome FROM jobq.complete_jobs(ARRAY(SELECT id FROM leased3), ARRAY(SELECT lease_token FROM leased3), log_refs => ARRAY['https://logs.example/3']);
SELECT is((SELECT l.log_ref FROM jobq.job_list(id => (SELECT id FROM job3)) l), 'https://logs.example/3',
          'a log reference the runner gave is stored and shown as given');

SELECT * FROM finish();
ROLLBACK;
