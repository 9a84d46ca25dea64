-- jobq.cron_parse turns each of the five fields (minute hour day-of-month month day-of-week) into
-- the sorted values it matches. An item is *, a value, or a range a-b, optionally stepped: */n,
-- a-b/n, and a/n (which means a-max/n); items are joined by commas. Months take JAN..DEC and days
-- of week SUN..SAT in any case; 7 is Sunday as 0 is; ? stands for * in the day fields. any_day and
-- any_dow say whether a day field is * (step 1), which decides how the two day fields combine.
BEGIN;
SELECT plan(3);

-- Pure: no table is read or written. pg_temp.span(a, b, step) writes an expected array compactly.
CREATE FUNCTION pg_temp.span(a integer, b integer, step integer DEFAULT 1) RETURNS integer[]
LANGUAGE sql IMMUTABLE AS $$ SELECT ARRAY(SELECT generate_series(a, b, step)) $$;

CREATE TEMP TABLE cases (expr text, minutes integer[], hours integer[], days integer[], months integer[], dows integer[],
                         any_day boolean, any_dow boolean, what text);
INSERT INTO cases VALUES
    ('* * * * *',                  pg_temp.span(0, 59), pg_temp.span(0, 23), pg_temp.span(1, 31), pg_temp.span(1, 12), pg_temp.span(0, 6), true, true,
     'every field *'),
    ('0,30 6,18 1,15 1,7 1,3',     '{0,30}', '{6,18}', '{1,15}', '{1,7}', '{1,3}', false, false,
     'lists'),
    ('30,0,30 18,6 * * *',         '{0,30}', '{6,18}', pg_temp.span(1, 31), pg_temp.span(1, 12), pg_temp.span(0, 6), true, true,
     'a list comes out sorted and without repeats'),
    ('10-14 9-17 1-7 3-5 1-5',     pg_temp.span(10, 14), pg_temp.span(9, 17), pg_temp.span(1, 7), '{3,4,5}', '{1,2,3,4,5}', false, false,
     'ranges a-b, both ends included'),
    ('*/15 */6 */10 */4 */2',      '{0,15,30,45}', '{0,6,12,18}', '{1,11,21,31}', '{1,5,9}', '{0,2,4,6}', false, false,
     'steps */n start at the field''s minimum'),
    ('10-40/10 8-20/4 1-20/7 2-11/3 1-5/2', '{10,20,30,40}', '{8,12,16,20}', '{1,8,15}', '{2,5,8,11}', '{1,3,5}', false, false,
     'stepped ranges a-b/n'),
    ('5/15 3/8 20/5 6/3 2/2',      '{5,20,35,50}', '{3,11,19}', '{20,25,30}', '{6,9,12}', '{2,4,6}', false, false,
     'a/n means a-max/n'),
    ('0 0 1 JAN,jul,Dec *',        '{0}', '{0}', '{1}', '{1,7,12}', pg_temp.span(0, 6), false, true,
     'month names JAN..DEC, case-insensitive'),
    ('0 0 * feb-APR *',            '{0}', '{0}', pg_temp.span(1, 31), '{2,3,4}', pg_temp.span(0, 6), true, true,
     'a range of month names'),
    ('0 9 * * MON-fri',            '{0}', '{9}', pg_temp.span(1, 31), pg_temp.span(1, 12), '{1,2,3,4,5}', true, false,
     'day-of-week names SUN..SAT, case-insensitive, in a range'),
    ('0 9 * * sun,Sat',            '{0}', '{9}', pg_temp.span(1, 31), pg_temp.span(1, 12), '{0,6}', true, false,
     'a list of day-of-week names'),
    ('0 0 * * 7',                  '{0}', '{0}', pg_temp.span(1, 31), pg_temp.span(1, 12), '{0}', true, false,
     '7 is Sunday, stored as 0'),
    ('0 0 * * 0,7',                '{0}', '{0}', pg_temp.span(1, 31), pg_temp.span(1, 12), '{0}', true, false,
     '0 and 7 together are one Sunday'),
    ('0 0 * * 5-7',                '{0}', '{0}', pg_temp.span(1, 31), pg_temp.span(1, 12), '{0,5,6}', true, false,
     'a range may end on 7 (Friday to Sunday)'),
    ('0 0 ? * 1',                  '{0}', '{0}', pg_temp.span(1, 31), pg_temp.span(1, 12), '{1}', true, false,
     '? in day-of-month is *'),
    ('0 0 1 * ?',                  '{0}', '{0}', '{1}', pg_temp.span(1, 12), pg_temp.span(0, 6), false, true,
     '? in day-of-week is *'),
    ('0 0 */1 * */1',              '{0}', '{0}', pg_temp.span(1, 31), pg_temp.span(1, 12), pg_temp.span(0, 6), true, true,
     '*/1 is * (any_day and any_dow stay true)'),
    ('0 0 */2 * 5',                '{0}', '{0}', pg_temp.span(1, 31, 2), pg_temp.span(1, 12), '{5}', false, false,
     '*/n with n > 1 restricts the day field'),
    ('1,5-7,*/20,58 * * * *',      '{0,1,5,6,7,20,40,58}', pg_temp.span(0, 23), pg_temp.span(1, 31), pg_temp.span(1, 12), pg_temp.span(0, 6), true, true,
     'values, ranges and steps mix in one list'),
    ('  0   18 *	* *  ',           '{0}', '{18}', pg_temp.span(1, 31), pg_temp.span(1, 12), pg_temp.span(0, 6), true, true,
     'fields are separated by any run of blanks; leading and trailing blanks are ignored'),
    ('59 23 31 12 6',              '{59}', '{23}', '{31}', '{12}', '{6}', false, false,
     'every field at its maximum');

SELECT is((SELECT count(*) FROM cases), 21::bigint, 'setup: 21 valid expressions');
SELECT results_eq(
    $$ SELECT c.expr, (p).minutes, (p).hours, (p).days, (p).months, (p).dows, (p).any_day, (p).any_dow
       FROM cases c CROSS JOIN LATERAL (SELECT jobq.cron_parse(c.expr) AS p) AS x ORDER BY c.expr $$,
    $$ SELECT expr, minutes, hours, days, months, dows, any_day, any_dow FROM cases ORDER BY expr $$,
    'each valid expression parses into the values every field matches, and whether each day field is *');
SELECT is(pg_typeof(jobq.cron_parse('0 18 * * *'))::text, 'jobq.cron_fields', 'cron_parse returns a jobq.cron_fields');

SELECT * FROM finish();
ROLLBACK;
