-- A day field is * (for the day rule: when one day field is *, both must match) when one of its
-- items is * or ? with no step or a step equal to 1 however it is written: */1, */01, */001, ?/1
-- (before 00024, */01 counted as restricted while */1 was *). An explicit full range (1-31, 0-6,
-- SUN-SAT, 1/1) stays restricted, as in robfig/cron and Vixie cron: the * decides, not the values.
BEGIN;
SELECT plan(12);

-- Pure: no table is read or written.
SELECT ok((jobq.cron_parse('0 0 */1 * MON')).any_day, '*/1 in day-of-month is *');
SELECT ok((jobq.cron_parse('0 0 */01 * MON')).any_day, '*/01 in day-of-month is *');
SELECT ok((jobq.cron_parse('0 0 */001 * MON')).any_day, '*/001 in day-of-month is *');
SELECT ok((jobq.cron_parse('0 0 1 * ?/1')).any_dow, '?/1 in day-of-week is *');
SELECT ok((jobq.cron_parse('0 0 1 * */01')).any_dow, '*/01 in day-of-week is *');
SELECT ok(NOT (jobq.cron_parse('0 0 */2 * MON')).any_day, '*/2 is restricted');
SELECT ok(NOT (jobq.cron_parse('0 0 1-31 * MON')).any_day, '1-31 is restricted (it lists every day)');
SELECT ok(NOT (jobq.cron_parse('0 0 1/1 * MON')).any_day, '1/1 is restricted');
SELECT ok(NOT (jobq.cron_parse('0 0 1 * 0-6')).any_dow AND NOT (jobq.cron_parse('0 0 1 * SUN-SAT')).any_dow,
          '0-6 and SUN-SAT are restricted');
SELECT is(jobq.cron_next('0 0 */01 * MON', '2026-05-05 00:00:00+00'), '2026-05-11 00:00:00+00'::timestamptz,
          '0 0 */01 * MON runs on Mondays only, as 0 0 * * MON (both must match)');
SELECT is(jobq.cron_next('0 0 1-31 * MON', '2026-05-05 00:00:00+00'), '2026-05-06 00:00:00+00'::timestamptz,
          '0 0 1-31 * MON runs every day (both restricted: either matches)');
SELECT is(jobq.cron_parse('0 0 */001 * */01'), jobq.cron_parse('0 0 * * *'), '0 0 */001 * */01 parses as 0 0 * * *');

SELECT * FROM finish();
ROLLBACK;
