-- maintain with nothing past history_retention does not read jobq.job_history: the oldest
-- finished_at comes from the btree (O(log n)), and no other statement of maintain reads the
-- table (the list of jobs that died in the sweep is read only when one did).
--
-- It asserts what maintain does, not which plan does it: the history rows it reads (at most the
-- oldest one, of fifty) and deletes (none), whatever scan serves them. (Issue 29: a scan counter,
-- asserted before, read a seq_scan of 1 under load; it was the read of that list, empty, which
-- the planner served with a sequential scan once autovacuum had analysed the empty table.)
-- How it is measured, so that nothing but maintain can move it:
-- * The counters are pg_stat_xact_user_tables, read before and after one maintain call in this one
--   transaction: it counts this backend's own scans only, so autovacuum, ANALYZE and the other
--   suites' backends add nothing to the difference.
-- * What the planner decides from is pinned, and maintain is planned afresh under it (DISCARD
--   PLANS): the statistics autovacuum leaves on an empty history (relpages and reltuples 0, set
--   in this transaction and rolled back with it), under which the planner scans a table of a
--   page or two whole wherever it can. So a statement that reads history when it need not reads
--   its fifty rows, whatever autovacuum last did; the oldest finished_at, a MinMaxAgg of one index
--   entry, fetches one row under any statistics.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT has_index('jobq', 'job_history', 'job_history_finished_idx', ARRAY['finished_at'],
                 'history has an index on finished_at');
SELECT is((SELECT am.amname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_am am ON am.oid = c.relam
           WHERE c.oid = 'jobq.job_history_finished_idx'::regclass),
          'btree', 'it is a btree, which gives the oldest finished_at without reading the table');

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 50) $$, 'setup: fifty jobs');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 50);
SELECT is((SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c)) WHERE outcome = 'succeeded'),
          50::bigint, 'setup: fifty recent history rows');

UPDATE pg_catalog.pg_class SET relpages = 0, reltuples = 0 WHERE oid = 'jobq.job_history'::regclass;
DISCARD PLANS;
CREATE TEMP TABLE before AS
SELECT seq_scan, n_tup_del, seq_tup_read + coalesce(idx_tup_fetch, 0) AS tup_read
FROM pg_catalog.pg_stat_xact_user_tables WHERE relid = 'jobq.job_history'::regclass;
SELECT is(jobq.maintain() ->> 'history_pruned', '0', 'maintain with nothing past retention prunes nothing');
SELECT is((SELECT t.n_tup_del - b.n_tup_del
           FROM pg_catalog.pg_stat_xact_user_tables t, before b WHERE t.relid = 'jobq.job_history'::regclass),
          0::bigint, 'and deletes no history row (this transaction''s own counter)');
-- What it reads, whatever the plan: at most the one row of the oldest finished_at (an index scan
-- that is not index-only fetches it), never the fifty.
SELECT cmp_ok((SELECT t.seq_tup_read + coalesce(t.idx_tup_fetch, 0) - b.tup_read
               FROM pg_catalog.pg_stat_xact_user_tables t, before b WHERE t.relid = 'jobq.job_history'::regclass),
              '<=', 1::bigint, 'and reads at most one history row, the oldest, of the fifty');

UPDATE jobq.job_history SET finished_at = now() - interval '30 days' WHERE id IN (SELECT id FROM c LIMIT 20);
SELECT is((jobq.maintain() ->> 'history_pruned')::integer, 20, 'with rows past retention, maintain prunes exactly those');

SELECT * FROM finish();
ROLLBACK;
