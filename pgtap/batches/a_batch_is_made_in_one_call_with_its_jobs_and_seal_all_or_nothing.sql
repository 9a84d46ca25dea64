-- create_batch with jobs and seal makes a whole batch in one call: the jobs are added and counted
-- and the batch sealed (an empty one settles at once, enqueuing its callbacks). All or nothing: a
-- bad job refuses the call and no batch nor job is written.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-b', 'pgtap-cb');
CREATE TEMP TABLE b AS SELECT jobq.create_batch(on_complete => '{"task": "pgtap-cb"}',
    jobs => '[{"task": "pgtap-b"}, {"task": "pgtap-b"}, {"task": "pgtap-b"}]', seal => true) AS id;
SELECT results_eq($$ SELECT state, total, pending FROM jobq.batch_status((SELECT id FROM b)) $$,
                  $$ VALUES ('sealed'::text, 3::bigint, 3::bigint) $$, 'one call: three jobs added, the batch sealed');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE batch_id = (SELECT id FROM b)), 3::bigint, 'the three jobs carry the batch id');

CREATE TEMP TABLE e AS SELECT jobq.create_batch(on_complete => '{"task": "pgtap-cb"}', jobs => '[]', seal => true) AS id;
SELECT results_eq($$ SELECT state, cardinality(callback_job_ids) FROM jobq.batch_status((SELECT id FROM e)) $$,
                  $$ VALUES ('settled'::text, 1) $$, 'an empty batch made in one call settles in it, with its callback');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
CREATE TEMP TABLE batches_before AS SELECT count(*) AS n FROM jobq.batches;
SELECT throws_ok($$ SELECT jobq.create_batch(jobs => '[{"task": "pgtap-b"}, {"task": "pgtap-nope"}]', seal => true) $$,
                 'JQ401', NULL, 'a job of an unknown task refuses the whole call');
SELECT results_eq($$ SELECT (SELECT c FROM jobq_test.counts() AS c)::text, (SELECT count(*) FROM jobq.batches) $$,
                  $$ SELECT (SELECT b FROM before AS b)::text, (SELECT n FROM batches_before) $$, 'and writes no job and no batch');

SELECT * FROM finish();
ROLLBACK;
