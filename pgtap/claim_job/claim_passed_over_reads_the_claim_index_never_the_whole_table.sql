-- jobq.claim_passed_over looks for a waiting job before a position through jobs_claim_idx, which
-- holds the ready jobs (waiting or running): its statement names ready beside the waiting states.
-- Without it the partial index cannot serve, and under the function's enable_seqscan off the
-- sequential scan's cost (1e10) woke JIT: 140-160 ms a call, once a rescan interval, in the
-- runner's claim loop (the pickup p99 of bench/run latency). Counted with pg_stat_get_xact_numscans,
-- this transaction's scans of the table and of the index.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT count(jobq.enqueue('t', queue => 'q')) FROM generate_series(1, 50);
CREATE TEMP TABLE last AS SELECT priority, run_at, id FROM jobq.claim_job('w', ARRAY['q'], 20) ORDER BY priority, run_at, id DESC LIMIT 1;
CREATE TEMP TABLE before AS
SELECT pg_stat_get_xact_numscans('jobq.jobs'::regclass) AS seq, pg_stat_get_xact_numscans('jobq.jobs_claim_idx'::regclass) AS idx;

SELECT is(jobq.claim_passed_over(ARRAY['q'], ARRAY[(SELECT priority FROM last)::integer], ARRAY[(SELECT run_at FROM last)],
                                 ARRAY[(SELECT id FROM last)]),
          false, 'setup: no waiting job sorts before the position (the 20 before it run)');
SELECT is(pg_stat_get_xact_numscans('jobq.jobs'::regclass) - (SELECT seq FROM before), 0::bigint,
          'claim_passed_over scanned no part of jobq.jobs sequentially');
SELECT cmp_ok(pg_stat_get_xact_numscans('jobq.jobs_claim_idx'::regclass) - (SELECT idx FROM before), '>', 0::bigint,
              'it read jobs_claim_idx');

SELECT * FROM finish();
ROLLBACK;
