-- Retention by day: jobq.maintain drops a partition of jobq.job_history once all of its day is
-- past history_retention, keeps the day that straddles the cut-off whole, and deletes row by row
-- only from the default partition (rows no day holds). Days in the past are made here with
-- jobq._history_add_span, and finished rows moved into them by their finish time.
BEGIN;
SELECT plan(11);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
UPDATE jobq.settings SET value = '7 days' WHERE name = 'history_retention';

CREATE TEMP TABLE d AS
SELECT pg_catalog.date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS today;

SELECT ok(jobq._history_add_span((SELECT today FROM d) - interval '9 days', 1), 'setup: the day nine days ago is made');
SELECT ok(jobq._history_add_span((SELECT today FROM d) - interval '8 days', 1), 'setup: eight days ago');
SELECT ok(jobq._history_add_span((SELECT today FROM d) - interval '7 days', 1), 'setup: seven days ago, which holds the cut-off (now - 7 days)');

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 6) $$, 'setup: six jobs');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 6);
SELECT is((SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT lease_token FROM c ORDER BY id)) WHERE outcome = 'succeeded'),
          6::bigint, 'setup: six jobs succeeded');
CREATE TEMP TABLE r AS SELECT id, row_number() OVER (ORDER BY id) AS n FROM c;
-- 1: nine days ago, 2: eight days ago (both days wholly past); 3: seven days ago at midnight
-- (past retention, in the day holding the cut-off); 4: thirty days ago (no day: the default
-- partition); 5: thirty days ahead (default, not past); 6: now (today's day).
UPDATE jobq.job_history h SET finished_at = x.at
FROM r JOIN (VALUES (1, interval '-9 days 1 hour'), (2, interval '-8 days 1 hour'), (3, interval '-7 days'),
                    (4, interval '-30 days'), (5, interval '30 days')) AS v(n, off) ON v.n = r.n
     CROSS JOIN LATERAL (SELECT (SELECT today FROM d) + v.off AS at) x
WHERE h.id = r.id;

SELECT is((SELECT array_agg(h.tableoid::regclass::text ORDER BY r.n) FROM jobq.job_history h JOIN r ON r.id = h.id WHERE r.n IN (4, 5)),
          ARRAY['jobq.job_history_default', 'jobq.job_history_default'], 'setup: rows no day holds are in the default partition');

SELECT is((SELECT (m ->> 'history_days_dropped')::integer FROM jobq.maintain() m), 2,
          'maintain drops the two days wholly past retention');
SELECT is((SELECT array_agg(r.n ORDER BY r.n) FROM jobq.job_history h JOIN r ON r.id = h.id), ARRAY[3, 5, 6]::bigint[],
          'their rows are gone with them, and the row past retention in the default partition is deleted');
SELECT is(pg_catalog.to_regclass(format('jobq.%I', 'job_history_p' || to_char(((SELECT today FROM d) - interval '9 days') AT TIME ZONE 'UTC', 'YYYYMMDD'))),
          NULL, 'the partition of nine days ago is gone');
SELECT isnt(pg_catalog.to_regclass(format('jobq.%I', 'job_history_p' || to_char(((SELECT today FROM d) - interval '7 days') AT TIME ZONE 'UTC', 'YYYYMMDD'))),
            NULL, 'the day holding the cut-off stays whole, its row past retention kept until the day''s end passes');
SELECT is((SELECT (m ->> 'history_days_dropped')::integer FROM jobq.maintain() m), 0, 'a second maintain drops nothing more');

SELECT * FROM finish();
ROLLBACK;
