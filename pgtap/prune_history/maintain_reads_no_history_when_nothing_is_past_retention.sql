-- maintain with nothing past history_retention does not read jobq.job_history: days past
-- retention are found in the catalog (the partitions' bounds), the oldest finished_at of the
-- partitions pruned row by row (the default one here) comes from its btree (O(log n)), and no
-- other statement of maintain reads the table (the list of jobs that died in the sweep is read
-- only when one did). Reads are summed over every partition.
--
-- What it reads is counted in pg_stat_xact_user_tables, read before and after one maintain call
-- in this one transaction: this backend's own scans only, so autovacuum, ANALYZE and the other
-- suites' backends add nothing to the difference. Which plan serves a statement is the
-- planner's choice, from statistics that autovacuum changes at any moment and from the size of
-- a table that earlier suites and vacuum grow and shrink; so each count is taken under a plan
-- pinned here, said in its description, never under the one the planner happens to pick (issue
-- 29: the scan counter of an unpinned plan read 1 instead of 0 under load; issue 32: the row
-- count of an unpinned plan depends on the table's pages). maintain is planned afresh under
-- each pin (DISCARD PLANS: plpgsql keeps a statement's plan, and settings do not invalidate it).
-- * As for a large history (enable_seqscan off): a statement that can use an index does, as it
--   does on a history of any real size; one that cannot still scans the table whole. maintain
--   reads at most one history row, the oldest, of the fifty.
-- * Every statement seen (index scans off, so that every read of history starts a sequential
--   scan, even one for an empty list of ids that an index would answer without a scan): at most
--   one statement of maintain reads history, the oldest finished_at. The list of the dead, read
--   when nobody died, is a second one (what issue 29 found: on a small table the planner served
--   it with a sequential scan).
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT has_index('jobq', 'job_history_default', 'job_history_default_finished_idx', ARRAY['finished_at'],
                 'the default partition of history, pruned row by row, has an index on finished_at');
SELECT is((SELECT am.amname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_am am ON am.oid = c.relam
           WHERE c.oid = 'jobq.job_history_default_finished_idx'::regclass),
          'btree', 'it is a btree, which gives the oldest finished_at without reading the table');

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 50) $$, 'setup: fifty jobs');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 50);
SELECT is((SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c)) WHERE outcome = 'succeeded'),
          50::bigint, 'setup: fifty recent history rows');

-- This transaction's reads of history so far: scans started and rows read, by any scan.
CREATE FUNCTION pg_temp.history_reads() RETURNS TABLE (scans bigint, tuples bigint, deleted bigint) LANGUAGE sql AS $$
    SELECT (seq_scan + coalesce(idx_scan, 0))::bigint, (seq_tup_read + coalesce(idx_tup_fetch, 0))::bigint, n_tup_del::bigint
    FROM (SELECT sum(seq_scan) AS seq_scan, sum(idx_scan) AS idx_scan, sum(seq_tup_read) AS seq_tup_read,
                 sum(idx_tup_fetch) AS idx_tup_fetch, sum(n_tup_del) AS n_tup_del
          FROM pg_catalog.pg_stat_xact_user_tables
          WHERE relid IN (SELECT i.inhrelid FROM pg_catalog.pg_inherits i WHERE i.inhparent = 'jobq.job_history'::regclass)) s
$$;

-- Pinned: as for a large history.
SET LOCAL enable_seqscan = off;
DISCARD PLANS;
CREATE TEMP TABLE before AS SELECT * FROM pg_temp.history_reads();
SELECT is(jobq.maintain() ->> 'history_pruned', '0', 'maintain with nothing past retention prunes nothing');
CREATE TEMP TABLE after_large AS SELECT a.scans - b.scans AS scans, a.tuples - b.tuples AS tuples, a.deleted - b.deleted AS deleted
                                 FROM pg_temp.history_reads() a, before b;
SELECT is((SELECT deleted FROM after_large), 0::bigint, 'and deletes no history row (this transaction''s own counter)');
SELECT cmp_ok((SELECT tuples FROM after_large), '<=', 1::bigint,
              'and, planned as for a large history (enable_seqscan off, pinned), reads at most one history row, the oldest, of the fifty');

-- Pinned: every statement that reads history starts a sequential scan.
RESET enable_seqscan;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = off;
SET LOCAL enable_bitmapscan = off;
DISCARD PLANS;
TRUNCATE before;
INSERT INTO before SELECT * FROM pg_temp.history_reads();
SELECT is(jobq.maintain() ->> 'history_pruned', '0', 'again, with every statement seen');
SELECT cmp_ok((SELECT a.scans - b.scans FROM pg_temp.history_reads() a, before b), '<=', 1::bigint,
              'at most one statement of maintain reads history (index scans off, pinned, so that each read starts a scan): the oldest finished_at of the default partition');
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
DISCARD PLANS;

UPDATE jobq.job_history SET finished_at = now() - interval '30 days' WHERE id IN (SELECT id FROM c LIMIT 20);
SELECT is((jobq.maintain() ->> 'history_pruned')::integer, 20, 'with rows past retention, maintain prunes exactly those');

SELECT * FROM finish();
ROLLBACK;
