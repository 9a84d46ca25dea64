-- A day whose partition was not made in time (maintain stopped for days) has rows in the default
-- partition; attaching a partition over them would fail. jobq._history_add_span then starts the
-- day just after the last of them: those stay in the default partition (pruned row by row), and
-- the rest of the day goes to its partition.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE d AS
SELECT (pg_catalog.date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') + interval '40 days' AS day40;

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 3) $$, 'setup: three jobs');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 3);
SELECT is((SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT lease_token FROM c ORDER BY id)) WHERE outcome = 'succeeded'),
          3::bigint, 'setup: three jobs succeeded');
CREATE TEMP TABLE r AS SELECT id, row_number() OVER (ORDER BY id) AS n FROM c;
UPDATE jobq.job_history h SET finished_at = (SELECT day40 FROM d) + interval '5 hours' FROM r WHERE r.id = h.id AND r.n = 1;

SELECT is((SELECT h.tableoid::regclass::text FROM jobq.job_history h JOIN r ON r.id = h.id WHERE r.n = 1), 'jobq.job_history_default',
          'setup: a row of a day without its partition is in the default partition');
SELECT ok(jobq._history_add_span((SELECT day40 FROM d), 1), 'the day''s partition is made nonetheless');
SELECT is((SELECT p.lower FROM jobq._history_partitions() p WHERE p.lower >= (SELECT day40 FROM d) AND p.lower < (SELECT day40 FROM d) + interval '1 day'),
          (SELECT day40 FROM d) + interval '5 hours 1 microsecond', 'it starts just after the default partition''s last row of the day');

UPDATE jobq.job_history h SET finished_at = (SELECT day40 FROM d) + CASE r.n WHEN 2 THEN interval '6 hours' ELSE interval '4 hours' END
FROM r WHERE r.id = h.id AND r.n IN (2, 3);
SELECT is((SELECT array_agg(h.tableoid::regclass::text ORDER BY r.n) FROM jobq.job_history h JOIN r ON r.id = h.id),
          ARRAY['jobq.job_history_default',
                'jobq.job_history_p' || to_char((SELECT day40 FROM d) AT TIME ZONE 'UTC', 'YYYYMMDD'),
                'jobq.job_history_default'],
          'a later finish of that day goes to its partition, an earlier one to the default partition');
SELECT is(jobq._history_add_span((SELECT day40 FROM d) + interval '12 hours', 1), false, 'the day is not made twice');

SELECT * FROM finish();
ROLLBACK;
