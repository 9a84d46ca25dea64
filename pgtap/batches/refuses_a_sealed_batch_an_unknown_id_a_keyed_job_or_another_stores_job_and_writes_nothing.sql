-- batch_enqueue refuses a sealed batch (JQ721), an unknown or NULL id (JQ720), a job with a
-- job_key (JQ100: it could merge into a job outside the batch) and a job of another store than
-- the batch (JQ723), all or nothing: no job is written and the counts stay.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-b');
SELECT FROM jobq.define_task('pgtap-store-b', scope => 'store');
CREATE TEMP TABLE sealed AS SELECT jobq.create_batch() AS id;
SELECT FROM jobq.batch_enqueue((SELECT id FROM sealed), '[{"task": "pgtap-b"}]');
SELECT FROM jobq.seal_batch((SELECT id FROM sealed));
CREATE TEMP TABLE open AS SELECT jobq.create_batch() AS id;
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT throws_ok(format($$ SELECT jobq.batch_enqueue(%s, '[{"task": "pgtap-b"}]') $$, (SELECT id FROM sealed)),
                 'JQ721', NULL, 'a sealed batch takes no job (JOB.BATCH_SEALED)');
SELECT throws_ok($$ SELECT jobq.batch_enqueue(987654321, '[{"task": "pgtap-b"}]') $$, 'JQ720', NULL, 'an unknown batch (JOB.BATCH_NOT_FOUND)');
SELECT throws_ok($$ SELECT jobq.batch_enqueue(NULL, '[{"task": "pgtap-b"}]') $$, 'JQ720', NULL, 'a NULL batch id (JOB.BATCH_NOT_FOUND)');
SELECT throws_ok(format($$ SELECT jobq.batch_enqueue(%s, '[{"task": "pgtap-b"}, {"task": "pgtap-b", "job_key": "k"}]') $$, (SELECT id FROM open)),
                 'JQ100', NULL, 'a keyed job (JOB.INVALID_ARGUMENT)');
SELECT throws_ok(format($$ SELECT jobq.batch_enqueue(%s, '[{"task": "pgtap-b"}, {"task": "pgtap-store-b", "store_id": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"}]') $$, (SELECT id FROM open)),
                 'JQ723', NULL, 'a store''s job in a system batch (JOB.BATCH_STORE_MISMATCH)');
SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'nothing was written');
SELECT results_eq($$ SELECT total FROM jobq.batch_list() ORDER BY id $$, $$ VALUES (1::bigint), (0::bigint) $$, 'the counts are unchanged');

SELECT * FROM finish();
ROLLBACK;
