-- register_worker's tasks are bounded as a claim's: multidimensional or holding a NULL is
-- JOB.INVALID_ARGUMENT (JQ100), a blank name too; more than 1000 is JOB.OUT_OF_RANGE; a name above
-- 100 characters JOB.VALUE_TOO_LONG. Nothing is registered.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE worker_runtime;
SELECT throws_like($$ SELECT jobq.register_worker('pgtap-w1', 'n', 1, ARRAY['default'], 1, '', ARRAY['a', NULL]) $$,
    'JOB.INVALID_ARGUMENT: tasks must be NULL%', 'a NULL task is refused');
SELECT throws_like($$ SELECT jobq.register_worker('pgtap-w1', 'n', 1, ARRAY['default'], 1, '', '{{a},{b}}') $$,
    'JOB.INVALID_ARGUMENT: tasks must be NULL%', 'a two-dimensional list is refused');
SELECT throws_ok($$ SELECT jobq.register_worker('pgtap-w1', 'n', 1, ARRAY['default'], 1, '', ARRAY['a', '']) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: tasks[2] is NULL or empty', 'a blank task is refused');
SELECT throws_like($$ SELECT jobq.register_worker('pgtap-w1', 'n', 1, ARRAY['default'], 1, '', ARRAY(SELECT 't' || i FROM generate_series(1, 1001) i)) $$,
    'JOB.OUT_OF_RANGE: tasks%', 'more than 1000 tasks are refused');
SELECT throws_like($$ SELECT jobq.register_worker('pgtap-w1', 'n', 1, ARRAY['default'], 1, '', ARRAY[repeat('t', 101)]) $$,
    'JOB.VALUE_TOO_LONG: tasks[1]%', 'a task name above 100 characters is refused');
RESET ROLE;

SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'no worker was registered');

SELECT * FROM finish();
ROLLBACK;
