-- Bad input to depends_on and sequence_key: an unknown id (JQ700), the job itself or a job of the
-- same call given by id (JQ701), 10,001 parents (JQ702; 10,000 are accepted), a job_key beside a
-- workflow (JQ703), wrong values of on_parent_failure, on_sequence_failure, a blank or too long
-- sequence_key (JQ100, JQ106). Each writes nothing.
BEGIN;
SELECT plan(13);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-wf');
SELECT jobq.enqueue('pgtap-wf') AS p \gset
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-wf', depends_on => ARRAY[999999999]::bigint[]) $$,
    'JQ700', 'JOB.DEPENDENCY_NOT_FOUND: no job 999999999 of this store, live or finished', 'an unknown id: JQ700');
SELECT throws_ok(format($$ SELECT jobq.enqueue('pgtap-wf', depends_on => ARRAY[%s]::bigint[]) $$, currval('jobq.jobs_id_seq') + 1),
    'JQ701', NULL, 'its own id (the next one drawn): JQ701');
SELECT throws_ok(format($$ SELECT * FROM jobq.enqueue_many('[{"task": "pgtap-wf"}, {"task": "pgtap-wf", "depends_on": [%s]}]') $$, currval('jobq.jobs_id_seq') + 1),
    'JQ701', NULL, 'a job of the same call by id: JQ701');
SELECT throws_ok(format($$ SELECT jobq.enqueue('pgtap-wf', depends_on => (SELECT array_agg(%s::bigint) FROM generate_series(1, 10001))) $$, :p),
    'JQ702', 'JOB.TOO_MANY_DEPENDENCIES: 10001 dependencies; the limit is 10000', '10,001 parents: JQ702');
SELECT throws_ok(format($$ SELECT jobq.enqueue('pgtap-wf', job_key => 'k', depends_on => ARRAY[%s]::bigint[]) $$, :p),
    'JQ703', NULL, 'a job_key beside depends_on: JQ703');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-wf', job_key => 'k', sequence_key => 's') $$, 'JQ703', NULL, 'a job_key beside sequence_key: JQ703');
SELECT throws_ok(format($$ SELECT jobq.enqueue('pgtap-wf', depends_on => ARRAY[%s]::bigint[], on_parent_failure => 'ignore') $$, :p),
    'JQ100', 'JOB.INVALID_ARGUMENT: on_parent_failure ''ignore'': cancel or run', 'on_parent_failure other than cancel | run: JQ100');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-wf', sequence_key => 's', on_sequence_failure => 'skip') $$, 'JQ100', NULL,
    'on_sequence_failure other than hold | continue: JQ100');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-wf', sequence_key => '  ') $$, 'JQ100', 'JOB.INVALID_ARGUMENT: sequence_key is blank', 'a blank sequence_key: JQ100');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-wf', sequence_key => repeat('s', 501)) $$, 'JQ106', NULL, 'a sequence_key above 500 characters: JQ106');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-wf', depends_on => ARRAY[NULL]::bigint[]) $$, 'JQ100', NULL, 'a NULL parent: JQ100');
SELECT results_eq('SELECT * FROM jobq_test.counts()', 'SELECT * FROM before', 'nothing was written');

-- 10,000 parents are accepted (the same parent listed once per id: 10,000 distinct jobs).
SELECT jobq.enqueue_many((SELECT jsonb_agg(jsonb_build_object('task', 'pgtap-wf', 'run_at', now() + interval '1 day')) FROM generate_series(1, 9999)));
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-wf', depends_on => (SELECT array_agg(id) FROM jobq.jobs)) $$, '10,000 parents are accepted');

SELECT * FROM finish();
ROLLBACK;
