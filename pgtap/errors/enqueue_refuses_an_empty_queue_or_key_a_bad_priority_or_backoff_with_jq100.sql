BEGIN;
SELECT plan(6);

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
SELECT FROM jobq.define_task('t');

CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

SELECT throws_ok($$ SELECT jobq.enqueue('t', queue => '  ') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: queue is empty', 'enqueue refuses a blank queue');
SELECT throws_ok($$ SELECT jobq.enqueue('t', job_key => '') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job_key is empty; pass NULL for no key', 'enqueue refuses an empty job_key');
SELECT throws_ok($$ SELECT jobq.enqueue('t', priority => 40000) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: priority 40000 is outside -32768..32767', 'enqueue refuses a priority outside smallint');
SELECT throws_ok($$ SELECT jobq.enqueue('t', backoff_base => '0') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: backoff_base and backoff_max must be positive', 'enqueue refuses a zero backoff_base');
SELECT throws_ok($$ SELECT jobq.enqueue('t', backoff_max => '-1 second') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: backoff_base and backoff_max must be positive', 'enqueue refuses a negative backoff_max');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'the refused enqueues wrote nothing');

SELECT * FROM finish();
ROLLBACK;
