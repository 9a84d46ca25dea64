-- The day rule of Vixie cron and robfig/cron: when both day fields are restricted, a day matches
-- if either matches (OR); when one of them is * (or ?, or */1), the other alone decides (AND).
-- 2026-05-08 is a Friday; 2026-05-13 a Wednesday; 2026-06-01 a Monday.
BEGIN;
SELECT plan(3);

-- Pure: no table is read or written.
CREATE TEMP TABLE cases (expr text, after timestamptz, expected timestamptz, why text);
INSERT INTO cases VALUES
    -- Both restricted: OR.
    ('0 0 13 * 5',   '2026-05-05 00:00:00+00', '2026-05-08 00:00:00+00', 'the 13th or a Friday: Friday the 8th comes first'),
    ('0 0 13 * 5',   '2026-05-08 00:00:00+00', '2026-05-13 00:00:00+00', 'the 13th or a Friday: then Wednesday the 13th'),
    ('0 0 1-7 * 1',  '2026-05-08 00:00:00+00', '2026-05-11 00:00:00+00', 'days 1-7 or a Monday: the next Monday, not the first Monday of June'),
    ('0 0 */2 * 5',  '2026-05-09 00:00:00+00', '2026-05-11 00:00:00+00', '*/2 restricts: odd days or Fridays gives the 11th'),
    -- One is *: AND, i.e. the restricted one alone.
    ('0 0 * * 5',    '2026-05-05 00:00:00+00', '2026-05-08 00:00:00+00', 'day-of-month *: Fridays only'),
    ('0 0 13 * *',   '2026-05-05 00:00:00+00', '2026-05-13 00:00:00+00', 'day-of-week *: the 13th only'),
    ('0 0 ? * 1',    '2026-05-12 00:00:00+00', '2026-05-18 00:00:00+00', '? is *: Mondays only'),
    ('0 0 1 * ?',    '2026-05-05 00:00:00+00', '2026-06-01 00:00:00+00', '? is *: the 1st only'),
    ('0 0 */1 * 1',  '2026-05-12 00:00:00+00', '2026-05-18 00:00:00+00', '*/1 is *: Mondays only'),
    ('0 0 13 * 5',   '2026-11-13 00:00:00+00', '2026-11-20 00:00:00+00', 'OR again: after Friday the 13th, the next Friday');

SELECT results_eq(
    $$ SELECT c.expr, c.after, jobq.cron_next(c.expr, c.after, 'UTC') FROM cases c ORDER BY c.expr, c.after $$,
    $$ SELECT c.expr, c.after, c.expected FROM cases c ORDER BY c.expr, c.after $$,
    'both day fields restricted match either; one of them * leaves the other to decide');
SELECT is(jobq.cron_next('0 0 13 * 5', '2026-05-13 00:00:00+00'), '2026-05-15 00:00:00+00'::timestamptz,
          'Friday the 13th is not required: after Wednesday the 13th comes Friday the 15th');
SELECT is(jobq.cron_next('0 0 1-7 * 1', '2026-05-31 00:00:00+00'), '2026-06-01 00:00:00+00'::timestamptz,
          'Monday the 1st matches both and runs once');

SELECT * FROM finish();
ROLLBACK;
