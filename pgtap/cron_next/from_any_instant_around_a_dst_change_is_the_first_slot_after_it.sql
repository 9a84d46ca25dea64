-- cron_next is the next element of one fixed set of slots, whatever instant it starts from: from
-- every instant (every 9 minutes 13 seconds) within a day of each 2026 DST change of New York,
-- London, Lord Howe (30-minute changes) and Santiago (changes at midnight), cron_next equals the
-- first slot after that instant in the list cron_slots walks across the change. (Before 00024,
-- from inside the first pass of a repeated hour it skipped to the second pass or past it.)
BEGIN;
SET LOCAL statement_timeout = '120s';
SELECT plan(3);

-- Pure: no table is read or written.
CREATE TEMP TABLE changes AS
SELECT * FROM (VALUES ('America/New_York', '2026-03-08 07:00:00+00'::timestamptz), ('America/New_York', '2026-11-01 06:00:00+00'),
                      ('Europe/London', '2026-03-29 01:00:00+00'), ('Europe/London', '2026-10-25 01:00:00+00'),
                      ('Australia/Lord_Howe', '2026-04-04 15:00:00+00'), ('Australia/Lord_Howe', '2026-10-03 15:30:00+00'),
                      ('America/Santiago', '2026-04-05 03:00:00+00'), ('America/Santiago', '2026-09-06 04:00:00+00')) AS c(tz, at);
CREATE TEMP TABLE exprs AS
SELECT * FROM unnest(ARRAY['*/7 * * * *', '0 * * * *', '30 1 * * *', '0 2 * * *', '15,45 0-3 * * *', '0 0 * * *', '*/20 23,0 * * *',
                           '45 1 * * SUN', '0,30 * * * SAT,SUN']) AS e(expr);
CREATE TEMP TABLE listed AS
SELECT c.tz, c.at AS change, e.expr, s.slot
FROM changes c CROSS JOIN exprs e
CROSS JOIN LATERAL jobq.cron_slots(e.expr, c.at - interval '60 hours', c.at + interval '60 hours', c.tz, 10000) AS s(slot);
CREATE INDEX ON listed (tz, change, expr, slot);
ANALYZE listed;
CREATE TEMP TABLE checked AS
SELECT c.tz, c.at AS change, e.expr, t.at,
       jobq.cron_next(e.expr, t.at, c.tz) AS got,
       (SELECT min(l.slot) FROM listed l WHERE l.tz = c.tz AND l.change = c.at AND l.expr = e.expr AND l.slot > t.at) AS want
FROM changes c CROSS JOIN exprs e
CROSS JOIN LATERAL generate_series(c.at - interval '26 hours', c.at + interval '26 hours', interval '9 minutes 13 seconds') AS t(at);

SELECT cmp_ok((SELECT count(*) FROM checked WHERE want IS NOT NULL), '>', 20000::bigint, 'setup: thousands of instants around eight changes');
SELECT is_empty($$ SELECT tz, expr, at, got, want FROM checked WHERE want IS NOT NULL AND got IS DISTINCT FROM want LIMIT 20 $$,
                'cron_next from each instant is the first listed slot after it');
SELECT is_empty($$ SELECT l.tz, l.expr, l.slot FROM listed l
                   JOIN listed p ON p.tz = l.tz AND p.change = l.change AND p.expr = l.expr AND p.slot = l.slot
                   GROUP BY l.tz, l.change, l.expr, l.slot HAVING count(*) > 1 $$,
                'no slot is listed twice');

SELECT * FROM finish();
ROLLBACK;
