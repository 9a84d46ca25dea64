-- Fields are separated by any white space, and white space around the expression (spaces, tabs,
-- newlines) is ignored, as robfig/cron does (before 00024 a leading tab made an extra field).
BEGIN;
SELECT plan(3);

-- Pure: no table is read or written.
SELECT is(jobq.cron_parse(E'\t0\t7 * *\tMON-FRI\n'), jobq.cron_parse('0 7 * * MON-FRI'), 'tabs and a newline around and between fields');
SELECT is(jobq.cron_parse(E'\n @daily \r\n'), jobq.cron_parse('0 0 * * *'), 'a macro with white space around it');
SELECT throws_ok($$ SELECT jobq.cron_parse(E'\t \n') $$, 'JQ601', 'JOB.INVALID_CRON: the expression is empty', 'only white space is empty');

SELECT * FROM finish();
ROLLBACK;
