-- An expression that does not parse is refused with JQ601 (JOB.INVALID_CRON) and a message that
-- names what is wrong: the number of fields, or the field and its offending item.
BEGIN;
SELECT plan(24);

-- Pure: no table is read or written.
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 * *') $$, 'JQ601',
    'JOB.INVALID_CRON: ''0 0 * *'' has 4 fields; cron has 5: minute hour day-of-month month day-of-week',
    'four fields are refused, and the message names the five cron fields');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 0 * * *') $$, 'JQ601',
    'JOB.INVALID_CRON: ''0 0 0 * * *'' has 6 fields; cron has 5: minute hour day-of-month month day-of-week',
    'six fields (a seconds field) are refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('60 * * * *') $$, 'JQ601',
    'JOB.INVALID_CRON: minute field value 60 is outside 0-59', 'minute 60 is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 24 * * *') $$, 'JQ601',
    'JOB.INVALID_CRON: hour field value 24 is outside 0-23', 'hour 24 is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 0 * *') $$, 'JQ601',
    'JOB.INVALID_CRON: day-of-month field value 0 is outside 1-31', 'day of month 0 is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 32 * *') $$, 'JQ601',
    'JOB.INVALID_CRON: day-of-month field value 32 is outside 1-31', 'day of month 32 is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 * 13 *') $$, 'JQ601',
    'JOB.INVALID_CRON: month field value 13 is outside 1-12', 'month 13 is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 * 0 *') $$, 'JQ601',
    'JOB.INVALID_CRON: month field value 0 is outside 1-12', 'month 0 is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 * * 8') $$, 'JQ601',
    'JOB.INVALID_CRON: day-of-week field value 8 is outside 0-6', 'day of week 8 is refused (7 is Sunday, 8 is nothing)');
SELECT throws_ok($$ SELECT jobq.cron_parse('*/0 * * * *') $$, 'JQ601',
    'JOB.INVALID_CRON: minute field step ''0'' must be a positive number', 'step 0 is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 */x * * *') $$, 'JQ601',
    'JOB.INVALID_CRON: hour field step ''X'' must be a positive number', 'a step that is not a number is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('5-3 * * * *') $$, 'JQ601',
    'JOB.INVALID_CRON: minute field range ''5-3'' runs backwards', 'a backwards range 5-3 is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 * * FRI-MON') $$, 'JQ601',
    'JOB.INVALID_CRON: day-of-week field range ''FRI-MON'' runs backwards', 'a backwards range of names is refused (no wrap-around)');
SELECT throws_ok($$ SELECT jobq.cron_parse('1-2-3 * * * *') $$, 'JQ601',
    'JOB.INVALID_CRON: minute field range ''1-2-3'' has more than one -', 'a range with two hyphens is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 * FOO *') $$, 'JQ601',
    'JOB.INVALID_CRON: month field value ''FOO'' is not a number or a name', 'an unknown month name is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 * * funday') $$, 'JQ601',
    'JOB.INVALID_CRON: day-of-week field value ''FUNDAY'' is not a number or a name', 'an unknown day-of-week name is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 MON * * *') $$, 'JQ601',
    'JOB.INVALID_CRON: hour field value ''MON'' is not a number', 'names belong to the month and day-of-week fields only');
SELECT throws_ok($$ SELECT jobq.cron_parse('@reboot') $$, 'JQ601',
    'JOB.INVALID_CRON: @reboot is not a known macro (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)',
    'an unknown macro (@reboot) is refused, and the message lists the known ones');
SELECT throws_ok($$ SELECT jobq.cron_parse('? * * * *') $$, 'JQ601',
    'JOB.INVALID_CRON: ? is only allowed in the day fields, not in minute', '? in the minute field is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 * ? *') $$, 'JQ601',
    'JOB.INVALID_CRON: ? is only allowed in the day fields, not in month', '? in the month field is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('') $$, 'JQ601', 'JOB.INVALID_CRON: the expression is empty', 'the empty string is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse('   ') $$, 'JQ601', 'JOB.INVALID_CRON: the expression is empty', 'an expression of blanks is refused');
SELECT throws_ok($$ SELECT jobq.cron_parse(NULL) $$, 'JQ601', 'JOB.INVALID_CRON: the expression is empty', 'NULL is refused');
SELECT throws_like($$ SELECT jobq.cron_parse('1,,2 * * * *') $$, 'JOB.INVALID_CRON: minute field %',
    'an empty item in a list is refused, naming its field');

SELECT * FROM finish();
ROLLBACK;
