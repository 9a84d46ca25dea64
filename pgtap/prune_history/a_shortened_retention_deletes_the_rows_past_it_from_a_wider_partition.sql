-- Partitions of history made while history_retention was long span many days (27 at 365 days),
-- and retention drops a partition only once all of it is past the cut-off. When the retention is
-- shortened, a partition straddling the new cut-off that spans more days than the new setting
-- asks has its rows past the cut-off deleted row by row, a batch at a time, so a shortened
-- retention holds within a day, not within the old span; at the setting it was made for, such a
-- partition stays whole until its end passes the cut-off.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT count(jobq.enqueue('t', queue => 'q')) FROM generate_series(1, 4);
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 4);
SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT lease_token FROM c ORDER BY id));

UPDATE jobq.settings SET value = '365 days' WHERE name = 'history_retention';
SELECT jobq._history_days_ahead((pg_catalog.date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') + interval '3000 days');
CREATE TEMP TABLE s AS
SELECT p.part, p.lower AS s0, p.upper AS s1 FROM jobq._history_partitions() p
WHERE p.lower <= (pg_catalog.date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') + interval '3000 days'
  AND (pg_catalog.date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') + interval '3000 days' < p.upper;
SELECT is((SELECT s1 - s0 FROM s), interval '27 days', 'setup: at a retention of 365 days a partition spans 27 days');

-- Four finished jobs in it, 1, 5, 15 and 19 days after its start.
UPDATE jobq.job_history h SET finished_at = (SELECT s0 FROM s) + make_interval(days => (ARRAY[1, 5, 15, 19])[r.n])
FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM c) r WHERE r.id = h.id;
SELECT is((SELECT count(*) FROM jobq.job_history h WHERE h.tableoid = (SELECT part FROM s)), 4::bigint, 'setup: four rows in the span');

SELECT is((SELECT rows_deleted FROM jobq._prune_history((SELECT s0 FROM s) + interval '13 days', 10)), 0::bigint,
          'at the retention it was made for, a span straddling the cut-off stays whole');

UPDATE jobq.settings SET value = '7 days' WHERE name = 'history_retention';
SELECT is((SELECT (rows_deleted, days_dropped)::text FROM jobq._prune_history((SELECT s0 FROM s) + interval '13 days', 1)), '(1,0)',
          'with the retention shortened to 7 days, a batch of one row past the cut-off is deleted from the wider span, which is not dropped');
SELECT is((SELECT rows_deleted FROM jobq._prune_history((SELECT s0 FROM s) + interval '13 days', 10)), 1::bigint,
          'the next call deletes the other row past the cut-off');
SELECT results_eq($$ SELECT h.finished_at FROM jobq.job_history h WHERE h.tableoid = (SELECT part FROM s) ORDER BY 1 $$,
                  $$ VALUES ((SELECT s0 FROM s) + interval '15 days'), ((SELECT s0 FROM s) + interval '19 days') $$,
                  'the rows after the cut-off are kept');
SELECT is((SELECT rows_deleted FROM jobq._prune_history((SELECT s0 FROM s) + interval '13 days', 10)), 0::bigint,
          'and once none is past it, nothing more is deleted');

SELECT * FROM finish();
ROLLBACK;
