-- Every job names a declared task: enqueue and enqueue_many refuse an undeclared one with JQ401,
-- write nothing, and leave a job that holds the same job_key alone.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();

SELECT jobq_test.tasks('pgtap-declared');

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
