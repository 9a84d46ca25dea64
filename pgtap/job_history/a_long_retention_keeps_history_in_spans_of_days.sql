-- Above 14 days of history_retention a partition of jobq.job_history spans several days (the
-- retention divided by 14, rounded up), so that history keeps about 17 partitions whatever the
-- retention: every lookup by id probes each of them. A year of maintains at a retention of a
-- year leaves no day without its partition, keeps at most one span beyond the retention, and
-- keeps the partitions few; a retention shortened again goes back to days.
BEGIN;
SELECT plan(11);

SELECT jobq_test.reset();

SELECT is(ARRAY[jobq._history_span_days(NULL), jobq._history_span_days(interval '1 hour'), jobq._history_span_days(interval '7 days'),
                jobq._history_span_days(interval '14 days'), jobq._history_span_days(interval '14 days 1 second'),
                jobq._history_span_days(interval '365 days'), jobq._history_span_days(interval '3650 days'),
                jobq._history_span_days(interval '1000000 years')],
          ARRAY[1, 1, 1, 1, 2, 27, 261, 366],
          'a partition spans one day up to 14 days of retention, then the retention divided by 14 (at most 366 days)');

UPDATE jobq.settings SET value = '365 days' WHERE name = 'history_retention';
-- The start of a span of 27 days (counted from 2000-01-01) some 2,000 days ahead, clear of the
-- partitions jobq_test.reset left around today: whatever today's date, the moment 13 hours after
-- it and the two days after that fall in the same span.
CREATE TEMP TABLE d AS
SELECT (date '2000-01-01' + 27 * pg_catalog.ceil(((now() AT TIME ZONE 'UTC')::date + 2000 - date '2000-01-01') / 27.0)::integer)::timestamp
       AT TIME ZONE 'UTC' AS t0;

SELECT is(jobq._history_days_ahead((SELECT t0 FROM d) + interval '13 hours'), 1,
          'at a retention of a year one partition holds the moment and the next two days');
SELECT is((SELECT p.upper - p.lower FROM jobq._history_partitions() p
           WHERE p.lower <= (SELECT t0 FROM d) + interval '13 hours' AND (SELECT t0 FROM d) + interval '13 hours' < p.upper),
          interval '27 days', 'it spans 27 days');
SELECT ok((SELECT ((p.lower AT TIME ZONE 'UTC')::date - date '2000-01-01') % 27 = 0 AND p.name = 'job_history_p' || to_char(p.lower AT TIME ZONE 'UTC', 'YYYYMMDD') AND p.by_day
           FROM jobq._history_partitions() p
           WHERE p.lower <= (SELECT t0 FROM d) + interval '13 hours' AND (SELECT t0 FROM d) + interval '13 hours' < p.upper),
          'it starts at midnight UTC, a whole number of spans after 2000-01-01, is named for that day and is pruned whole');

-- A year and a month of maintains, a day apart, each making partitions ahead and pruning.
CREATE TEMP TABLE counts (k integer, parts integer);
DO $$
DECLARE
    v_t0 constant timestamptz := (SELECT t0 FROM d);
BEGIN
    FOR k IN 0 .. 400 LOOP
        PERFORM jobq._history_days_ahead(v_t0 + make_interval(days => k));
        PERFORM jobq._prune_history(v_t0 + make_interval(days => k) - interval '365 days', 1);
        INSERT INTO counts SELECT k, count(*) FROM jobq._history_partitions() p WHERE NOT p.is_default;
    END LOOP;
END $$;

SELECT ok((SELECT max(parts) FROM counts WHERE k >= 365) <= 17,
          'after a year the partitions of history are at most 17 at any time');
SELECT is((SELECT count(*) FROM generate_series(0, 365 + 2) g
           WHERE NOT EXISTS (SELECT 1 FROM jobq._history_partitions() p
                             WHERE NOT p.is_default AND p.lower <= (SELECT t0 FROM d) + make_interval(days => 400 - 365 + g, hours => 12)
                               AND (SELECT t0 FROM d) + make_interval(days => 400 - 365 + g, hours => 12) < p.upper)),
          0::bigint, 'every day from the cut-off to two days ahead is held by a partition');
SELECT ok((SELECT min(p.lower) FROM jobq._history_partitions() p WHERE NOT p.is_default)
          > (SELECT t0 FROM d) + interval '400 days' - interval '365 days' - interval '27 days',
          'nothing older than the retention and one span is kept');
SELECT ok((SELECT bool_and(p.upper - p.lower = interval '27 days') FROM jobq._history_partitions() p WHERE NOT p.is_default),
          'each partition spans 27 days');

-- Shortened to 7 days: the partitions made from then on are days, after the last span made.
UPDATE jobq.settings SET value = '7 days' WHERE name = 'history_retention';
CREATE TEMP TABLE t1 AS
SELECT max(p.upper) AS span_end FROM jobq._history_partitions() p WHERE NOT p.is_default;
SELECT is(jobq._history_days_ahead((SELECT span_end FROM t1) - interval '1 day'), 2,
          'on the last day of a span, a retention of 7 days makes the next two days as days');
SELECT set_eq($$ SELECT p.lower, p.upper FROM jobq._history_partitions() p WHERE p.lower >= (SELECT span_end FROM t1) $$,
              $$ SELECT (SELECT span_end FROM t1) + make_interval(days => k) AS lower, (SELECT span_end FROM t1) + make_interval(days => k + 1) AS upper
                 FROM generate_series(0, 1) k $$,
              'each from midnight to midnight, starting where the span ends');
SELECT is(jobq._history_add_span((SELECT t0 FROM d), 0), false, 'no partition of a span of no day');

SELECT * FROM finish();
ROLLBACK;
