-- The claim (jobq._claim) and the completion (complete_jobs) are planned once a session: with
-- custom plans PostgreSQL planned their statements at every call (a one-job claim 0.83 ms
-- instead of 0.30: jobq._claim's comment). Generic plans, so never a sequential scan nor a
-- bitmap: a plan made while jobq.jobs is small must stay good once it has grown; the
-- completion's pairs are joined to their rows by hash (no nested loop), so a batch costs in
-- proportion to its size. This reads the functions' settings in the catalog only, no plan and no
-- counter. heartbeat_jobs, fail_jobs and snooze_jobs keep custom plans: under generic ones a
-- batch of 5,000 took seconds (docs/benchmarks.md, the levers table). Which index each finishing
-- call reads is checked under any plan by
-- pgtap/complete_job/finishing_calls_read_their_jobs_by_primary_key_not_through_the_running_jobs_indexes.sql.
BEGIN;
SELECT plan(2);

CREATE FUNCTION pg_temp.planned_once(p_fn regprocedure) RETURNS boolean LANGUAGE sql AS $$
    SELECT coalesce(p.proconfig @> ARRAY['plan_cache_mode=force_generic_plan', 'enable_seqscan=off', 'enable_bitmapscan=off'], false)
    FROM pg_catalog.pg_proc p WHERE p.oid = p_fn
$$;

SELECT ok(pg_temp.planned_once('jobq._claim(text,text[],integer,interval,timestamp with time zone,integer[],timestamp with time zone[],bigint[],text[])'),
          'the claim (jobq._claim) runs under generic plans without sequential scans or bitmaps');
SELECT ok(pg_temp.planned_once('jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[],jsonb[])')
          AND (SELECT 'enable_nestloop=off' = ANY (p.proconfig) FROM pg_catalog.pg_proc p
               WHERE p.oid = 'jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[],jsonb[])'::regprocedure),
          'complete_jobs runs under generic plans without sequential scans, bitmaps or nested loops');

SELECT * FROM finish();
ROLLBACK;
