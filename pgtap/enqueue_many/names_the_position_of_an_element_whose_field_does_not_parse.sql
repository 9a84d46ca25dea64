-- "All or nothing: one bad element raises its error (naming its position) and writes nothing",
-- and every jobq error has a SQLSTATE of class JQ. That must hold for an element whose field does
-- not parse as its type too, not only for the checks of _validate_specs.
BEGIN;
SELECT plan(5);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;
-- The tasks this file enqueues: every enqueue needs a declared task (jobq.define_task is
-- idempotent and puts back a task whose declaration differs).
SELECT FROM jobq.define_task('a');
SELECT FROM jobq.define_task('b');
SELECT FROM jobq.define_task('c');

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
