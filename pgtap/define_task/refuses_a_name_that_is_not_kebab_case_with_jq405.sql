-- Task names are kebab-case: lowercase words of letters and digits, starting with a letter, joined
-- by single hyphens, at most 100 characters. Anything else is refused with JQ405 and not written.
BEGIN;
SELECT plan(16);

SELECT jobq_test.reset();

CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.tasks;

SELECT throws_ok($$ SELECT jobq.define_task('Bad_Name') $$,
    'JQ405', 'JOB.INVALID_TASK_NAME: ''Bad_Name'' is not a kebab-case task name', 'define_task refuses uppercase and underscores (Bad_Name)');
SELECT throws_ok($$ SELECT jobq.define_task('-x') $$,
    'JQ405', 'JOB.INVALID_TASK_NAME: ''-x'' is not a kebab-case task name', 'define_task refuses a leading hyphen (-x)');
SELECT throws_ok($$ SELECT jobq.define_task('a--b') $$,
    'JQ405', 'JOB.INVALID_TASK_NAME: ''a--b'' is not a kebab-case task name', 'define_task refuses a double hyphen (a--b)');
SELECT throws_ok(format('SELECT jobq.define_task(%L)', repeat('a', 101)),
    'JQ405', format('JOB.INVALID_TASK_NAME: %L is not a kebab-case task name', repeat('a', 101)), 'define_task refuses a name of 101 characters');
SELECT throws_ok($$ SELECT jobq.define_task('x-') $$, 'JQ405', NULL, 'define_task refuses a trailing hyphen (x-)');
SELECT throws_ok($$ SELECT jobq.define_task('1-sync') $$, 'JQ405', NULL, 'define_task refuses a name that starts with a digit');
SELECT throws_ok($$ SELECT jobq.define_task('send_email') $$, 'JQ405', NULL, 'define_task refuses snake_case (send_email)');
SELECT throws_ok($$ SELECT jobq.define_task('send email') $$, 'JQ405', NULL, 'define_task refuses a blank inside the name');
SELECT throws_ok($$ SELECT jobq.define_task(' send-email') $$, 'JQ405', NULL, 'define_task refuses a leading blank');
SELECT throws_ok($$ SELECT jobq.define_task('') $$, 'JQ405', NULL, 'define_task refuses an empty name');
SELECT throws_ok($$ SELECT jobq.define_task(NULL) $$,
    'JQ405', 'JOB.INVALID_TASK_NAME: NULL is not a kebab-case task name', 'define_task refuses a NULL name');
SELECT is((SELECT count(*) FROM jobq.tasks), (SELECT n FROM before), 'no refused name was written');

SELECT is(jobq.define_task(repeat('a', 100)), repeat('a', 100), 'a name of exactly 100 characters is accepted');
SELECT is(jobq.define_task('send-operator-invitation-email'), 'send-operator-invitation-email', 'a verb-noun kebab-case name is accepted');
SELECT is(jobq.define_task('v2-sync-3'), 'v2-sync-3', 'words may hold digits after their first letter');
SELECT is(jobq.define_task('x'), 'x', 'a one-letter name is accepted');

SELECT * FROM finish();
ROLLBACK;
