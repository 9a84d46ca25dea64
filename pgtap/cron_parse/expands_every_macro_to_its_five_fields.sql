-- The macros are shorthands for five fields: @yearly and @annually = 0 0 1 1 *, @monthly =
-- 0 0 1 * *, @weekly = 0 0 * * 0, @daily and @midnight = 0 0 * * *, @hourly = 0 * * * *; in any
-- case, with blanks around them.
BEGIN;
SELECT plan(2);

-- Pure: no table is read or written.
CREATE TEMP TABLE macros (macro text, fields text);
INSERT INTO macros VALUES
    ('@yearly', '0 0 1 1 *'), ('@annually', '0 0 1 1 *'), ('@monthly', '0 0 1 * *'), ('@weekly', '0 0 * * 0'),
    ('@daily', '0 0 * * *'), ('@midnight', '0 0 * * *'), ('@hourly', '0 * * * *');

SELECT results_eq(
    $$ SELECT m.macro, jobq.cron_parse(m.macro) FROM macros m ORDER BY m.macro $$,
    $$ SELECT m.macro, jobq.cron_parse(m.fields) FROM macros m ORDER BY m.macro $$,
    'every macro parses as the five fields it stands for');
SELECT results_eq(
    $$ SELECT m.macro, jobq.cron_parse(' ' || upper(m.macro) || ' ') FROM macros m ORDER BY m.macro $$,
    $$ SELECT m.macro, jobq.cron_parse(m.fields) FROM macros m ORDER BY m.macro $$,
    'macros are case-insensitive and may have blanks around them');

SELECT * FROM finish();
ROLLBACK;
