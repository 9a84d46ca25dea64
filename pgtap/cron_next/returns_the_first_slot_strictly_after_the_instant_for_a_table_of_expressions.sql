-- jobq.cron_next(expr, after, timezone) is the first slot of expr strictly after the instant after,
-- the fields read as wall-clock time in timezone (default UTC). One table of cases, each row an
-- expression, an instant, a zone and the slot expected: steps, hours, days, weekdays, month
-- starts, month ends (day 31 skips 30-day months, Feb 29 waits for a leap year), the turn of the
-- year, Sunday as 0 or 7, zones east and west of UTC. 2026-05-05 is a Tuesday.
BEGIN;
SELECT plan(3);

-- Pure: no table is read or written. The session's own TimeZone plays no part (it is set to a
-- zone with an odd offset to show it).
SET LOCAL TimeZone = 'Pacific/Chatham';

CREATE TEMP TABLE cases (n serial, expr text, after timestamptz, tz text, expected timestamptz, what text);
INSERT INTO cases (expr, after, tz, expected, what) VALUES
    ('*/5 * * * *',     '2026-05-05 17:42:00+00', 'UTC',              '2026-05-05 17:45:00+00', 'every 5 minutes'),
    ('*/5 * * * *',     '2026-05-05 17:42:30+00', 'UTC',              '2026-05-05 17:45:00+00', 'every 5 minutes, from an instant with seconds'),
    ('*/5 * * * *',     '2026-05-05 17:59:59.999+00', 'UTC',          '2026-05-05 18:00:00+00', 'every 5 minutes, into the next hour'),
    ('0 * * * *',       '2026-05-05 17:42:00+00', 'UTC',              '2026-05-05 18:00:00+00', 'hourly'),
    ('0 * * * *',       '2026-05-05 23:30:00+00', 'UTC',              '2026-05-06 00:00:00+00', 'hourly, into the next day'),
    ('@hourly',         '2026-05-05 23:30:00+00', 'UTC',              '2026-05-06 00:00:00+00', '@hourly'),
    ('0 18 * * *',      '2026-05-05 17:42:00+00', 'UTC',              '2026-05-05 18:00:00+00', 'daily at 18:00 UTC, later today'),
    ('0 18 * * *',      '2026-05-05 18:00:01+00', 'UTC',              '2026-05-06 18:00:00+00', 'daily at 18:00 UTC, tomorrow'),
    ('@daily',          '2026-05-05 17:42:00+00', 'UTC',              '2026-05-06 00:00:00+00', '@daily'),
    ('0 9 * * 1-5',     '2026-05-05 08:59:59+00', 'UTC',              '2026-05-05 09:00:00+00', 'weekdays at 09:00, on a Tuesday'),
    ('0 9 * * 1-5',     '2026-05-08 10:00:00+00', 'UTC',              '2026-05-11 09:00:00+00', 'weekdays at 09:00, from Friday to Monday'),
    ('0 9 * * MON-FRI', '2026-05-09 12:00:00+00', 'UTC',              '2026-05-11 09:00:00+00', 'weekdays by name, from Saturday'),
    ('0 0 1 * *',       '2026-05-05 17:42:00+00', 'UTC',              '2026-06-01 00:00:00+00', 'first of the month'),
    ('@monthly',        '2026-12-15 00:00:00+00', 'UTC',              '2027-01-01 00:00:00+00', 'first of the month, into the next year'),
    ('0 0 31 * *',      '2026-03-31 00:00:00+00', 'UTC',              '2026-05-31 00:00:00+00', 'day 31 skips April'),
    ('0 0 31 * *',      '2026-05-31 00:00:00+00', 'UTC',              '2026-07-31 00:00:00+00', 'day 31 skips June'),
    ('0 0 31 * *',      '2026-07-31 00:00:00+00', 'UTC',              '2026-08-31 00:00:00+00', 'day 31 runs in July and August'),
    ('0 0 31 * *',      '2026-08-31 00:00:00+00', 'UTC',              '2026-10-31 00:00:00+00', 'day 31 skips September'),
    ('0 0 30 * *',      '2027-01-30 00:00:00+00', 'UTC',              '2027-03-30 00:00:00+00', 'day 30 skips February'),
    ('0 0 29 2 *',      '2026-03-01 00:00:00+00', 'UTC',              '2028-02-29 00:00:00+00', 'Feb 29 waits for the leap year 2028'),
    ('0 0 29 2 *',      '2028-02-29 00:00:00+00', 'UTC',              '2032-02-29 00:00:00+00', 'and then for 2032'),
    ('59 23 31 12 *',   '2026-12-31 23:59:00+00', 'UTC',              '2027-12-31 23:59:00+00', 'the last minute of the year, a year later'),
    ('0 0 1 1 *',       '2026-12-31 23:59:59+00', 'UTC',              '2027-01-01 00:00:00+00', 'the turn of the year'),
    ('@yearly',         '2026-05-05 17:42:00+00', 'UTC',              '2027-01-01 00:00:00+00', '@yearly'),
    ('* * * * *',       '2026-12-31 23:59:30+00', 'UTC',              '2027-01-01 00:00:00+00', 'every minute, across the turn of the year'),
    ('0 0 * * 0',       '2026-05-05 17:42:00+00', 'UTC',              '2026-05-10 00:00:00+00', 'Sunday as 0'),
    ('0 0 * * 7',       '2026-05-05 17:42:00+00', 'UTC',              '2026-05-10 00:00:00+00', 'Sunday as 7'),
    ('0 0 * * SUN',     '2026-05-05 17:42:00+00', 'UTC',              '2026-05-10 00:00:00+00', 'Sunday by name'),
    ('@weekly',         '2026-05-10 00:00:00+00', 'UTC',              '2026-05-17 00:00:00+00', '@weekly, a week after a Sunday midnight'),
    ('0 3 * * *',       '2026-05-05 17:42:00+00', 'Asia/Tokyo',       '2026-05-05 18:00:00+00', '03:00 in Tokyo is 18:00 UTC the day before'),
    ('0 3 * * *',       '2026-05-05 18:00:00+00', 'Asia/Tokyo',       '2026-05-06 18:00:00+00', 'and a day later after that'),
    ('0 0 * * *',       '2026-05-05 14:59:59+00', 'Asia/Tokyo',       '2026-05-05 15:00:00+00', 'midnight in Tokyo is 15:00 UTC'),
    ('0 0 1 * *',       '2026-05-31 14:00:00+00', 'Asia/Tokyo',       '2026-05-31 15:00:00+00', 'the first of June in Tokyo begins on May 31 UTC'),
    ('15 10 * * *',     '2026-05-05 00:00:00+00', 'Asia/Kolkata',     '2026-05-05 04:45:00+00', 'a half-hour offset (UTC+05:30)'),
    ('0 9 * * 1',       '2026-05-05 00:00:00+00', 'America/New_York', '2026-05-11 13:00:00+00', 'Monday 09:00 in New York in summer (EDT) is 13:00 UTC'),
    ('0 9 * * 1',       '2026-12-01 00:00:00+00', 'America/New_York', '2026-12-07 14:00:00+00', 'and in winter (EST) 14:00 UTC'),
    ('0 23 * * 0',      '2026-05-09 00:00:00+00', 'America/New_York', '2026-05-11 03:00:00+00', 'Sunday 23:00 in New York is Monday 03:00 UTC'),
    ('0 12 * * *',      '2026-05-05 17:42:00+00', 'Europe/Berlin',    '2026-05-06 10:00:00+00', 'noon in Berlin in summer (CEST) is 10:00 UTC');

SELECT is((SELECT count(*) FROM cases), 38::bigint, 'setup: 38 cases');
SELECT results_eq(
    $$ SELECT c.n, c.expr, c.tz, jobq.cron_next(c.expr, c.after, c.tz) FROM cases c ORDER BY c.n $$,
    $$ SELECT c.n, c.expr, c.tz, c.expected FROM cases c ORDER BY c.n $$,
    'for every case, cron_next is the first slot strictly after the instant, in the case''s time zone');
SELECT results_eq(
    $$ SELECT c.n, jobq.cron_next(c.expr, c.after) FROM cases c WHERE c.tz = 'UTC' ORDER BY c.n $$,
    $$ SELECT c.n, c.expected FROM cases c WHERE c.tz = 'UTC' ORDER BY c.n $$,
    'the time zone defaults to UTC');

SELECT * FROM finish();
ROLLBACK;
