BEGIN;
SELECT plan(6);

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

-- This transaction's own scan counters (pg_stat_xact_user_tables) across one maintain call.
CREATE TEMP TABLE before AS
SELECT seq_scan FROM pg_catalog.pg_stat_xact_user_tables WHERE relid = 'jobq.job_history'::regclass;
SELECT FROM jobq.maintain();
SELECT is((SELECT t.seq_scan - b.seq_scan FROM pg_catalog.pg_stat_xact_user_tables t, before b
           WHERE t.relid = 'jobq.job_history'::regclass),
          0::bigint, 'maintain with nothing past retention does not scan jobq.job_history');

UPDATE jobq.job_history SET finished_at = now() - interval '30 days' WHERE id IN (SELECT id FROM c LIMIT 20);
SELECT is((jobq.maintain() ->> 'history_pruned')::integer, 20, 'with rows past retention, maintain prunes exactly those');

SELECT * FROM finish();
ROLLBACK;
