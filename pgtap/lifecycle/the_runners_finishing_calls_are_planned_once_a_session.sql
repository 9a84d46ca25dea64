-- The calls a runner makes for each job are planned once a session, never again at each call:
-- with custom plans PostgreSQL planned their statements at every call, and planning alone was
-- 0.37 ms of a heartbeat's 0.5 (EXPLAIN ANALYZE with jobq.jobs churned; docs/benchmarks.md, the
-- levers table). Generic plans, so never a sequential scan nor a bitmap: a plan made while
-- jobq.jobs is small must stay good once it has grown. Which index each plan reads is checked
-- under any plan by pgtap/complete_job/finishing_calls_read_their_jobs_by_primary_key_not_through_the_running_jobs_indexes.sql.
BEGIN;
SELECT plan(6);

CREATE FUNCTION pg_temp.planned_once(p_fn regprocedure) RETURNS boolean LANGUAGE sql AS $$
    SELECT coalesce(p.proconfig @> ARRAY['plan_cache_mode=force_generic_plan', 'enable_seqscan=off', 'enable_bitmapscan=off'], false)
    FROM pg_catalog.pg_proc p WHERE p.oid = p_fn
$$;

SELECT ok(pg_temp.planned_once('jobq._claim(text,text[],integer,interval,timestamp with time zone,integer[],timestamp with time zone[],bigint[],text[])'),
          'the claim (jobq._claim) runs under generic plans without sequential scans or bitmaps');
SELECT ok(pg_temp.planned_once('jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[],jsonb[])'),
          'complete_jobs runs under generic plans without sequential scans or bitmaps');
SELECT ok(pg_temp.planned_once('jobq.heartbeat_jobs(text,bigint[],uuid[],interval)'),
          'heartbeat_jobs (and heartbeat, through it) runs under generic plans without sequential scans or bitmaps');
SELECT ok(pg_temp.planned_once('jobq.fail_jobs(bigint[],uuid[],text[],text[],boolean[],interval[],text[],text[],text[],integer[])'),
          'fail_jobs (and fail_job, through it) runs under generic plans without sequential scans or bitmaps');
SELECT ok(pg_temp.planned_once('jobq._fail_attempts(timestamp with time zone,bigint[],text[],text[],boolean[],interval[],text[],text[],text[],integer[])'),
          'the failure''s statement (jobq._fail_attempts, which the sweeper calls too) runs under generic plans without sequential scans or bitmaps');

SELECT ok(pg_temp.planned_once('jobq.snooze_jobs(bigint[],uuid[],interval)'),
          'snooze_jobs runs under generic plans without sequential scans or bitmaps');

SELECT * FROM finish();
ROLLBACK;
