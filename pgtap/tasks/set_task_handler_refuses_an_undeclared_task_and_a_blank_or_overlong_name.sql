-- jobq.set_task_handler refuses an undeclared task (JOB.UNKNOWN_TASK, JQ401), a NULL or blank task
-- or a blank handler name (JOB.INVALID_ARGUMENT, JQ100) and a name above 100 characters
-- (JOB.VALUE_TOO_LONG), and writes nothing: no task changes, no audit row.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-handled');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE jobq_operator;
SELECT throws_ok($$ SELECT jobq.set_task_handler('pgtap-undeclared', 'mailer') $$,
    'JQ401', 'JOB.UNKNOWN_TASK: task ''pgtap-undeclared'' is not declared', 'an undeclared task is refused');
SELECT throws_ok($$ SELECT jobq.set_task_handler(NULL, 'mailer') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: task is NULL or empty', 'a NULL task is refused');
SELECT throws_ok($$ SELECT jobq.set_task_handler('  ', 'mailer') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: task is NULL or empty', 'a blank task is refused');
SELECT throws_ok($$ SELECT jobq.set_task_handler('pgtap-handled', ' ') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: handler is NULL or empty', 'a blank handler name is refused');
SELECT throws_like($$ SELECT jobq.set_task_handler('pgtap-handled', repeat('h', 101)) $$,
    'JOB.VALUE_TOO_LONG: handler%', 'a handler name above 100 characters is refused');
SELECT lives_ok($$ SELECT jobq.set_task_handler('pgtap-handled', repeat('h', 100)) $$, 'a name of 100 characters is taken');
RESET ROLE;
-- The one accepted call above wrote one audit row; undo it to compare the rest.
DELETE FROM jobq.audit_log;
UPDATE jobq.tasks SET handler = NULL;

SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'the refused calls wrote nothing');

SELECT * FROM finish();
ROLLBACK;
