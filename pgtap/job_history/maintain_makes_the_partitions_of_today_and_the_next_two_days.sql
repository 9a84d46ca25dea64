-- jobq.maintain makes the partitions of jobq.job_history for today and the next two UTC days
-- ahead of need (jobq._history_days_ahead), so finished jobs do not land in the default
-- partition; each day spans exactly its UTC day, and a day already made is left alone.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();

CREATE TEMP TABLE d AS
SELECT (pg_catalog.date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') + interval '20 days' AS day20;

SELECT is(jobq._history_days_ahead((SELECT day20 FROM d) + interval '13 hours'), 3,
          'three days from a time twenty days ahead are made');
SELECT set_eq($$ SELECT p.name, p.lower, p.upper FROM jobq._history_partitions() p WHERE p.lower >= (SELECT day20 FROM d) $$,
              $$ SELECT 'job_history_p' || to_char(((SELECT day20 FROM d) + make_interval(days => k)) AT TIME ZONE 'UTC', 'YYYYMMDD') AS name,
                        (SELECT day20 FROM d) + make_interval(days => k) AS lower, (SELECT day20 FROM d) + make_interval(days => k + 1) AS upper
                 FROM generate_series(0, 2) k $$,
              'each is named for its UTC day and spans it, from midnight to midnight');
SELECT ok((SELECT bool_and(p.by_day) FROM jobq._history_partitions() p WHERE p.lower >= (SELECT day20 FROM d)),
          'they are day partitions, dropped whole by retention');
SELECT is(jobq._history_days_ahead((SELECT day20 FROM d)), 0, 'a second call makes nothing');

-- Today's dropped (empty after reset): maintain makes it again.
SELECT lives_ok(format('DROP TABLE jobq.%I', 'job_history_p' || to_char(now() AT TIME ZONE 'UTC', 'YYYYMMDD')),
                'setup: today''s partition dropped');
SELECT is((jobq.maintain() ->> 'fenced'), 'false', 'maintain runs');
SELECT isnt(pg_catalog.to_regclass(format('jobq.%I', 'job_history_p' || to_char(now() AT TIME ZONE 'UTC', 'YYYYMMDD'))), NULL,
            'and made today''s partition again');

SELECT is(jobq._history_add_span(NULL, 1), false, 'no day for a NULL time');
SELECT is(jobq._history_days_ahead('infinity'), 0, 'nor for infinity');

SELECT * FROM finish();
ROLLBACK;
