-- Every job names a declared task: enqueue and enqueue_many refuse an undeclared one with JQ401,
-- write nothing, and leave a job that holds the same job_key alone.
BEGIN;
SELECT plan(8);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;

SELECT FROM jobq.define_task('pgtap-declared');
DELETE FROM jobq.tasks WHERE name IN ('pgtap-undeclared', 'pgtap-declared-not');

CREATE TEMP TABLE keyed AS SELECT jobq.enqueue('pgtap-declared', '{"v": 1}', job_key => 'pgtap:k', run_at => now() + interval '1 hour') AS id;
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs;

SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-undeclared') $$,
    'JQ401', 'JOB.UNKNOWN_TASK: task ''pgtap-undeclared'' is not declared', 'enqueue refuses an undeclared task with JQ401');
SELECT throws_ok($$ SELECT jobq.enqueue('PGTAP-DECLARED') $$,
    'JQ401', 'JOB.UNKNOWN_TASK: task ''PGTAP-DECLARED'' is not declared', 'task names are case-sensitive: PGTAP-DECLARED is not pgtap-declared');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap_declared') $$,
    'JQ401', 'JOB.UNKNOWN_TASK: task ''pgtap_declared'' is not declared', 'pgtap_declared is not pgtap-declared');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-undeclared', '{"v": 2}', job_key => 'pgtap:k') $$,
    'JQ401', NULL, 'an undeclared task with the key of a waiting job is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-declared"}, {"task": "pgtap-undeclared"}]') $$,
    'JQ401', 'JOB.UNKNOWN_TASK: job 2: task ''pgtap-undeclared'' is not declared', 'enqueue_many refuses a batch with an undeclared task');
SELECT is_empty($$ SELECT * FROM jobq.jobs EXCEPT SELECT * FROM snapshot $$,
    'the refused enqueues wrote nothing and left the keyed job as it was');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT count(*) FROM snapshot), 'no job was added');

SELECT FROM jobq.define_task('pgtap-undeclared');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-undeclared') $$, 'once declared, the task is accepted');

SELECT * FROM finish();
ROLLBACK;
