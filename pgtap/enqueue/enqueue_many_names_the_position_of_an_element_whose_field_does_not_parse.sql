-- "All or nothing: one bad element raises its error (naming its position) and writes nothing",
-- and every jobq error has a SQLSTATE of class JQ. That must hold for an element whose field does
-- not parse as its type too, not only for the checks of _validate_specs.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('a', 'b', 'c');

SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "a"}, {"task": "b", "run_at": "soon"}]') $$,
    'JQ100', NULL, 'an element whose run_at is not a timestamp raises JQ100 JOB.INVALID_ARGUMENT');
SELECT throws_like($$ SELECT jobq.enqueue_many('[{"task": "a"}, {"task": "b", "run_at": "soon"}]') $$,
    'JOB.INVALID_ARGUMENT: job 2: %', 'the error names the position of the element whose run_at does not parse');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "a", "max_attempts": 2.5}]') $$,
    'JQ100', NULL, 'an element whose max_attempts is not an integer raises JQ100 JOB.INVALID_ARGUMENT');
SELECT throws_like($$ SELECT jobq.enqueue_many('[{"task": "a"}, {"task": "b"}, {"task": "c", "priority": "high"}]') $$,
    'JOB.INVALID_ARGUMENT: job 3: %', 'the error names the position of the element whose priority does not parse');
SELECT is((SELECT count(*) FROM jobq.jobs), 0::bigint, 'nothing was written');

SELECT * FROM finish();
ROLLBACK;
