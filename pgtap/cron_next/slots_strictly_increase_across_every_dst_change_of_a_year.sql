-- Whatever the expression and the zone, the slots cron_slots walks (each the cron_next of the one
-- before) strictly increase: across a whole year of DST changes in New York and Berlin, no slot
-- repeats and none goes back in time. A stretch of 5-minute slots around each change is also
-- checked for the same.
BEGIN;
SELECT plan(3);

-- Pure: no table is read or written.
CREATE TEMP TABLE walked AS
SELECT e.expr, z.tz, s.at, lag(s.at) OVER (PARTITION BY e.expr, z.tz ORDER BY s.n) AS prev
FROM unnest(ARRAY['0 * * * *', '30 1 * * *', '30 2 * * *', '0 2,3 * * *', '15,45 0-4 * * *']) AS e(expr)
CROSS JOIN unnest(ARRAY['America/New_York', 'Europe/Berlin']) AS z(tz)
CROSS JOIN LATERAL jobq.cron_slots(e.expr, '2026-01-01 00:00:00+00', '2027-01-01 00:00:00+00', z.tz, 10000) WITH ORDINALITY AS s(at, n);
INSERT INTO walked
SELECT '*/5 * * * *', z.tz, s.at, lag(s.at) OVER (PARTITION BY z.tz, w.day ORDER BY s.n)
FROM (VALUES ('America/New_York', '2026-03-08 04:00:00+00'::timestamptz), ('America/New_York', '2026-11-01 03:00:00+00'),
             ('Europe/Berlin', '2026-03-29 00:00:00+00'), ('Europe/Berlin', '2026-10-25 00:00:00+00')) AS z(tz, day)
CROSS JOIN LATERAL (SELECT z.day) AS w
CROSS JOIN LATERAL jobq.cron_slots('*/5 * * * *', z.day, z.day + interval '5 hours', z.tz) WITH ORDINALITY AS s(at, n);

SELECT cmp_ok((SELECT count(*) FROM walked), '>', 20000::bigint, 'setup: a year of hourly slots in two zones, and more');
SELECT is_empty($$ SELECT expr, tz, prev, at FROM walked WHERE prev IS NOT NULL AND at <= prev $$,
                'every slot is later than the one before it: none repeats, none goes back');
SELECT is((SELECT count(*) FROM walked WHERE expr = '0 * * * *' AND tz = 'America/New_York'), 8760::bigint,
          'hourly in New York over the 8760 hours of 2026 has 8760 slots, one per real hour: the repeated 01:00 runs twice, '
          'and the skipped 02:00 and 03:00 EDT are one instant');

SELECT * FROM finish();
ROLLBACK;
