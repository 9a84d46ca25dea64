-- maintain with nothing past history_retention does not read jobq.job_history: the oldest
-- finished_at comes from the btree (O(log n)), and no other statement of maintain scans the
-- table (the list of jobs that died in the sweep is read only when one did).
--
-- How it is measured, so that nothing but maintain can move it (issue 29: under load this test
-- read a seq_scan of 1 and failed; it was the read of that list, empty, which the planner served
-- with a sequential scan once autovacuum had analysed the empty table):
-- * The counters are pg_stat_xact_user_tables, read before and after one maintain call in this one
--   transaction: it counts this backend's own scans only, so autovacuum, ANALYZE and the other
--   suites' backends add nothing to the difference.
-- * What the planner decides from is pinned, and maintain is planned afresh under it (DISCARD
--   PLANS): the statistics autovacuum leaves on an empty history (relpages and reltuples 0, set
--   in this transaction and rolled back with it), under which the planner scans a table of a
--   page or two whole wherever it can. So a statement that reads history when it need not, or
--   that only a sequential scan can serve (a guard the btree cannot answer), shows as a scan,
--   whatever autovacuum last did; the oldest finished_at, a MinMaxAgg of one index entry, is an
--   index scan under any statistics. (enable_seqscan off would not do: a guard the btree cannot
--   answer becomes a full index scan, which reads as much and counts as no sequential scan.)
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
SELECT results_eq($$ SELECT t.seq_scan - b.seq_scan, t.n_tup_del - b.n_tup_del
                     FROM pg_catalog.pg_stat_xact_user_tables t, before b WHERE t.relid = 'jobq.job_history'::regclass $$,
                  $$ VALUES (0::bigint, 0::bigint) $$,
                  'and does not scan jobq.job_history (this transaction''s own counter; the statistics of an empty history)');
-- What it reads, whatever the plan: at most the one row of the oldest finished_at (an index scan
-- that is not index-only fetches it), never the fifty.
SELECT cmp_ok((SELECT t.seq_tup_read + coalesce(t.idx_tup_fetch, 0) - b.tup_read
               FROM pg_catalog.pg_stat_xact_user_tables t, before b WHERE t.relid = 'jobq.job_history'::regclass),
              '<=', 1::bigint, 'and reads at most one history row, the oldest, of the fifty');

UPDATE jobq.job_history SET finished_at = now() - interval '30 days' WHERE id IN (SELECT id FROM c LIMIT 20);
SELECT is((jobq.maintain() ->> 'history_pruned')::integer, 20, 'with rows past retention, maintain prunes exactly those');

SELECT * FROM finish();
ROLLBACK;
