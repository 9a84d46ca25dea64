-- complete_jobs, fail_jobs, snooze_jobs and heartbeat_jobs find each (id, token) pair's row with
-- a primary-key probe. They never read it through the partial indexes that hold running jobs
-- (jobs_claim_idx, which holds every ready job, waiting or running, since a claim changes no
-- indexed column; jobs_counted_idx, the running jobs of limited queues): those hold an entry for
-- every job that ran since the last vacuum, all of them read while a snapshot is held open, and
-- the planner, whose statistics counted no running job, chose such an index before (4 ms a
-- completion under an idle snapshot at 200 jobs/s, when jobs_lease_idx held the running jobs).
-- Counted with pg_stat_get_xact_numscans, this transaction's index scans.
--
-- The guarantee holds under any plan: the calls say "running" through the lease columns, never
-- ready or counted, so those partial indexes cannot serve them at all; the statistics (ANALYZE
-- with no running job) are those under which the planner chose a partial index when the calls
-- did say it. Which index the planner picks among those that can serve is its choice, so no
-- assertion names one (the primary key's scans were counted before; issue 32). That the counter
-- sees this transaction's scans of those indexes is shown with the plan pinned: enable_seqscan
-- and enable_bitmapscan off, so that a count of the queue's ready running jobs can only be served
-- by an index scan of jobs_claim_idx (the other indexes of jobq.jobs have no column the count
-- bounds, or are partial on other columns).
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT count(jobq.enqueue('t', queue => 'q')) FROM generate_series(1, 2000);
ANALYZE jobq.jobs; -- statistics with no running job, as before a drain
CREATE TEMP TABLE c AS SELECT row_number() OVER (ORDER BY id) AS n, id, lease_token FROM jobq.claim_job('w', ARRAY['q'], 2000);
CREATE FUNCTION pg_temp.running_index_scans() RETURNS bigint LANGUAGE sql AS $$
    SELECT sum(pg_stat_get_xact_numscans(i::regclass))::bigint
    FROM unnest(ARRAY['jobq.jobs_claim_idx', 'jobq.jobs_counted_idx']) AS i
$$;
CREATE TEMP TABLE before AS SELECT pg_temp.running_index_scans() AS running;

SELECT is((SELECT outcome FROM jobq.complete_jobs((SELECT array_agg(id) FROM c WHERE n <= 2), (SELECT array_agg(lease_token) FROM c WHERE n <= 2)) LIMIT 1),
          'succeeded', 'complete_jobs completes');
SELECT is((SELECT count(*) FROM jobq.heartbeat_jobs('w', (SELECT array_agg(id) FROM c WHERE n BETWEEN 3 AND 4), (SELECT array_agg(lease_token) FROM c WHERE n BETWEEN 3 AND 4))),
          2::bigint, 'heartbeat_jobs renews');
SELECT is((SELECT count(*) FROM jobq.fail_jobs((SELECT array_agg(id) FROM c WHERE n BETWEEN 5 AND 6), (SELECT array_agg(lease_token) FROM c WHERE n BETWEEN 5 AND 6),
                                               ARRAY['boom', 'boom'])),
          2::bigint, 'fail_jobs fails');
SELECT is((SELECT count(*) FROM jobq.snooze_jobs((SELECT array_agg(id) FROM c WHERE n BETWEEN 7 AND 8), (SELECT array_agg(lease_token) FROM c WHERE n BETWEEN 7 AND 8)) WHERE outcome = 'queued'),
          2::bigint, 'snooze_jobs hands back');
SELECT lives_ok($$ SELECT jobq.complete_job((SELECT id FROM c WHERE n = 9), (SELECT lease_token FROM c WHERE n = 9)) $$, 'complete_job completes');

SELECT is(pg_temp.running_index_scans(), (SELECT running FROM before),
          'none of them scanned jobs_claim_idx or jobs_counted_idx');

SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
TRUNCATE before;
INSERT INTO before SELECT pg_temp.running_index_scans();
SELECT is((SELECT count(*) FROM jobq.jobs WHERE ready AND queue = 'q' AND state = 'running'), 1993::bigint,
          'the 1993 jobs none of them finished or handed back still run, counted with the plan pinned (enable_seqscan and enable_bitmapscan off) ...');
SELECT cmp_ok(pg_temp.running_index_scans(), '>', (SELECT running FROM before),
              '... through jobs_claim_idx, and the counter sees it: it would see a finishing call''s scan of it');

SELECT * FROM finish();
ROLLBACK;
