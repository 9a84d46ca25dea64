-- The contract types date and timestamp take real calendar values, not only their shape: a date
-- is a day of the calendar (no 2026-13-45, no 2026-02-29, 2024-02-29 yes, 1900-02-29 no,
-- 2000-02-29 yes, no year 0000), a timestamp such a day and a time of day (no 25:61, no 24:00)
-- with an optional offset up to ±23:59. PostgreSQL's own date input is the oracle: for every
-- month 00..13 and day 00..32 of nine telling years, the contract agrees with it. Refused values
-- raise JOB.PAYLOAD_INVALID naming the key, and write nothing.
BEGIN;
SELECT plan(14);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-takes-date', payload_schema => '{"day": "date", "at?": "timestamp"}');
CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

-- PostgreSQL's verdict on a YYYY-MM-DD string.
CREATE FUNCTION pg_temp.pg_takes_date(p text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM p::date;
    RETURN true;
EXCEPTION WHEN others THEN
    RETURN false;
END $$;

SELECT is((SELECT count(*) FROM (SELECT format('%s-%s-%s', y, lpad(m::text, 2, '0'), lpad(d::text, 2, '0')) AS v
                                 FROM unnest(ARRAY['0001', '0004', '0100', '0400', '1900', '2000', '2023', '2024', '9999']) AS y,
                                      generate_series(0, 13) AS m, generate_series(0, 32) AS d) c
           WHERE jobq.payload_problem('{"day": "date"}', jsonb_build_object('day', c.v)) IS NULL
                 IS DISTINCT FROM pg_temp.pg_takes_date(c.v)), 0::bigint,
          'for 4,158 strings YYYY-MM-DD the date type agrees with PostgreSQL''s date input');
SELECT is(jobq.payload_problem('{"day": "date"}', '{"day": "2024-02-29"}'), NULL, '2024-02-29 is a date (leap year)');
SELECT is(jobq.payload_problem('{"day": "date"}', '{"day": "2000-02-29"}'), NULL, '2000-02-29 is a date (divisible by 400)');
SELECT is(jobq.payload_problem('{"day": "date"}', '{"day": "1900-02-29"}'), 'key day must be a date, not "1900-02-29"',
          '1900-02-29 is not (divisible by 100)');
SELECT is(jobq.payload_problem('{"day": "date"}', '{"day": "0000-01-01"}'), 'key day must be a date, not "0000-01-01"',
          'year 0000 is not');
SELECT is(jobq.payload_problem('{"day": "date"}', '{"day": "2026-01-01 "}'), 'key day must be a date, not "2026-01-01 "',
          'nor is a date with a trailing space');
SELECT is(array_agg(v ORDER BY v) FILTER (WHERE jobq.payload_problem('{"day": "date", "at": "timestamp"}', jsonb_build_object('day', '2026-05-01', 'at', v)) IS NULL),
          ARRAY['2024-02-29 00:00', '2026-05-01T00:00:00+23:59', '2026-05-01T12:30:00.123456Z', '2026-05-01T23:59:59', '2026-05-01T23:59:59-0530'],
          'a timestamp takes a calendar day, a time of day up to 23:59:59.999999 and an offset up to ±23:59')
FROM unnest(ARRAY['2026-05-01T23:59:59', '2026-05-01T12:30:00.123456Z', '2026-05-01T23:59:59-0530', '2024-02-29 00:00',
                  '2026-05-01T00:00:00+23:59',
                  '2026-13-45T00:00:00Z', '2026-02-29T10:00:00Z', '2026-05-01T25:61', '2026-05-01T24:00:00',
                  '2026-05-01T23:60:00', '2026-05-01T23:59:60', '2026-05-01T10:00:00+24:00', '2026-05-01T10:00:00+05:60',
                  '2026-05-01', '2026-05-01T10']) AS v;
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-date', '{"day": "2026-13-45"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-date: key day must be a date, not "2026-13-45"',
    'enqueue refuses 2026-13-45 with JQ402 naming the key');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-date', '{"day": "2026-02-29"}') $$,
    'JQ402', NULL, 'and 2026-02-29');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-date', '{"day": "2026-05-01", "at": "2026-05-01T25:61"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-date: key at must be a timestamp, not "2026-05-01T25:61"',
    'and a timestamp at 25:61');
SELECT throws_ok($$ SELECT jobq.enqueue_many(jsonb_build_array(jsonb_build_object('task', 'pgtap-takes-date', 'payload', '{"day": "2026-04-31"}'::jsonb))) $$,
    'JQ402', NULL, 'enqueue_many refuses 2026-04-31');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'nothing was written');
SELECT isnt(jobq.enqueue('pgtap-takes-date', '{"day": "2024-02-29", "at": "2024-02-29T23:59:59.5+09:00"}'), NULL::bigint,
            'a leap day and a timestamp on it are enqueued');
SELECT is(jobq._calendar_day_ok(NULL), false, 'the calendar check reads NULL as no day, without raising');

SELECT * FROM finish();
ROLLBACK;
