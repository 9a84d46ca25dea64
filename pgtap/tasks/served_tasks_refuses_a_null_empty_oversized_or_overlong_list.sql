-- jobq.served_tasks bounds its input: a NULL, empty or multidimensional list, or one holding a
-- NULL or a blank name, is JOB.INVALID_ARGUMENT (JQ100); more than 1000 names JOB.OUT_OF_RANGE; a
-- name above 100 characters JOB.VALUE_TOO_LONG (naming its position).
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT * FROM jobq.served_tasks(NULL) $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: handlers must be a non-empty, one-dimensional array of names without NULLs', 'NULL is refused');
SELECT throws_ok($$ SELECT * FROM jobq.served_tasks('{}') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: handlers must be a non-empty, one-dimensional array of names without NULLs', 'an empty list is refused');
SELECT throws_ok($$ SELECT * FROM jobq.served_tasks('{{a},{b}}') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: handlers must be a non-empty, one-dimensional array of names without NULLs', 'a two-dimensional list is refused');
SELECT throws_ok($$ SELECT * FROM jobq.served_tasks(ARRAY['a', NULL]) $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: handlers must be a non-empty, one-dimensional array of names without NULLs', 'a NULL name is refused');
SELECT throws_ok($$ SELECT * FROM jobq.served_tasks(ARRAY['a', ' ']) $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: handlers[2] is NULL or empty', 'a blank name is refused, by its position');
SELECT throws_like($$ SELECT * FROM jobq.served_tasks(ARRAY(SELECT 'h' || i FROM generate_series(1, 1001) i)) $$,
    'JOB.OUT_OF_RANGE: handlers%', 'more than 1000 names are refused');
SELECT throws_like($$ SELECT * FROM jobq.served_tasks(ARRAY['a', repeat('h', 101)]) $$,
    'JOB.VALUE_TOO_LONG: handlers[2]%', 'a name above 100 characters is refused');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
